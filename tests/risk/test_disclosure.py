"""synthpop's disclosure measures (Raab, Nowok & Dibben; synthpop 1.9 ``disclosure()``).

* SD2011 fixtures made by R synthpop 1.9-2 (../shared/data/sd2011/synthpop_fixtures/, seed 8564,
  the disclosure vignette's ``s1`` and ``s5``): the numbers synthpop prints in its vignette
  "Practical privacy metrics for synthetic data" (inst/doc/disclosure.pdf), to printed
  precision;
* a hand-worked tiny case;
* a brute-force loop implementation of the vignette's Appendix 1 and synthpop's exclusions on
  random data.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.risk import disclosure, multi_disclosure

ODS = ["sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab"]
KEYS = ["sex", "age", "region", "placesize"]


@pytest.fixture
def sd2011(shared_data):
    folder = shared_data / "sd2011"
    fx = folder / "synthpop_fixtures"
    if not (fx / "disclosure_ods_syn_s1_seed8564.csv").exists():
        pytest.skip("synthpop disclosure fixtures not present")
    ods = pd.read_csv(folder / "SD2011.csv")[ODS]
    s1 = pd.read_csv(fx / "disclosure_ods_syn_s1_seed8564.csv")
    s5 = [pd.read_csv(fx / f"disclosure_ods_syn_s5_seed8564_m{i}.csv") for i in range(1, 6)]
    return ods, s1, s5


def pct(x):
    return np.round(np.asarray(x, dtype=float) * 100, 2)


# disclosure(s5, ods, keys = c("sex","age","region","placesize"), target = "depress"):
# print(t5, to.print = c("ident", "attrib", "allCAPs")) in the vignette
T5_IDENT = [  # UiO UiS UiOiS repU
    [48.38, 37.34, 22.68, 14.86],
    [48.38, 35.44, 22.24, 13.96],
    [48.38, 35.18, 21.98, 13.62],
    [48.38, 34.90, 22.08, 13.78],
    [48.38, 36.14, 22.00, 14.62],
]
T5_ATTRIB = [  # Dorig Dsyn iS DiS DiSCO DiSDiO max_denom mean_denom
    [53.3, 46.26, 64.90, 34.18, 9.54, 6.14, 3, 1.16],
    [53.3, 44.80, 64.00, 32.50, 10.26, 6.78, 4, 1.19],
    [53.3, 44.60, 64.02, 32.14, 9.10, 5.92, 4, 1.19],
    [53.3, 45.80, 63.88, 33.38, 9.20, 5.52, 4, 1.21],
    [53.3, 44.52, 63.44, 31.46, 9.34, 5.80, 4, 1.23],
]
T5_CAPS = [  # baseCAPd CAPd CAPs DCAP TCAP
    [9.81, 74.15, 69.78, 16.39, 14.70],
    [9.81, 74.15, 69.36, 17.45, 16.03],
    [9.81, 74.15, 69.24, 16.20, 14.21],
    [9.81, 74.15, 69.87, 15.92, 14.40],
    [9.81, 74.15, 69.00, 16.17, 14.72],
]


def test_sd2011_five_implicates_match_synthpop(sd2011):
    ods, _, s5 = sd2011
    r = disclosure(ods, s5, keys=KEYS, targets="depress")
    f = r.to_frame()
    assert list(f.index) == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(pct(f[["uio", "uis", "uisio", "repu"]]), T5_IDENT)
    attrib = np.asarray(T5_ATTRIB)
    np.testing.assert_array_equal(
        pct(f[["dorig", "dsyn", "iso", "dis", "disco", "disdio"]]), attrib[:, :6]
    )
    np.testing.assert_array_equal(f["max_denom"], attrib[:, 6])
    np.testing.assert_array_equal(np.round(f["mean_denom"], 2), attrib[:, 7])
    np.testing.assert_array_equal(
        pct(f[["base_capd", "capd", "caps", "dcap", "tcap"]]), T5_CAPS
    )
    # attributes are the means over implicates
    assert r.repu == pytest.approx(np.mean(np.asarray(T5_IDENT)[:, 3]) / 100, abs=5e-5)
    assert r.disco == pytest.approx(f["disco"].mean())
    assert 0 <= r.repu <= r.uisio <= r.uio <= 1


def test_sd2011_denominator_limit_matches_synthpop(sd2011):
    # multi.disclosure(s1, ods, keys = ..., denom_lim = 1, exclude_ov_denom_lim = TRUE)
    ods, s1, _ = sd2011
    m = multi_disclosure(ods, s1, keys=KEYS, denom_lim=1, exclude_ov_denom_lim=True)
    assert pct(m.uio) == 50.26
    assert pct(m.repu) == 16.36
    f = m.to_frame()
    assert list(f.index) == ["depress", "income", "ls", "marital", "workab"]
    np.testing.assert_array_equal(pct(f["dorig"]), [48.38] * 5)
    np.testing.assert_array_equal(pct(f["disco"]), [7.02, 3.36, 9.84, 15.40, 20.48])
    assert m.max_disco_target == "workab"


def test_sd2011_check_1way_matches_synthpop(sd2011):
    # print(disclosure(s1, ods, target = "workab", keys = ...), to.print = "check_1way"):
    # Level NO, totalDisclosive 2605, nLevelDis 2482, PctLevelDis 95.28
    ods, s1, _ = sd2011
    r = disclosure(ods, s1, keys=KEYS, targets="workab")
    c = r.check_1way.iloc[0]
    assert c["level"] == "NO"
    assert c["n_disclosive"] == 2482
    assert round(c["share_of_disclosive"] * 100, 2) == 95.28
    assert round(r.disco * 5000) == 2605
    assert r.check1_flagged
    # excluding the level takes it out of every attribute measure
    r2 = disclosure(ods, s1, keys=KEYS, targets="workab", not_targetslev="NO")
    assert round(r2.disco * 5000) == 2605 - 2482
    assert r2.check_1way.iloc[0]["level"] != "NO"


def test_sd2011_grouped_income_keeps_missing_code_apart(sd2011):
    ods, s1, _ = sd2011
    r = disclosure(
        ods, s1, keys=KEYS, targets="income", ngroups_targets=20, cont_na={"income": -8}
    )
    ungrouped = disclosure(ods, s1, keys=KEYS, targets="income")
    # grouping makes more cells agree, so more records are disclosive
    assert r.dorig < ungrouped.dorig or r.disco > ungrouped.disco
    # the same grouping done by hand: quantile breaks of conf and synthetic values without
    # missing and -8, intervals closed on the left (R cut(right = FALSE, include.lowest))
    vals = pd.concat([ods["income"], s1["income"]])
    ok = vals[(vals != -8) & vals.notna()].to_numpy()
    br = np.unique(np.quantile(ok, np.arange(21) / 20))

    def grp(s):
        g = np.clip(np.searchsorted(br, s.to_numpy(), side="right") - 1, 0, br.size - 2)
        out = pd.Series(g.astype(float), index=s.index)
        out[s == -8] = -8
        out[s.isna()] = np.nan
        return out

    hand = disclosure(
        ods.assign(income=grp(ods["income"])), s1.assign(income=grp(s1["income"])),
        keys=KEYS, targets="income",
    )  # fmt: skip
    pd.testing.assert_frame_equal(r.to_frame(), hand.to_frame())


# ------------------------------------------------------------------ hand-worked tiny case


def test_hand_worked_case():
    # q = (age, sex). conf: (30,f) y, (30,f) y, (40,m) n, (50,m) y
    # syn:  (30,f) y, (40,m) n, (40,m) n, (60,m) y
    conf = pd.DataFrame({"age": [30, 30, 40, 50], "sex": list("ffmm"), "ill": list("yyny")})
    syn = pd.DataFrame({"age": [30, 40, 40, 60], "sex": list("fmmm"), "ill": list("ynny")})
    r = disclosure(conf, syn, keys=["age", "sex"], targets="ill")
    # d_.q: 30f 2, 40m 1, 50m 1 -> UiO = 2/4; s_.q: 30f 1, 40m 2, 60m 1 -> UiS = 2/4
    assert r.uio == 0.5 and r.uis == 0.5
    # unique in conf and present in syn: 40m -> 1/4; unique in both: none
    assert r.uisio == 0.25 and r.repu == 0.0
    # every conf q has one level -> Dorig 1; every syn q too -> Dsyn 1
    assert r.dorig == 1.0 and r.dsyn == 1.0
    # q found in syn: 30f (2 records), 40m (1) -> iS = 3/4 = DiS; correct: both -> DiSCO 3/4
    assert r.iso == 0.75 and r.dis == 0.75 and r.disco == 0.75 and r.disdio == 0.75
    # DCAP = sum ps_tq d_tq / N_d = (1*2 + 1*1) / 4; TCAP = 3 / (2 + 1)
    assert r.dcap == 0.75 and r.tcap == 1.0
    # baseCAPd = (3/4)^2 + (1/4)^2
    assert r.base_capd == pytest.approx(0.625)
    assert r.max_denom == 2 and r.mean_denom == 1.5


def test_hand_worked_exclusions():
    conf = pd.DataFrame({"k": ["a", "a", "b", None], "t": ["x", "x", "y", "y"]})
    syn = pd.DataFrame({"k": ["a", "b", "b", None], "t": ["x", "y", "x", "y"]})
    r = disclosure(conf, syn, keys=["k"], targets="t")
    # q a: d (x2) s (x1) -> DiSCO 2; q b: d (y1) s (x1,y1) -> not; q NA: d y1, s y1 -> 1
    assert r.disco == 0.75
    assert r.repu == 0.25  # missing is a level: the NA record is unique in both
    r2 = disclosure(conf, syn, keys=["k"], targets="t", use_keys_na=False)
    assert r2.disco == 0.5 and r2.repu == 0.0
    r3 = disclosure(conf, syn, keys=["k"], targets="t", denom_lim=1, exclude_ov_denom_lim=True)
    assert r3.disco == 0.25  # the a/x cell holds 2 confidential records
    r4 = disclosure(
        conf, syn, keys=["k"], targets="t",
        exclude_keys=["k"], exclude_keylevs=["a"], exclude_targetlevs=["x"],
    )  # fmt: skip
    assert r4.disco == 0.25 and r4.dorig == 0.5


# ------------------------------------------------------------------------ brute force


def brute(conf, syn, keys, target, *, denom_lim=5, ov=False, not_t=(), use_t_na=True,
          use_k_na=None, pairs=()):  # fmt: skip
    """Appendix 1 of the vignette and synthpop's exclusions, cell by cell with dicts."""
    miss = "<NA>"

    def lab(v):
        return miss if pd.isna(v) else v

    def rows(df):
        return [
            (tuple(lab(v) for v in r[keys]), lab(r[target])) for _, r in df.iterrows()
        ]

    rd, rs = rows(conf), rows(syn)
    nd, ns = len(rd), len(rs)
    qs = sorted({q for q, _ in rd + rs}, key=str)
    ts = sorted({t for _, t in rd + rs}, key=str)
    d = {(t, q): 0 for t in ts for q in qs}
    s = dict(d)
    for q, t in rd:
        d[t, q] += 1
    for q, t in rs:
        s[t, q] += 1
    dq = {q: sum(d[t, q] for t in ts) for q in qs}
    sq = {q: sum(s[t, q] for t in ts) for q in qs}
    td = {t: sum(d[t, q] for q in qs) for t in ts}
    pd1 = {c: dq[c[1]] > 0 and d[c] == dq[c[1]] for c in d}
    ps1 = {c: sq[c[1]] > 0 and s[c] == sq[c[1]] for c in d}
    anydis = {q: any(ps1[t, q] for t in ts) for q in qs}
    tabs = {
        "d": dict(d), "s": dict(s),
        "did": {c: d[c] * pd1[c] for c in d}, "dis": {c: s[c] * ps1[c] for c in d},
        "iS": {c: d[c] * (sq[c[1]] > 0) for c in d}, "DiS": {c: d[c] * anydis[c[1]] for c in d},
        "DiSCO": {c: d[c] * ps1[c] for c in d}, "DiSDiO": {c: d[c] * ps1[c] * pd1[c] for c in d},
    }  # fmt: skip
    conf_t_missing = any(t == miss for _, t in rd)

    def excluded(c):
        t, q = c
        if t in not_t:
            return True
        if not use_t_na and conf_t_missing and t == miss:
            return True
        for i in range(len(keys)):
            if use_k_na is not None and not use_k_na[i] and q[i] == miss:
                return True
        return any(t == tl and q[keys.index(k)] == kl for k, kl, tl in pairs)

    for tab in tabs.values():
        for c in tab:
            if excluded(c) or (ov and tab[c] > denom_lim):
                tab[c] = 0
    d2, s2 = tabs["d"], tabs["s"]
    dq2 = {q: sum(d2[t, q] for t in ts) for q in qs}
    sq2 = {q: sum(s2[t, q] for t in ts) for q in qs}
    disco = sum(tabs["DiSCO"].values())
    pos = [v for v in tabs["DiSCO"].values() if v > 0]
    pdp = {c: d2[c] / dq2[c[1]] if dq2[c[1]] else 0 for c in d}
    psp = {c: s2[c] / sq2[c[1]] if sq2[c[1]] else 0 for c in d}
    tden = sum(dq2[q] for q in qs if sq2[q] > 0)
    return {
        "uio": sum(dq2[q] == 1 for q in qs) / nd,
        "uis": sum(sq2[q] == 1 for q in qs) / ns,
        "uisio": sum(dq2[q] == 1 and sq[q] > 0 for q in qs) / nd,
        "repu": sum(dq2[q] == 1 and sq2[q] == 1 for q in qs) / nd,
        "dorig": sum(tabs["did"].values()) / nd,
        "dsyn": sum(tabs["dis"].values()) / ns,
        "iso": sum(tabs["iS"].values()) / nd,
        "dis": sum(tabs["DiS"].values()) / nd,
        "disco": disco / nd,
        "disdio": sum(tabs["DiSDiO"].values()) / nd,
        "max_denom": max(tabs["DiSCO"].values()),
        "mean_denom": np.mean(pos) if pos else np.nan,
        "base_capd": sum((td[t] / nd) ** 2 for t in ts),
        "capd": sum(pdp[c] * d2[c] for c in d) / nd,
        "caps": sum(psp[c] * s2[c] for c in d) / ns,
        "dcap": sum(psp[c] * d2[c] for c in d) / nd,
        "tcap": disco / tden if tden else np.nan,
    }


