"""synthpop's sdc() on an existing release (synthguard.synthesis.apply_sdc)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.synthesis import apply_sdc

REF = __import__("pathlib").Path(__file__).resolve().parents[1] / "reference" / "sdc_release"
VARS = ["sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke",
        "region"]


def _sd2011():
    from tests.conftest import SHARED_DATA

    folder = SHARED_DATA / "sd2011"
    if not (folder / "SD2011.csv").exists():
        pytest.skip(f"shared reference data not found at {folder}")
    ods = pd.read_csv(folder / "SD2011.csv")[VARS]
    syn = pd.read_csv(folder / "synthpop_fixtures" / "utility_ods_syn_cart_seed34567.csv")[VARS]
    return ods, syn


def test_equals_synthpops_sdc_on_sd2011():
    """R 4.2.2, synthpop 1.9-2's sdc() (tests/reference/sdc_release/synthpop_sdc.R)."""
    ods, syn = _sd2011()
    ref = pd.read_csv(REF / "synthpop_sdc.csv").set_index("case")
    rec = apply_sdc(syn, ods, recode={"age": (None, 80), "income": (0, 5000)},
                    recode_exclude={"income": [-8]})
    r = ref.loc["recode"]
    assert rec.top_coded["age"] == (r["age_top"],)
    assert rec.bottom_coded["income"] == (r["income_bottom"],)
    assert rec.top_coded["income"] == (r["income_top"],)
    out = rec.implicates[0]
    assert out["age"].sum() == r["age_sum"] and out["income"].sum() == r["income_sum"]
    for case, kw in (("replicated", {"rm_replicated_uniques": True}),
                     ("in_orig", {"rm_uniques_in_orig": True})):
        r = ref.loc[case]
        got = apply_sdc(syn, ods, **kw)
        assert got.removed == (r["removed"],)
        kept = got.implicates[0]
        assert len(kept) == r["n_out"] and kept["income"].sum() == r["income_sum"]
        assert kept["age"].sum() == r["age_sum"]


def test_brute_force_on_a_small_release_and_implicates():
    conf = pd.DataFrame({"a": [1, 1, 2, 3, 4, np.nan], "b": list("xxyzwv")})
    rel = pd.DataFrame({"a": [2, 3, 3, 9, np.nan, 1], "b": list("yzzqvx")})
    out = apply_sdc([rel, rel.iloc[::-1]], conf, rm_replicated_uniques=True)
    # (2, y) is unique in both: removed; (3, z) is twice in the release; (nan, v) matches
    # the data's unique (nan, v); (1, x) is not unique in the data
    assert out.removed == (2, 2)
    kept = out.implicates[0]
    assert sorted(zip(kept["a"].fillna(-1), kept["b"])) == [(1, "x"), (3, "z"), (3, "z"),
                                                            (9, "q")]
    found = apply_sdc(rel, conf, rm_uniques_in_orig=True)
    assert found.removed == (3,)  # (1, x) too: unique in the release and found in the data
    assert "records removed" in out.summary() and "< 10" in out.summary()


def test_smoothing_keeps_order_and_excluded_codes():
    rng = np.random.default_rng(2)
    rel = pd.DataFrame({"y": np.round(rng.gamma(2, 100, 300))})
    rel.loc[:9, "y"] = -8
    got = apply_sdc(rel, rel, smooth=["y"], recode_exclude={"y": [-8]}).implicates[0]["y"]
    assert (got[:10] == -8).all()
    free = rel["y"].to_numpy()[10:]
    sm = got.to_numpy()[10:]
    # a monotone smoother of sorted values keeps every value's rank (ties aside)
    assert np.all(np.diff(sm[np.argsort(free, kind="stable")]) >= -1e-6)
    assert np.abs(sm - free).mean() < 0.1 * free.std()


def test_bad_input_is_named():
    conf = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    with pytest.raises(DataError, match="'zz'"):
        apply_sdc(conf, conf, keys=["zz"])
    with pytest.raises(ParameterError, match="'a'"):
        apply_sdc(conf, conf, recode={"a": (1,)})
    with pytest.raises(DataError, match="'b' must be numeric"):
        apply_sdc(conf, conf, smooth=["b"])
