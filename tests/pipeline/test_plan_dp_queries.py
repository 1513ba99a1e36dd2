"""A plan's ``method: dp_queries`` release: statistics per privacy unit on the plan's ledger."""

from __future__ import annotations

import json
import math
import textwrap

import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger
from synthguard.errors import PlanError
from synthguard.pipeline.pipeline import run_plan
from synthguard.pipeline.plan import parse_plan
from tests.dp.session.conftest import households

PLAN = textwrap.dedent("""\
    data:
      path: persons.csv
    seed: 3
    privacy:
      epsilon: 2.0
    releases:
      stats:
        method: dp_queries
        privacy_unit: hid
        max_rows: 5
        epsilon: 1.5
        queries:
          by_sex:
            by: {sex: [Male, Female]}
            aggregations: {n: count, households: count_distinct,
                           hours: {mean: hours_per_week, bounds: [0, 100]}}
            epsilon: 0.5
          everyone:
            aggregations: {n: count}
      synthetic:
        method: synthesis
        m: 1
        drop: [hid]
    evaluation:
      keys: [sex, agegroup]
      targets: [hours_per_week]
    """)


@pytest.mark.filterwarnings("ignore::synthguard.errors.SynthguardWarning")
def test_plan_answers_queries_per_unit_on_the_plans_ledger(tmp_path):
    households(300, seed=5).to_csv(tmp_path / "persons.csv", index=False)
    (tmp_path / "plan.yaml").write_text(PLAN)
    res = run_plan(tmp_path / "plan.yaml")
    out = tmp_path / "synthguard_output"
    folder = out / "releases" / "stats"
    by_sex = pd.read_csv(folder / "by_sex.csv")
    assert list(by_sex["sex"]) == ["Male", "Female"]
    assert {"n", "n_lower", "n_upper", "households", "hours_lower"} <= set(by_sex.columns)
    # counts published as non-negative integers, each inside its (clamped) interval
    assert (by_sex["n"] >= 0).all() and (by_sex["n"] == by_sex["n"].round()).all()
    assert ((by_sex["n_lower"] <= by_sex["n"]) & (by_sex["n"] <= by_sex["n_upper"])).all()
    info = json.loads((folder / "release.json").read_text())
    assert info["kind"] == "dp-queries" and info["privacy_unit"] == "hid (max_rows=5)"
    assert info["files"] == ["by_sex.csv", "everyone.csv"]
    # the second query shares what the first leaves of the release's 1.5
    assert math.isclose(info["queries"]["everyone"]["epsilon"], 1.0)
    ledger = PrivacyLedger.open(out / "ledger.json")
    assert math.isclose(ledger.spent.epsilon, 1.5)  # the unit-level cost, on the plan's ledger
    assert {c.privacy_unit for c in ledger.charges} == {"hid"}
    assert info["ledger"] == "../../ledger.json"
    assert PrivacyLedger.open(folder / "ledger_record.json").spent.epsilon == pytest.approx(1.5)
    page = (folder / "report.html").read_text()
    assert "[unit: hid]" in page and f"{by_sex['n'].iloc[0]:.4g} [" in page
    assert not (folder / "metadata").exists()
    # statistics are not records: the synthetic release alone is evaluated
    assert list(res.evaluation.to_frame().index) == ["synthetic"]


def test_plan_checks_a_queries_release_like_any_dp_release():
    bad = PLAN.replace("epsilon: 1.5", "epsilon: 2.5").replace("max_rows: 5", "max_row: 5")
    with pytest.raises(PlanError) as e:
        parse_plan(bad)
    msg = str(e.value)
    assert "max_row" in msg and "more than the budget" in msg


def test_plan_refuses_dp_releases_of_different_units(tmp_path):
    households(20, seed=1).to_csv(tmp_path / "persons.csv", index=False)
    mixed = PLAN.replace("""  synthetic:
    method: synthesis
    m: 1
    drop: [hid]
""", """  dp_rows:
    method: dp
    synthesizer: stratified
    epsilon: 0.5
""")
    with pytest.raises(PlanError, match="different privacy units"):
        parse_plan(mixed, base_dir=tmp_path)
    # the same DP synthesis at the household level shares the ledger
    same = mixed.replace("stratified\n    epsilon: 0.5", "stratified\n    epsilon: 0.5\n"
                         "    privacy_unit: hid\n    max_rows: 5")
    assert {s.params.get("privacy_unit") for s in parse_plan(same, base_dir=tmp_path).releases
            } == {"hid"}


@pytest.mark.filterwarnings("ignore::synthguard.errors.SynthguardWarning")
def test_plan_queries_overspending_their_release_spend_nothing(tmp_path):
    households(100, seed=6).to_csv(tmp_path / "persons.csv", index=False)
    over = PLAN.replace("epsilon: 0.5", "epsilon: 1.4").replace(  # the release holds 1.5
        "aggregations: {n: count}", "aggregations: {n: count}\n        epsilon: 0.2")
    (tmp_path / "plan.yaml").write_text(over)
    with pytest.raises(PlanError, match="more than the release's"):
        run_plan(tmp_path / "plan.yaml")
    led = tmp_path / "synthguard_output" / "ledger.json"
    assert not led.exists() or PrivacyLedger.open(led).spent.epsilon == 0
