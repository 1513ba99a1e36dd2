"""Identification risk (Hu, Savitsky & Williams eqs. 1, 2, 6-9) against brute-force all-pairs
references written here, the paper's Betty example, and the IdentificationRiskCalculation CE data."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError, DisclosureWarning, ParameterError, SchemaError
from synthguard.risk import _balls, identification_risk, pairwise_identification_risk

# ----------------------------------------------------------------------------- brute force


def _key(row) -> tuple:
    return tuple(
        "<NA>" if (isinstance(v, float) and math.isnan(v)) or v is None else v for v in row
    )


def _inside(v, c, r, relative, inclusive) -> bool:
    """Is point v (tuple over targets) inside the ball around c? Written per the docstring."""
    for vv, cc, rr in zip(v, c, r):
        if not math.isfinite(vv):
            return False
        half = rr * abs(cc) if relative else rr
        lo, hi = cc - half, cc + half
        ok = (lo <= vv <= hi) if inclusive else ((lo < vv < hi) or vv == cc)
        if not ok:
            return False
    return True


def bf_conf(keys, y, r, relative, inclusive):
    n = len(y)
    out = np.zeros(n)
    for i in range(n):
        members = [h for h in range(n) if keys[h] == keys[i]]
        outside = sum(not _inside(y[h], y[i], r, relative, inclusive) for h in members)
        out[i] = outside / len(members)
    return out


def bf_syn(keys, y, skeys, ys, r, relative, inclusive):
    n = len(y)
    out = np.zeros(n)
    for i in range(n):
        members = [h for h in range(len(ys)) if skeys[h] == keys[i]]
        if not members:
            continue
        t = skeys[i] == keys[i] and _inside(ys[i], y[i], r, relative, inclusive)
        outside = sum(not _inside(ys[h], y[i], r, relative, inclusive) for h in members)
        out[i] = outside / len(members) * t
    return out


def bf_pairwise(keys, y, r, relative, inclusive):
    n = len(y)
    out = np.full(n, np.nan)
    for i in range(n):
        members = [h for h in range(n) if keys[h] == keys[i]]
        m = len(members)
        if m == 1:
            continue
        total = 0.0
        for j in members:
            if j == i:
                continue
            both_out = sum(
                (not _inside(y[h], y[i], r, relative, inclusive))
                and (not _inside(y[h], y[j], r, relative, inclusive))
                for h in members
            )
            total += both_out / m
        out[i] = total / (m - 1)
    return out


# ----------------------------------------------------------------------------- strategies

_VALUES = [-3.0, -2.0, -1.2, -1.0, -0.5, 0.0, 0.5, 0.8, 1.0, 1.2, 1.25, 1.5, 2.0, 2.4, 3.0, 10.0]
_value = st.one_of(
    st.sampled_from(_VALUES), st.floats(-20, 20, allow_nan=False, allow_infinity=False)
)
_keyval = st.one_of(st.sampled_from([0, 1, 2]), st.just(float("nan")))


@st.composite
def datasets(draw, max_n=25):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 3))
    nk = draw(st.integers(0, 2))
    keys = [tuple(draw(_keyval) for _ in range(nk)) for _ in range(n)]
    y = [tuple(draw(_value) for _ in range(d)) for _ in range(n)]
    r = tuple(draw(st.sampled_from([0.0, 0.2, 0.25, 0.5, 1.0, 1.5])) for _ in range(d))
    relative = draw(st.booleans())
    inclusive = draw(st.booleans())
    return keys, y, r, relative, inclusive


def _frame(keys, y) -> tuple[pd.DataFrame, list[str], list[str]]:
    nk = len(keys[0])
    d = len(y[0])
    kcols = [f"k{j}" for j in range(nk)]
    tcols = [f"y{j}" for j in range(d)]
    data = {c: [row[j] for row in keys] for j, c in enumerate(kcols)}
    data.update({c: [row[j] for row in y] for j, c in enumerate(tcols)})
    return pd.DataFrame(data, columns=kcols + tcols), kcols, tcols


def _radius(r, tcols):
    return dict(zip(tcols, r))


# ----------------------------------------------------------------------------- exactness


@settings(max_examples=300, deadline=None)
@given(datasets())
def test_confidential_ir_matches_brute_force(case):
    keys, y, r, relative, inclusive = case
    df, kcols, tcols = _frame(keys, y)
    res = identification_risk(
        df,
        keys=kcols,
        targets=tcols,
        radius=_radius(r, tcols),
        relative=relative,
        inclusive=inclusive,
        singletons="zero",
    )
    expected = bf_conf([_key(k) for k in keys], y, r, relative, inclusive)
    np.testing.assert_allclose(res.per_record, expected, rtol=0, atol=1e-12)


@settings(max_examples=300, deadline=None)
@given(datasets(max_n=18))
def test_pairwise_matches_brute_force(case):
    keys, y, r, relative, inclusive = case
    df, kcols, tcols = _frame(keys, y)
    res = pairwise_identification_risk(
        df,
        keys=kcols,
        targets=tcols,
        radius=_radius(r, tcols),
        relative=relative,
        inclusive=inclusive,
        singletons="exclude",
    )
    expected = bf_pairwise([_key(k) for k in keys], y, r, relative, inclusive)
    np.testing.assert_allclose(res.per_record, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.weights, 1 - expected, rtol=0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(datasets(max_n=20), st.data())
def test_synthetic_ir_matches_brute_force(case, data):
    keys, y, r, relative, inclusive = case
    df, kcols, tcols = _frame(keys, y)
    n, d = len(y), len(y[0])
    impls = []
    expected = np.zeros(n)
    n_impl = data.draw(st.integers(1, 3))
    for _ in range(n_impl):
        # synthetic values: draws, some copies of the truth, some missing; keys mostly kept
        ys = [
            tuple(
                data.draw(st.one_of(_value, st.just(y[i][t]), st.just(float("nan"))))
                for t in range(d)
            )
            for i in range(n)
        ]
        skeys = list(keys)
        if data.draw(st.booleans()) and kcols:
            skeys = [tuple(data.draw(_keyval) for _ in kcols) for _ in range(n)]
        sdf, _, _ = _frame(skeys, ys)
        impls.append(sdf)
        expected += bf_syn(
            [_key(k) for k in keys], y, [_key(k) for k in skeys], ys, r, relative, inclusive
        )
    expected /= n_impl
    res = identification_risk(
        df,
        impls,
        keys=kcols,
        targets=tcols,
        radius=_radius(r, tcols),
        relative=relative,
        inclusive=inclusive,
        singletons="zero",
    )
    np.testing.assert_allclose(res.per_record, expected, rtol=0, atol=1e-12)
    assert res.per_implicate is not None and res.per_implicate.shape == (n, n_impl)


def test_multi_target_chunking_gives_the_same_counts(monkeypatch):
    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame(
        {
            "k": rng.integers(0, 3, n),
            "a": rng.integers(1, 20, n).astype(float),
            "b": rng.normal(size=n),
            "c": rng.integers(0, 4, n).astype(float),
        }
    )
    radius = {"a": 0.3, "b": 0.5, "c": 0.5}
    kw = dict(keys=["k"], targets=["a", "b", "c"], radius=radius, singletons="zero")
    whole = identification_risk(df, **kw).per_record
    pw = pairwise_identification_risk(df, **kw).per_record
    monkeypatch.setattr(_balls, "_CHUNK", 37)
    np.testing.assert_array_equal(identification_risk(df, **kw).per_record, whole)
    np.testing.assert_array_equal(pairwise_identification_risk(df, **kw).per_record, pw)
    keys = [(k,) for k in df["k"]]
    y = list(zip(df["a"], df["b"], df["c"]))
    np.testing.assert_allclose(whole, bf_conf(keys, y, (0.3, 0.5, 0.5), True, False), atol=1e-12)


# ----------------------------------------------------------------------------- the paper


def _betty(n_outside: int, own_inside: bool) -> float:
    """Betty (y = 100, r = 10%: ball (90, 110)) in a pattern of 13 records."""
    conf = pd.DataFrame({"pattern": ["p"] * 13, "income": [100.0] + [50.0] * 12})
    syn = np.array([100.0] * 13)
    syn[13 - n_outside :] = 200.0  # the last n_outside records lie outside Betty's ball
    if not own_inside:
        syn[0], syn[-1] = 200.0, 100.0  # Betty's own synthetic value moves out, another moves in
    release = conf.assign(income=syn)
    res = identification_risk(conf, release, keys=["pattern"], targets="income", radius=0.1)
    return float(res.per_record[0])


def test_betty_example_figure_1():
    assert _betty(10, True) == pytest.approx(10 / 13, abs=1e-15)
    assert _betty(5, True) == pytest.approx(5 / 13, abs=1e-15)
    assert _betty(10, False) == 0.0


def test_average_over_implicates_and_match_share():
    conf = pd.DataFrame({"k": ["a"] * 4, "y": [10.0, 11.0, 30.0, 60.0]})
    z1 = conf.copy()
    z2 = conf.assign(y=[10.5, 30.0, 30.0, 60.0])
    res = identification_risk(conf, [z1, z2], keys=["k"], targets="y", radius=0.2)
    # z1: record 0 has {10, 11} inside (8, 12): 2/4 outside; z2: {10.5} inside: 3/4 outside
    assert res.per_implicate is not None
    np.testing.assert_allclose(res.per_implicate[0], [0.5, 0.75])
    np.testing.assert_allclose(res.per_implicate[1], [0.5, 0.0])  # 30 not in (8.8, 13.2): T = 0
    np.testing.assert_allclose(res.per_record, [0.625, 0.25, 0.625, 0.75])
    np.testing.assert_allclose(res.match_share, [1.0, 0.5, 1.0, 1.0])
    assert res.mean == pytest.approx(np.mean([0.625, 0.25, 0.625, 0.75]))
    assert res.n_implicates == 2


def test_confidential_pairwise_hand_example():
    conf = pd.DataFrame({"k": [1, 1, 1], "y": [10.0, 11.0, 30.0]})
    res = pairwise_identification_risk(conf, keys=["k"], targets="y", radius=0.2)
    # IR_12 = 1/3 (30 lies outside both), IR_13 = IR_23 = 0
    np.testing.assert_allclose(res.per_record, [1 / 6, 1 / 6, 0.0], atol=1e-15)
    np.testing.assert_allclose(res.weights, [5 / 6, 5 / 6, 1.0], atol=1e-15)
    assert res.mean == pytest.approx(1 / 9)


# ----------------------------------------------------------------------------- definitions


def test_zero_and_negative_values_and_boundary():
    conf = pd.DataFrame({"y": [0.0, 0.0, -10.0, -8.0, -12.0, 1e-9]})
    res = identification_risk(conf, keys=[], targets="y", radius=0.2)
    # y = 0: the ball is the point 0, holding both zeros -> 4/6 outside
    # y = -10: ball (-12, -8) strict -> only -10 inside -> 5/6; inclusive: three inside -> 3/6
    np.testing.assert_allclose(res.per_record[:3], [4 / 6, 4 / 6, 5 / 6])
    inc = identification_risk(conf, keys=[], targets="y", radius=0.2, inclusive=True)
    np.testing.assert_allclose(inc.per_record[:3], [4 / 6, 4 / 6, 3 / 6])
    # absolute radius 0.5 around 0 holds 0, 0 and 1e-9
    ab = identification_risk(conf, keys=[], targets="y", radius=0.5, relative=False)
    assert ab.per_record[0] == pytest.approx(3 / 6)


def test_zero_radius_is_exact_matching():
    conf = pd.DataFrame({"y": [1.0, 1.0, 2.0, 3.0]})
    res = identification_risk(conf, keys=[], targets="y", radius=0.0)
    np.testing.assert_allclose(res.per_record, [0.5, 0.5, 0.75, 0.75])


def test_missing_key_is_a_value_of_its_own():
    conf = pd.DataFrame({"k": ["a", None, None, "a", "b"], "y": [1.0, 1.0, 5.0, 5.0, 5.0]})
    res = identification_risk(conf, keys=["k"], targets="y", radius=0.1, singletons="zero")
    # patterns: {0, 3} ('a'), {1, 2} (missing), {4} ('b')
    np.testing.assert_array_equal(res.pattern_size, [2, 2, 2, 2, 1])
    np.testing.assert_allclose(res.per_record, [0.5, 0.5, 0.5, 0.5, 0.0])
    # a release whose missing key became a present value leaves the pattern
    rel = conf.assign(k=["a", "a", None, "a", "b"])
    syn = identification_risk(conf, rel, keys=["k"], targets="y", radius=0.1, singletons="zero")
    # record 1 (missing key) now sits in pattern 'a' -> T = 0; record 2 is alone among missing
    # (1 member, inside) -> 0 outside; record 0: members {0, 1, 3}, inside {0, 1} -> 1/3
    np.testing.assert_allclose(syn.per_record, [1 / 3, 0.0, 0.0, 2 / 3, 0.0])


def test_singleton_policies_and_warning():
    conf = pd.DataFrame({"k": [1, 1, 2], "y": [1.0, 5.0, 7.0]})
    with pytest.warns(DisclosureWarning, match="1 of 3 records"):
        res = identification_risk(conf, keys=["k"], targets="y", radius=0.1)
    assert res.n_singletons == 1 and res.singleton_share == pytest.approx(1 / 3)
    np.testing.assert_allclose(res.per_record, [0.5, 0.5, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = identification_risk(conf, keys=["k"], targets="y", radius=0.1, singletons="one")
        exc = identification_risk(conf, keys=["k"], targets="y", radius=0.1, singletons="exclude")
        syn = identification_risk(
            conf,
            [conf, conf.assign(y=[1.0, 5.0, 100.0])],
            keys=["k"],
            targets="y",
            radius=0.1,
            singletons="one",
        )
        pw = pairwise_identification_risk(
            conf, keys=["k"], targets="y", radius=0.1, singletons="one"
        )
    np.testing.assert_allclose(one.per_record, [0.5, 0.5, 1.0])
    assert np.isnan(exc.per_record[2]) and exc.mean == pytest.approx(0.5)
    assert exc.max == pytest.approx(0.5)
    np.testing.assert_allclose(syn.per_record, [0.5, 0.5, 0.5])  # T = 1 in one of two
    # a pair's own values are inside their own balls, so nobody is outside both: IR_12 = 0
    np.testing.assert_allclose(pw.per_record, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(pw.weights, [1.0, 1.0, 0.0])
    with pytest.warns(DisclosureWarning):
        pz = pairwise_identification_risk(conf, keys=["k"], targets="y", radius=0.1)
    assert pz.weights[2] == 1.0


def test_release_pattern_missing_from_implicate_scores_zero():
    conf = pd.DataFrame({"k": ["a", "a", "b", "b"], "y": [1.0, 2.0, 3.0, 4.0]})
    rel = conf.assign(k=["a", "a", "a", "a"])
    res = identification_risk(conf, rel, keys=["k"], targets="y", radius=0.1)
    np.testing.assert_allclose(res.per_record, [0.75, 0.75, 0.0, 0.0])


def test_result_frame_and_summary():
    conf = pd.DataFrame({"k": [1, 1, 1, 1], "y": [10.0, 11.0, 30.0, 60.0]}, index=list("abcd"))
    res = identification_risk(conf, keys=["k"], targets="y", radius=0.2)
    frame = res.to_frame()
    assert list(frame.index) == list("abcd")
    np.testing.assert_allclose(frame["risk"], [0.5, 0.5, 0.75, 0.75])
    np.testing.assert_array_equal(frame["n_inside"], [2, 2, 1, 1])
    assert res.quantiles[0.5] == pytest.approx(0.625)
    assert res.count_above(0.5) == 2 and res.share_above(0.5) == 0.5
    text = res.summary()
    assert "mean 0.6250" in text and "max 0.7500" in text
    for v in ("10.0", "11.0", "30", "60"):
        assert v not in text


# ----------------------------------------------------------------------------- errors


def test_errors_name_columns_not_values():
    conf = pd.DataFrame({"k": ["secret", "x"], "y": [123456.0, np.nan], "t": ["a", "b"]})
    with pytest.raises(DataError, match="'nope'"):
        identification_risk(conf, keys=["nope"], targets="y")
    with pytest.raises(SchemaError, match="some values are missing") as e:
        identification_risk(conf, keys=["k"], targets="y")
    assert "123456" not in str(e.value) and "secret" not in str(e.value)
    with pytest.raises(SchemaError, match="numeric"):
        identification_risk(conf, keys=["k"], targets="t")
    ok = conf.assign(y=[1.0, 2.0])
    with pytest.raises(ParameterError, match="radius"):
        identification_risk(ok, keys=["k"], targets="y", radius=-0.1)
    with pytest.raises(ParameterError, match="singletons"):
        identification_risk(ok, keys=["k"], targets="y", singletons="drop")
    with pytest.raises(ParameterError, match="both"):
        identification_risk(ok, keys=["y"], targets="y")
    with pytest.raises(DataError, match="rows"):
        identification_risk(ok, ok.iloc[:1], keys=["k"], targets="y", singletons="zero")


# ----------------------------------------------------------------------------- real data


def _bf_numpy(codes, y, r, relative, inclusive, ys=None):
    """Dense per-pattern reference (independent of the sorted-run engine)."""
    n = len(y)
    out = np.zeros(n)
    half = r * np.abs(y) if relative else np.full(n, r)
    lo, hi = y - half, y + half
    for p in np.unique(codes):
        idx = np.flatnonzero(codes == p)
        v = (y if ys is None else ys)[idx]
        if inclusive:
            inside = (v[None, :] >= lo[idx, None]) & (v[None, :] <= hi[idx, None])
        else:
            inside = (v[None, :] > lo[idx, None]) & (v[None, :] < hi[idx, None])
            inside |= v[None, :] == y[idx, None]
        frac_out = 1 - inside.mean(axis=1)
        if ys is not None:
            frac_out = frac_out * inside[np.arange(idx.size), np.arange(idx.size)]
        out[idx] = frac_out
    return out


def test_irc_ce_data_against_dense_reference(shared_data):
    folder = shared_data / "irc_ce"
    conf = pd.read_csv(folder / "CEdata_IdentificationRiskCalculation_n5571.csv")
    syns = [pd.read_csv(folder / f"CEdata_syn_Income_seed2021_m{m}.csv") for m in (1, 2, 3)]
    keys = ["Urban", "Tenure", "Marital", "Educ"]
    codes = conf.groupby(keys, sort=False).ngroup().to_numpy()
    y = conf["Income"].to_numpy(float)
    assert (y == 0).sum() == 445 and (y < 0).sum() == 4  # zeros and negatives are exercised
    for relative, r in ((True, 0.1), (True, 0.2), (False, 5000.0)):
        res = identification_risk(
            conf, keys=keys, targets="Income", radius=r, relative=relative, singletons="zero"
        )
        np.testing.assert_allclose(
            res.per_record, _bf_numpy(codes, y, r, relative, False), atol=1e-12
        )
        syn = identification_risk(
            conf,
            syns,
            keys=keys,
            targets="Income",
            radius=r,
            relative=relative,
            singletons="zero",
        )
        ref = np.mean(
            [_bf_numpy(codes, y, r, relative, False, s["Income"].to_numpy(float)) for s in syns],
            axis=0,
        )
        np.testing.assert_allclose(syn.per_record, ref, atol=1e-12)
        # the release lowers the mean risk against the confidential data
        assert syn.mean < res.mean
    assert res.n_singletons == int((conf.groupby(keys)["Income"].transform("size") == 1).sum())


@pytest.mark.parametrize("loop_patterns", [0, 2048])
def test_both_counting_methods_match_brute_force(monkeypatch, loop_patterns):
    """Per-pattern searches (few patterns) and integer-coded keys (many patterns) agree."""
    monkeypatch.setattr(_balls, "_LOOP_PATTERNS", loop_patterns)
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(1, 30))
        keys = [(int(rng.integers(0, 4)),) for _ in range(n)]
        y = [(float(rng.choice(_VALUES)),) for _ in range(n)]
        ys = [(float(rng.choice(_VALUES)),) for _ in range(n)]
        relative, inclusive = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        r = (float(rng.choice([0.0, 0.2, 0.5])),)
        df, kcols, tcols = _frame(keys, y)
        sdf, _, _ = _frame(keys, ys)
        kw = dict(
            keys=kcols,
            targets=tcols,
            radius=r[0],
            relative=relative,
            inclusive=inclusive,
            singletons="exclude",
        )
        conf = identification_risk(df, **kw).per_record
        syn = identification_risk(df, sdf, **kw).per_record
        pw = pairwise_identification_risk(df, **kw).per_record
        sizes = np.bincount([k[0] for k in keys])[[k[0] for k in keys]]
        single = sizes == 1
        ref_c = np.where(single, np.nan, bf_conf(keys, y, r, relative, inclusive))
        ref_s = np.where(single, np.nan, bf_syn(keys, y, keys, ys, r, relative, inclusive))
        np.testing.assert_allclose(conf, ref_c, atol=1e-12)
        np.testing.assert_allclose(syn, ref_s, atol=1e-12)
        np.testing.assert_allclose(pw, bf_pairwise(keys, y, r, relative, inclusive), atol=1e-12)


def test_patterns_beyond_int64_mixed_radix():
    """Four keys whose level counts multiply past 2**62 are combined through a MultiIndex."""
    from synthguard.risk._patterns import PatternEncoder

    rng = np.random.default_rng(0)
    n = 70_000
    df = pd.DataFrame({f"k{j}": rng.permutation(n) for j in range(4)})
    df.iloc[1] = df.iloc[0]
    enc = PatternEncoder.fit(df, list(df.columns))
    assert enc.n_patterns == n - 1 and enc.codes[0] == enc.codes[1]
    other = df.copy()
    other.iloc[5] = df.iloc[7]
    other.iloc[6, 0] = -1  # an unseen key value
    codes = enc.transform(other)
    assert codes[5] == enc.codes[7] and codes[6] == -1
    np.testing.assert_array_equal(codes[:5], enc.codes[:5])


def test_missing_target_error_names_the_way_out_and_no_count():
    conf = pd.DataFrame({"sex": ["f", "m", "f", "m"] * 5,
                         "income": [1.0, np.nan, 3.0, 4.0, np.nan] * 4})
    with pytest.raises(DataError) as e:
        identification_risk(conf, conf, keys=["sex"], targets="income")
    msg = str(e.value)
    assert "'income'" in msg and "--target" in msg and "evaluation.targets" in msg
    assert "8" not in msg  # how many records miss it is a fact about the confidential data
