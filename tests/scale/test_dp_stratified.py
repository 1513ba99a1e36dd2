"""The stratified DP synthesizer on Dask: the full table counted per partition equals the
pandas table (and a brute-force count) exactly; the noise is drawn once and the ledger charged
once; the same seed gives the same release, one partition the pandas release; the records stay
in the declared domain, and a ``target=`` release keeps every stratum's size."""

from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from synthguard import dp
from synthguard.dp import _noise
from synthguard.errors import DataError, ParameterError, PrivacyWarning

dd = pytest.importorskip("dask.dataframe")
scale = pytest.importorskip("synthguard.scale")
from synthguard.dp.synthesizers._on_dask import stratified as dp_stratified  # noqa: E402
from tests.scale.conftest import tied_frame  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning"),
    pytest.mark.filterwarnings("ignore:StratifiedSynthesizer.target=:"
                               "synthguard.errors.PrivacyWarning"),
]

# public levels: 'nobody' and the income bin [20, 40) never occur in the data
CATS = {"sex": ["f", "m", "x", "nobody"]}
BINS = {"region": [0, 2, 4, 6], "age": [18, 22, 26, 30], "income": [-25, -5, 0, 5, 20, 40]}
COLS = ["sex", "region", "age", "income"]


def _data(n: int, seed: int) -> pd.DataFrame:
    """tied_frame's ties and missing values: missing sex recoded as the public level 'x',
    missing regions kept (the binned column's public missing cell), the out-of-domain
    singleton regions dropped."""
    data = tied_frame(n, seed).iloc[5:].reset_index(drop=True)
    data["sex"] = data["sex"].fillna("x")
    return data


def _brute_force(data: pd.DataFrame, cols: list[str]) -> np.ndarray:
    """Cell counts by a loop over the records: level position, the bin e_k <= x < e_k+1
    (the last bin closed), a missing region in the cell after the last bin."""
    def code(c: str, v: object) -> int:
        if c in CATS:
            return CATS[c].index(v)
        e = BINS[c]
        if isinstance(v, float) and math.isnan(v):
            return len(e) - 1
        return min(max(k for k in range(len(e) - 1) if e[k] <= v), len(e) - 2)

    sizes = [len(CATS[c]) if c in CATS else len(BINS[c]) - 1 + (c == "region") for c in cols]
    counts = Counter(tuple(code(c, v) for c, v in zip(cols, row))
                     for row in data[cols].itertuples(index=False))
    table = np.zeros(sizes, dtype=np.int64)
    for cell, k in counts.items():
        table[cell] = k
    return table.ravel()


