"""Household risk (sdcMicro's hier_risk): a brute-force product over each household's members,
and sdcMicro 5.8.0's own figures on its testdata (tests/reference/household/, made by
sdcmicro_hier_risk.R)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.risk import individual_risk
from synthguard.risk.household_risk import household_risk

REF = Path(__file__).resolve().parents[1] / "reference" / "household"
KEYS = {
    "keys5": ["urbrur", "roof", "walls", "water", "sex"],
    "keys7": ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"],
}


def _brute(risk: np.ndarray, hid: list) -> np.ndarray:
    out = np.empty(len(hid))
    for i, h in enumerate(hid):
        p = 1.0
        for j, g in enumerate(hid):
            if g == h:
                p *= 1.0 - risk[j]
        out[i] = 1.0 - p
    return out


def test_household_risk_is_one_minus_product_of_members() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 3, 60), "b": rng.integers(0, 2, 60),
                       "hh": rng.integers(0, 15, 60), "w": rng.uniform(1, 20, 60)})
    r = individual_risk(df, ["a", "b"], weights="w", household="hh")
    expected = _brute(r.risk, df["hh"].tolist())
    assert r.household is not None
    np.testing.assert_allclose(r.household.risk, expected, rtol=1e-12)
    assert r.household.expected_reidentifications == pytest.approx(expected.sum(), rel=1e-10)
    assert r.household.global_risk == pytest.approx(expected.mean(), rel=1e-10)
    assert r.household.n_households == df["hh"].nunique()
    np.testing.assert_allclose(r.to_frame()["hier_risk"], expected, rtol=1e-12)
    # a household of one has its member's risk; every household risk >= its members'
    assert np.all(r.household.risk >= r.risk - 1e-15)
    frame = r.household.household_frame()
    assert frame["size"].sum() == len(df)


def test_a_member_certain_to_be_identified_makes_the_household_certain() -> None:
    hr = household_risk(np.array([1.0, 0.2, 0.5]), np.array([0, 0, 1]))
    np.testing.assert_allclose(hr.risk, [1.0, 1.0, 0.5])
    assert hr.expected_reidentifications == pytest.approx(2.5)


def test_household_id_problems_are_named() -> None:
    df = pd.DataFrame({"a": [1, 2, 2], "hh": [1.0, None, 2.0]})
    with pytest.raises(DataError, match="'hh' has missing values"):
        individual_risk(df, ["a"], household="hh")
    with pytest.raises(DataError, match="'nope' not found"):
        individual_risk(df, ["a"], household="nope")
    with pytest.raises(ParameterError, match="also a key"):
        individual_risk(df, ["a", "hh"], household="hh")


def _case_keys(case: str) -> list[str]:
    return KEYS[case.split("_")[0]]


@pytest.mark.parametrize("case", pd.read_csv(REF / "sdcmicro_hier_risk_global.csv")["case"])
def test_hier_risk_equals_sdcmicro_on_testdata(case: str, shared_data: Path) -> None:
    glob = pd.read_csv(REF / "sdcmicro_hier_risk_global.csv").set_index("case").loc[case]
    per_hh = pd.read_csv(REF / "sdcmicro_hier_risk_households.csv").set_index("ori_hid")[case]
    df = pd.read_csv(shared_data / "sdcmicro" / "testdata.csv")
    w = glob["weights"] if isinstance(glob["weights"], str) else None
    r = individual_risk(df, _case_keys(case), weights=w, household="ori_hid")
    assert r.household is not None
    # every record carries its household's risk (sdcMicro's Res[, "hier_risk"]); the
    # individual risks agree to about 1e-12 (log and division order), hence rtol 1e-10
    np.testing.assert_allclose(r.household.risk, per_hh.loc[df["ori_hid"]].to_numpy(),
                               rtol=1e-10, atol=1e-17)
    assert r.expected_reidentifications == pytest.approx(glob["global_risk_ER"], rel=1e-10)
    assert r.household.expected_reidentifications == pytest.approx(glob["hier_risk_ER"],
                                                                   rel=1e-10)
    assert r.household.global_risk == pytest.approx(glob["hier_risk"], rel=1e-10)
    assert r.household.global_risk_pct == pytest.approx(glob["hier_risk_pct"], rel=1e-10)
