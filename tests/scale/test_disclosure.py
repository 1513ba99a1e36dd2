"""synthpop's repU, DiSCO and replicated uniques and the attribute attack on Dask equal the
pandas figures on random data with ties and missing values, whatever the partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.data import infer_schema
from synthguard.errors import DataError, ParameterError
from synthguard.risk import attribute_disclosure as pandas_attribute
from synthguard.risk.release_disclosure import release_disclosure as pandas_release

dd = pytest.importorskip("dask.dataframe")
scale_disc = pytest.importorskip("synthguard.risk._on_dask.disclosure")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

KEYS = ["sex", "region"]


def _frames(n: int, seed: int) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    conf = tied_frame(n, seed)
    rng = np.random.default_rng(seed + 100)
    conf["job"] = rng.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05])
    syn = []
    for k in range(2):
        s = perturbed(conf, seed + k).sample(frac=1.0, random_state=k).reset_index(drop=True)
        s["job"] = rng.choice(["a", "b", "c", None], n, p=[0.4, 0.4, 0.15, 0.05])
        s.iloc[: n // 4] = conf.iloc[: n // 4].to_numpy()  # real records copied: uniques
        syn.append(s.iloc[: n - 7 * k].reset_index(drop=True))  # implicates of other sizes
    return conf, syn


def _dask(frame: pd.DataFrame, parts: int) -> dd.DataFrame:
    return dd.from_pandas(frame, npartitions=parts)


@pytest.mark.parametrize("parts", [(1, 1), (3, 4), (7, 2)])
def test_release_disclosure_equals_pandas_bit_for_bit(parts):
    conf, syn = _frames(900, 3)
    targets = ["income", "job"]
    want = pandas_release(conf, syn, KEYS, targets)
    got = pandas_release(
        _dask(conf, parts[0]), [_dask(s, parts[1]) for s in syn], KEYS, targets)
    assert want.replicated_uniques > 0 and want.repu > 0 and want.disco > 0
    for f in ("replicated_uniques", "repu", "uio", "disco", "dorig", "disco_target"):
        assert getattr(got, f) == getattr(want, f), f
    for t in targets:
        pd.testing.assert_frame_equal(got.multi.results[t].per_implicate,
                                      want.multi.results[t].per_implicate, check_exact=True)
        pd.testing.assert_frame_equal(got.multi.results[t].check_1way,
                                      want.multi.results[t].check_1way)
    pd.testing.assert_frame_equal(got.to_frame(), want.to_frame(), check_exact=True)


def test_replicated_uniques_count_brute_force_over_buckets(monkeypatch):
    """Several shuffle buckets: the count equals a brute-force count of records unique in
    the data and appearing exactly once in the implicate."""
    monkeypatch.setattr(scale_disc, "_BUCKET_ROWS", 97)
    conf, syn = _frames(600, 5)
    got = pandas_release(_dask(conf, 4), _dask(syn[0], 3), KEYS, ["income"])
    key = conf.astype(object).where(conf.notna(), "NA").apply(tuple, axis=1)
    skey = syn[0][conf.columns].astype(object).where(syn[0][conf.columns].notna(), "NA")
    skey = skey.apply(tuple, axis=1)
    cc, sc = key.value_counts(), skey.value_counts()
    brute = sum(1 for k, v in cc.items() if v == 1 and sc.get(k, 0) == 1)
    assert brute > 0
    assert got.replicated_uniques == brute / len(conf)


@pytest.mark.parametrize("word", [1 << 62, 40, 7])
def test_rows_packed_in_one_or_several_words_give_the_pandas_figures(word, monkeypatch):
    """Cells and full rows travel as int64 words packing several codes (one word normally;
    several when the cardinalities' product exceeds a word, forced here by a small word):
    every figure stays the pandas one, bit for bit."""
    monkeypatch.setattr(scale_disc, "_WORD", word)
    monkeypatch.setattr(scale_disc, "_BUCKET_ROWS", 211)
    conf, syn = _frames(700, 11)
    cards = [3, 7, 40, 5]
    assert len(scale_disc._words(cards)) == {1 << 62: 1, 40: 3, 7: 4}[word]
    codes = np.array([[2, 6, 39, 4], [0, 0, 0, 0], [1, 3, 20, 2], [1, 3, 19, 4]])
    packed = scale_disc._pack(codes, cards)
    order = np.lexsort(codes.T[::-1])
    np.testing.assert_array_equal(np.lexsort(packed.T[::-1]), order)  # order kept
    targets = ["income", "job"]
    schema = infer_schema(conf)
    want = pandas_release(conf, syn, KEYS, targets)
    want_attr = pandas_attribute(conf, syn, KEYS, targets, schema=schema)
    got, got_attr = scale_disc.disclosure_measures(
        _dask(conf, 3), [_dask(s, 2) for s in syn], KEYS, targets, schema=schema)
    pd.testing.assert_frame_equal(got.to_frame(), want.to_frame(), check_exact=True)
    assert got.replicated_uniques == want.replicated_uniques > 0
    pd.testing.assert_frame_equal(got_attr.table, want_attr.table, rtol=1e-12)


@pytest.mark.parametrize("parts", [(1, 1), (5, 3)])
def test_attribute_disclosure_equals_pandas(parts):
    conf, syn = _frames(800, 7)
    schema = infer_schema(conf)
    targets = ["job", "income", "age"]
    want = pandas_attribute(conf, syn, KEYS, targets, schema=schema)
    got = pandas_attribute(
        _dask(conf, parts[0]), [_dask(s, parts[1]) for s in syn], KEYS, targets, schema=schema)
    # categorical accuracy exact; integer-valued numeric targets: means are exact too
    pd.testing.assert_frame_equal(got.table, want.table, check_exact=False, rtol=1e-12)
    share = got.table[got.table["measure"] != "rmse"]
    exp = want.table[want.table["measure"] != "rmse"]
    assert (share["release"].to_numpy() == exp["release"].to_numpy()).all()
    assert got.max_excess == want.max_excess


def test_attribute_ties_go_to_the_level_the_release_shows_first():
    """Per pattern two levels tied: the pandas attack picks the release's first one."""
    conf = pd.DataFrame({"k": ["x", "x", "y", "y"], "t": ["b", "a", "a", "b"]})
    syn = pd.DataFrame({"k": ["x", "x", "y", "y", "y"], "t": ["b", "a", "a", "b", "b"]})
    want = pandas_attribute(conf, syn, ["k"], ["t"])
    got = pandas_attribute(_dask(conf, 2), _dask(syn, 2), ["k"], ["t"])
    # x -> 'b' (seen first), y -> 'b' (most frequent): records 0 and 3 right
    assert got.table.loc[0, "release"] == want.table.loc[0, "release"] == 0.5


def test_numeric_attribute_with_float_targets_equals_pandas_to_rounding():
    rng = np.random.default_rng(2)
    conf = pd.DataFrame({"k": rng.integers(0, 5, 400), "y": rng.normal(50, 10, 400)})
    syn = conf.assign(y=conf["y"] + rng.normal(0, 3, 400))
    want = pandas_attribute(conf, syn, ["k"], ["y"])
    got = pandas_attribute(_dask(conf, 3), _dask(syn, 2), ["k"], ["y"])
    np.testing.assert_allclose(got.table[["release", "marginal"]].to_numpy(float),
                               want.table[["release", "marginal"]].to_numpy(float), rtol=1e-12)


def test_bad_input_is_refused():
    conf, syn = _frames(50, 1)
    with pytest.raises(ParameterError, match="also keys"):
        pandas_release(_dask(conf, 1), _dask(syn[0], 1), KEYS, ["sex"])
    with pytest.raises(DataError, match="nope"):
        pandas_release(_dask(conf, 1), _dask(syn[0], 1), KEYS, ["nope"])
    with pytest.raises(ParameterError, match="tolerance"):
        pandas_attribute(_dask(conf, 1), _dask(syn[0], 1), KEYS, ["job"], tolerance=-1)


def test_too_many_cells_are_refused_without_a_count(monkeypatch):
    monkeypatch.setattr(scale_disc, "MAX_CELLS", 10)
    conf, syn = _frames(200, 1)
    with pytest.raises(ParameterError, match="too many distinct combinations") as e:
        pandas_release(_dask(conf, 2), _dask(syn[0], 2), KEYS, ["income"])
    assert not any(ch.isdigit() for ch in str(e.value))


def test_on_a_local_cluster_the_figures_are_the_pandas_ones():
    distributed = pytest.importorskip("distributed")
    import dask

    conf, syn = _frames(400, 9)
    want = pandas_release(conf, syn, KEYS, ["job", "income"])
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                 dashboard_address=":0") as cluster,
        distributed.Client(cluster),
        dask.config.set(scheduler="distributed"),
    ):
        got, attr = scale_disc.disclosure_measures(
            _dask(conf, 3), [_dask(s, 2) for s in syn], KEYS, ["job", "income"])
    assert (got.replicated_uniques, got.repu, got.disco) == (
        want.replicated_uniques, want.repu, want.disco)
    assert attr.max_excess == pandas_attribute(conf, syn, KEYS, ["job", "income"]).max_excess
