"""synthpop's replicated.uniques as a public function (issue 36), against pandas' duplicated
and the repU the report already computes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError
from synthguard.risk import replicated_uniques
from synthguard.risk.release_disclosure import replicated_uniques as repu_shares


def _brute(conf: pd.DataFrame, rel: pd.DataFrame, cols: list[str]) -> np.ndarray:
    c = conf[cols].astype(str)
    r = rel[cols].astype(str)
    conf_unique = c[~c.duplicated(keep=False)]
    keys = set(map(tuple, conf_unique.to_numpy()))
    rel_unique = ~r.duplicated(keep=False)
    return np.array([u and tuple(row) in keys for u, row in zip(rel_unique, r.to_numpy())])


def test_equals_brute_force_and_the_reports_repu() -> None:
    rng = np.random.default_rng(0)
    n = 400
    conf = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.choice(["x", "y", None], n),
                         "c": rng.integers(0, 6, n)})
    rels = [conf.sample(frac=1, replace=True, random_state=s).reset_index(drop=True)
            for s in (1, 2)]
    res = replicated_uniques(conf, rels)
    for i, rel in enumerate(rels):
        ref = _brute(conf, rel, ["a", "b", "c"])
        np.testing.assert_array_equal(res.replications[i], ref)
        assert res.no_replications[i] == int(ref.sum())
        assert res.per_replications[i] == pytest.approx(100 * ref.sum() / n)
    np.testing.assert_allclose(np.array(res.per_replications) / 100, repu_shares(conf, rels))
    assert res.no_uniques == int((~conf.astype(str).duplicated(keep=False)).sum())


def test_exclude_drops_columns_from_the_comparison() -> None:
    conf = pd.DataFrame({"id": [1, 2, 3], "a": ["x", "x", "y"]})
    rel = pd.DataFrame({"id": [9, 8, 7], "a": ["y", "x", "z"]})
    assert replicated_uniques(conf, rel).no_replications == (0,)
    res = replicated_uniques(conf, rel, exclude=["id"])
    assert res.columns == ("a",) and res.replications[0].tolist() == [True, False, False]
    with pytest.raises(DataError, match=r"\['nope'\] in 'exclude'"):
        replicated_uniques(conf, rel, exclude=["nope"])
