"""AIM on Dask: every marginal AIM reads (1-way, candidates' scores, measurements) equals the
pandas one and a crosstab exactly, counted in one pass; the ledger is charged once; with the
same seed the fit and the release are the pandas ones; records stay in the declared domain."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from synthguard import dp
from synthguard.dp import _noise
from synthguard.dp.conversion import epsilon_to_rho
from synthguard.dp.synthesizers import aim as _aim
from synthguard.errors import ParameterError

dd = pytest.importorskip("dask.dataframe")
scale = pytest.importorskip("synthguard.scale")
from synthguard.dp.synthesizers._on_dask import aim as dp_aim  # noqa: E402
from tests.scale.conftest import tied_frame  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")

CATS = {"sex": ["f", "m", "x", "nobody"]}  # 'nobody' never occurs
BINS = {"region": [0, 2, 4, 6], "age": [18, 22, 26, 30]}
COLS = ["sex", "region", "age"]


def _data(n: int, seed: int) -> pd.DataFrame:
    """tied_frame's ties and missing values: missing sex as the public level 'x', missing
    regions in the binned column's public missing cell."""
    data = tied_frame(n, seed).iloc[5:].reset_index(drop=True)
    data["sex"] = data["sex"].fillna("x")
    return data


def _kw(**extra):
    return {"epsilon": 2.0, "delta": 1e-6, "columns": COLS, "categories": CATS, "bins": BINS,
            "missing": ["region"], "max_rounds": 3, "iters": 30, "final_iters": 60,
            "random_state": 4, **extra}


def _reads(monkeypatch, cls):
    """Every marginal ``cls`` reads of the data: (clique, counts)."""
    seen: list[tuple[tuple[str, ...], np.ndarray]] = []
    read = cls._marginal

    def spy(self, codes, clique, shape):
        out = read(self, codes, clique, shape)
        seen.append((clique, out.copy()))
        return out

    monkeypatch.setattr(cls, "_marginal", spy)
    return seen


def test_every_marginal_read_equals_pandas_and_a_crosstab(monkeypatch):
    data = _data(1200, 80)
    pandas_reads = _reads(monkeypatch, _aim.AIMSynthesizer)
    pandas_aim = dp.AIMSynthesizer(**_kw()).fit(data)
    want = list(pandas_reads)
    dask_reads = pandas_reads  # one class fits both: the same spy sees the Dask reads
    for k in (1, 4, 7):
        dask_reads.clear()
        syn = scale.AIMSynthesizer(**_kw()).fit(dd.from_pandas(data, npartitions=k))
        assert [c for c, _ in dask_reads] == [c for c, _ in want]  # the same reads, in order
        for (_, got), (_, exp) in zip(dask_reads, want):
            assert np.array_equal(got, exp)
        assert syn.selected_ == pandas_aim.selected_
        for ours, theirs in zip(syn._noisy, pandas_aim._noisy):
            assert ours[0] == theirs[0] and np.array_equal(ours[1], theirs[1])
    # and the counts are the data's: the sex x age table by crosstab, 'nobody' an empty row
    reads = dict(want)
    age = pd.cut(data["age"], BINS["age"], right=False, labels=False)
    table = pd.crosstab(data["sex"], age).reindex(index=CATS["sex"], columns=range(3),
                                                  fill_value=0)
    assert ("sex", "age") in reads
    assert np.array_equal(reads[("sex", "age")], table.to_numpy().ravel())
    regions = data["region"].isna().sum()
    assert reads[("region",)][-1] == regions > 0  # the public missing cell


def test_every_candidate_is_counted_in_the_one_pass(monkeypatch):
    data = _data(400, 81)
    calls: list[list[tuple[str, ...]]] = []
    tables = dp_aim._clique_tables
    monkeypatch.setattr(dp_aim, "_clique_tables",
                        lambda part, build, cliques, sizes: calls.append(cliques) or
                        tables(part, build, cliques, sizes))
    scale.AIMSynthesizer(**_kw(workload=[("sex", "age")])).fit(dd.from_pandas(data, 3))
    assert len(calls) == 3  # one task per partition, one pass
    # the closure of the workload and every column's 1-way marginal (region is in no
    # workload marginal but AIM measures it)
    assert calls[0] == [("age",), ("region",), ("sex",), ("sex", "age")]


def test_candidates_larger_than_the_model_size_are_not_counted_and_never_read(monkeypatch):
    data = _data(400, 86)
    calls: list[list[tuple[str, ...]]] = []
    tables = dp_aim._clique_tables
    monkeypatch.setattr(dp_aim, "_clique_tables",
                        lambda part, build, cliques, sizes: calls.append(cliques) or
                        tables(part, build, cliques, sizes))
    # cells: sex 4, region 7 (6 bins and the missing cell), age 3; a model of at most 20.5
    # cells: sex x region (28) and region x age (21) can never be scored, sex x age (12; 19
    # with the region's 1-way clique) can once the budget is spent
    kw = _kw(max_model_size=20.5 * 8 / 2**20, bins={**BINS, "region": [0, 1, 2, 3, 4, 5, 6]})
    syn = scale.AIMSynthesizer(**kw).fit(dd.from_pandas(data, 2))
    assert [cl for cl in calls[0] if len(cl) == 2] == [("sex", "age")]
    read = _reads(monkeypatch, _aim.AIMSynthesizer)
    pandas_aim = dp.AIMSynthesizer(**kw).fit(data)
    assert {cl for cl, _ in read if len(cl) == 2} == {("sex", "age")}  # read, and counted
    assert syn.selected_ == pandas_aim.selected_
    for ours, theirs in zip(syn._noisy, pandas_aim._noisy):
        assert ours[0] == theirs[0] and np.array_equal(ours[1], theirs[1])


