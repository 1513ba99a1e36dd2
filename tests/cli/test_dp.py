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


def test_missing_values_as_a_public_level(tmp_path):
    rng = np.random.default_rng(5)
    n = 600
    sex = rng.choice(["f", "m"], n).astype(object)
    sex[rng.random(n) < 0.3] = None  # 30 % missing
    df = pd.DataFrame({"sex": sex, "vote": rng.choice(["D", "R"], n),
                       "kids": rng.choice([0, 1, 2], n).astype(float)})
    df.loc[rng.random(n) < 0.2, "kids"] = np.nan  # an integer code read as float
    data = tmp_path / "conf.csv"
    df.to_csv(data, index=False)
    levels = tmp_path / "levels.yaml"
    levels.write_text(yaml.safe_dump({"sex": ["f", "m"], "vote": ["D", "R"], "kids": [0, 1, 2]}))
    base = ["dp", "synthesize", str(data), "--method", "mst", "--epsilon", "5", "--seed", "2",
            "--levels", str(levels)]
    res = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "a")])
    assert res.exit_code == 2  # the library's hint, in command-line syntax
    assert "column 'sex': has missing values; release them as a public level with " \
           "--missing-level missing" in res.output
    res = CliRunner().invoke(main, [*base, "--missing-level", "NA_", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "b" / "dp_mst_1.csv")
    # the level is written back as missing values, at about the data's share (ε = 5)
    assert "NA_" not in set(out["sex"].dropna()) and set(out["sex"].dropna()) <= {"f", "m"}
    assert abs(out["sex"].isna().mean() - df["sex"].isna().mean()) < 0.06
    assert abs(out["kids"].isna().mean() - df["kids"].isna().mean()) < 0.06
    assert set(out["kids"].dropna()) <= {0, 1, 2}
    prov = json.loads((tmp_path / "b" / "metadata" / "provenance.json").read_text())
    # a public level on every declared column, whether or not it has missing values
    assert prov["provenance"]["domain_sizes"] == {"sex": 3, "vote": 3, "kids": 4}
    res = CliRunner().invoke(main, [*base, "--missing-level", "vote=D", "--out",
                                    str(tmp_path / "c")])
    assert res.exit_code == 2 and "'D' is already a level of column 'vote'" in res.output


def test_domain_hints_in_command_line_syntax():
    from synthguard.cli._dp_syntax import cli_message

    assert cli_message("column 'k': holds values outside its declared public levels; add the "
                       "levels to the declaration or recode the values (a public rule) first") \
        == ("column 'k': holds values outside its declared public levels; add them to the "
            "--levels file or recode the values (a public rule) first")


def test_dp_synthesize_reports_progress_and_is_quiet_with_q(tmp_path):
    # issue 17: MST's minute of estimation showed nothing, and there was no --quiet
    data, levels = _write(tmp_path)
    base = ["dp", "synthesize", str(data), "--method", "mst", "--epsilon", "2", "--seed", "1",
            "--levels", str(levels), "--bins", "age=18,40,65,90"]
    res = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    # not a terminal: one line per quarter of the estimation, then the summary
    steps = [ln for ln in res.output.splitlines() if "Private-PGM estimation" in ln]
    assert steps[0].startswith("mst: Private-PGM estimation, 50 of 5000 iterations")
    assert [s.rsplit("(", 1)[1] for s in steps[1:]] == ["25 %)", "50 %)", "75 %)", "100 %)"]
    assert "accuracy: " in res.output and "wrote " in res.output
    quiet = CliRunner().invoke(main, [*base, "-q", "--out", str(tmp_path / "b")])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.output.count("warning:") == 1  # seeded noise: a simulation, said on stderr
    assert "PGM" not in quiet.output and "accuracy" not in quiet.output
    assert "wrote" not in quiet.output
    # quiet changes what is printed, not what is released
    assert (tmp_path / "a" / "dp_mst_1.csv").read_text() == \
        (tmp_path / "b" / "dp_mst_1.csv").read_text()


def test_dp_tabulate_is_quiet_with_q(tmp_path):
    data, levels = _write(tmp_path)
    base = ["dp", "tabulate", str(data), "--table", "sex x vote", "--epsilon", "1", "--seed",
            "1", "--levels", str(levels)]
    loud = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "a")])
    assert loud.exit_code == 0 and "wrote " in loud.output and "privacy ledger" in loud.output
    quiet = CliRunner().invoke(main, [*base, "--quiet", "--out", str(tmp_path / "b")])
    assert quiet.exit_code == 0, quiet.output
    assert "wrote " not in quiet.output and "privacy ledger" not in quiet.output
    assert (tmp_path / "b" / "sex_x_vote.csv").exists()


def test_dp_synthesize_per_household_charges_the_unit_level_cost(tmp_path):
    from synthguard.dp import PrivacyLedger
    from tests.dp.session.conftest import households

    df = households(120, seed=8, max_size=9)[["hid", "sex", "agegroup"]]
    data = tmp_path / "persons.csv"
    df.to_csv(data, index=False)
    levels = tmp_path / "levels.yaml"
    levels.write_text(yaml.safe_dump({"sex": ["Male", "Female"],
                                      "agegroup": ["young", "middle", "old"]}))
    ledger = tmp_path / "ledger.json"
    args = ["dp", "synthesize", str(data), "--method", "stratified", "--epsilon", "1",
            "--levels", str(levels), "--privacy-unit", "hid", "--max-rows", "4",
            "--ledger", str(ledger), "--budget", "1.5", "--seed", "2",
            "--out", str(tmp_path / "out")]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    led = PrivacyLedger.open(ledger)
    # every charge protects the household and adds up to the household-level epsilon (not
    # the row-level epsilon / 4 the algorithm ran at)
    assert {c.privacy_unit for c in led.charges} == {"hid"}
    assert abs(led.spent.epsilon - 1.0) < 1e-9
    assert all("max_rows=4" in c.label for c in led.charges)
    out = pd.read_csv(tmp_path / "out" / "dp_stratified_1.csv")
    assert "hid" not in out.columns and set(out["sex"]) <= {"Male", "Female"}
    manifest = json.loads((tmp_path / "out" / "synthguard_manifest.json").read_text())
    assert manifest["details"]["privacy_unit"] == "hid"
    # the two options go together; an unknown unit column is refused before any spending
    for bad in (["--privacy-unit", "hid"], ["--privacy-unit", "nope", "--max-rows", "3"]):
        r = CliRunner().invoke(main, [*args[:9], *bad, "--out", str(tmp_path / "o2")])
        assert r.exit_code == 2 and not (tmp_path / "o2").exists()
    assert abs(PrivacyLedger.open(ledger).spent.epsilon - 1.0) < 1e-9
