"""``synthguard dp``: synthesize with a ledger file, refuse overspend, print the ledger."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import yaml
from click.testing import CliRunner

from synthguard.cli import main


def _write(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], 300), "vote": rng.choice(["D", "R"], 300),
                       "age": rng.uniform(18, 90, 300)})
    data = tmp_path / "conf.csv"
    df.to_csv(data, index=False)
    levels = tmp_path / "levels.yaml"
    levels.write_text(yaml.safe_dump({"sex": ["f", "m"], "vote": ["D", "R"]}))
    return data, levels


def test_dp_synthesize_charges_ledger_and_refuses_overspend(tmp_path):
    data, levels = _write(tmp_path)
    ledger = tmp_path / "ledger.json"
    runner = CliRunner()
    args = ["dp", "synthesize", str(data), "--method", "stratified", "--epsilon", "1",
            "--levels", str(levels), "--bins", "age=18,40,65,90", "--ledger", str(ledger),
            "--budget", "1.5", "--out", str(tmp_path / "out"), "--m", "2", "--n", "100"]
    res = runner.invoke(main, args)
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "out" / "dp_stratified_2.csv")
    assert len(out) == 100 and set(out["sex"]) <= {"f", "m"} and out["age"].between(18, 90).all()
    doc = json.loads(ledger.read_text())
    assert doc["budget"]["epsilon"] == 1.5 and doc["charges"][0]["epsilon"] == 1.0
    # a second fit at epsilon 1 would bring the total to 2 > 1.5
    res = runner.invoke(main, [*args, "--force"])
    assert res.exit_code == 2 and "refused" in res.output
    res = runner.invoke(main, ["dp", "ledger", str(ledger)])
    assert res.exit_code == 0 and "remaining: epsilon=0.5" in res.output


def test_dp_synthesize_requires_public_levels(tmp_path):
    data, _ = _write(tmp_path)
    res = CliRunner().invoke(main, ["dp", "synthesize", str(data), "--epsilon", "1",
                                    "--columns", "sex,vote", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "public levels" in res.output


def test_dp_synthesize_errors_speak_command_line_syntax(tmp_path):
    data, levels = _write(tmp_path)
    base = ["dp", "synthesize", str(data), "--method", "mst", "--epsilon", "1", "--seed", "1",
            "--out", str(tmp_path / "o")]
    # a numeric column without bins when levels are read from the data
    res = CliRunner().invoke(main, [*base, "--levels-from-data"])
    assert res.exit_code == 2
    assert "--bins age=E0,E1,..." in res.output and "bins={" not in res.output
    assert "schema" not in res.output  # the command line has no schema option
    # a library parameter named as the option that sets it
    res = CliRunner().invoke(main, [*base, "--levels", str(levels), "--bins", "age=18,50,90",
                                    "--delta", "0"])
    assert res.exit_code == 2
    assert "option '--delta'" in res.output and "parameter 'delta'" not in res.output


def test_dp_synthesize_prints_expected_and_fitted_error(tmp_path):
    data, levels = _write(tmp_path)
    res = CliRunner().invoke(main, [
        "dp", "synthesize", str(data), "--method", "mst", "--epsilon", "2", "--seed", "1",
        "--levels", str(levels), "--bins", "age=18,40,65,90", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("accuracy: "))
    prov = json.loads((tmp_path / "o" / "metadata" / "provenance.json").read_text())
    assert [r["order"] for r in prov["provenance"]["expected_error"]] == [1, 2]
    exp = {r["order"]: r["expected_tv"] for r in prov["provenance"]["expected_error"]}
    fit = {r["order"]: r for r in prov["provenance"]["fit_error"]}
    assert line == (f"accuracy: expected before spending: 1-way TV {exp[1]:.3g}, 2-way TV "
                    f"{exp[2]:.3g}; after fit, against its noisy measurements: 1-way TV "
                    f"{fit[1]['residual_tv']:.3g} (bound on the true error "
                    f"{fit[1]['bound_tv']:.3g}), 2-way TV {fit[2]['residual_tv']:.3g} (bound "
                    f"on the true error {fit[2]['bound_tv']:.3g})")
    # the manifest keeps the same figures for `synthguard evaluate`'s report
    manifest = json.loads((tmp_path / "o" / "synthguard_manifest.json").read_text())
    assert manifest["details"]["dp error"]["expected"][1]["expected_tv"] == exp[2]
