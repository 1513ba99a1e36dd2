"""k-way marginals on Dask: the NIST k-way score and the workload error equal the pandas
figures bit for bit (exact quantile bins, exact cell counts), whatever the partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.data import infer_schema
from synthguard.errors import DataError, ParameterError
from synthguard.evaluation.workload_error import workload_error as pandas_workload
from synthguard.utility import kway_marginal_score as pandas_kway

dd = pytest.importorskip("dask.dataframe")
marginals = pytest.importorskip("synthguard.utility._on_dask.marginals")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402


def _data(n: int = 900, seed: int = 3):
    conf = tied_frame(n, seed)
    rng = np.random.default_rng(seed)
    conf["x"] = rng.normal(size=n).round(2)  # continuous, a few ties
    conf.loc[rng.random(n) < 0.07, "x"] = np.nan
    syn = [perturbed(conf, seed + 1), perturbed(conf, seed + 2)]
    syn[1].loc[::7, "sex"] = "z"  # a level the data lacks: the missing cell
    syn[0]["x"] = syn[0]["x"] * 1.3  # beyond the confidential bins
    return conf, syn


def _dask(conf, syn, parts=(4, 3)):
    return (dd.from_pandas(conf, npartitions=parts[0]),
            [dd.from_pandas(s, npartitions=parts[1]) for s in syn])


def test_quantiles_from_counts_are_numpys_to_the_bit():
    rng = np.random.default_rng(0)
    for t in range(400):
        n = int(rng.integers(1, 50))
        x = (rng.normal(size=n) * 10.0 ** rng.integers(-3, 6) if t % 2
             else rng.integers(-5, 5, n).astype(float))
        q = np.linspace(0, 1, int(rng.integers(3, 21)))[1:-1]
        values, counts = np.unique(x, return_counts=True)
        got = marginals.quantiles_from_counts(values, counts, q)
        assert np.array_equal(got, np.quantile(x, q)), (x, q)


@pytest.mark.parametrize("parts", [(1, 1), (4, 3), (7, 2)])
def test_kway_score_equals_pandas_bit_for_bit(parts):
    conf, syn = _data()
    expected = pandas_kway(conf, syn, random_state=5)
    got = pandas_kway(*_dask(conf, syn, parts), random_state=5)
    assert got.tv == expected.tv and 0 < got.tv < 1
    assert got.score == expected.score and got.seed == expected.seed == 5
    pd.testing.assert_frame_equal(got.draws, expected.draws)


def test_kway_with_declared_levels_and_two_way_draws():
    conf, syn = _data(600, 8)
    schema = infer_schema(conf, overrides={"region": "categorical"})
    expected = pandas_kway(conf, syn[0], k=2, n_draws=20, n_bins=4, schema=schema,
                           random_state=1)
    got = pandas_kway(*_dask(conf, syn[:1], (3, 5)), k=2, n_draws=20,
                                        n_bins=4, schema=schema, random_state=1)
    assert got.tv == expected.tv
    pd.testing.assert_frame_equal(got.draws, expected.draws)


@pytest.mark.parametrize("max_marginals", [500, 4])
def test_workload_error_equals_pandas_bit_for_bit(max_marginals):
    conf, syn = _data()
    expected = pandas_workload(conf, syn, max_marginals=max_marginals, random_state=2)
    got = marginals.workload_error(*_dask(conf, syn), max_marginals=max_marginals,
                                   random_state=2)
    assert got == expected and sorted(got) == [1, 2, 3]
    assert 0 < got[1] < got[2] < got[3] < 1


def test_one_pass_gives_both_measures():
    conf, syn = _data(500, 4)
    kway, work = marginals.marginal_scores(*_dask(conf, syn), kway_random_state=7,
                                           workload_random_state=8)
    assert kway is not None and kway.tv == pandas_kway(conf, syn, random_state=7).tv
    assert work == pandas_workload(conf, syn, random_state=8)


def test_bad_input():
    conf, syn = _data(200, 5)
    dconf, dsyn = _dask(conf, syn)
    with pytest.raises(ParameterError, match="parameter 'k'"):
        pandas_kway(dconf, dsyn, k=9)
    with pytest.raises(ParameterError, match="n_bins"):
        pandas_kway(dconf, dsyn, n_bins=1)
    texty = syn[0].assign(age=syn[0]["age"].astype(str).where(syn[0].index > 3, "old"))
    with pytest.raises(DataError, match="column 'age': expected numbers"):
        marginals.workload_error(dconf, [dd.from_pandas(texty, npartitions=2)],
                                 schema=infer_schema(conf), orders=(1,))
    empty = dd.from_pandas(conf.iloc[:0], npartitions=1)
    with pytest.raises(DataError, match="no rows"):
        marginals.workload_error(dconf, [empty], schema=infer_schema(conf), orders=(1,))


@pytest.mark.parametrize("kept", [1 << 24, 0])
def test_smaller_sets_summed_from_a_counted_superset_equal_counting(kept, monkeypatch):
    """A partition counts each 3-way set once and sums its 1- and 2-way subsets from that
    dense table (columns in any order): the cells and counts of counting each set from the
    rows; with little room for dense tables, sets are counted from the rows as before."""
    import itertools

    from synthguard.utility import blocks

    monkeypatch.setattr(blocks, "_DENSE_KEPT", kept)
    conf, syn = _data(700, 5)
    schema = infer_schema(conf)
    cols = list(conf.columns)
    plan = marginals.coding(*_dask(conf, syn), schema, cols, 5)
    sets = [s for k in (3, 1, 2) for s in itertools.combinations(cols, k)]
    sets += [("age", "sex"), ("x", "region", "sex")]  # out of the columns' order
    summed = []
    margin = blocks.margin_of
    monkeypatch.setattr(blocks, "margin_of", lambda *a: summed.append(a[3]) or margin(*a))
    n, got = blocks.partition_cells(conf, plan, sets)
    assert n == len(conf)
    smaller = [c for c in sets if len(c) < 3]
    assert summed == (sorted(smaller, key=len, reverse=True) if kept else [])
    for chosen, (cells, counts) in zip(sets, got, strict=True):
        idx = np.zeros(len(conf), dtype=np.int64)
        for c in chosen:
            idx = idx * plan.size(c) + plan.codes(conf, c)
        want_cells, want_counts = np.unique(idx, return_counts=True)
        np.testing.assert_array_equal(cells, want_cells)
        np.testing.assert_array_equal(counts, want_counts)