def random_pair(rng, n_conf, n_syn):
    def make(n):
        f = pd.DataFrame(
            {
                "a": rng.choice(["u", "v", "w"], n),
                "b": rng.integers(0, 4, n).astype(float),
                "c": rng.choice(["p", "q"], n, p=[0.8, 0.2]),
                "t": rng.choice(["x", "y", "z"], n, p=[0.7, 0.2, 0.1]),
            }
        )
        f.loc[rng.random(n) < 0.1, "b"] = np.nan
        f.loc[rng.random(n) < 0.1, "t"] = None
        return f

    return make(n_conf), make(n_syn)


@pytest.mark.parametrize("seed", range(6))
def test_matches_brute_force_on_random_data(seed):
    rng = np.random.default_rng(seed)
    conf, syn = random_pair(rng, int(rng.integers(20, 60)), int(rng.integers(20, 60)))
    keys = ["a", "b", "c"]
    options = [
        ({}, {}),
        ({"denom_lim": 2, "exclude_ov_denom_lim": True}, {"denom_lim": 2, "ov": True}),
        ({"not_targetslev": "x", "use_targets_na": False}, {"not_t": ("x",), "use_t_na": False}),
        ({"use_keys_na": {"b": False}}, {"use_k_na": [True, False, True]}),
        (
            {"exclude_keys": ["a", "c"], "exclude_keylevs": ["u", "p"],
             "exclude_targetlevs": ["x", "y"]},
            {"pairs": (("a", "u", "x"), ("c", "p", "y"))},
        ),
    ]  # fmt: skip
    for ours, theirs in options:
        got = disclosure(conf, syn, keys=keys, targets="t", **ours).to_frame().iloc[0]
        want = brute(conf, syn, keys, "t", **theirs)
        for k, v in want.items():
            assert got[k] == pytest.approx(v, nan_ok=True), (seed, ours, k)


