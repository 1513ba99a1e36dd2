"""Leak hunt: plant values in a confidential file, run every CLI route, grep what is written.

Issue 13 (finding 10 of the audit, the suite): a large numeric outlier (987654.321 in income,
77777777 in assets), a level held by one record (ZZSECRETZZ) and an all-missing column are
planted; ``synthesize``, ``protect``, ``dp synthesize`` (a release and a refusal), ``evaluate``
and ``run`` (a plan with a synthesis and a DP release, then a plan whose DP release declares no
levels) are run once. Then every artefact is searched:

* releases may hold synthesized values (a synthetic or protected data file is not searched),
  except DP releases, which must hold neither the one-record level nor the outlier;
* everything else — manifests, provenance, diagnostics, the ledger, evaluation tables, report
  HTML, terminal output and error messages — must hold none of the planted values.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from synthguard.cli import main

SECRET = "ZZSECRETZZ"
# a planted number counts only where it starts a number: 0.0677777777 (an ECDF distance of
# 61/900) holds the digits 77777777 but not the planted value
PLANTED = re.compile(r"ZZSECRETZZ|(?<![\d.])(?:987654|9\.87654|77777777|7\.777777)")
LEVELS = ["North", "South", "East", "West"]
N = 300


def _conf() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    region = rng.choice(LEVELS, N).astype(object)
    region[17] = SECRET
    income = np.round(rng.lognormal(10, 0.5, N), 2)
    income[23] = 987654.321
    assets = np.round(rng.lognormal(11, 0.7, N))
    assets[31] = 77777777
    return pd.DataFrame({"region": region, "sex": rng.choice(["f", "m"], N),
                         "age": rng.integers(18, 90, N), "income": income, "assets": assets,
                         "blank": np.nan})


PLAN = {
    "data": {"path": "conf.csv", "columns": ["region", "sex", "age", "income", "assets"]},
    "seed": 3, "privacy": {"epsilon": 1.0},
    "releases": {
        "syn": {"method": "synthesis", "m": 1},
        "dp": {"method": "dp", "synthesizer": "stratified", "epsilon": 0.5,
               "columns": ["sex", "income"], "categories": {"sex": ["f", "m"]},
               "bins": {"income": [0, 20000, 40000, 80000, 200000]}},
    },
    "evaluation": {"keys": ["region", "sex", "age"], "targets": ["income"]},
}


@pytest.fixture(scope="module")
def hunt(tmp_path_factory):
    root = tmp_path_factory.mktemp("leaks")
    df = _conf()
    df.to_csv(root / "conf.csv", index=False)
    df.drop(columns="blank").to_csv(root / "conf_nb.csv", index=False)
    (root / "levels.yaml").write_text(yaml.safe_dump({"region": LEVELS, "sex": ["f", "m"]}))
    (root / "plan").mkdir()
    df.to_csv(root / "plan" / "conf.csv", index=False)
    (root / "plan" / "plan.yaml").write_text(yaml.safe_dump(PLAN))
    bad = {**PLAN, "releases": {"dp": {"method": "dp", "synthesizer": "mst", "epsilon": 0.5,
                                       "delta": 1e-6, "columns": ["region", "sex"]}},
           "privacy": {"epsilon": 1.0, "delta": 1e-5}}
    (root / "bad").mkdir()
    df.to_csv(root / "bad" / "conf.csv", index=False)
    (root / "bad" / "plan.yaml").write_text(yaml.safe_dump(bad))
    runner = CliRunner()
    runs: dict[str, tuple[int, str]] = {}

    def run(name: str, *args: object) -> None:
        res = runner.invoke(main, [str(a) for a in args])
        exc = res.exception
        text = res.output + ("" if exc is None or isinstance(exc, SystemExit) else repr(exc))
        runs[name] = (res.exit_code, text)

    conf = root / "conf.csv"
    run("synthesize", "synthesize", conf, "--out", root / "syn", "--seed", 1, "--drop", "blank")
    run("synthesize all-missing", "synthesize", conf, "--out", root / "syn_bad", "--seed", 1)
    run("protect", "protect", conf, "--out", root / "prot", "--topcode", "income:p95",
        "--seed", 1)
    run("dp synthesize", "dp", "synthesize", conf, "--method", "stratified", "--epsilon", 1,
        "--levels", root / "levels.yaml", "--bins", "income=0,20000,40000,80000,200000",
        "--columns", "sex,income", "--out", root / "dp")
    run("dp undeclared level", "dp", "synthesize", conf, "--method", "fieldgroups",
        "--epsilon", 1, "--levels", root / "levels.yaml", "--columns", "region,sex",
        "--out", root / "dp_bad")
    run("dp all-missing", "dp", "synthesize", conf, "--method", "stratified", "--epsilon", 1,
        "--levels-from-data", "--columns", "sex,blank", "--out", root / "dp_bad2")
    run("evaluate", "evaluate", root / "conf_nb.csv", root / "syn", root / "dp", "--keys",
        "region,sex,age", "--target", "income", "--report", root / "ev.html",
        "--common-columns")
    run("run", "run", root / "plan" / "plan.yaml")
    run("run undeclared dp", "run", root / "bad" / "plan.yaml")
    return root, runs


def _artefacts(root: Path) -> list[Path]:
    inputs = {root / "conf.csv", root / "conf_nb.csv", root / "levels.yaml",
              root / "plan" / "conf.csv", root / "plan" / "plan.yaml", root / "bad" / "conf.csv",
              root / "bad" / "plan.yaml"}
    return [p for p in sorted(root.rglob("*")) if p.is_file() and p not in inputs]


def _is_release_data(p: Path, root: Path) -> bool:
    """A synthetic or protected data file (may hold synthesized values)."""
    rel = p.relative_to(root).parts
    return p.suffix == ".csv" and "metadata" not in rel and p.name not in (
        "evaluation.csv", "ledger.csv") and rel[0] in ("syn", "prot", "plan")


def test_every_route_ran(hunt):
    root, runs = hunt
    codes = {k: c for k, (c, _) in runs.items()}
    assert codes["synthesize"] == codes["protect"] == codes["dp synthesize"] == 0, runs
    assert codes["synthesize all-missing"] == codes["dp undeclared level"] == 2
    assert codes["dp all-missing"] == codes["run undeclared dp"] == 2
    assert codes["evaluate"] in (0, 3) and codes["run"] in (0, 3), runs
    assert (root / "ev.html").exists()
    assert (root / "plan" / "synthguard_output" / "report.html").exists()
    assert (root / "plan" / "synthguard_output" / "ledger.json").exists()
    assert not (root / "dp_bad").exists() and not (root / "bad" / "synthguard_output").exists()


def test_no_artefact_but_release_data_holds_a_planted_value(hunt):
    root, _ = hunt
    files = _artefacts(root)
    searched = [p for p in files if not _is_release_data(p, root)]
    assert any(p.suffix == ".html" for p in searched)
    assert any(p.name == "synthguard_manifest.json" for p in searched)
    assert any(p.name.startswith("ledger") for p in searched)
    assert any(p.name == "provenance.json" for p in searched)
    leaks = {str(p.relative_to(root)): sorted(set(PLANTED.findall(
        p.read_bytes().decode("utf-8", "replace")))) for p in searched}
    assert {k: v for k, v in leaks.items() if v} == {}


def test_dp_releases_hold_no_planted_value(hunt):
    root, _ = hunt
    dp_files = [*(root / "dp").glob("*.csv"),
                *(root / "plan" / "synthguard_output" / "releases" / "dp").glob("*.csv")]
    assert len(dp_files) >= 2
    for p in dp_files:
        assert not PLANTED.search(p.read_text()), p


def test_terminal_output_and_errors_hold_no_planted_value(hunt):
    _, runs = hunt
    leaks = {k: sorted(set(PLANTED.findall(text))) for k, (_, text) in runs.items()}
    assert {k: v for k, v in leaks.items() if v} == {}
    # the refusals say what to do without counting anything
    assert "outside its declared public levels" in runs["dp undeclared level"][1]
    assert "every value is missing" in runs["synthesize all-missing"][1]
    assert f" {N} " not in runs["synthesize all-missing"][1]
