"""Bad input on every subcommand: exit 2, one clear line naming the column or option, no
traceback, no confidential value in the output, and nothing half-written."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from synthguard.cli import main

SECRET = "SECRET-4242"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 80
    df = pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "age": rng.integers(18, 80, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
        "spend": np.round(rng.lognormal(9, 0.5, n), 2),
    })
    df.to_csv(tmp_path / "conf.csv", index=False)
    # numbers stored as text with one stray string
    text = df.astype({"income": str}).copy()
    text.loc[7, "income"] = SECRET
    text.to_csv(tmp_path / "text.csv", index=False)
    # a column that is all missing
    df.assign(spend=np.nan).to_csv(tmp_path / "allna.csv", index=False)
    # header only
    (tmp_path / "empty.csv").write_text("region,kids,age,income,spend\n")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1" + SECRET.encode() + b"\x00garbage")
    (tmp_path / "conf.xlsx").write_bytes(b"not a spreadsheet")
    (tmp_path / "bad.dta").write_bytes(b"garbage")
    text.to_csv(tmp_path / "semi.csv", sep=";", index=False)
    df.drop(columns="spend").to_csv(tmp_path / "hold.csv", index=False)
    text.assign(region="Z\u00fcrich").to_csv(tmp_path / "latin.csv", index=False,
                                            encoding="latin-1")
    (tmp_path / "bad.sav").write_bytes(b"garbage")
    return tmp_path


def run(folder: Path, *args: str | Path) -> Result:
    args = tuple(folder / a if a in ("broken.parquet", "text.csv", "hold.csv") else a
                 for a in args)
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def assert_bad(result: Result, *names: str) -> None:
    """Exit 2 through SystemExit, no traceback, the names mentioned, no secret value."""
    text = result.output
    assert result.exit_code == 2, text
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in text
    assert SECRET not in text
    for name in names:
        assert name in text, (name, text)


def snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


# --- synthesize -------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "names"), [
    ("missing.csv", ["missing.csv"]),
    ("conf.xlsx", [".xlsx"]),
    ("broken.parquet", ["broken.parquet"]),
    ("empty.csv", ["no rows"]),
    ("allna.csv", ["spend"]),
    ("text.csv", ["income"]),
    ("bad.dta", ["bad.dta"]),
    ("bad.sav", ["bad.sav"]),
    (".", ["DATA"]),
    ("semi.csv", ["semi.csv", "';'"]),
    ("latin.csv", ["latin.csv", "UTF-8"]),
])
def test_synthesize_bad_file(folder: Path, data: str, names: list[str]) -> None:
    before = snapshot(folder)
    r = run(folder, "synthesize", folder / data, "--out", folder / "syn", "--seed", "1",
            "--quiet")
    assert_bad(r, *names)
    assert snapshot(folder) == before


@pytest.mark.parametrize(("args", "names"), [
    (["--keep", "nope"], ["nope"]),
    (["--method", "nope=cart"], ["nope"]),
    (["--method", "income=magic"], ["magic"]),
    (["--method", "income"], ["--method"]),
    (["--method", "=cart"], ["--method"]),
    (["--schema", "nope=categorical"], ["nope"]),
    (["--schema", "region=colour"], ["colour"]),
    (["--schema", "region"], ["--schema"]),
    (["--strata", "nope"], ["nope"]),
    (["--visit", "nope"], ["nope"]),
    (["--weights", "nope"], ["nope"]),
    (["--default-method", "magic"], ["magic"]),
    (["--keep", "region", "--method", "region=cart"], ["region"]),
    (["--keep", "region", "--n", "10"], ["'n'", "keep"]),
    (["--keep", "region,kids,age,income,spend"], []),
    (["--m", "0"], ["--m"]),
    (["--risk-weights", "marginal", "--keys", "region"], ["--target"]),
    (["--risk-weights", "marginal", "--keys", "region", "--target", "nope",
      "--method", "income=bayes_norm"], ["nope"]),
    (["--risk-weights", "marginal", "--keys", "nope", "--target", "income",
      "--method", "income=bayes_norm"], ["nope"]),
    (["--risk-weights", "marginal", "--keys", "region", "--target", "income",
      "--weights", "nope", "--method", "income=bayes_norm"], ["nope"]),
])
def test_synthesize_bad_options(folder: Path, args: list[str], names: list[str]) -> None:
    before = snapshot(folder)
    r = run(folder, "synthesize", folder / "conf.csv", "--out", folder / "syn", "--seed", "1",
            "--quiet", *args)
    assert_bad(r, *names)
    assert snapshot(folder) == before


# --- protect ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "args", "names"), [
    ("missing.csv", ["--topcode", "income:p90"], ["missing.csv"]),
    ("conf.xlsx", ["--topcode", "income:p90"], [".xlsx"]),
    ("broken.parquet", ["--topcode", "income:p90"], ["broken.parquet"]),
    ("empty.csv", ["--topcode", "income:p90"], ["empty"]),
    ("allna.csv", ["--topcode", "spend:p90"], ["spend"]),
    ("text.csv", ["--topcode", "income:p90"], ["income"]),
    ("text.csv", ["--noise", "income:0.1"], ["income"]),
    ("text.csv", ["--rank-swap", "income:5"], ["income"]),
    ("conf.csv", ["--topcode", "nope:p90"], ["nope"]),
    ("conf.csv", ["--topcode", "income"], ["--topcode"]),
    ("conf.csv", ["--topcode", "income:pXX"], ["--topcode"]),
    ("conf.csv", ["--topcode", "income:p150"], ["percentile"]),
    ("conf.csv", ["--topcode", "region:p90"], ["region"]),
    ("conf.csv", ["--topcode", "income,spend:p90"], ["--topcode"]),
    ("conf.csv", ["--bottomcode", "nope:3"], ["nope"]),
    ("conf.csv", ["--generalize", "age:0,a,10"], ["--generalize"]),
    ("conf.csv", ["--generalize", "nope:0,18,120"], ["nope"]),
    ("conf.csv", ["--generalize", "age:10,5,3"], ["bins"]),
    ("conf.csv", ["--generalize", "region:0,1"], ["region"]),
    ("conf.csv", ["--suppress", "region,age:0"], ["k"]),
    ("conf.csv", ["--rank-swap", "income:500"], ["max_rank_distance"]),
    ("conf.csv", ["--swap", ":0.5"], ["--swap"]),
    ("conf.csv", ["--noise", "nope:0.1"], ["nope"]),
    ("conf.csv", ["--noise", "income:-1"], ["scale"]),
    ("conf.csv", ["--swap", "nope:0.1"], ["nope"]),
    ("conf.csv", ["--swap", "region:1.5"], ["rate"]),
    ("conf.csv", ["--swap", "region:0.1", "--within", "nope"], ["nope"]),
    ("conf.csv", ["--rank-swap", "region:5"], ["region"]),
    ("conf.csv", ["--suppress", "nope,age:3"], ["nope"]),
    ("conf.csv", ["--suppress", "region,age:2.5"], ["--suppress"]),
    ("conf.csv", ["--subsample", "0.5", "--within", "nope"], ["nope"]),
    ("conf.csv", [], []),
])
def test_protect_bad_input(folder: Path, data: str, args: list[str], names: list[str]) -> None:
    before = snapshot(folder)
    r = run(folder, "protect", folder / data, "--out", folder / "p.csv",
            "--record", folder / "rec.json", "--seed", "1", "--quiet", *args)
    assert_bad(r, *names)
    assert snapshot(folder) == before


def test_protect_unknown_output_extension_writes_nothing(folder: Path) -> None:
    before = snapshot(folder)
    r = run(folder, "protect", folder / "conf.csv", "--out", folder / "p.xlsx",
            "--record", folder / "rec.json", "--topcode", "income:p90", "--quiet")
    assert_bad(r, ".xlsx")
    assert snapshot(folder) == before


# --- dp ---------------------------------------------------------------------------------------


def _levels(folder: Path) -> Path:
    path = folder / "levels.yaml"
    path.write_text("region: [A, B, C]\nkids: [0, 1, 2, 3, 4, 5, 6, 7]\n")
    return path


@pytest.mark.parametrize(("args", "names"), [
    (["--columns", "region,nope"], ["nope"]),
    (["--columns", "region,kids", "--bins", "kids"], ["--bins"]),
    (["--columns", "region,kids", "--bins", "kids=0,x"], ["--bins"]),
    (["--columns", "region,age"], ["age"]),
    (["--columns", "region,kids", "--epsilon", "-1"], ["epsilon"]),
    (["--columns", "region,kids", "--m", "0"], ["m"]),
    (["--columns", "region,kids", "--n", "0"], ["n"]),
    (["--columns", "region,kids", "--method", "magic"], ["--method"]),
    (["--columns", "region,kids", "--method", "fieldgroups", "--group", "region,nope"],
     ["nope"]),
    (["--columns", "region,kids", "--delta", "2"], ["delta"]),
    (["--columns", "region,kids", "--budget", "0.5"], ["budget"]),
    (["--columns", "region,kids", "--bins", "kids=5"], ["kids"]),
    (["--columns", "region,spend", "--bins", "spend=0,1e9", "--m", "0"], ["--m"]),
])
def test_dp_synthesize_bad_options(folder: Path, args: list[str], names: list[str]) -> None:
    """Also run against a new --ledger: a failed first run leaves no ledger fixing a budget."""
    levels = _levels(folder)
    before = snapshot(folder)
    r = run(folder, "dp", "synthesize", folder / "conf.csv", "--epsilon", "1",
            "--levels", levels, "--out", folder / "dp", "--seed", "1",
            "--ledger", folder / "new.json", *args)
    assert_bad(r, *names)
    assert snapshot(folder) == before


def test_dp_levels_missing_a_value_in_the_data(folder: Path) -> None:
    (folder / "levels.yaml").write_text("region: [A, B]\nkids: [0, 1, 2, 3, 4, 5, 6, 7]\n")
    before = snapshot(folder)
    r = run(folder, "dp", "synthesize", folder / "conf.csv", "--epsilon", "1", "--columns",
            "region,kids", "--levels", folder / "levels.yaml", "--out", folder / "dp")
    assert_bad(r, "region", "public levels")
    assert "'C'" not in r.output
    assert snapshot(folder) == before


@pytest.mark.parametrize("text", ["[A, B]\n", "region: [A, B\n", "region: 3\n"])
def test_dp_synthesize_bad_levels_file(folder: Path, text: str) -> None:
    (folder / "levels.yaml").write_text(text)
    before = snapshot(folder)
    r = run(folder, "dp", "synthesize", folder / "conf.csv", "--epsilon", "1",
            "--columns", "region", "--levels", folder / "levels.yaml", "--out", folder / "dp")
    assert_bad(r, "--levels")
    assert snapshot(folder) == before


@pytest.mark.parametrize("data", ["missing.csv", "conf.xlsx", "broken.parquet", "text.csv"])
def test_dp_synthesize_bad_file(folder: Path, data: str) -> None:
    levels = _levels(folder)
    before = snapshot(folder)
    r = run(folder, "dp", "synthesize", folder / data, "--epsilon", "1", "--columns",
            "region,kids,income", "--bins", "income=0,10000,100000,1000000", "--levels", levels,
            "--out", folder / "dp")
    assert_bad(r, Path(data).stem if data != "text.csv" else "income")
    assert snapshot(folder) == before


def test_dp_overspent_ledger_charges_and_writes_nothing(folder: Path) -> None:
    levels = _levels(folder)
    ledger = folder / "ledger.json"
    common = ["dp", "synthesize", folder / "conf.csv", "--method", "stratified",
              "--columns", "region,kids", "--levels", levels, "--ledger", ledger, "--seed", "1"]
    first = run(folder, *common, "--epsilon", "0.8", "--budget", "1", "--out", folder / "dp1")
    assert first.exit_code == 0, first.output
    spent = ledger.read_text()
    before = snapshot(folder)
    r = run(folder, *common, "--epsilon", "0.5", "--out", folder / "dp2")
    assert_bad(r, "budget")
    assert snapshot(folder) == before
    assert ledger.read_text() == spent
    changed = run(folder, *common, "--epsilon", "0.1", "--budget", "5", "--out", folder / "dp2")
    assert_bad(changed, "--budget")
    assert snapshot(folder) == before


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"epsilon": "lots"}', ""])
def test_dp_ledger_corrupt(folder: Path, text: str) -> None:
    (folder / "ledger.json").write_text(text)
    r = run(folder, "dp", "ledger", folder / "ledger.json")
    assert_bad(r, "ledger.json")
    levels = _levels(folder)
    before = snapshot(folder)
    r = run(folder, "dp", "synthesize", folder / "conf.csv", "--epsilon", "0.1", "--columns",
            "region,kids", "--levels", levels, "--ledger", folder / "ledger.json",
            "--out", folder / "dp")
    assert_bad(r, "ledger.json")
    assert snapshot(folder) == before


def test_dp_ledger_missing(folder: Path) -> None:
    assert_bad(run(folder, "dp", "ledger", folder / "nope.json"), "nope.json")


# --- evaluate ---------------------------------------------------------------------------------


@pytest.fixture
def release(folder: Path) -> Path:
    rel = folder / "rel"
    rel.mkdir()
    df = pd.read_csv(folder / "conf.csv")
    df.assign(income=df["income"].sample(frac=1, random_state=1).to_numpy()).to_csv(
        rel / "synthetic_1.csv", index=False)
    return rel


@pytest.mark.parametrize(("args", "names"), [
    (["--target", "nope"], ["nope"]),
    (["--target", "income", "--keys", "region,nope"], ["nope"]),
    (["--target", "income", "--threshold", "pmse_ratio"], ["--threshold"]),
    (["--target", "income", "--threshold", "pmse_ratio=low"], ["pmse_ratio"]),
    (["--target", "income", "--threshold", "magic=1"], ["magic"]),
    (["--target", "income", "--kind", "rel=magic"], ["kind"]),
    (["--target", "income", "--kind", "rle=full"], ["rle", "--kind"]),
    (["--target", "income", "--kind", "full"], ["--kind", "syn=full"]),
    (["--target", "income", "--holdout", "text.csv"], ["holdout", "income"]),
    (["--target", "income", "--holdout", "hold.csv"], ["--holdout", "spend"]),
    (["--target", "income", "--schema", "nope=categorical"], ["nope"]),
    (["--target", "income", "--radius", "-1"], ["radius"]),
    (["--target", "income", "--max-distance-records", "-1"], ["max_distance_records"]),
    (["--target", "income", "--keys", "income"], ["income"]),
    (["--target", "income", "--holdout", "broken.parquet"], ["broken.parquet"]),
])
def test_evaluate_bad_options(folder: Path, release: Path, args: list[str],
                              names: list[str]) -> None:
    before = snapshot(folder)
    r = run(folder, "evaluate", folder / "conf.csv", release, "--keys", "region,kids",
            "--report", folder / "report.html", "--table", folder / "t.csv", "--quiet", *args)
    assert_bad(r, *names)
    assert snapshot(folder) == before


@pytest.mark.parametrize(("conf", "names"), [
    ("broken.parquet", ["broken.parquet"]),
    ("conf.xlsx", [".xlsx"]),
    ("text.csv", ["income"]),
    ("allna.csv", ["spend"]),
])
def test_evaluate_bad_confidential_file(folder: Path, release: Path, conf: str,
                                        names: list[str]) -> None:
    before = snapshot(folder)
    r = run(folder, "evaluate", folder / conf, release, "--keys", "region,kids",
            "--target", "income", "--report", folder / "report.html", "--quiet")
    assert_bad(r, *names)
    assert snapshot(folder) == before


def test_evaluate_bad_release_folder(folder: Path) -> None:
    (folder / "emptyrel").mkdir()
    before = snapshot(folder)
    r = run(folder, "evaluate", folder / "conf.csv", folder / "emptyrel", "--keys", "region",
            "--target", "income", "--report", folder / "report.html", "--quiet")
    assert_bad(r, "emptyrel")
    assert snapshot(folder) == before


# --- run and init -----------------------------------------------------------------------------

PLAN = textwrap.dedent("""\
    data:
      path: DATA
    seed: 3
    releases:
      top:
        method: sdc
        steps:
          - topcode: {column: income, percentile: 90}
    evaluation:
      keys: [region, kids]
      targets: [income]
    """)
SDC = "method: sdc\n    steps:\n      - topcode: {column: income, percentile: 90}"


@pytest.mark.parametrize(("old", "new", "names"), [
    ("seed: 3", "sed: 3", ["sed"]),
    ("seed: 3", "seed: three", ["seed"]),
    ("method: sdc", "method: magic", ["method"]),
    ("column: income", "column: nope", ["nope"]),
    ("percentile: 90", "percentile: high", ["percentile"]),
    ("targets: [income]", "targets: [nope]", ["nope"]),
    ("keys: [region, kids]", "keys: region kids", ["keys"]),
    ("steps:", "stpes:", ["stpes"]),
    ("DATA", "missing.csv", ["missing.csv"]),
    ("DATA", "broken.parquet", ["broken.parquet"]),
    ("DATA", "text.csv", ["income"]),
    ("DATA", "empty.csv", ["no rows"]),
    ("releases:", "releases: [1, 2]\nunused:", ["releases"]),
    ("seed: 3", "seed: 3\nholdout: 1.5", ["holdout"]),
    ("  path: DATA", "  path: DATA\n  schema: {region: colour}", ["region"]),
    ("  path: DATA", "  path: DATA\n  schema: {nope: categorical}", ["nope"]),
    (SDC, "method: synthesis\n    keep: [nope]", ["nope"]),
    (SDC, "method: synthesis\n    m: 0", ["m"]),
    (SDC, "method: dp\n    synthesizer: mst\n    epsilon: 1", ["privacy"]),
])
def test_run_bad_plan(folder: Path, old: str, new: str, names: list[str]) -> None:
    text = PLAN.replace(old, new).replace("DATA", "conf.csv")
    (folder / "plan.yaml").write_text(text)
    before = snapshot(folder)
    r = run(folder, "run", folder / "plan.yaml", "--out", folder / "out", "--quiet")
    assert_bad(r, *names)
    assert snapshot(folder) == before


@pytest.mark.parametrize("text", ["data: [unclosed\n", "just a string\n", ""])
def test_run_unparseable_plan(folder: Path, text: str) -> None:
    (folder / "plan.yaml").write_text(text)
    before = snapshot(folder)
    r = run(folder, "run", folder / "plan.yaml", "--out", folder / "out", "--quiet")
    assert_bad(r, "plan.yaml")
    assert snapshot(folder) == before


def test_run_missing_plan(folder: Path) -> None:
    assert_bad(run(folder, "run", folder / "nope.yaml"), "nope.yaml")


@pytest.mark.parametrize("data", ["broken.parquet", "conf.xlsx", "empty.csv", "text.csv",
                                  "semi.csv"])
def test_init_bad_data(folder: Path, data: str) -> None:
    before = snapshot(folder)
    r = run(folder, "init", folder / data, "--out", folder / "plan.yaml")
    assert_bad(r, {"empty.csv": "no rows", "text.csv": "income"}.get(data, Path(data).stem))
    assert snapshot(folder) == before


def test_init_refuses_to_overwrite(folder: Path) -> None:
    (folder / "plan.yaml").write_text("mine\n")
    r = run(folder, "init", folder / "conf.csv", "--out", folder / "plan.yaml")
    assert_bad(r, "--force")
    assert (folder / "plan.yaml").read_text() == "mine\n"
    assert_bad(run(folder, "init", folder / "nope.csv"), "nope.csv")


# --- demo and datasets ------------------------------------------------------------------------


def test_demo_and_datasets_usage_errors(folder: Path) -> None:
    (folder / "afile").write_text("x")
    assert_bad(run(folder, "demo", "--out", folder / "afile"), "--out")
    assert_bad(run(folder, "demo", "--seed", "-1"), "--seed")
    assert_bad(run(folder, "datasets", "extra"), "extra")
    assert_bad(run(folder, "nosuchcommand"), "nosuchcommand")


def test_ledger_json_written_by_cli_is_readable(folder: Path) -> None:
    """Guard for the overspent-ledger test: the ledger it builds is the real format."""
    levels = _levels(folder)
    r = run(folder, "dp", "synthesize", folder / "conf.csv", "--method", "stratified",
            "--columns", "region,kids", "--levels", levels, "--ledger", folder / "l.json",
            "--epsilon", "0.3", "--budget", "1", "--seed", "1", "--out", folder / "dp")
    assert r.exit_code == 0, r.output
    assert isinstance(json.loads((folder / "l.json").read_text()), dict)


# --- output paths that cannot be written ------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["synthesize", "conf.csv", "--out", "conf.csv/syn", "--quiet"],
    ["protect", "conf.csv", "--out", "conf.csv/p.csv", "--topcode", "income:p90"],
    ["protect", "conf.csv", "--out", "p.csv", "--topcode", "income:p90",
     "--record", "conf.csv/r.json"],
    ["dp", "synthesize", "conf.csv", "--epsilon", "1", "--columns", "region,kids",
     "--levels", "levels.yaml", "--out", "conf.csv/dp"],
    ["dp", "synthesize", "conf.csv", "--epsilon", "1", "--columns", "region,kids",
     "--levels", "levels.yaml", "--out", "dp", "--ledger", "conf.csv/ledger.json"],
    ["run", "plan.yaml", "--out", "conf.csv/out", "--quiet"],
    ["evaluate", "conf.csv", "conf.csv", "--target", "income", "--quiet",
     "--report", "conf.csv/r.html"],
    ["evaluate", "conf.csv", "conf.csv", "--target", "income", "--quiet",
     "--table", "conf.csv/t.csv"],
    ["init", "conf.csv", "--out", "conf.csv/plan.yaml"],
])
def test_unwritable_output_path(folder: Path, args: list[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """An output under a file (or without rights) is bad input: exit 2 naming the path."""
    monkeypatch.chdir(folder)
    _levels(folder)
    (folder / "plan.yaml").write_text(PLAN.replace("DATA", "conf.csv"))
    before = snapshot(folder)
    r = CliRunner().invoke(main, args)
    assert_bad(r, "conf.csv", "check the path")
    assert snapshot(folder) == before


@pytest.mark.parametrize(("ext", "rename"), [("dta", {}), ("sav", {"spend": "spend per month"})])
def test_protect_output_format_that_cannot_hold_the_data(folder: Path, ext: str,
                                                         rename: dict[str, str]) -> None:
    df = pd.read_csv(folder / "conf.csv").rename(columns=rename)
    df.loc[0, "region"] = SECRET + "-東京"
    df.to_csv(folder / "uni.csv", index=False)
    before = snapshot(folder)
    r = run(folder, "protect", folder / "uni.csv", "--out", folder / f"p.{ext}",
            "--topcode", "income:p90", "--quiet")
    assert_bad(r, f"p.{ext}", ".csv")
    assert "東京" not in r.output
    assert snapshot(folder) == before


DP_PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 3
    privacy:
      epsilon: 2
    releases:
      d:
        method: dp
        synthesizer: stratified
        epsilon: 1
        columns: [region, kids]
        categories: {region: [A, B], kids: [0, 1, 2, 3, 4, 5, 6, 7]}
    evaluation:
      keys: [region]
      targets: [kids]
    """)


