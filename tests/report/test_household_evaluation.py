"""evaluate(..., household=) end to end on sdcMicro's testdata: the data's household risk,
replicated households in the default gate, the household utility measures in the table and
the report, and `synthguard evaluate --household`. The releases are made by simple means:
the data itself (every household replicated), whole households resampled, and the data with
every age moved by one year (no household replicated)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.errors import ParameterError
from synthguard.report import METRICS, evaluate, write_report
from synthguard.risk import individual_risk, replicated_households
from synthguard.utility.household_size import household_size
from synthguard.utility.poverty import compare_poverty
from tests.conftest import SHARED_DATA

KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
ROLES = {"relationship": "relat", "age": "age", "sex": "sex", "income": "income"}


@pytest.fixture(scope="module")
def testdata() -> pd.DataFrame:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED_DATA}")
    return pd.read_csv(SHARED_DATA / "sdcmicro" / "testdata.csv")


def _resampled(d: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    groups = dict(list(d.groupby("ori_hid")))
    pick = rng.choice(list(groups), len(groups))
    return pd.concat([groups[h].assign(ori_hid=i + 9000) for i, h in enumerate(pick)],
                     ignore_index=True)


@pytest.fixture(scope="module")
def ev(testdata: pd.DataFrame):  # type: ignore[no-untyped-def]
    releases = {"copy": testdata, "resampled": _resampled(testdata, 1),
                "aged": testdata.assign(age=testdata["age"] + 1)}
    return evaluate(testdata, releases, keys=KEYS, targets=["income"],
                    weights="sampling_weight", household="ori_hid", household_roles=ROLES,
                    random_state=1)


def test_household_risk_of_the_data(ev, testdata: pd.DataFrame) -> None:  # type: ignore[no-untyped-def]
    direct = individual_risk(testdata, KEYS, weights="sampling_weight", household="ori_hid")
    hr = ev.households.data_risk.household
    assert direct.household is not None
    assert hr.expected_reidentifications == pytest.approx(
        direct.household.expected_reidentifications)
    # the figure sdcMicro 5.8.0 gives (tests/reference/household/sdcmicro_hier_risk_global.csv)
    assert hr.expected_reidentifications == pytest.approx(51.812927435960688, rel=1e-10)


def test_replicated_households_gate(ev, testdata: pd.DataFrame) -> None:  # type: ignore[no-untyped-def]
    assert ev["copy"].metrics["replicated_households"] == 1.0
    res = ev.implicates  # person-level implicates: without the household id
    assert all("ori_hid" not in df.columns for impl in res.values() for df in impl)
    assert "ori_hid" not in ev.conf.columns
    assert ev["aged"].metrics["replicated_households"] == 0.0
    shares = {c.threshold.metric: c.passed for c in ev["aged"].checks}
    assert shares["replicated_households"] is True
    assert {c.threshold.metric: c.passed for c in ev["copy"].checks}["replicated_households"] is False
    direct = replicated_households(testdata, _resampled(testdata, 1), "ori_hid")
    assert ev["resampled"].metrics["replicated_households"] == pytest.approx(direct.share)
    assert direct.share > 0.99  # resampling whole households copies them


def test_household_utility_metrics(ev, testdata: pd.DataFrame) -> None:  # type: ignore[no-untyped-def]
    rel = _resampled(testdata, 1)
    assert ev["copy"].metrics["household_size_tv"] == 0.0
    assert ev["copy"].metrics["poverty_rate_diff"] == 0.0
    assert ev["resampled"].metrics["household_size_tv"] == pytest.approx(
        household_size(testdata, rel, "ori_hid", weights="sampling_weight").tv)
    assert ev["resampled"].metrics["poverty_rate_diff"] == pytest.approx(
        compare_poverty(testdata, rel, "ori_hid", "income", "age",
                        weights="sampling_weight").diff)
    table = ev.to_frame()
    for m in ("replicated_households", "household_size_tv", "household_composition_tv",
              "partner_age_corr_diff", "children_age_corr_diff", "household_totals_ks",
              "poverty_rate_diff"):
        assert m in table.columns
        assert table[m].notna().all()
        lo, hi = METRICS[m].lower, METRICS[m].upper  # within the declared range
        assert table[m].between(lo, hi).all()


def test_report_has_a_household_section(ev, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    html = write_report(ev, tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="households-table"' in html
    assert "hier_risk" in html and "at-risk-of-poverty rate" in html
    assert "51.81" in html


def test_protected_release_is_not_judged_by_replicated_households(testdata: pd.DataFrame) -> None:
    ev = evaluate(testdata, {"masked": testdata}, keys=KEYS, targets=[], household="ori_hid",
                  kinds={"masked": "protected"})
    check = {c.threshold.metric: c for c in ev["masked"].checks}["replicated_households"]
    assert check.passed is not False


def test_bad_household_arguments(testdata: pd.DataFrame) -> None:
    with pytest.raises(ParameterError, match="also a key"):
        evaluate(testdata, {"c": testdata}, keys=[*KEYS, "ori_hid"], targets=[],
                 household="ori_hid")
    with pytest.raises(ParameterError, match="unknown role"):
        evaluate(testdata, {"c": testdata}, keys=KEYS, targets=[], household="ori_hid",
                 household_roles={"spouse": "relat"})
    with pytest.raises(ParameterError, match="name the household-id column"):
        evaluate(testdata, {"c": testdata}, keys=KEYS, targets=[], household_roles=ROLES)
    # a copy fails the default pMSE floor; judged on the rest, the missing id leaves the
    # household measures not computed
    ev = evaluate(testdata, {"c": testdata.drop(columns="ori_hid")}, keys=KEYS, targets=[],
                  household="ori_hid", thresholds={"pmse_ratio": 5})
    assert "households" in ev["c"].errors
    assert ev.status == "incomplete"


def test_cli_household(testdata: pd.DataFrame, tmp_path: Path) -> None:
    conf = tmp_path / "testdata.csv"
    testdata.to_csv(conf, index=False)
    aged = tmp_path / "aged.csv"
    testdata.assign(age=testdata["age"] + 1).to_csv(aged, index=False)
    args = ["evaluate", str(conf), str(aged), "--keys", "urbrur,roof,sex", "--target",
            "income", "--household", "ori_hid", "--household-role", "relationship=relat",
            "--household-role", "age=age", "--household-role", "sex=sex",
            "--household-role", "income=income", "--report", str(tmp_path / "r.html")]
    res = CliRunner().invoke(main, args)
    assert "household size TV" in res.output and "hier_risk_ER" in res.output
    assert "replicated households ≤ 0: pass" in res.output
    copy = CliRunner().invoke(main, [*args[:2], str(conf), *args[3:]])
    assert copy.exit_code == 1
    assert "replicated households ≤ 0: FAIL" in copy.output
    bad = CliRunner().invoke(main, [*args[:-2], "--household", "nope"])
    assert bad.exit_code == 2
    assert "'nope' is not in the data" in bad.output


def test_implicates_worst_replicated_and_mean_utility(testdata: pd.DataFrame) -> None:
    aged = testdata.assign(age=testdata["age"] + 1)
    ev = evaluate(testdata, {"two": [aged, testdata]}, keys=KEYS, targets=[],
                  household="ori_hid", household_roles=ROLES)
    m = ev["two"].metrics
    assert m["replicated_households"] == 1.0  # the worst implicate: the data itself
    per = [u.composition.tv for u in ev.households.utility["two"]]
    assert per[1] == 0.0 and per[0] > 0.0  # a year older: some heads change age group
    assert m["household_composition_tv"] == pytest.approx(np.mean(per))
