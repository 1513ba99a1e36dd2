"""`synthguard evaluate conf.csv release_dir/`: table, report, thresholds and exit codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(1)
    n = 200
    conf = pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
    })
    conf.to_csv(tmp_path / "conf.csv", index=False)
    syn = tmp_path / "releases" / "shuffled"
    syn.mkdir(parents=True)
    for i in (1, 2, 10):  # natural order: 1, 2, 10
        s = conf.copy()
        s["income"] = conf["income"].to_numpy()[rng.permutation(n)]
        s.to_csv(syn / f"shuffled_{i}.csv", index=False)
    top = tmp_path / "releases" / "top"
    top.mkdir()
    conf.assign(income=conf["income"].clip(upper=40000)).to_csv(top / "top_1.csv", index=False)
    return tmp_path


def test_evaluate_writes_report_and_table(files):
    res = CliRunner().invoke(main, [
        "evaluate", str(files / "conf.csv"), str(files / "releases"), "--keys", "region,kids",
        "--target", "income", "--report", str(files / "r.html"), "--table", str(files / "t.csv"),
        "--seed", "1", "--kind", "shuffled=partial", "--no-default-thresholds",
    ])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(files / "t.csv").set_index("release")
    assert list(table.index) == ["shuffled", "top"]
    assert table.loc["shuffled", "m"] == 3 and table.loc["top", "m"] == 1
    assert table.loc["shuffled", "kind"] == "partial"  # declared
    assert table.loc["top", "kind"] == "full"  # not declared: full, though as many rows
    assert "release 'top': no synthguard_manifest.json, m = 1; evaluated as full" in res.output
    assert (files / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "report:" in res.output


def test_threshold_failure_exits_1(files):
    res = CliRunner().invoke(main, [
        "evaluate", str(files / "conf.csv"), str(files / "releases" / "top"), "--keys", "region",
        "--target", "income", "--threshold", "max_identification_risk=0.01", "--quiet",
        "--kind", "top=protected",
    ])
    assert res.exit_code == 1
    assert "releases failing their thresholds: top" in res.output


def test_bad_input_exits_2(files):
    runner = CliRunner()
    res = runner.invoke(main, ["evaluate", str(files / "conf.csv"), str(files / "releases"),
                               "--keys", "nope", "--target", "income", "--quiet"])
    assert res.exit_code == 2 and "nope" in res.output
    res = runner.invoke(main, ["evaluate", str(files / "conf.csv"), str(files / "releases"),
                               "--target", "income", "--threshold", "pmse_ratio", "--quiet"])
    assert res.exit_code == 2 and "NAME=VALUE" in res.output


def test_help_has_example():
    res = CliRunner().invoke(main, ["evaluate", "--help"])
    assert res.exit_code == 0 and "Examples:" in res.output
    assert "synthguard evaluate conf.csv" in res.output
