"""`synthguard run`: exit codes 0 / 1 / 2, outputs, --quiet, --help."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 3
    releases:
      top:
        method: sdc
        steps:
          - topcode: {column: income, percentile: 90}
    evaluation:
      keys: [region, kids]
      targets: [income]
      thresholds: {max_identification_risk: LIMIT}
    """)


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
        "spend": np.round(rng.lognormal(9, 0.5, n), 2),
    }).to_csv(tmp_path / "conf.csv", index=False)
    return tmp_path


def _run(folder, limit, *extra):
    (folder / "plan.yaml").write_text(PLAN.replace("LIMIT", str(limit)))
    return CliRunner().invoke(main, ["run", str(folder / "plan.yaml"), *extra])


def test_exit_1_when_a_release_fails(folder):
    res = _run(folder, 0.01)
    assert res.exit_code == 1, res.output
    assert "FAIL" in res.output and "releases failing their thresholds: top" in res.output
    assert (folder / "synthguard_output" / "report.html").exists()


def test_exit_0_when_all_pass_and_quiet(folder):
    res = _run(folder, 1.0, "--quiet", "--out", str(folder / "o"))
    assert res.exit_code == 0, res.output
    assert res.output == ""
    assert (folder / "o" / "report.html").exists() and (folder / "o" / "evaluation.csv").exists()


def test_exit_2_on_bad_plan_with_line(folder):
    res = _run(folder, "high")
    assert res.exit_code == 2
    assert "plan.yaml, line 12, evaluation.thresholds.max_identification_risk" in res.output


def test_help_has_example():
    res = CliRunner().invoke(main, ["run", "--help"])
    assert res.exit_code == 0 and "Examples:" in res.output and "synthguard run plan.yaml" in res.output