def test_the_ledger_is_charged_once_and_the_noise_drawn_on_the_client(monkeypatch):
    data = _data(500, 82)
    ledger = dp.PrivacyLedger(epsilon=3.0, delta=1e-5)
    draws: list[int] = []
    add = _noise.add_gaussian
    monkeypatch.setattr(_noise, "add_gaussian",
                        lambda v, s, rng: draws.append(np.size(v)) or add(v, s, rng))
    syn = scale.AIMSynthesizer(ledger=ledger, **_kw(random_state=None, max_rounds=2)).fit(
        dd.from_pandas(data, 4))
    rho = epsilon_to_rho(2.0, 1e-6)
    assert [(c.label, c.kind) for c in ledger.charges] == [
        ("aim: 1-way + adaptive marginals", "zcdp")]
    assert ledger.charges[0].rho == pytest.approx(rho) == syn.rho_
    assert syn.noise_ == "opendp"
    # 3 one-way measurements and one per round, each of its marginal's cells
    assert len(draws) == 3 + syn.rounds_ and draws[:3] == [4, 4, 3]


def test_bad_parameters_are_refused_before_the_pass(monkeypatch):
    data = _data(300, 83)
    ledger = dp.PrivacyLedger(epsilon=3.0, delta=1e-5)
    counted: list[int] = []
    monkeypatch.setattr(dp_aim, "_clique_tables", lambda *a: counted.append(1))
    frame = dd.from_pandas(data, 2)
    with pytest.raises(ParameterError, match="categories="):
        scale.AIMSynthesizer(epsilon=1.0, domain_from_data="not-dp", ledger=ledger).fit(frame)
    with pytest.raises(ParameterError, match="workload"):
        scale.AIMSynthesizer(**_kw(workload=4, ledger=ledger)).fit(frame)
    with pytest.raises(ParameterError, match="delta"):
        scale.AIMSynthesizer(**{**_kw(), "delta": 0.0, "ledger": ledger}).fit(frame)
    assert counted == [] and ledger.charges == ()


def test_same_seed_same_release_one_partition_the_pandas_one_in_the_domain():
    data = _data(900, 84)
    pandas_aim = dp.AIMSynthesizer(**_kw()).fit(data)
    syn = scale.AIMSynthesizer(**_kw()).fit(dd.from_pandas(data, 3))
    for lazy, eager in zip(syn.sample(m=2, random_state=6).implicates,
                           pandas_aim.sample(m=2, random_state=6).implicates):
        pd.testing.assert_frame_equal(lazy.compute().reset_index(drop=True), eager)
    release = syn.sample(m=1, n=1000, random_state=7, partition_rows=300)
    first = release.implicates[0]
    assert first.npartitions == 4 == release.provenance["partitions"]
    # the tasks carry the junction tree's tables: no mbi module, no JAX model (plain pickle
    # refuses a module), a few kilobytes
    graph = pickle.dumps(dict(first.__dask_graph__()))
    assert len(graph) < 20_000 and b"jax" not in graph
    got = first.compute()
    pd.testing.assert_frame_equal(
        syn.sample(m=1, n=1000, random_state=7, partition_rows=300).implicates[0].compute(), got)
    # partition j draws from SeedSequence(seed).spawn(1)[0].spawn(k)[j]
    ss = np.random.SeedSequence(7).spawn(1)[0].spawn(4)[3]
    want = dp_aim.TreeDrawer.of(syn).draw(250, np.random.default_rng(ss))
    pd.testing.assert_frame_equal(first.get_partition(3).compute().reset_index(drop=True),
                                  want)
    assert set(got["sex"]) <= set(CATS["sex"])
    assert got["age"].between(18, 30).all()
    assert got["region"].dtype == pd.Int64Dtype() and got["region"].dropna().between(0, 6).all()
    # the draws follow the model: the released sex x age shares are the model's, to sampling
    # error (1000 rows: a few points)
    model = syn._jtree.project(("sex", "age"))
    shares = pd.crosstab(got["sex"], pd.cut(got["age"], BINS["age"], right=False,
                                            labels=False), normalize=True).reindex(
        index=CATS["sex"], columns=range(3), fill_value=0)
    assert np.abs(shares.to_numpy() - model / model.sum()).max() < 0.06


def test_on_a_local_cluster_the_release_is_the_synchronous_one(tmp_path):
    """The drawer carries the junction tree's tables, not the mbi module or the JAX model."""
    distributed = pytest.importorskip("distributed")
    import dask

    data = _data(500, 85)
    syn = scale.AIMSynthesizer(**_kw()).fit(dd.from_pandas(data, 2))
    want = syn.sample(n=600, random_state=8, partition_rows=200).implicates[0].compute()
    ledger = dp.PrivacyLedger(epsilon=3.0, delta=1e-5, path=tmp_path / "ledger.json")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                 dashboard_address=":0") as cluster,
        distributed.Client(cluster),
        dask.config.set(scheduler="distributed"),
    ):
        fitted = scale.AIMSynthesizer(ledger=ledger, **_kw()).fit(dd.from_pandas(data, 2))
        got = fitted.sample(n=600, random_state=8, partition_rows=200).implicates[0].compute()
    pd.testing.assert_frame_equal(got, want)
    assert len(dp.PrivacyLedger.open(tmp_path / "ledger.json").charges) == 1
