"""DP on Dask: counts before noise equal the pandas counts exactly; with the same seed the
noisy release equals the pandas query's; the ledger is charged once whatever the partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import dp
from synthguard.errors import DataError, ParameterError

dd = pytest.importorskip("dask.dataframe")
scale_dp = pytest.importorskip("synthguard.scale.dp")

from synthguard.dp.synthesizers._on_dask.common import _Drawer  # noqa: E402
from tests.scale.conftest import tied_frame  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:seeded numpy noise:synthguard.errors.PrivacyWarning"
)

CATS = {"sex": ["f", "m"], "region": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]}


def _complete(n: int, seed: int) -> pd.DataFrame:
    data = tied_frame(n, seed).iloc[5:]  # drop the out-of-domain singleton regions
    return data.dropna(subset=["sex", "region"]).reset_index(drop=True)


def test_marginal_counts_equal_pandas_crosstab_for_any_partitioning():
    data = _complete(3000, 50)
    expected = pd.crosstab(data["sex"], data["region"]).reindex(
        index=CATS["sex"], columns=CATS["region"], fill_value=0
    )
    for parts in (1, 4, 9):
        got = scale_dp.marginal_counts(
            dd.from_pandas(data, npartitions=parts), ["sex", "region"], CATS
        )
        assert got.shape == (2, 6)
        assert np.array_equal(got, expected.to_numpy())
    assert got.sum() == len(data)


def test_histogram_equals_the_pandas_query_with_the_same_seed_and_charges_once():
    data = _complete(2000, 51)
    ledger_p = dp.PrivacyLedger(epsilon=1.0)
    ledger_d = dp.PrivacyLedger(epsilon=1.0)
    expected = dp.dp_histogram(
        data["region"], categories=CATS["region"], epsilon=0.5, ledger=ledger_p, random_state=3
    )
    got = scale_dp.dp_histogram(
        dd.from_pandas(data, npartitions=5),
        "region",
        categories=CATS["region"],
        epsilon=0.5,
        ledger=ledger_d,
        random_state=3,
    )
    pd.testing.assert_series_equal(got.value, expected.value)
    assert got.scale == expected.scale == 2.0
    assert len(ledger_d.charges) == 1 and ledger_d.spent.epsilon == 0.5


def test_marginal_release_is_one_measurement_on_all_cells():
    data = _complete(1500, 52)
    ledger = dp.PrivacyLedger(epsilon=1.0)
    d = dd.from_pandas(data, npartitions=3)
    res = scale_dp.dp_marginal(
        d, ["sex", "region"], categories=CATS, epsilon=0.25, ledger=ledger, random_state=4
    )
    assert len(res.value) == 12 and res.value.index.names == ["sex", "region"]
    true = scale_dp.marginal_counts(d, ["sex", "region"], CATS).ravel()
    rng = np.random.default_rng(4)  # the seeded simulation path: true + Laplace(1/ε)
    assert np.allclose(res.value.to_numpy(), true + rng.laplace(0.0, 4.0, 12))
    assert [c.epsilon for c in ledger.charges] == [0.25]


def test_count_and_sum_equal_pandas_queries():
    data = _complete(1000, 53)
    data["rich"] = data["income"] > 10
    d = dd.from_pandas(data, npartitions=4)
    ledger = dp.PrivacyLedger(epsilon=6.0)
    for where, arr in ((None, data), ("rich", data["rich"].to_numpy())):
        got = scale_dp.dp_count(d, where=where, epsilon=1.0, ledger=ledger, random_state=5)
        assert got.value == dp.dp_count(arr, epsilon=1.0, ledger=ledger, random_state=5).value
    got = scale_dp.dp_sum(d, "income", lower=-5, upper=15, epsilon=1.0, ledger=ledger,
                          random_state=6)
    expected = dp.dp_sum(data["income"], lower=-5, upper=15, epsilon=1.0, ledger=ledger,
                         random_state=6)
    assert got.value == pytest.approx(expected.value, abs=1e-9)


def test_undeclared_or_out_of_domain_levels_are_refused():
    data = tied_frame(300, 54)  # missing values and regions 10..14 outside CATS
    d = dd.from_pandas(data, npartitions=2)
    with pytest.raises(DataError, match="region"):
        scale_dp.marginal_counts(d, ["region"], CATS)
    with pytest.raises(ParameterError, match="lacking"):
        scale_dp.marginal_counts(d, ["sex", "age"], CATS)


def test_mst_on_dask_counts_by_partition_and_equals_the_pandas_release():
    rng = np.random.default_rng(70)
    n = 600
    data = pd.DataFrame(
        {
            "a": rng.choice(list("xyz"), n),
            "b": rng.choice(list("pq"), n),
            "c": rng.choice(list("uvwrst"), n, p=[0.5, 0.3, 0.1, 0.05, 0.03, 0.02]),
        }
    )
    data["b"] = np.where(data["a"] == "x", "p", data["b"])  # a dependence to select
    cats = {"a": list("xyz"), "b": list("pq"), "c": list("uvwrst")}
    kw = dict(epsilon=1.0, categories=cats, iters=100, random_state=3)
    ledger = dp.PrivacyLedger(epsilon=1.0, delta=1e-5)
    pandas_mst = dp.MSTSynthesizer(**kw).fit(data)
    dask_mst = dp.MSTSynthesizer(ledger=ledger, **kw).fit(dd.from_pandas(data, npartitions=4))
    assert len(ledger.charges) == 1
    for ours, theirs in zip(dask_mst._noisy_marginals()[1], pandas_mst._noisy_marginals()[1]):
        assert ours[0] == theirs[0] and np.array_equal(ours[1], theirs[1])
    with pytest.raises(ParameterError, match="categories="):
        dp.MSTSynthesizer(epsilon=1.0, domain_from_data="not-dp").fit(
            dd.from_pandas(data, npartitions=2)
        )


def _fitted_pair():
    rng = np.random.default_rng(71)
    n = 500
    data = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                         "age": rng.integers(18, 80, n)})
    kw = dict(epsilon=1.0, categories={"a": list("xyz"), "b": list("pq")},
              bins={"age": [18, 30, 50, 80]}, iters=100, random_state=4)
    return (dp.MSTSynthesizer(**kw).fit(data),
            dp.MSTSynthesizer(**kw).fit(dd.from_pandas(data, npartitions=3)))


def test_mst_draws_lazily_per_partition_on_the_workers(monkeypatch):
    import pickle

    pandas_mst, dask_mst = _fitted_pair()
    drawn: list[int] = []
    draw = _Drawer.draw
    monkeypatch.setattr(_Drawer, "draw",
                        lambda self, n, rng: drawn.append(n) or draw(self, n, rng))
    release = dask_mst.sample(m=2, n=1000, random_state=9, partition_rows=300)
    assert drawn == [1]  # nothing drawn yet but the one-row template of the columns' types
    first, second = release.implicates
    assert first.npartitions == 4 and release.provenance["partitions"] == 4
    # the graph the client sends holds the model (tables of a few cells), not the records
    graph = pickle.dumps(dict(first.__dask_graph__()))
    assert len(graph) < 20_000
    got = first.compute()
    assert drawn[1:] == [250, 250, 250, 250] and len(got) == 1000
    # the same seed and partitioning give the same release; implicates differ
    again = dask_mst.sample(m=2, n=1000, random_state=9, partition_rows=300).implicates[0]
    pd.testing.assert_frame_equal(again.compute(), got)
    pd.testing.assert_frame_equal(first.compute(), got)  # a second compute: the same records
    assert not second.compute().reset_index(drop=True).equals(got.reset_index(drop=True))
    # partition j of implicate i draws from SeedSequence(seed).spawn(m)[i].spawn(k)[j]
    ss = np.random.SeedSequence(9).spawn(2)[0].spawn(4)[2]
    want = _Drawer.of(dask_mst).draw(250, np.random.default_rng(ss))
    part = first.get_partition(2).compute()
    pd.testing.assert_frame_equal(part.reset_index(drop=True), want)
    # one partition: the pandas release, draw for draw
    one = dask_mst.sample(m=2, n=1000, random_state=9).implicates
    for lazy, eager in zip(one, pandas_mst.sample(m=2, n=1000, random_state=9).implicates):
        pd.testing.assert_frame_equal(lazy.compute().reset_index(drop=True), eager)
    with pytest.raises(ParameterError, match="partition_rows"):
        dask_mst.sample(partition_rows=0)
