"""`synthguard init data.csv`: a commented plan that validates and guesses keys and target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.report.plan import load_plan, parse_plan


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    pd.DataFrame({
        "age_group": rng.choice(["18-34", "35-64", "65+"], n),
        "sex": rng.choice(["f", "m"], n),
        "household_income": np.round(rng.lognormal(10, 0.7, n), 2),
        "weight": rng.uniform(0.5, 2.0, n),
    }).to_csv(tmp_path / "survey.csv", index=False)
    return tmp_path / "survey.csv"


def test_init_to_stdout_is_a_valid_commented_plan(data, monkeypatch):
    monkeypatch.chdir(data.parent)
    res = CliRunner().invoke(main, ["init", "survey.csv"])
    assert res.exit_code == 0, res.output
    text = res.output
    assert text.count("#") > 20  # commented throughout
    plan = parse_plan(text, base_dir=data.parent)
    assert plan.data_path == data
    assert plan.keys == ("age_group", "sex")
    assert plan.targets == ("household_income",)  # the sensitive-sounding name wins
    assert [r.name for r in plan.releases] == ["partial", "full", "topcoded"]


def test_init_out_file_and_force(data, tmp_path):
    out = tmp_path / "plans" / "plan.yaml"
    runner = CliRunner()
    res = runner.invoke(main, ["init", str(data), "--out", str(out)])
    assert res.exit_code == 0 and out.exists()
    assert load_plan(out).data_path == data  # relative to the plan's folder
    res = runner.invoke(main, ["init", str(data), "--out", str(out)])
    assert res.exit_code == 2 and "--force" in res.output
    assert runner.invoke(main, ["init", str(data), "--out", str(out), "--force"]).exit_code == 0


def test_help_has_example():
    res = CliRunner().invoke(main, ["init", "--help"])
    assert res.exit_code == 0 and "synthguard init conf.csv > plan.yaml" in res.output
