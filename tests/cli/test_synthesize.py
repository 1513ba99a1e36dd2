"""``synthguard synthesize`` and ``synthguard demo`` end to end with click's CliRunner."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from tests.synthesis import _methods  # noqa: F401  (registers the test methods)


@pytest.fixture
def conf_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    df = pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e"], size=n),
            "age": rng.integers(18, 90, size=n),
            "income": np.round(rng.lognormal(10, 1, size=n), 2),
            "kids": rng.poisson(1.2, size=n),
        }
    )
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    return path, df


def _run(args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_synthesize_partial_writes_m_files_and_keeps_columns(conf_csv, tmp_path):
    path, df = conf_csv
    out = tmp_path / "syn"
    args = ["synthesize", path, "--out", out, "--m", 3, "--keep", "region,age", "--seed", 1,
            "--method", "income=test_marginal", "--method", "kids=test_marginal"]
    res = _run(args)
    assert res.exit_code == 0, res.output
    files = sorted(p.name for p in out.iterdir())
    assert files == ["metadata", "synthetic_1.csv", "synthetic_2.csv", "synthetic_3.csv",
                     "synthguard_manifest.json"]
    assert sorted(p.name for p in (out / "metadata").iterdir()) == [
        "diagnostics.csv", "provenance.json"]
    syn = [pd.read_csv(out / f"synthetic_{i}.csv") for i in (1, 2, 3)]
    for s in syn:
        assert s.shape == df.shape
        pdt.assert_frame_equal(s[["region", "age"]], df[["region", "age"]])
    assert not syn[0]["income"].equals(syn[1]["income"])
    assert "seed 1" in res.output
    # same seed, same files
    out2 = tmp_path / "syn2"
    assert _run([*args[:3], out2, *args[4:], "--quiet"]).exit_code == 0
    pdt.assert_frame_equal(pd.read_csv(out2 / "synthetic_2.csv"), syn[1])


def test_synthesize_full_with_n_strata_and_schema(conf_csv, tmp_path):
    path, df = conf_csv
    out = tmp_path / "syn"
    res = _run(["synthesize", path, "--out", out, "--n", 150, "--strata", "region", "--seed", 2,
                "--default-method", "test_marginal", "--schema", "kids=numeric", "--quiet",
                "--jobs", 2])
    assert res.exit_code == 0, res.output
    s = pd.read_csv(out / "synthetic_1.csv")
    assert len(s) == 150
    expected = df["region"].value_counts() * 150 / len(df)
    got = s["region"].value_counts()
    assert (abs(got - expected.reindex(got.index)) < 1).all()


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--keep", "nope"], "'keep'"),
        (["--keep", "region", "--n", "5"], "'n'"),
        (["--method", "income=nosuch"], "column 'income': unknown synthesis method"),
        (["--visit", "age,missingcol"], "'visit_sequence'"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(conf_csv, tmp_path, extra, fragment):
    path, _ = conf_csv
    out = tmp_path / "syn"
    res = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(out),
                                    "--default-method", "test_marginal", *extra])
    assert res.exit_code == 2
    assert fragment in res.output
    assert not out.exists() or not any(out.iterdir())


def test_unreadable_file_exits_2(tmp_path):
    bad = tmp_path / "conf.parquet"
    bad.write_text("this is not parquet")
    res = CliRunner().invoke(main, ["synthesize", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "could not be read" in res.output


def test_bad_pair_syntax(conf_csv, tmp_path):
    path, _ = conf_csv
    res = CliRunner().invoke(
        main, ["synthesize", str(path), "--out", str(tmp_path / "o"), "--method", "income"]
    )
    assert res.exit_code == 2 and "COLUMN=VALUE" in res.output


def test_demo_runs_and_compares(tmp_path):
    out = tmp_path / "demo"
    res = _run(["demo", "--out", out])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (out / "penguins").glob("synthetic_*.csv")) == [
        f"synthetic_{i}.csv" for i in range(1, 6)]
    ce = pd.read_csv(out / "ce" / "synthetic_1.csv")
    from synthguard import load_dataset

    conf = load_dataset("ce")
    np.testing.assert_array_equal(ce["KidsCount"], conf["KidsCount"])
    np.testing.assert_array_equal(ce["Race"], conf["Race"].astype(int))
    table = pd.read_csv(out / "ce" / "metadata" / "comparison.csv", dtype=str)
    mean = table[(table["column"] == "Expenditure")
                 & (table["statistic"] == "mean (winsorised)")].iloc[0]
    shown = float(mean["confidential"].replace(",", ""))
    # the figure the report prints: the mean of values clipped at the 1%/99% quantiles
    # rounded to 2 significant figures (brute force here), to 3 significant figures
    x = conf["Expenditure"].to_numpy(dtype=float)
    lo, hi = (float(f"{q:.2g}") for q in np.quantile(x, [0.01, 0.99]))
    assert shown == pytest.approx(np.clip(x, lo, hi).mean(), rel=5e-3)
    # the raw mean (data README: 10,197.38) is printed nowhere
    assert "10,197" not in res.output and "10197" not in mean.to_string()
    # pooled synthetic mean of 5 x 5133 cart draws: within 3 SE of the confidential mean
    se = conf["Expenditure"].std() / np.sqrt(len(conf))
    assert abs(float(mean["synthetic"].replace(",", "")) - shown) < 3 * se + 0.005 * shown
    assert "Confidential vs synthetic" in res.output
    # the story: what each release is, which are meant to fail, and that they did as designed
    assert "Meant to FAIL" in res.output and "Meant to PASS" in res.output
    assert "As designed: the gate stopped" in res.output
    assert "What to look at next:" in res.output
    # the demo ends with a release that passes its thresholds, next to ones that fail and why
    assert "private_full: PASS" in res.output
    assert "Releases that meet every threshold: private_full" in res.output
    (line,) = [s for s in res.output.splitlines() if s.strip().startswith("synthetic: FAIL")]
    assert "max IR ≤ 0.5: FAIL" in line and "replicated uniques ≤ 0: pass" in line


def test_small_strata_exit_2_and_write_nothing(tmp_path):
    from click.testing import CliRunner

    from synthguard.cli import main
    from synthguard.data import load_dataset

    conf = tmp_path / "ce.csv"
    load_dataset("ce").to_csv(conf, index=False)
    out = tmp_path / "syn"
    args = ["synthesize", str(conf), "--out", str(out), "--strata", "Expenditure",
            "--keep", "UrbanRural,Race,KidsCount", "--seed", "1", "--quiet"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert "strata 'Expenditure'" in res.output and "min_stratum_size" in res.output
    assert not out.exists()
    ok = CliRunner().invoke(main, [*args[:5], "UrbanRural", *args[6:], "--min-stratum-size", "0"])
    assert ok.exit_code == 0, ok.output
    assert (out / "synthetic_1.csv").exists()


def test_synthesize_refuses_identifier_and_drops_it(tmp_path):
    rng = np.random.default_rng(2)
    n = 200
    df = pd.DataFrame({"ID": np.arange(n), "x": rng.integers(0, 5, n),
                       "y": rng.normal(size=n), "z": rng.choice(["a", "b"], n)})
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    res = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(tmp_path / "a"),
                                    "--quiet"])
    assert res.exit_code != 0
    assert "column 'ID' looks like an identifier" in res.output and "--drop ID" in res.output
    assert not (tmp_path / "a" / "synthetic_1.csv").exists()
    res = _run(["synthesize", path, "--out", tmp_path / "b", "--drop", "ID", "--seed", 1,
                "--quiet"])
    assert res.exit_code == 0, res.output
    assert list(pd.read_csv(tmp_path / "b" / "synthetic_1.csv").columns) == ["x", "y", "z"]
    # the manifest says what was left out (main recorded "dropped": [])
    from synthguard.data.manifest import read_manifest

    assert read_manifest(tmp_path / "b").dropped == ("ID",)


def test_synthesize_safeguard_and_method_option_flags(conf_csv, tmp_path):
    path, df = conf_csv
    out = tmp_path / "s"
    res = _run(["synthesize", path, "--out", out, "--seed", 2, "--method",
                "income=cart:smoothing=density", "--replicated-uniques", "keep",
                "--extremes", 0])
    assert res.exit_code == 0, res.output
    syn = pd.read_csv(out / "synthetic_1.csv")
    assert syn["income"].between(df["income"].min(), df["income"].max()).all()
    assert not syn["income"].isin(df["income"]).all()  # smoothed
    assert "replicated uniques kept on request" in res.output
    res = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(tmp_path / "t"),
                                    "--min-rows", "1000", "--quiet"])
    assert res.exit_code != 0 and "--min-rows 0" in res.output


def test_synthesize_rare_values_flag(conf_csv, tmp_path):
    path, df = conf_csv
    counts = df["income"].value_counts()
    rare = set(counts[counts < 5].index)
    plain = _run(["synthesize", path, "--out", tmp_path / "p", "--seed", 3, "--rare-values", 0,
                  "--replicated-uniques", "keep", "--quiet"])
    assert plain.exit_code == 0, plain.output
    assert pd.read_csv(tmp_path / "p" / "synthetic_1.csv")["income"].isin(rare).any()
    safe = _run(["synthesize", path, "--out", tmp_path / "d", "--seed", 3])
    assert safe.exit_code == 0, safe.output
    assert not pd.read_csv(tmp_path / "d" / "synthetic_1.csv")["income"].isin(rare).any()
    assert "near-unique values" in safe.output


def test_partial_guard_is_said_in_the_summary_manifest_evaluate_and_report(tmp_path):
    # main printed "N suppressed" and nothing else: a third of Adult's synthesized values
    # were blanked without a word of what that meant. Now the summary, the manifest, the
    # evaluation's notes and the report say what the guard changed, with counts and shares
    import json
    import re

    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"block": [f"b{i % 60}" for i in range(n)],
                       "age": rng.integers(20, 60, n),
                       "weight": rng.integers(10_000, 400_000, n),
                       "kind": np.where(rng.random(n) < 0.97, "x", "y")})
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "syn"
    res = _run(["synthesize", path, "--out", out, "--keep", "block,age,weight", "--m", 2,
                "--seed", 1, "--method", "kind=sample", "--schema", "block=categorical"])
    assert res.exit_code == 0, res.output
    syn = [pd.read_csv(out / f"synthetic_{i}.csv") for i in (1, 2)]
    n_changed = sum(int(s["weight"].ne(df["weight"]).sum()) for s in syn)
    assert n_changed >= 10 and all(s["kind"].notna().all() for s in syn)
    line = next(x for x in res.output.splitlines() if x.startswith("partial synthesis ("))
    assert f"weight, the riskiest kept column, synthesized anew in {n_changed:,} of {2 * n:,} (" in line
    share = float(re.search(r"\(([\d.]+) %\)", line).group(1))
    assert abs(share - 100 * n_changed / (2 * n)) <= 0.051
    details = json.loads((out / "synthguard_manifest.json").read_text())["details"]
    record = details["safeguards"]
    assert record["partial_uniques"] == "synthesize"
    assert record["kept_changed"] == {"weight": n_changed}
    assert record["released_records"] == 2 * n and record["partial"] == line
    # the evaluation sees it: a note, and the report's safeguards table and sentence
    report = tmp_path / "r.html"
    ev = _run(["evaluate", path, out, "--keys", "block,age", "--target", "kind",
               "--schema", "block=categorical", "--report", report])
    assert ev.exit_code in (0, 1), ev.output
    assert "unique guard: (partial_uniques=synthesize): weight, the riskiest" in ev.output
    html = report.read_text()
    assert 'class="note partial-guard"' in html and f"{n_changed:,} of {2 * n:,}" in html
    # --partial-uniques suppress blanks instead, and says so
    out2 = tmp_path / "syn2"
    res = _run(["synthesize", path, "--out", out2, "--keep", "block,age,weight", "--m", 2,
                "--seed", 1, "--method", "kind=sample", "--schema", "block=categorical",
                "--partial-uniques", "suppress"])
    assert res.exit_code == 0, res.output
    blanked = sum(int(pd.read_csv(out2 / f"synthetic_{i}.csv")["kind"].isna().sum())
                  for i in (1, 2))
    assert f"synthesized values (kind) blanked (set missing) in {blanked:,} of" in res.output
