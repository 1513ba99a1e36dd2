"""An evaluation on Dask counts each column of each data set once (scale.utility's shared
value counts), with the counts of the measures unchanged."""

from __future__ import annotations

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")

from synthguard._dask import counts as su  # noqa: E402
from tests.scale.conftest import perturbed, tied_frame  # noqa: E402


def _counting(monkeypatch):
    """Record the column behind every value_counts built (the same key for the same column of
    the same data, however selected)."""
    seen: list[str] = []
    original = dd.Series.value_counts

    def counting(self, *args, **kwargs):
        seen.append(str(self.expr.simplify()._name))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(dd.Series, "value_counts", counting)
    return seen


def test_shared_counts_are_computed_once_and_equal_pandas(monkeypatch):
    conf = tied_frame(300, 3)
    ddf = dd.from_pandas(conf, npartitions=3)
    seen = _counting(monkeypatch)
    with su.shared_value_counts():
        first = su.value_counts([(ddf, "income"), (ddf, "sex")])
        again = su.value_counts([(ddf[["sex", "income"]], "income")])  # another selection
        sorted_income, = su.value_sorted([ddf], "income")
    assert len(seen) == 2  # income and sex, once each
    for got, col in zip(first, ["income", "sex"]):
        want = conf[col].value_counts(dropna=True)
        present = got[got.index.notna()]
        assert dict(zip(present.index.tolist(), present.tolist())) == want.to_dict()
        assert got[got.index.isna()].sum() == conf[col].isna().sum()
    assert again[0] is first[0]
    np.testing.assert_array_equal(sorted_income.to_numpy(dtype=float),
                                  np.sort(conf["income"].to_numpy(dtype=float)))
    su.value_counts([(ddf, "income")])  # outside the block: computed again, nothing kept
    assert len(seen) == 3


def test_the_room_of_the_shared_counts_is_bounded(monkeypatch):
    ddf = dd.from_pandas(tied_frame(300, 4), npartitions=2)
    seen = _counting(monkeypatch)
    monkeypatch.setattr(su, "SHARED_ENTRIES", 5)
    with su.shared_value_counts():
        su.value_counts([(ddf, "sex"), (ddf, "income")])  # 3 levels kept; income's too many
        su.value_counts([(ddf, "sex"), (ddf, "income")])
    assert len(seen) == 3


def test_an_evaluation_counts_each_column_of_each_data_set_once(monkeypatch):
    from synthguard.evaluation.on_dask import evaluate

    conf = tied_frame(240, 5)
    syn = perturbed(conf, 6)
    seen = _counting(monkeypatch)
    evaluate(dd.from_pandas(conf, npartitions=2), {"p": dd.from_pandas(syn, npartitions=3)},
             keys=["sex", "region"], targets=["income"], kinds={"p": "partial"},
             random_state=1)
    repeated = {k for k in seen if seen.count(k) > 1}
    assert not repeated
    assert len(seen) >= 2 * conf.shape[1]  # every column of both data sets was counted
