"""`synthguard sweep`: the plan's `sweep:` validated, exit codes 0 / 1 / 2 as promised, the
chosen release folder, the table, the figure and the report's frontier section."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.errors import PlanError
from synthguard.pipeline.pipeline import run_plan
from synthguard.pipeline.plan import parse_plan

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 5
    holdout: 0.25
    output: out
    releases:
      syn:
        method: synthesis
        min_rows: 0
        replicated_uniques: keep
        sweep:
          rare_values: [0, 5]
    evaluation:
      keys: [region, kids]
      targets: [income]
      attacks: true
      thresholds: {THRESHOLDS}
    """)


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(4)
    n = 240
    pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 0),
    }).to_csv(tmp_path / "conf.csv", index=False)
    return tmp_path


def _plan(folder, thresholds):
    (folder / "plan.yaml").write_text(PLAN.replace("THRESHOLDS", thresholds))
    return str(folder / "plan.yaml")


def test_sweep_plan_validation_points_at_the_field(folder):
    bad = PLAN.replace("THRESHOLDS", "").replace(
        "rare_values: [0, 5]", "rare_values: [0, 5]\n      min_rows: [0]\n      random_state: [1]"
        "\n      no_such: [1]\n      extremes: []")
    with pytest.raises(PlanError) as e:
        parse_plan(bad, source="plan.yaml", base_dir=folder)
    msg = str(e.value)
    assert "line 13, releases.syn.sweep.min_rows: also given as the release's own" in msg
    assert "line 14, releases.syn.sweep.random_state: set by the pipeline" in msg
    assert "line 15, releases.syn.sweep.no_such: unknown parameter of Synthesizer" in msg
    assert "line 16, releases.syn.sweep.extremes: expected at least one value" in msg
    # `synthguard run` refuses a swept release before making anything
    plan = parse_plan(PLAN.replace("THRESHOLDS", ""), source="plan.yaml", base_dir=folder)
    with pytest.raises(PlanError, match=r"line 11, releases\.syn\.sweep: .*synthguard sweep"):
        run_plan(plan)
    assert not (folder / "out").exists()


def test_sweep_releases_the_gates_choice_exit_0(folder):
    # replicated uniques and multivariate singling out relaxed on 180 training records, so
    # that the near-unique guard alone decides: rare_values=0 hands back incomes held by one
    # person (univariate singling out fails), rare_values=5 does not
    # max IR is not measured per configuration: left to the chosen release's full evaluation
    # (where it does not apply to a fully synthetic release)
    plan = _plan(folder, "replicated_uniques: 1.0, singling_out_multivariate_risk: 1.0, "
                         "max_identification_risk: 0.5")
    r = CliRunner().invoke(main, ["sweep", plan, "--n-attacks", "50"])
    assert r.exit_code == 0, r.output
    assert "left to the chosen release's full evaluation: max IR ≤ 0.5" in r.output
    # the gate measures what rare_values changes (issue 31, N3), and singling out still fails
    line = next(t for t in r.output.splitlines() if t.strip().startswith("rare_values=0: FAIL"))
    assert "rare values released ≤ 0 by" in line and "singling out ≤ 0.05 by" in line
    assert "rare_values=5: PASS" in r.output
    assert "chosen: rare_values=5" in r.output
    out = folder / "out"
    assert sorted(p.name for p in (out / "releases").iterdir()) == ["syn"]
    manifest = json.loads((out / "releases" / "syn" / "synthguard_manifest.json").read_text())
    assert manifest["details"]["sweep configuration"] == "rare_values=5"
    # the split is recorded: evaluate, given the full file, measures against the records the
    # sweep trained on, with its holdout (the sweep's split stream is the run's)
    assert manifest["details"]["plan holdout"] == 0.25
    ev = CliRunner().invoke(main, ["evaluate", str(folder / "conf.csv"), str(out / "releases"),
                                   "--keys", "region,kids", "--target", "income", "--seed", "1"])
    assert "(holdout share 0.25, plan seed 5" in ev.output
    assert "against 180 confidential records (holdout 60)" in ev.output
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["configuration"]) == ["rare_values=0", "rare_values=5"]
    assert list(table["passed"]) == [False, True]
    assert (out / "frontier.png").read_bytes()[:4] == b"\x89PNG"
    html = (out / "report.html").read_text()
    assert 'id="frontier-table"' in html and "rare_values=5 <b>(released)</b>" in html
    # again without --force: refused (exit 2) before anything is made
    r = CliRunner().invoke(main, ["sweep", plan, "--n-attacks", "50"])
    assert r.exit_code == 2 and "--force" in r.output


def test_sweep_none_passes_exit_1_says_which_and_why(folder):
    plan = _plan(folder, "pmse_ratio: 0.0001")
    r = CliRunner().invoke(main, ["sweep", plan, "--n-attacks", "50"])
    assert r.exit_code == 1, r.output
    assert "rare_values=5: FAIL: " in r.output and "pMSE ratio ≤ 0.0001 by" in r.output
    assert "no configuration passes every threshold; the closest" in r.output
    assert "nothing released" in r.output
    out = folder / "out"
    assert not (out / "releases").exists()
    assert (out / "sweep.csv").exists() and (out / "report.html").exists()
    assert "Nothing released:" in (out / "report.html").read_text()


def test_sweep_needs_one_swept_release_exit_2(folder):
    (folder / "plan.yaml").write_text(PLAN.replace("THRESHOLDS", "").replace(
        "    sweep:\n      rare_values: [0, 5]\n", ""))
    r = CliRunner().invoke(main, ["sweep", str(folder / "plan.yaml")])
    assert r.exit_code == 2 and "exactly one release with a 'sweep:'" in r.output


def test_chosen_but_failing_its_full_evaluation_is_not_released_exit_1(folder):
    # membership AUC is not measured per configuration: the gate chooses, the full evaluation
    # of the choice fails it, and nothing is released
    plan = _plan(folder, "replicated_uniques: 1.0, singling_out_multivariate_risk: 1.0, "
                         "membership_auc: 0.0")
    r = CliRunner().invoke(main, ["sweep", plan, "--n-attacks", "50"])
    assert r.exit_code == 1, r.output
    assert "chosen: rare_values=5" in r.output
    assert "but its full evaluation fails (membership AUC ≤ 0: FAIL" in r.output
    assert not (folder / "out" / "releases").exists()
    html = (folder / "out" / "report.html").read_text()
    assert "Nothing released:" in html and "<b>(released)</b>" not in html
