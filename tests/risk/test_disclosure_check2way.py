"""synthpop's ``check_2way`` of ``disclosure()``.

* R reference: synthpop 1.9-2's own ``disclosure()`` on the SD2011 fixtures of the disclosure
  vignette (tests/reference/disclosure/synthpop_check_2way.R writes the CSV): every flagged
  pair, its counts and its percentage, for s1 (one implicate) and s5 (five).
* a brute-force recount of the pairs from the records, on a toy file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.risk import disclosure, multi_disclosure

ODS = ["sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab"]
KEYS = ["sex", "age", "region", "placesize"]
REF = Path(__file__).parents[1] / "reference" / "disclosure" / "synthpop_check_2way.csv"


@pytest.fixture
def sd2011(shared_data):
    folder = shared_data / "sd2011"
    fx = folder / "synthpop_fixtures"
    if not (fx / "disclosure_ods_syn_s1_seed8564.csv").exists():
        pytest.skip("synthpop disclosure fixtures not present")
    ods = pd.read_csv(folder / "SD2011.csv")[ODS]
    s1 = pd.read_csv(fx / "disclosure_ods_syn_s1_seed8564.csv")
    s5 = [pd.read_csv(fx / f"disclosure_ods_syn_s5_seed8564_m{i}.csv") for i in range(1, 6)]
    return ods, {"s1": s1, "s5": s5}


@pytest.mark.parametrize(
    ("release", "target"),
    [("s1", "depress"), ("s1", "workab"), ("s1", "marital"), ("s5", "workab")],
)
def test_check_2way_equals_synthpop(sd2011, release, target):
    ods, rel = sd2011
    ref = pd.read_csv(REF)
    ref = ref[(ref["release"] == release) & (ref["target"] == target)].reset_index(drop=True)
    r = disclosure(ods, rel[release], keys=KEYS, targets=target)
    got = r.check_2way
    assert got is not None
    assert r.check2_flagged == (len(ref) > 0)
    assert len(got) == len(ref)
    # same rows in the same order (most DiSCO records first, synthpop's tie order)
    for col in ["implicate", "target_key_levs", "npairs", "key", "key_total", "key_target_total"]:
        assert got[col].tolist() == ref[col].tolist(), col
    # R wrote the percentages with 10 decimals
    np.testing.assert_allclose(
        got["PctTargetKeyLevel"], ref["PctTargetKeyLevel"], rtol=0, atol=5e-11
    )
    if len(ref):
        assert "check_2way" in r.summary()


def test_check_2way_brute_force_and_thresholds():
    rng = np.random.default_rng(3)
    n = 400
    conf = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.choice(list("xy"), n)})
    conf["t"] = np.where(conf["a"] == 0, "u", rng.choice(["u", "v"], n))
    syn = conf.sample(frac=1.0, random_state=1).reset_index(drop=True)
    syn["t"] = np.where(syn["a"] == 0, "u", rng.choice(["u", "v"], n))
    thresh = (2, 60)
    r = disclosure(conf, syn, keys=["a", "b"], targets="t", thresh_2way=thresh)
    # brute force: DiSCO cells by looping over the combinations
    rows = {}
    for (a, b), sq in syn.groupby(["a", "b"]):
        if sq["t"].nunique() != 1:
            continue
        tv = sq["t"].iloc[0]
        d = int(((conf["a"] == a) & (conf["b"] == b) & (conf["t"] == tv)).sum())
        if d <= thresh[0]:
            continue
        for key, lev in (("a", a), ("b", b)):
            rows[(tv, key, str(lev))] = rows.get((tv, key, str(lev)), 0) + d
    expect = {}
    for (tv, key, lev), npairs in rows.items():
        sel = conf[key].astype(str) == lev
        pct = 100 * (conf.loc[sel, "t"] == tv).mean()
        if pct > thresh[1]:
            expect[(f"{tv}|{lev}", key)] = (npairs, int(sel.sum()), pct)
    got = {
        (row.target_key_levs, row.key): (row.npairs, row.key_total, row.PctTargetKeyLevel)
        for row in r.check_2way.itertuples()
    }
    assert set(got) == set(expect) and expect
    for k, v in expect.items():
        assert got[k][:2] == v[:2]
        assert got[k][2] == pytest.approx(v[2])
    assert list(r.check_2way["npairs"]) == sorted(r.check_2way["npairs"], reverse=True)
    # a stricter percentage flags fewer pairs; 100 % flags none
    none = disclosure(conf, syn, keys=["a", "b"], targets="t", thresh_2way=(2, 100))
    assert len(none.check_2way) == 0 and not none.check2_flagged
    assert "check_2way" not in none.summary()
    m = multi_disclosure(conf, syn, keys=["a", "b"], targets=["t"], thresh_2way=thresh)
    pd.testing.assert_frame_equal(m.results["t"].check_2way, r.check_2way)
    with pytest.raises(ParameterError, match="thresh_2way"):
        disclosure(conf, syn, keys=["a", "b"], targets="t", thresh_2way=(4,))


def test_check_2way_summary_prints_no_count(sd2011):
    ods, rel = sd2011
    r = disclosure(ods, rel["s1"], keys=KEYS, targets="workab")
    s = r.summary()
    for n in r.check_2way["npairs"]:
        assert f" {n} " not in s.split("check_2way")[1]


def test_check_2way_on_dask_equals_synthpop(sd2011):
    dd = pytest.importorskip("dask.dataframe")
    from synthguard.risk.release_disclosure import release_disclosure

    ods, rel = sd2011
    ref = pd.read_csv(REF)
    r = release_disclosure(
        dd.from_pandas(ods, npartitions=3),
        [dd.from_pandas(f, npartitions=2) for f in rel["s5"]],
        KEYS,
        ["workab", "depress"],
    )
    for target in ["workab", "depress"]:
        got = r.multi.results[target].check_2way
        exp = ref[(ref["release"] == "s5") & (ref["target"] == target)].reset_index(drop=True)
        assert len(got) == len(exp)
        for col in ["implicate", "target_key_levs", "npairs", "key", "key_total"]:
            assert got[col].tolist() == exp[col].tolist(), col
        np.testing.assert_allclose(
            got["PctTargetKeyLevel"], exp["PctTargetKeyLevel"], rtol=0, atol=5e-11
        )