def test_run_failed_dp_release_leaves_no_ledger(folder: Path) -> None:
    """A dp release that cannot be made charges nothing, so no ledger fixes the budget."""
    (folder / "plan.yaml").write_text(DP_PLAN)
    before = snapshot(folder)
    r = run(folder, "run", folder / "plan.yaml", "--out", folder / "out", "--quiet")
    assert_bad(r, "region", "public levels")
    assert "'C'" not in r.output
    assert snapshot(folder) == before
    # the corrected plan is judged on its ledger here, not on the default disclosure
    # thresholds (a 3 x 8 all-categorical release replicates some uniques by chance)
    fixed = (DP_PLAN.replace("[A, B]", "[A, B, C]").replace("epsilon: 2", "epsilon: 3")
             .replace("targets: [kids]", "targets: [kids]\n  default_thresholds: false"))
    (folder / "plan.yaml").write_text(fixed)
    ok = run(folder, "run", folder / "plan.yaml", "--out", folder / "out", "--quiet")
    assert ok.exit_code == 0, ok.output
    assert json.loads((folder / "out" / "ledger.json").read_text())["budget"]["epsilon"] == 3


def test_run_keeps_a_paid_dp_release_when_a_later_release_fails(folder: Path) -> None:
    failing = "  top:\n    method: sdc\n    steps:\n      - topcode: {column: nope, percentile: 90}\n"
    plan = DP_PLAN.replace("[A, B]", "[A, B, C]").replace("evaluation:", failing + "evaluation:")
    (folder / "plan.yaml").write_text(plan)
    r = run(folder, "run", folder / "plan.yaml", "--out", folder / "out", "--quiet")
    assert_bad(r, "nope")
    ledger = json.loads((folder / "out" / "ledger.json").read_text())
    assert len(ledger["charges"]) >= 1
    assert (folder / "out" / "releases" / "d" / "d_1.csv").exists()
    assert not (folder / "out" / "releases" / "top").exists()
