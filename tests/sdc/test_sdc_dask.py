"""SDC steps given a Dask frame: top-coding and generalisation equal the pandas step row for
row; noise and swapping within strata equal the pandas step applied stratum by stratum with
the documented per-stratum generators, whatever the partitioning; PRAM and noise without
strata draw partition by partition, equal to the pandas step on each partition with the
partition's generator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import sdc
from synthguard.errors import ParameterError

dd = pytest.importorskip("dask.dataframe")
scale_sdc = sdc  # the steps take Dask frames at their own front door

from synthguard._dask.partitions import pattern_hash  # noqa: E402
from tests.scale.conftest import tied_frame  # noqa: E402


def _by_stratum(data, strata, fn, seed, **kw):
    """Reference: the pandas function on every stratum with SeedSequence(seed, spawn_key=(h,))."""
    pieces = []
    for _, sub in data.groupby(strata, dropna=False, sort=False):
        h = int(pattern_hash(sub.iloc[:1], strata)[0])
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(h,)))
        pieces.append(fn(sub, random_state=rng, **kw).data)
    return pd.concat(pieces).sort_index()


def test_topcode_equals_pandas_in_row_order():
    data = tied_frame(900, 40)
    expected = sdc.topcode(data, "income", at=12).data
    got = scale_sdc.topcode(dd.from_pandas(data, npartitions=4), "income", at=12).data.compute()
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    assert (got["income"] == 12).sum() == (data["income"] >= 12).sum() > 0
    low = scale_sdc.bottomcode(dd.from_pandas(data, npartitions=3), "income", at=-5).data.compute()
    pd.testing.assert_frame_equal(
        low, sdc.bottomcode(data, "income", at=-5).data, check_dtype=False
    )


def test_topcode_refuses_statistics_of_all_partitions():
    d = dd.from_pandas(tied_frame(50, 41), npartitions=2)
    with pytest.raises(ParameterError, match="'at'"):
        scale_sdc.topcode(d, "income", at=None)
    with pytest.raises(ParameterError, match="'at'"):
        scale_sdc.topcode(d, "income", at=3, percentile=90)
    with pytest.raises(ParameterError, match="'percentile'"):
        scale_sdc.topcode(d, "income", percentile=100)
    with pytest.raises(ParameterError, match="'replacement'"):
        scale_sdc.topcode(d, "income", at=3, replacement="mean")


@pytest.mark.parametrize("percentile", [5, 33.3, 50, 94, 99.9])
def test_percentile_coding_equals_pandas(percentile):
    """The threshold is numpy's percentile of all non-missing values, computed on the
    workers: ties, missing values, negative values and zeros of both signs."""
    data = tied_frame(1300, 42)
    data.loc[data.index % 7 == 0, "income"] = np.nan
    data.loc[data.index % 11 == 0, "income"] = -0.0
    d = dd.from_pandas(data, npartitions=5)
    for fn in ("topcode", "bottomcode"):
        expected = getattr(sdc, fn)(data, "income", percentile=percentile)
        got = getattr(scale_sdc, fn)(d, "income", percentile=percentile).data.compute()
        pd.testing.assert_frame_equal(got, expected.data, check_dtype=False)
        t = float(np.percentile(data["income"].dropna(), percentile))
        assert expected.params["threshold"] == t
        assert (got["income"] == t).sum() > 0


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("add_noise", dict(columns=["income", "age"], scale=0.2)),
        ("swap", dict(columns="income", rate=0.5, method="rank", max_rank_distance=0.2)),
    ],
)
def test_within_strata_equals_pandas_per_stratum_for_any_partitioning(name, kw):
    data = tied_frame(1200, 42).iloc[5:]  # no singleton strata: noise needs two values
    data = data.assign(sex=data["sex"].fillna("f"))
    strata = ["region"]  # missing values form a stratum of their own
    expected = _by_stratum(data, strata, getattr(sdc, name), 7, **kw)
    fn = getattr(sdc, name)
    for p in (2, 5):
        got = fn(dd.from_pandas(data, npartitions=p), strata=strata, random_state=7, **kw)
        pd.testing.assert_frame_equal(got.data.compute().sort_index(), expected,
                                      check_dtype=False)
        changes = got.changes.compute().sort_index()
        pd.testing.assert_frame_equal(changes, (expected != data) & data.notna(),
                                      check_dtype=False)
    if name == "add_noise":  # the pandas strata= path draws the same
        pandas_path = fn(data, strata=strata, random_state=7, **kw).data
        pd.testing.assert_frame_equal(pandas_path, expected, check_dtype=False)
    changed = (expected != data).any(axis=1).mean()
    assert changed > 0


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("add_noise", dict(columns=["income", "age"], scale=0.2)),
        ("pram", dict(column="sex", transition_matrix=np.array([[0.8, 0.2], [0.3, 0.7]]),
                      levels=["f", "m"])),
    ],
)
def test_without_strata_each_partition_draws_from_its_own_generator(name, kw):
    """Partition j of the Dask release is the pandas step on partition j with
    SeedSequence(seed, spawn_key=(j,)); noise is scaled by the whole column's sd."""
    data = tied_frame(1000, 44)
    data = data.assign(sex=data["sex"].fillna("f"))
    d = dd.from_pandas(data, npartitions=3)
    got = getattr(sdc, name)(d, random_state=11, **kw)
    parts = [p.compute() for p in d.partitions]
    pieces = []
    for j, part in enumerate(parts):
        rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(j,)))
        if name == "pram":
            pieces.append(sdc.pram(part, random_state=rng, **kw).data)
            continue
        out = part.copy()
        for c in kw["columns"]:  # the whole column's sd, not the partition's
            sd = data[c].std(ddof=1)
            x = part[c].to_numpy(dtype=float, copy=True)
            obs = ~np.isnan(x)
            x[obs] = x[obs] + rng.normal(0.0, 0.2 * sd, size=obs.sum())
            out[c] = x
        pieces.append(out)
    expected = pd.concat(pieces)
    pd.testing.assert_frame_equal(got.data.compute(), expected, check_dtype=False,
                                  rtol=1e-9)


def test_swap_on_dask_needs_strata():
    d = dd.from_pandas(tied_frame(60, 45), npartitions=2)
    with pytest.raises(ParameterError, match="'strata'"):
        sdc.swap(d, "income", rate=0.5, random_state=1)


def test_swap_partners_stay_in_their_stratum_and_seed_matters():
    data = tied_frame(800, 43)
    d = dd.from_pandas(data, npartitions=3)
    a = scale_sdc.swap(d, "income", rate=1.0, strata=["sex", "region"], random_state=1)
    b = scale_sdc.swap(d, "income", rate=1.0, strata=["sex", "region"], random_state=2)
    a, b = a.data.compute().sort_index(), b.data.compute().sort_index()
    for _, g in data.groupby(["sex", "region"], dropna=False):
        assert sorted(a.loc[g.index, "income"]) == sorted(g["income"])
    assert not a["income"].equals(b["income"])
