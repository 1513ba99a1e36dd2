"""The Dask risk measures equal the pandas ones exactly on random data with ties and missing
key values, whatever the partitioning of the input and of the shuffle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import risk as pandas_risk
from synthguard.errors import DataError, DisclosureWarning, ParameterError, SchemaError

dd = pytest.importorskip("dask.dataframe")
scale_risk = pytest.importorskip("synthguard.scale.risk")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

KEYS = ["sex", "region"]


def _same(a, b, fields):
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if x is None or y is None:
            assert x is None and y is None, f
        else:
            assert np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True), f


@pytest.mark.parametrize(
    ("singletons", "parts"), [("zero", (1, 1)), ("one", (4, 3)), ("exclude", (7, 9))]
)
def test_identification_risk_confidential_equals_pandas(singletons, parts):
    conf = tied_frame(1500, 1)
    expected = pandas_risk.identification_risk(
        conf, keys=KEYS, targets="income", singletons=singletons
    )
    got = scale_risk.identification_risk(
        dd.from_pandas(conf, npartitions=parts[0]),
        keys=KEYS,
        targets="income",
        singletons=singletons,
        npartitions=parts[1],
    )
    _same(expected, got, ["per_record", "pattern", "pattern_size", "n_inside"])
    assert got.mean == expected.mean or (np.isnan(got.mean) and np.isnan(expected.mean))
    assert got.quantiles == expected.quantiles
    assert got.n_singletons == expected.n_singletons > 0
    assert got.index.equals(expected.index)


@pytest.mark.parametrize(
    ("singletons", "target"),
    [("zero", "income"), ("one", ["income", "age"]), ("exclude", "income")],
)
def test_identification_risk_release_equals_pandas(singletons, target):
    conf = tied_frame(1200, 2)
    syn = [perturbed(conf, 10), perturbed(conf, 11)]
    expected = pandas_risk.identification_risk(
        conf, syn, keys=KEYS, targets=target, singletons=singletons, inclusive=True
    )
    got = scale_risk.identification_risk(
        dd.from_pandas(conf, npartitions=3),
        [dd.from_pandas(s, npartitions=p) for s, p in zip(syn, (2, 5))],
        keys=KEYS,
        targets=target,
        singletons=singletons,
        inclusive=True,
        npartitions=4,
    )
    fields = ["per_record", "pattern", "pattern_size", "n_inside", "match_share"]
    _same(expected, got, [*fields, "per_implicate"])
    assert 0 < expected.match_share.mean() < 1  # own rows do leave their pattern or ball
    assert got.mean == expected.mean and got.quantiles == expected.quantiles


def test_identification_risk_warns_once_with_the_global_count():
    conf = tied_frame(400, 3)
    with pytest.warns(DisclosureWarning) as rec:
        got = scale_risk.identification_risk(
            dd.from_pandas(conf, npartitions=3), keys=KEYS, targets="income"
        )
    assert len(rec) == 1 and f"{got.n_singletons} of 400 records" in str(rec[0].message)


def test_pairwise_risk_equals_pandas():
    conf = tied_frame(1500, 4)
    kw = dict(keys=KEYS, radius=0.3, singletons="one")
    expected = pandas_risk.pairwise_identification_risk(conf, targets=["income", "age"], **kw)
    got = scale_risk.pairwise_identification_risk(
        dd.from_pandas(conf, npartitions=4), targets=["income", "age"], npartitions=3, **kw
    )
    _same(expected, got, ["per_record", "weights", "pattern", "pattern_size", "n_inside"])
    assert got.mean == expected.mean


@pytest.mark.parametrize("parts", [(1, 1), (5, 3)])
def test_k_anonymity_equals_pandas_with_missing_keys(parts):
    conf = tied_frame(2000, 5)
    conf["age"] = conf["age"].where(np.arange(len(conf)) % 17 != 0)  # a third key, missing
    keys = ["sex", "region", "age"]
    expected = pandas_risk.k_anonymity(conf, keys, k=4)
    got = scale_risk.k_anonymity(
        dd.from_pandas(conf, npartitions=parts[0]), keys, k=4, npartitions=parts[1]
    )
    assert np.array_equal(got.fk, expected.fk)
    assert (got.n_classes, got.n_below_k, got.n_sample_uniques, got.min_class_size) == (
        expected.n_classes,
        expected.n_below_k,
        expected.n_sample_uniques,
        expected.min_class_size,
    )
    assert got.index.equals(expected.index)
    # brute force on a few records: sdcMicro's compatible-record count
    vals = conf[keys].to_numpy(dtype=object)
    miss = conf[keys].isna().to_numpy()
    for i in (0, 17, 34, 100):
        agree = ((vals == vals[i]) | miss | miss[i]).all(axis=1)
        assert got.fk[i] == agree.sum()


@pytest.mark.parametrize("parts", [1, 6])
def test_k_anonymity_summary_equals_pandas_without_gathering(parts, monkeypatch):
    """gather=False: the summaries from the key combinations' counts, no shuffle, no
    per-record array: equal to the pandas figures, and the violations at any k."""
    conf = tied_frame(2500, 8)
    conf["age"] = conf["age"].where(np.arange(len(conf)) % 13 != 0)
    conf.loc[::29, "sex"] = None
    keys = ["sex", "region", "age"]
    expected = pandas_risk.k_anonymity(conf, keys, k=4)
    from synthguard.risk._on_dask import uniqueness as dask_uniqueness

    monkeypatch.setattr(dask_uniqueness, "shuffle_by_keys", None)  # never shuffled
    got = scale_risk.k_anonymity(dd.from_pandas(conf, npartitions=parts), keys, k=4,
                                 gather=False)
    assert not hasattr(got, "fk")
    assert (got.n, got.n_classes, got.n_below_k, got.n_sample_uniques, got.min_class_size,
            got.share_below_k) == (len(conf), expected.n_classes, expected.n_below_k,
                                   expected.n_sample_uniques, expected.min_class_size,
                                   expected.share_below_k)
    for k in (1, 2, 3, 7, 50, 400):
        assert got.violations(k) == expected.violations(k)
    assert got.summary() == expected.summary()
    sizes = pd.Series(expected.fk).value_counts().sort_index()
    np.testing.assert_array_equal(got.class_sizes.index, sizes.index)
    np.testing.assert_array_equal(got.class_sizes.to_numpy(), sizes.to_numpy())


def test_match_rates_equal_pandas():
    conf = tied_frame(1500, 6)
    conf["flag"] = (conf["age"] > 24).astype(int)  # numeric {0, 1}: matched exactly
    syn = [perturbed(conf, 20).assign(flag=conf["flag"]), perturbed(conf, 21)]
    syn[1]["flag"] = 1 - conf["flag"]
    kw = dict(
        keys=KEYS,
        targets=["income", "flag"],
        radius={"income": 0.2, "flag": 0.5},
        attacked=np.arange(0, 1500, 2),
    )
    expected = pandas_risk.match_rates(conf, syn, **kw)
    got = scale_risk.match_rates(
        dd.from_pandas(conf, npartitions=4), [dd.from_pandas(s, npartitions=2) for s in syn], **kw
    )
    assert got.radius == expected.radius == {"income": 0.2}  # flag is binary: exact
    assert np.array_equal(got.candidates, expected.candidates)
    assert np.array_equal(got.own_match, expected.own_match)
    pd.testing.assert_frame_equal(got.per_implicate, expected.per_implicate)
    assert got.expected_match_risk == expected.expected_match_risk > 0


def test_pandas_inputs_use_the_pandas_path():
    conf = tied_frame(300, 7)
    got = scale_risk.k_anonymity(conf, KEYS, k=2)
    assert np.array_equal(got.fk, pandas_risk.k_anonymity(conf, KEYS, k=2).fk)


def test_misaligned_implicate_and_missing_columns_are_refused():
    conf = tied_frame(200, 8)
    d = dd.from_pandas(conf, npartitions=2)
    with pytest.raises(DataError, match="implicate"):
        scale_risk.identification_risk(
            d,
            dd.from_pandas(conf.iloc[:150], npartitions=2),
            keys=KEYS,
            targets="income",
            singletons="zero",
        )
    with pytest.raises(DataError, match="'nope'"):
        scale_risk.identification_risk(d, keys=["nope"], targets="income", singletons="zero")
    with pytest.raises(SchemaError):
        scale_risk.identification_risk(d, keys=["income"], targets="sex", singletons="zero")


@pytest.mark.parametrize("metric", ["gower", "hamming"])
def test_distance_to_closest_record_equals_pandas(metric):
    conf = tied_frame(700, 9)
    syn = [
        perturbed(conf, 90).sample(frac=0.5, random_state=1).reset_index(drop=True),
        perturbed(conf, 91).iloc[:300],
    ]
    syn[1].iloc[:20] = conf.iloc[100:120].to_numpy()  # exact copies
    with pytest.warns(DisclosureWarning, match="exact copies"):
        expected = pandas_risk.distance_to_closest_record(conf, syn, metric=metric)
    with pytest.warns(DisclosureWarning, match="exact copies"):
        got = scale_risk.distance_to_closest_record(
            dd.from_pandas(conf, npartitions=4),
            [dd.from_pandas(s, npartitions=2) for s in syn],
            metric=metric,
        )
    np.testing.assert_allclose(got.dcr, expected.dcr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.nndr, expected.nndr, rtol=1e-12, atol=1e-15)
    assert np.array_equal(got.implicate, expected.implicate)
    assert got.exact_copy_share == expected.exact_copy_share >= 20 / 650
    assert got.columns == expected.columns


def test_release_keys_of_other_dtypes_match_by_value():
    """A categorical key in conf and text in the release (Dask's strings miss with pd.NA,
    pandas' with NaN), integer ages in conf and floats in the release."""
    conf = tied_frame(900, 12)
    conf = conf.assign(sex=conf["sex"].astype("category"), age=conf["age"].astype(int))
    syn = perturbed(conf, 13).assign(sex=conf["sex"].astype(object), age=conf["age"] * 1.0)
    keys = ["sex", "age"]
    expected = pandas_risk.identification_risk(
        conf, syn, keys=keys, targets="income", singletons="one"
    )
    got = scale_risk.identification_risk(
        dd.from_pandas(conf, npartitions=3),
        dd.from_pandas(syn, npartitions=2),
        keys=keys,
        targets="income",
        singletons="one",
    )
    _same(expected, got, ["per_record", "pattern", "match_share"])
    assert expected.match_share.min() < 1 and expected.match_share.max() == 1


@pytest.mark.parametrize("method", ["loop", "keys", "shuffle"])
@pytest.mark.parametrize("with_release", [False, True])
def test_identification_risk_every_dask_method_equals_pandas(monkeypatch, method, with_release):
    """One target: value tables counted per pattern ('loop') or on integer keys ('keys'), and
    the hash shuffle the path falls back to when patterns are too many ('shuffle')."""
    from synthguard.risk._on_dask import ident_tables as _ident_tables
    from synthguard.risk.blocks import value_tables as _tables

    if method == "keys":
        monkeypatch.setattr(_tables, "LOOP_PATTERNS", 1)
    if method == "shuffle":
        monkeypatch.setattr(_ident_tables, "MAX_PATTERNS", 0)
    conf = tied_frame(1300, 30)
    syn = [perturbed(conf, 31), perturbed(conf, 32)] if with_release else None
    kw = dict(keys=KEYS, targets="income", singletons="one", radius=0.15)
    expected = pandas_risk.identification_risk(conf, syn, **kw)
    got = scale_risk.identification_risk(
        dd.from_pandas(conf, npartitions=4),
        None if syn is None else [dd.from_pandas(s, npartitions=p) for s, p in zip(syn, (3, 1))],
        **kw,
    )
    fields = ["per_record", "pattern", "pattern_size", "n_inside", "match_share"]
    _same(expected, got, [*fields, "per_implicate"])
    assert got.quantiles == expected.quantiles and got.max == expected.max
    assert got.index.equals(expected.index)


def test_value_table_counts_equal_brute_force(monkeypatch):
    from synthguard.risk.blocks import value_tables as _tables

    rng = np.random.default_rng(40)
    pat = rng.integers(-1, 6, 3000)
    val = rng.integers(-5, 6, 3000) * 0.5
    val[rng.random(3000) < 0.05] = np.nan
    val[val == 0] = -0.0  # the sign of zero must not matter
    table = _tables.ValueTable.of(pat, val)
    q = rng.integers(0, 6, 500)
    a = rng.integers(-6, 6, 500) * 0.5
    b = a + rng.integers(-1, 4, 500) * 0.5  # some empty intervals
    ok = (pat >= 0) & np.isfinite(val)
    brute = np.array(
        [np.sum(ok & (pat == p) & (val >= lo) & (val <= hi)) for p, lo, hi in zip(q, a, b)]
    )
    assert np.array_equal(_tables.count_in_table(table, q, a, b, 6), brute)
    monkeypatch.setattr(_tables, "LOOP_PATTERNS", 1)
    assert np.array_equal(_tables.count_in_table(table, q, a, b, 6), brute)
    merged = _tables.merge_tables(_tables.ValueTable.of(pat[:1000], val[:1000]),
                                  _tables.ValueTable.of(pat[1000:], val[1000:]))
    assert np.array_equal(merged.count, table.count) and np.array_equal(merged.value, table.value)


@pytest.mark.parametrize("with_release", [False, True])
def test_summaries_on_the_workers_equal_the_gathered_ones(tmp_path, with_release):
    """gather=False: quantiles, maximum and counts equal the pandas result exactly, the mean
    is the correctly rounded one; the records the workers write are the pandas to_frame()."""
    from fractions import Fraction

    conf = tied_frame(1100, 50)
    syn = [perturbed(conf, 51)] if with_release else None
    kw = dict(keys=KEYS, targets="income", singletons="exclude")
    expected = pandas_risk.identification_risk(conf, syn, **kw)
    got = scale_risk.identification_risk(
        dd.from_pandas(conf, npartitions=3),
        None if syn is None else [dd.from_pandas(s, npartitions=2) for s in syn],
        gather=False,
        records=tmp_path / "records",
        quantiles=(0.0, 0.1, 0.5, 0.77, 0.99, 1.0),
        **kw,
    )
    v = expected.per_record[~np.isnan(expected.per_record)]
    qs = (0.0, 0.1, 0.5, 0.77, 0.99, 1.0)
    assert got.quantiles == dict(zip(qs, np.quantile(v, qs)))
    assert got.mean == float(sum(Fraction(x) for x in v) / v.size)
    assert got.mean == pytest.approx(expected.mean, rel=1e-14)
    assert got.max == expected.max and got.n == expected.n == 1100
    assert got.n_singletons == expected.n_singletons > 0
    assert got.n_above_half == expected.count_above(0.5) > 0
    written = dd.read_parquet(tmp_path / "records").compute()
    pd.testing.assert_frame_equal(written, expected.to_frame(), check_index_type=False)
    assert "above 0.5" in got.summary()


def test_exact_quantiles_and_sums_equal_numpy_on_hard_values():
    """Ties, negative values, zeros of both signs, magnitudes near the float64 limits."""
    from fractions import Fraction

    from synthguard._dask.summary import exact_quantiles, exact_sum, order_keys, sum_bins

    rng = np.random.default_rng(60)
    qs = (0.0, 0.25, 0.5, 0.9, 0.99, 1.0)
    for trial in range(12):
        n = int(rng.integers(1, 2000))
        v = rng.normal(size=n) * rng.choice([1.0, 1e-300, 1e300])
        if trial % 3 == 0:
            v = np.round(v, 1) * 0.0 if trial == 0 else np.round(v, 1)  # -0.0 and ties
        chunks = np.array_split(v, int(rng.integers(1, 5)))
        parts = [np.sort(order_keys(c)) for c in chunks]
        assert exact_quantiles(parts, n, qs) == dict(zip(qs, np.quantile(v, qs)))
        assert exact_sum([sum_bins(c) for c in chunks]) == sum(Fraction(x) for x in v)


def test_missing_confidential_target_raises_the_pandas_error_without_a_count():
    conf = tied_frame(300, 70)
    conf.loc[conf.index % 9 == 0, "income"] = np.nan
    with pytest.raises(SchemaError) as pandas_err:
        pandas_risk.identification_risk(conf, keys=KEYS, targets="income", singletons="zero")
    with pytest.raises(SchemaError) as dask_err:
        scale_risk.identification_risk(
            dd.from_pandas(conf, npartitions=3), keys=KEYS, targets="income", singletons="zero"
        )
    assert str(dask_err.value) == str(pandas_err.value)
    assert str(int(conf["income"].isna().sum())) not in str(dask_err.value)


def test_row_numbers_hold_when_a_projected_parquet_read_is_fused(tmp_path):
    """dask-expr reads a few columns of four Parquet files as two partitions in one graph and
    four in another; the row numbers that align implicates with the data must follow the
    partitions actually read (match rates failed with an IndexError on such a folder)."""
    from synthguard.scale import read_dataset

    rng = np.random.default_rng(40)
    for i in range(4):
        pd.DataFrame({f"c{j}": rng.integers(0, 3, 60) for j in range(10)}).to_parquet(
            tmp_path / f"part-{i}.parquet")
    conf = read_dataset(tmp_path)
    moved = conf.map_partitions(lambda d: d.assign(c2=(d["c2"] + 1) % 3), meta=conf._meta)
    pc, pm = conf.compute().reset_index(drop=True), moved.compute().reset_index(drop=True)
    kw = dict(keys=["c0", "c1"], targets=["c2"], radius=0.2)
    got = scale_risk.match_rates(conf, [moved], **kw)
    want = pandas_risk.match_rates(pc, [pm], **kw)
    np.testing.assert_array_equal(got.candidates, want.candidates)
    np.testing.assert_array_equal(got.own_match, want.own_match)
    assert got.expected_match_risk == want.expected_match_risk
    keys = ["c0", "c1", "c2", "c3", "c4"]
    np.testing.assert_array_equal(scale_risk.k_anonymity(conf, keys, k=3).fk,
                                  pandas_risk.k_anonymity(pc, keys, k=3).fk)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_distance_on_dask_refuses_whole_data_standardizations(metric):
    """Only gower and hamming have exact scales on Dask; any other metric (or an unknown one)
    is refused with a ParameterError naming 'metric', never computed on other scales."""
    d = dd.from_pandas(tied_frame(60, 9), npartitions=2)
    with pytest.raises(ParameterError, match="'metric'"):
        pandas_risk.distance_to_closest_record(d, d, metric=metric)


def test_holdout_is_refused_on_dask():
    d = dd.from_pandas(tied_frame(60, 9), npartitions=2)
    with pytest.raises(ParameterError, match="'holdout'"):
        pandas_risk.distance_to_closest_record(d, d, tied_frame(30, 10))
    with pytest.raises(ParameterError, match="'holdout'"):
        pandas_risk.attribute_disclosure(d, d, ["sex"], "age", tied_frame(30, 10))