def _true_counts(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """What reaches the noise: the exact counts, one array per draw."""
    seen: list[np.ndarray] = []
    add = _noise.add_laplace
    monkeypatch.setattr(_noise, "add_laplace",
                        lambda values, scale, rng: seen.append(np.array(values)) or
                        add(values, scale, rng))
    return seen


def _kw(**extra):
    return dict(epsilon=1.0, columns=COLS, categories=CATS, bins=BINS, missing=["region"],
                random_state=3,
                **extra)


@pytest.mark.parametrize("target", [None, "sex"])
def test_counts_before_noise_equal_pandas_and_brute_force_for_any_partitioning(
        monkeypatch, target):
    data = _data(1500, 60)
    seen = _true_counts(monkeypatch)
    pandas_syn = dp.StratifiedSynthesizer(**_kw(target=target)).fit(data)
    order = pandas_syn.order_
    assert order == (COLS if target is None else ["region", "age", "income", "sex"])
    want = _brute_force(data, order)
    assert want.sum() == len(data) and (want == 0).sum() > 0  # empty cells are counted too
    assert np.array_equal(seen[0], want)
    # an empty partition and partitions of unequal sizes change nothing
    frames = [dd.from_pandas(data, npartitions=k) for k in (1, 3, 7)]
    frames.append(dd.concat([dd.from_pandas(data.iloc[:0], npartitions=1),
                             dd.from_pandas(data, npartitions=2)]))
    for frame in frames:
        syn = scale.StratifiedSynthesizer(**_kw(target=target)).fit(frame)
        assert np.array_equal(seen[-1], want)
        # the seeded simulation path with the same seed: the pandas noisy table
        assert np.array_equal(syn.noisy_counts_, pandas_syn.noisy_counts_)
        if target is not None:
            assert np.array_equal(syn.strata_sizes_, pandas_syn.strata_sizes_)
            assert syn.strata_sizes_.sum() == len(data)
    assert len(seen) == 1 + len(frames)  # one noise draw per fit


def test_the_ledger_is_charged_once_with_the_fit_epsilon(monkeypatch):
    data = _data(800, 61)
    ledger = dp.PrivacyLedger(epsilon=2.0)
    seen = _true_counts(monkeypatch)
    kw = _kw()
    kw.update(epsilon=0.7, random_state=None)  # OpenDP's sampler, as for a release
    syn = scale.StratifiedSynthesizer(ledger=ledger, **kw).fit(
        dd.from_pandas(data, npartitions=5))
    assert [(c.label, c.epsilon, c.delta) for c in ledger.charges] == [
        ("stratified: full contingency table", 0.7, 0.0)]
    assert syn.noise_ == "opendp" and syn.scale_ == pytest.approx(1 / 0.7)
    assert len(seen) == 1 and seen[0].size == syn.n_noised_cells_ == 4 * 4 * 3 * 5


def test_what_cannot_be_counted_is_refused_before_any_charge(monkeypatch):
    data = _data(300, 62)
    ledger = dp.PrivacyLedger(epsilon=5.0)
    frame = dd.from_pandas(data, npartitions=2)
    with pytest.raises(ParameterError, match="categories="):
        scale.StratifiedSynthesizer(epsilon=1.0, domain_from_data="not-dp",
                                    ledger=ledger).fit(frame)
    with pytest.raises(DataError) as err:  # a level outside the declaration, in one partition
        scale.StratifiedSynthesizer(**{**_kw(), "ledger": ledger,
                                       "categories": {"sex": ["f", "m"]}}).fit(frame)
    assert "column 'sex'" in str(err.value.problems)
    with pytest.raises(DataError, match="region"):  # missing regions without a missing cell
        scale.StratifiedSynthesizer(**{**_kw(), "ledger": ledger, "missing": None}).fit(frame)
    counted: list[int] = []
    monkeypatch.setattr(dp_stratified, "_cell_counts", lambda *a: counted.append(1))
    with pytest.raises(ParameterError, match="max_cells"):  # known from the public domain
        scale.StratifiedSynthesizer(**_kw(ledger=ledger, max_cells=100)).fit(frame)
    with pytest.raises(ParameterError, match="epsilon"):
        scale.StratifiedSynthesizer(**{**_kw(), "epsilon": -1.0}).fit(frame)
    assert counted == [] and ledger.charges == ()


def _fitted(target=None, npartitions=3):
    data = _data(1200, 63)
    return (dp.StratifiedSynthesizer(**_kw(target=target)).fit(data),
            scale.StratifiedSynthesizer(**_kw(target=target)).fit(
                dd.from_pandas(data, npartitions=npartitions)))


@pytest.mark.parametrize("target", [None, "sex"])
def test_one_partition_draws_the_pandas_release(target):
    pandas_syn, dask_syn = _fitted(target)
    for n in (None, 700):
        want = pandas_syn.sample(m=2, n=n, random_state=9).implicates
        got = dask_syn.sample(m=2, n=n, random_state=9).implicates
        for lazy, eager in zip(got, want):
            pd.testing.assert_frame_equal(lazy.compute().reset_index(drop=True), eager)


@pytest.mark.parametrize("target", [None, "sex"])
def test_partitions_are_drawn_by_seed_and_stay_in_the_domain(target):
    _, syn = _fitted(target)
    release = syn.sample(m=2, random_state=11, partition_rows=250)
    n = syn._default_n()
    first = release.implicates[0]
    k = -(-n // 250)
    assert first.npartitions == k == release.provenance["partitions"]
    got = first.compute()
    assert len(got) == n
    # same seed and partitioning: same release; a second compute draws the same records
    again = syn.sample(m=2, random_state=11, partition_rows=250).implicates[0].compute()
    pd.testing.assert_frame_equal(again, got)
    pd.testing.assert_frame_equal(first.compute(), got)
    assert not release.implicates[1].compute().reset_index(drop=True).equals(
        got.reset_index(drop=True))
    # partition j of implicate i draws from SeedSequence(seed).spawn(m)[i].spawn(k)[j]
    ss = np.random.SeedSequence(11).spawn(2)[0].spawn(k)[1]
    size = len(np.array_split(np.arange(n), k)[1])
    want = dp_stratified.StrataDrawer.of(syn).draw_part(size, np.random.default_rng(ss),
                                                         n, 1, k)
    pd.testing.assert_frame_equal(first.get_partition(1).compute().reset_index(drop=True),
                                  want)
    # every value inside the declared domain; whole-number regions stay whole numbers
    assert set(got["sex"]) <= set(CATS["sex"])
    for c in ("age", "income"):
        assert got[c].between(BINS[c][0], BINS[c][-1]).all()
    assert got["region"].dtype == pd.Int64Dtype() and got["region"].isna().any()
    assert got["region"].dropna().between(0, 6).all()
    if target is not None:
        # the true stratum sizes, exactly, although every partition drew its own share
        codes = [np.where(got[c].isna(), len(BINS[c]) - 1, np.digitize(got[c], BINS[c][1:-1]))
                 for c in ("region", "age", "income")]
        sizes = np.bincount(np.ravel_multi_index(codes, (4, 3, 5)), minlength=60)
        assert np.array_equal(sizes, syn.strata_sizes_)


def test_a_missing_cell_column_with_fractions_in_a_later_partition_decodes_to_floats():
    data = _data(600, 64)
    data.loc[550:, "region"] += 0.5  # the first partition holds whole numbers only
    syn = scale.StratifiedSynthesizer(**_kw()).fit(dd.from_pandas(data, npartitions=3))
    pandas_syn = dp.StratifiedSynthesizer(**_kw()).fit(data)
    assert syn.domain_.dtypes["region"] == pandas_syn.domain_.dtypes["region"] == np.float64
    got = syn.sample(n=2000, random_state=1).implicates[0].compute()["region"].dropna()
    assert (got != got.round()).any()
    # with whole numbers everywhere, the pandas nullable integers
    data["region"] = data["region"].round()
    syn = scale.StratifiedSynthesizer(**_kw()).fit(dd.from_pandas(data, npartitions=3))
    assert syn.domain_.dtypes["region"] == pd.Int64Dtype()
    got = syn.sample(n=500, random_state=1).implicates[0].compute()
    assert got["region"].dtype == pd.Int64Dtype() and got["region"].isna().any()


def test_pandas_input_takes_the_pandas_path():
    data = _data(500, 65)
    want = dp.StratifiedSynthesizer(**_kw()).fit_sample(data, random_state=2).implicates[0]
    got = scale.StratifiedSynthesizer(**_kw()).fit_sample(data, random_state=2).implicates[0]
    pd.testing.assert_frame_equal(got, want)


def test_target_warning_is_the_pandas_one():
    data = _data(300, 66)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scale.StratifiedSynthesizer(**_kw(target="sex")).fit(dd.from_pandas(data, 2))
    assert [w.category for w in caught if "stratum sizes" in str(w.message)] == [PrivacyWarning]


def test_on_a_local_cluster_with_a_ledger_file(tmp_path):
    """A task never carries the synthesizer (its ledger file's lock cannot be sent)."""
    distributed = pytest.importorskip("distributed")
    import dask

    data = _data(600, 67)
    mst_data = data[["sex", "age"]]
    want = scale.StratifiedSynthesizer(**_kw()).fit(dd.from_pandas(data, 3)).sample(
        random_state=5, partition_rows=200).implicates[0].compute()
    mst_kw = dict(epsilon=1.0, categories=CATS, bins={"age": BINS["age"]}, iters=50,
                  random_state=3)
    mst_want = scale.MSTSynthesizer(**mst_kw).fit(dd.from_pandas(mst_data, 2)).sample(
        random_state=5).implicates[0].compute()
    ledger = dp.PrivacyLedger(epsilon=3.0, delta=1e-5, path=tmp_path / "ledger.json")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                 dashboard_address=":0") as cluster,
        distributed.Client(cluster),
        dask.config.set(scheduler="distributed"),
    ):
        got = scale.StratifiedSynthesizer(ledger=ledger, **_kw()).fit(
            dd.from_pandas(data, 3)).sample(random_state=5, partition_rows=200)
        got = got.implicates[0].compute()
        mst_got = scale.MSTSynthesizer(ledger=ledger, **mst_kw).fit(
            dd.from_pandas(mst_data, 2)).sample(random_state=5).implicates[0].compute()
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(mst_got, mst_want)
    assert [c.label for c in dp.PrivacyLedger.open(tmp_path / "ledger.json").charges] == [
        "stratified: full contingency table", "mst: 1-way + tree + 2-way"]