def test_implicates_are_measured_separately_and_averaged():
    rng = np.random.default_rng(7)
    conf, s1 = random_pair(rng, 40, 30)
    _, s2 = random_pair(rng, 40, 50)
    both = disclosure(conf, [s1, s2], keys=["a", "b"], targets="t")
    one = disclosure(conf, s1, keys=["a", "b"], targets="t").to_frame().iloc[0]
    two = disclosure(conf, s2, keys=["a", "b"], targets="t").to_frame().iloc[0]
    pd.testing.assert_series_equal(both.to_frame().loc[1], one, check_names=False)
    pd.testing.assert_series_equal(both.to_frame().loc[2], two, check_names=False)
    assert both.disco == pytest.approx((one["disco"] + two["disco"]) / 2)


def test_grouped_key_equals_hand_grouping():
    rng = np.random.default_rng(3)
    conf = pd.DataFrame({"k": rng.normal(size=200).round(2), "g": rng.integers(0, 3, 200),
                         "t": rng.integers(0, 2, 200)})  # fmt: skip
    syn = pd.DataFrame({"k": rng.normal(size=150).round(2), "g": rng.integers(0, 3, 150),
                        "t": rng.integers(0, 2, 150)})  # fmt: skip
    r = disclosure(conf, syn, keys=["k", "g"], targets="t", ngroups_keys={"k": 5})
    br = np.quantile(np.r_[conf["k"], syn["k"]], np.arange(6) / 5)

    def interval(x):  # R: cut(x, br, right = FALSE, include.lowest = TRUE)
        if x == br[-1]:
            return len(br) - 2
        return next(i for i in range(len(br) - 1) if br[i] <= x < br[i + 1])

    cut = {n: f.assign(k=f["k"].map(interval)) for n, f in (("c", conf), ("s", syn))}
    hand = disclosure(cut["c"], cut["s"], keys=["k", "g"], targets="t")
    pd.testing.assert_frame_equal(r.to_frame(), hand.to_frame())


