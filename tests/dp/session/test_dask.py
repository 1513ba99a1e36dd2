"""The Session on a Dask frame: the same bounded sums as pandas, the same release from the
same seeds, one charge, and a refusal (nothing spent) for what needs more than sums."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import Session
from synthguard.dp.session.bounding import _ID, bound, salts
from synthguard.dp.session.measure import sufficient
from synthguard.dp.session.session import _codes
from synthguard.dp.session.spec import parse_aggregations
from synthguard.dp.session.unit import PrivacyUnit
from synthguard.errors import ParameterError, PrivacyWarning

from .conftest import households

dd = pytest.importorskip("dask.dataframe")

AGGS = {"n": "count", "households": "count_distinct",
        "total": ("sum", "hours_per_week", (0, 100)),
        "hours": ("mean", "hours_per_week", (0, 100)),
        "spread": ("variance", "hours_per_week", (0, 100))}
BY = {"sex": ["Male", "Female"], "agegroup": ["young", "middle", "old"]}


@pytest.fixture
def persons():
    df = households(250, seed=9, max_size=7)
    df.loc[df.index % 17 == 0, "hours_per_week"] = np.nan  # left out of the value statistics
    return df


def test_bounded_sums_equal_pandas(persons):
    """Same salts: the partitions bound each unit to the rows pandas keeps (bounds that bite:
    households of up to 7 rows cut to 3, at most 2 per group, at most 2 groups)."""
    from synthguard.dp.session.dask import dask_sums

    unit = PrivacyUnit.make("hid", 3, 2, 2)
    aggs = parse_aggregations(AGGS)
    keys = pd.MultiIndex.from_product(list(BY.values()), names=list(BY)).to_frame(index=False)
    cols = list(BY)
    s = salts(np.random.default_rng(5))
    b = bound(persons, unit, cols, s)
    assert len(b) < len(persons)  # the truncation did cut rows
    codes = _codes(b, cols, keys)
    got = dask_sums(dd.from_pandas(persons, npartitions=5), unit, cols, keys, aggs, s)
    for a in aggs:
        x = None if a.column is None else b[a.column].to_numpy(dtype=float)
        c, u = codes, b[_ID].to_numpy()
        if x is not None:
            keep = ~np.isnan(x)
            x, c, u = x[keep], c[keep], u[keep]
        want = sufficient(a, c, u, x, len(keys), a.bounds)
        assert set(got[a.name]) == set(want)
        for stat in want:  # integer hours: the tree sums are exact
            np.testing.assert_array_equal(got[a.name][stat], want[stat])


def test_same_seeds_same_release_and_one_charge(persons):
    frames = []
    sessions = []
    for data in (persons, dd.from_pandas(persons, npartitions=4)):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
            s = Session(data, privacy_unit="hid", max_rows=3, max_rows_per_group=2,
                        epsilon=1.0, random_state=7, noise_random_state=11)
            frames.append(s.query(by=BY, aggregations=AGGS, epsilon=0.5, raw_noisy=True)
                          .to_frame())
        sessions.append(s)
    pd.testing.assert_frame_equal(frames[0], frames[1], rtol=1e-12)
    pand, dsk = sessions
    assert math.isclose(dsk.spent.epsilon, 0.5)
    assert [(c.label, c.epsilon, c.privacy_unit) for c in dsk.ledger.charges] == [
        (c.label, c.epsilon, c.privacy_unit) for c in pand.ledger.charges]


def test_dask_refuses_what_needs_more_than_sums_before_charging(persons):
    s = Session(dd.from_pandas(persons, npartitions=3), privacy_unit="hid", max_rows=3,
                epsilon=1.0)
    with pytest.raises(ParameterError, match="quantile"):
        s.query(by=BY, aggregations={"m": ("median", "hours_per_week", (0, 100))},
                epsilon=0.1)
    with pytest.raises(ParameterError, match="public"):
        s.query(by=["sex"], aggregations={"n": "count"}, epsilon=0.1, delta=1e-9)
    assert s.spent.epsilon == 0 and not s.ledger.charges
    # a release (OpenDP noise) of the five aggregations goes through
    r = s.query(by=BY, aggregations=AGGS, epsilon=0.5)
    f = r.to_frame()
    assert len(f) == 6 and (f["n"] >= 0).all() and math.isclose(s.spent.epsilon, 0.5)
