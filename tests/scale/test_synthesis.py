"""synthguard.scale.synthesize: strata on workers equal the pandas release stratum by stratum;
without strata the release is reproducible for a given partitioning."""

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.synthesis import Synthesizer

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from synthguard.scale import stratum_seeds, synthesize  # noqa: E402


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _data(n: int = 480, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "west"], n)
    x = rng.normal(size=n).round(2)
    x[rng.random(n) < 0.1] = np.nan  # missing values: an indicator model per stratum
    return pd.DataFrame(
        {
            "region": region,
            "x": x,
            "sex": rng.choice(["F", "M"], n),
            "income": (1000 * rng.gamma(2.0, size=n)).round(0),
        }
    )


def _pandas_by_stratum(pdf, strata, m, seed, reports=None, **kw):
    """The pandas path, stratum by stratum in sorted order, with the documented seeds (each
    stratum's safeguard report appended to ``reports`` when given)."""
    keys = sorted(pdf[strata].drop_duplicates().itertuples(index=False, name=None))
    seeds = stratum_seeds(seed, len(keys))
    out = [[] for _ in range(m)]
    for b, key in enumerate(keys):
        rows = pdf[(pdf[strata] == list(key)).all(axis=1)].reset_index(drop=True)
        res = (
            Synthesizer(strata=strata, m=m, random_state=seeds[b], **kw)
            .fit(rows)
            .sample(diagnostics=False)
        )
        if reports is not None:
            reports.append(res.safeguards)
        for i in range(m):
            out[i].append(res.implicates[i])
    return [pd.concat(f, ignore_index=True) for f in out]


@pytest.mark.parametrize("npartitions", [1, 4])
def test_strata_equal_the_pandas_release_for_the_same_seed(npartitions):
    pdf = _data()
    kw = {"methods": {"x": "cart", "sex": "cart", "income": "norm"}, "min_stratum_size": 0}
    res = synthesize(
        dd.from_pandas(pdf, npartitions=npartitions), strata="region", m=2, random_state=11, **kw
    )
    assert (res.plan, res.n_blocks, res.m, res.kind) == ("strata", 3, 2, "full")
    assert res.safeguards is None  # computed with the release
    got = res.compute()
    reports = []
    want = _pandas_by_stratum(pdf, ["region"], 2, 11, reports, **kw)
    # what the safeguards did, per implicate, is the strata's summed (the CLI prints it)
    sg = res.safeguards
    assert sg.found == tuple(sum(r.found[i] for r in reports) for i in range(2))
    assert sg.coded == tuple(
        {c: sum(r.coded[i].get(c, 0) for r in reports) for c in ("x", "income")}
        for i in range(2))
    assert sg.rare == tuple(
        {c: sum(r.rare[i].get(c, 0) for r in reports) for c in {c for r in reports for c in r.rare[i]}}
        for i in range(2))
    assert sum(sg.totals().values()) > 0
    for g, w in zip(got, want, strict=True):
        assert list(g.columns) == ["region", "x", "sex", "income"]
        pd.testing.assert_frame_equal(g, w.astype(g.dtypes.to_dict()))
    assert not got[0].equals(got[1])  # implicates differ
    # the stratum sizes are the confidential ones, as the pandas path keeps them
    assert got[0]["region"].value_counts().sort_index().tolist() == (
        pdf["region"].value_counts().sort_index().tolist()
    )


def test_strata_release_does_not_depend_on_the_partitioning_and_n_is_allocated():
    pdf = _data()
    a = synthesize(
        dd.from_pandas(pdf, npartitions=2),
        strata="region",
        n=100,
        random_state=5,
        min_stratum_size=0,
    ).compute()[0]
    b = synthesize(
        dd.from_pandas(pdf, npartitions=5),
        strata="region",
        n=100,
        random_state=5,
        min_stratum_size=0,
    ).compute()[0]
    pd.testing.assert_frame_equal(a, b)
    sizes = pdf["region"].value_counts().sort_index().to_numpy()
    # largest remainder split of 100 rows over the strata sizes (hand: 100 * size / 480)
    quota = 100 * sizes / sizes.sum()
    expect = np.floor(quota).astype(int)
    expect[np.argsort(-(quota - expect), kind="stable")[: 100 - expect.sum()]] += 1
    assert a["region"].value_counts().sort_index().tolist() == expect.tolist()


def test_without_strata_same_seed_and_partitioning_same_release():
    pdf = _data()
    ddf = dd.from_pandas(pdf, npartitions=3)
    r1 = synthesize(ddf, m=1, random_state=3, fit_rows=200)
    r2 = synthesize(ddf, m=1, random_state=3, fit_rows=200)
    a, b = r1.compute()[0], r2.compute()[0]
    pd.testing.assert_frame_equal(a, b)
    assert r1.plan == "fit-sample" and r1.n_blocks == 3
    assert 120 < r1.fit_rows < 280  # a Bernoulli sample of fraction 200/480
    assert len(a) == len(pdf)
    c = synthesize(ddf, m=1, random_state=4, fit_rows=200).compute()[0]
    assert not a.equals(c)


