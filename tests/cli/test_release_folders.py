"""Release folders that know what they are, and exit codes that tell the truth (issue 11).

Each test is a case that went wrong before: the documented synthesize -> evaluate -> report
route crashed on the diagnostics file, re-runs mixed implicates, a release with a column
dropped and another renamed looked perfect, failures exited 0, and a DP folder's report said
no DP release was made.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from synthguard.cli import (
    EXIT_BAD_INPUT,
    EXIT_NOT_COMPUTED,
    EXIT_OK,
    EXIT_THRESHOLD_FAILED,
    main,
)
from synthguard.data.manifest import MANIFEST_NAME, read_manifest


@pytest.fixture
def conf(tmp_path):
    rng = np.random.default_rng(5)
    n = 200
    df = pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
    })
    df.to_csv(tmp_path / "conf.csv", index=False)
    return tmp_path


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _synthesize(folder, out, *extra):
    return _run("synthesize", folder / "conf.csv", "--out", out, "--seed", 1, "--quiet", *extra)


def _evaluate(folder, *releases_and_extra):
    return _run("evaluate", folder / "conf.csv", *releases_and_extra, "--keys", "region,kids",
                "--target", "income", "--seed", 2)


def test_documented_route_synthesize_evaluate_report(conf):
    syn = conf / "syn"
    assert _synthesize(conf, syn, "--m", 3).exit_code == EXIT_OK
    man = read_manifest(syn)
    assert man.kind == "full" and man.m == 3 and man.seed == 1
    assert man.implicates == ("synthetic_1.csv", "synthetic_2.csv", "synthetic_3.csv")
    assert set(man.methods) == {"region", "kids", "income"}
    assert "metadata/diagnostics.csv" in man.metadata  # metadata never named like data
    res = _evaluate(conf, syn, "--report", conf / "report.html", "--table", conf / "t.csv")
    assert res.exit_code == EXIT_OK, res.output
    assert "release 'syn': full (from synthguard_manifest.json), m = 3" in res.output
    html = (conf / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    table = pd.read_csv(conf / "t.csv").set_index("release")
    assert table.loc["syn", "m"] == 3 and table.loc["syn", "kind"] == "full"
    assert 0 < table.loc["syn", "pmse_ratio"] < 20


def test_rerun_refused_and_force_replaces_whole_release(conf):
    syn = conf / "syn"
    assert _synthesize(conf, syn, "--m", 5).exit_code == EXIT_OK
    res = _synthesize(conf, syn, "--m", 2)
    assert res.exit_code == EXIT_BAD_INPUT
    assert "syn' already holds an earlier release" in res.output and "--force" in res.output
    assert read_manifest(syn).m == 5  # untouched
    res = _synthesize(conf, syn, "--m", 2, "--force")
    assert res.exit_code == EXIT_OK, res.output
    assert sorted(p.name for p in syn.glob("*.csv")) == ["synthetic_1.csv", "synthetic_2.csv"]
    assert read_manifest(syn).m == 2
    assert [p.name for p in conf.iterdir() if p.name.startswith(".")] == []


def test_legacy_folder_skips_diagnostics_and_prints_the_kind(conf):
    old = conf / "old"
    old.mkdir()
    df = pd.read_csv(conf / "conf.csv")
    df.sample(frac=1, random_state=1).to_csv(old / "synthetic_1.csv", index=False)
    pd.DataFrame({"leaf": [1], "size": [3]}).to_csv(old / "synthetic_diagnostics.csv",
                                                    index=False)
    res = _evaluate(conf, old, "--no-default-thresholds")
    assert res.exit_code == EXIT_OK, res.output
    assert "release 'old': no synthguard_manifest.json, m = 1; evaluated as full" in res.output
    assert "skipped synthetic_diagnostics.csv" in res.output


@pytest.fixture
def drifted(conf):
    """A release with 'kids' dropped and 'income' renamed 'Income'."""
    bad = conf / "bad"
    bad.mkdir()
    df = pd.read_csv(conf / "conf.csv").drop(columns="kids").rename(columns={"income": "Income"})
    df.to_csv(bad / "bad_1.csv", index=False)
    return bad


def test_columns_that_differ_are_refused_naming_them(conf, drifted):
    res = _run("evaluate", conf / "conf.csv", drifted, "--keys", "region",
               "--target", "region", "--quiet")
    assert res.exit_code == EXIT_BAD_INPUT
    assert "release 'bad' does not have the data's columns: missing kids, income; " \
           "extra Income" in res.output
    assert "--common-columns" in res.output


def test_common_columns_evaluates_on_the_shared_ones(conf, drifted):
    # the target is not among the shared columns: the risk measures are named as not computed
    res = _run("evaluate", conf / "conf.csv", drifted, "--keys", "region", "--target",
               "income", "--common-columns", "--no-default-thresholds")
    assert res.exit_code == EXIT_NOT_COMPUTED, res.output
    assert "release 'bad': measured on the 1 column(s) it shares with the data " \
           "(--common-columns: missing kids, income; extra Income)" in res.output
    assert "not computed: release 'bad': risk: the release lacks the key or target " \
           "column(s) income" in res.stderr
    shuffled = conf / "shuf"
    shuffled.mkdir()
    df = pd.read_csv(conf / "conf.csv").drop(columns="kids")
    df["income"] = df["income"].sample(frac=1, random_state=3).to_numpy()
    df.assign(extra=1).to_csv(shuffled / "shuf_1.csv", index=False)
    res = _run("evaluate", conf / "conf.csv", shuffled, "--keys", "region", "--target",
               "income", "--common-columns", "--table", conf / "t.csv", "--seed", 1,
               "--no-default-thresholds")
    assert res.exit_code == EXIT_OK, res.output
    assert "release 'shuf': measured on the 2 column(s) it shares with the data " \
           "(--common-columns: missing kids; extra extra)" in res.output
    table = pd.read_csv(conf / "t.csv").set_index("release")
    assert table.loc["shuf", "pmse_ratio"] > 0


def test_measure_not_computed_exits_3_with_one_line(conf):
    syn = conf / "syn"
    assert _synthesize(conf, syn).exit_code == EXIT_OK
    res = _evaluate(conf, syn, "--formula", "income ~ nosuchcolumn")
    assert res.exit_code == EXIT_NOT_COMPUTED, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("not computed:")]
    assert len(lines) == 1 and lines[0].startswith("not computed: release 'syn': regression: ")
    assert ".py" not in res.stderr and "Traceback" not in res.stderr
    assert "1 requested measure(s) could not be computed" in res.stderr


def test_threshold_failure_beats_not_computed(conf):
    syn = conf / "syn"
    assert _synthesize(conf, syn).exit_code == EXIT_OK
    res = _evaluate(conf, syn, "--formula", "income ~ nosuchcolumn",
                    "--threshold", "pmse_ratio=0.000001")
    assert res.exit_code == 1
    assert "not computed: release 'syn': regression" in res.stderr
    assert "releases failing their thresholds: syn" in res.stderr


def test_kind_taken_from_manifest_and_overridden_by_kind(conf):
    part = conf / "part"
    res = _synthesize(conf, part, "--keep", "region,kids")
    assert res.exit_code == EXIT_OK and read_manifest(part).kind == "partial"
    assert read_manifest(part).kept == ("region", "kids")
    res = _evaluate(conf, part, "--table", conf / "t.csv")
    assert "release 'part': partial (from synthguard_manifest.json), m = 1; evaluated as " \
           "partial" in res.output
    table = pd.read_csv(conf / "t.csv").set_index("release")
    assert table.loc["part", "kind"] == "partial"
    assert 0 <= table.loc["part", "max_identification_risk"] <= 1  # record-level: aligned
    res = _evaluate(conf, part, "--kind", "part=full", "--table", conf / "t.csv")
    assert "--kind full (overrides the manifest's partial)" in res.output
    assert pd.read_csv(conf / "t.csv").set_index("release").loc["part", "kind"] == "full"


def test_dp_folder_brings_its_ledger_to_the_report(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], 300), "vote": rng.choice(["D", "R"], 300),
                       "age": np.round(rng.uniform(18, 90, 300), 1)})
    df.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "levels.yaml").write_text(yaml.safe_dump({"sex": ["f", "m"],
                                                          "vote": ["D", "R"]}))
    out = tmp_path / "dp_out"
    res = _run("dp", "synthesize", tmp_path / "conf.csv", "--method", "stratified",
               "--epsilon", "1", "--levels", tmp_path / "levels.yaml",
               "--bins", "age=18,40,65,90", "--ledger", tmp_path / "ledger.json",
               "--budget", "3", "--out", out, "--m", "2")
    assert res.exit_code == EXIT_OK, res.output
    man = read_manifest(out)
    assert man.kind == "dp" and man.m == 2 and man.ledger == "../ledger.json"
    assert man.spent["epsilon"] == pytest.approx(1.0)
    res = _run("evaluate", tmp_path / "conf.csv", out, "--keys", "sex", "--target", "age",
               "--report", tmp_path / "r.html", "--common-columns")
    assert res.exit_code in (EXIT_OK, EXIT_NOT_COMPUTED), res.output
    assert "release 'dp_out': dp (from synthguard_manifest.json), m = 2, privacy ledger " \
           "../ledger.json; evaluated as full" in res.output
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="ledger-table"' in html
    assert "No differentially private release was made" not in html


def test_dp_without_ledger_keeps_its_own(tmp_path):
    rng = np.random.default_rng(1)
    pd.DataFrame({"sex": rng.choice(["f", "m"], 200)}).to_csv(tmp_path / "c.csv", index=False)
    (tmp_path / "lv.yaml").write_text(yaml.safe_dump({"sex": ["f", "m"]}))
    out = tmp_path / "o"
    res = _run("dp", "synthesize", tmp_path / "c.csv", "--method", "stratified",
               "--epsilon", "0.5", "--levels", tmp_path / "lv.yaml", "--out", out)
    assert res.exit_code == EXIT_OK, res.output
    man = read_manifest(out)
    assert man.ledger == "metadata/ledger.json"
    doc = json.loads((out / man.ledger).read_text())
    assert doc["charges"][0]["epsilon"] == pytest.approx(0.5)
    assert sorted(p.name for p in out.iterdir()) == ["dp_stratified_1.csv", "metadata",
                                                     MANIFEST_NAME]


def test_run_refuses_earlier_releases_and_force_replaces(conf):
    plan = {"data": {"path": "conf.csv"}, "seed": 3,
            "releases": {"top": {"method": "sdc",
                                 "steps": [{"topcode": {"column": "income", "percentile": 90}}]}},
            # a top-coded file keeps the records: relax the default max IR (issue 31) so the
            # run releases it and this test can check the folder's refusal
            "evaluation": {"keys": ["region", "kids"], "targets": ["income"],
                           "thresholds": {"max_identification_risk": 1.0}}}
    (conf / "plan.yaml").write_text(yaml.safe_dump(plan))
    res = _run("run", conf / "plan.yaml", "--quiet")
    assert res.exit_code == EXIT_OK, res.output
    rel = conf / "synthguard_output" / "releases"
    assert read_manifest(rel / "top").kind == "protected"
    res = _run("run", conf / "plan.yaml", "--quiet")
    assert res.exit_code == EXIT_BAD_INPUT and "releases' already holds" in res.output
    plan["releases"] = {"top2": plan["releases"]["top"]}
    (conf / "plan.yaml").write_text(yaml.safe_dump(plan))
    res = _run("run", conf / "plan.yaml", "--quiet", "--force")
    assert res.exit_code == EXIT_OK, res.output
    assert sorted(p.name for p in rel.iterdir()) == ["top2"]
    # the run's releases/ folder is read back with each release's kind
    res = _evaluate(conf, rel)
    assert "release 'top2': protected (from synthguard_manifest.json)" in res.output


def test_protect_writes_a_protected_release_folder(conf):
    out = conf / "prot"
    res = _run("protect", conf / "conf.csv", "--out", out, "--topcode", "income:p90",
               "--seed", 4, "--quiet")
    assert res.exit_code == EXIT_OK, res.output
    man = read_manifest(out)
    assert man.kind == "protected" and man.implicates == ("protected.csv",)
    assert dict(man.methods) == {"income": "topcode"} and man.kept == ("region", "kids")
    assert json.loads((out / "metadata" / "steps.json").read_text())[0]["step"] == "topcode"
    res = _evaluate(conf, out, "--table", conf / "t.csv")
    # a top-coded file keeps every other record as it is: the default max IR <= 0.5 fails it
    assert res.exit_code == EXIT_THRESHOLD_FAILED, res.output
    assert "max IR ≤ 0.5: FAIL" in res.output
    table = pd.read_csv(conf / "t.csv").set_index("release")
    assert table.loc["prot", "kind"] == "protected"
    assert 0 < table.loc["prot", "max_identification_risk"] <= 1  # rows align: measured
    res = _run("protect", conf / "conf.csv", "--out", out, "--topcode", "income:p90")
    assert res.exit_code == EXIT_BAD_INPUT and "--force" in res.output


def test_other_libraries_warnings_are_one_line_without_paths(capsys):
    import warnings

    from synthguard.cli._render import warnings_to_stderr

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        with warnings_to_stderr(False):
            warnings.warn_explicit("income 98765 is odd", RuntimeWarning,
                                   "/venv/lib/site-packages/numpy/lib/core.py", 7)
        with warnings_to_stderr(True):  # quiet: nothing
            warnings.warn_explicit("x", RuntimeWarning, "/v/site-packages/pandas/a.py", 1)
    err = capsys.readouterr().err
    assert err == ("warning: RuntimeWarning from numpy (details withheld: the message may "
                   "quote data)\n")
    with warnings.catch_warnings():  # an error filter (as in this test suite) still raises
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning), warnings_to_stderr(False):
            warnings.warn_explicit("x", RuntimeWarning, "/v/site-packages/pandas/a.py", 1)


@pytest.mark.parametrize("cmd", [["evaluate"], ["run"]])
def test_helps_promise_the_exit_codes_and_kind_rule(cmd):
    res = _run(*cmd, "--help")
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "3 a requested measure could not be computed" in text
    assert "1 a release fail" in text
    if cmd == ["evaluate"]:
        assert "without a manifest, full" in text and "--common-columns" in text


def test_copy_of_the_data_fails_the_default_thresholds(conf):
    # no --threshold given: the default thresholds still judge the release (exit 1, named on
    # stderr); --no-default-thresholds judges by the given rules alone (none: exit 0)
    copy = conf / "copy"
    copy.mkdir()
    pd.read_csv(conf / "conf.csv").to_csv(copy / "copy_1.csv", index=False)
    res = _evaluate(conf, copy)
    assert res.exit_code == 1, res.output
    assert "replicated uniques ≤ 0: FAIL" in res.output
    assert "releases failing their thresholds: copy" in res.stderr
    res = _evaluate(conf, copy, "--no-default-thresholds")
    assert res.exit_code == EXIT_OK, res.output


def test_dasks_large_graph_warning_is_said_in_our_words(capsys):
    import warnings

    from synthguard.cli._render import warnings_to_stderr

    text = ("Sending large graph of size 10.59 MiB.\nThis may cause some slowdown.\n"
            "Consider loading the data with Dask directly")
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        with warnings_to_stderr(False):
            warnings.warn_explicit(text, UserWarning,
                                   "/v/site-packages/distributed/client.py", 3429)
            # the same words from another package are not trusted
            warnings.warn_explicit(text, UserWarning, "/v/site-packages/other/x.py", 1)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "warning: Dask sent a large task graph (10.59 MiB) to the scheduler; this can slow "
        "the run, not change its results",
        "warning: UserWarning from other (details withheld: the message may quote data)",
    ]