def test_multi_disclosure_is_disclosure_per_target():
    rng = np.random.default_rng(11)
    conf, syn = random_pair(rng, 50, 50)
    m = multi_disclosure(conf, syn, keys=["a", "b"])
    assert list(m.results) == ["c", "t"]
    for t in ("c", "t"):
        single = disclosure(conf, syn, keys=["a", "b"], targets=t)
        pd.testing.assert_frame_equal(m.results[t].to_frame(), single.to_frame())
        assert m.to_frame().loc[t, "disco"] == single.disco
    assert m.max_disco == max(r.disco for r in m.results.values())
    assert "repU" in m.summary()


def test_a_copy_of_the_data_replicates_every_unique():
    rng = np.random.default_rng(2)
    conf, _ = random_pair(rng, 60, 1)
    r = disclosure(conf, conf.copy(), keys=["a", "b", "c"], targets="t")
    assert r.repu == r.uio > 0
    assert r.disco == r.dorig and r.tcap == r.dorig
    assert "DiSCO" in r.summary()


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"keys": ["a"], "targets": "a"}, ParameterError),
        ({"keys": ["a", "nope"], "targets": "t"}, DataError),
        ({"keys": [], "targets": "t"}, ParameterError),
        ({"keys": ["b"], "targets": "t", "ngroups_keys": 1}, ParameterError),
        ({"keys": ["a"], "targets": "t", "denom_lim": 0}, ParameterError),
        ({"keys": ["a"], "targets": "t", "not_targetslev": "never"}, ParameterError),
        ({"keys": ["a"], "targets": "t", "cont_na": {"b": -8}}, DataError),
        ({"keys": ["a"], "targets": "t", "exclude_keys": ["a"], "exclude_keylevs": []},
         ParameterError),
        ({"keys": ["a"], "targets": "t", "use_keys_na": [True, False]}, ParameterError),
    ],
)
def test_bad_options_raise(kwargs, error):
    rng = np.random.default_rng(0)
    conf, syn = random_pair(rng, 30, 30)
    with pytest.raises(error):
        disclosure(conf, syn, **kwargs)


def test_no_pairs_are_formed_at_scale():
    # 20k x 20k with 4 keys in well under a second's worth of work per implicate; the
    # benchmark (benchmarks/disclosure.py) times 100k x 100k with 6 keys.
    rng = np.random.default_rng(0)
    n = 20_000
    cols = {f"k{i}": rng.integers(0, 12, n) for i in range(4)}
    conf = pd.DataFrame({**cols, "t": rng.integers(0, 5, n)})
    syn = conf.sample(frac=1, random_state=1).reset_index(drop=True)
    r = disclosure(conf, syn, keys=list(cols), targets="t")
    assert r.repu == r.uio  # a permutation of the rows has the same tables
    assert list(itertools.chain(r.keys)) == list(cols)