def test_without_strata_small_data_fit_on_all_records():
    pdf = _data(200)
    res = synthesize(dd.from_pandas(pdf, npartitions=2), m=1, n=50, random_state=1)
    assert res.fit_rows == 200
    assert len(res.compute()[0]) == 50


def test_bad_parameters_are_refused_before_any_work():
    ddf = dd.from_pandas(_data(), npartitions=2)
    with pytest.raises(ParameterError, match=r"'strata'.*nope"):
        synthesize(ddf, strata="nope")
    with pytest.raises(ParameterError, match=r"'keep'.*needs strata"):
        synthesize(ddf, keep=["sex"])
    from synthguard.synthesis import SyntheticData

    assert isinstance(synthesize(_data(), random_state=1), SyntheticData)  # pandas: one door
    with pytest.raises(ParameterError, match="random_state"):
        synthesize(ddf, strata="region", random_state=np.random.default_rng(1))


def test_a_recomputed_graph_gives_the_same_release():
    """What a retried task does (a worker lost mid-task, distributed's fault tolerance): the
    same task runs again from the same graph. Seeds travel as numbers, so a rerun cannot
    continue a SeedSequence's spawn counter and give another release."""
    pdf = _data()
    for kw in ({"strata": "region", "min_stratum_size": 0}, {"fit_rows": 200}):
        res = synthesize(dd.from_pandas(pdf, npartitions=3), m=2, random_state=9, **kw)
        first, again = res.compute(), res.compute()
        for a, b in zip(first, again, strict=True):
            pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("strata", ["region", None])
def test_the_same_seed_sequence_gives_the_same_release_every_time(strata):
    """A SeedSequence counts the children spawned from it; the synthesizers copy it, so
    reusing one object does not give another release (pandas and Dask alike)."""
    pdf = _data(90, 3)
    kw = {"methods": {"x": "norm", "sex": "sample", "income": "norm"}, "min_stratum_size": 0,
          "min_rows": 0}
    ss = np.random.SeedSequence(2024)
    fitted = Synthesizer(strata=strata, m=2, random_state=ss, **kw).fit(pdf)
    first = fitted.sample(diagnostics=False).implicates
    again = fitted.sample(diagnostics=False).implicates
    fresh = Synthesizer(strata=strata, m=2, random_state=np.random.SeedSequence(2024), **kw)
    other = fresh.fit(pdf).sample(diagnostics=False).implicates
    for a, b, c in zip(first, again, other, strict=True):
        pd.testing.assert_frame_equal(a, b)
        pd.testing.assert_frame_equal(a, c)
    assert ss.n_children_spawned == 0
    ddf = dd.from_pandas(pdf, npartitions=3)
    runs = [
        synthesize(ddf, strata=strata, m=2, random_state=ss, fit_rows=100, **kw).compute()
        for _ in range(2)
    ]
    for a, b in zip(*runs, strict=True):
        pd.testing.assert_frame_equal(a, b)
    assert not runs[0][0].equals(runs[0][1])  # implicates differ from each other
    assert synthesize(ddf, strata=strata, random_state=ss, **kw).seed is None
    assert ss.n_children_spawned == 0


@pytest.mark.parametrize("strata", ["region", None])
def test_categorical_columns_of_unknown_categories_keep_their_values(strata):
    # a Parquet dictionary column is read as a category whose levels Dask has not read:
    # the release must keep the values (integer levels stay integers), not turn them missing
    pdf = _data(240).assign(kids=lambda d: pd.Categorical(np.arange(len(d)) % 3 + 1))
    ddf = dd.from_pandas(pdf, npartitions=2)
    ddf["kids"] = ddf["kids"].cat.as_unknown()
    kw = {"methods": {"x": "sample", "sex": "sample", "income": "sample", "kids": "sample"}}
    got = synthesize(ddf, strata=strata, m=1, random_state=2, **kw).compute()[0]
    assert got["kids"].notna().all()
    assert set(got["kids"].astype(int)) <= {1, 2, 3}
    assert got["kids"].cat.categories.dtype.kind == "i"


@pytest.mark.parametrize("strata", ["region", None])
def test_the_synthesizer_fitted_on_dask_gives_the_synthesize_release(strata):
    """``Synthesizer(...).fit(dask_frame).sample()`` is ``synthesize(dask_frame, ...)`` with the
    synthesizer's parameters: the same seed, the same records."""
    from synthguard.synthesis import Synthesizer

    ddf = dd.from_pandas(_data(), npartitions=3)
    kw = dict(strata=strata, random_state=5, methods={"income": "norm"})
    want = synthesize(ddf, **kw).compute()
    syn = Synthesizer(**kw).fit(ddf)
    got = syn.sample().compute()
    assert len(got) == len(want) == 1
    pd.testing.assert_frame_equal(got[0], want[0])
    two = syn.sample(m=2, random_state=6).compute()
    assert len(two) == 2 and not two[0].equals(got[0])
