"""Every command that reads data refuses bad files in one line (exit 2, nothing written) and
takes --na-values and --strip."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main


def _book_as_csv(folder):
    pd.DataFrame({"a": [1, 2]}).to_excel(folder / "b.xlsx", index=False)
    (folder / "conf.csv").write_bytes((folder / "b.xlsx").read_bytes())
    return folder / "conf.csv"


COMMANDS = [
    ["synthesize", "{data}", "--out", "{out}"],
    ["protect", "{data}", "--out", "{out}/p.csv", "--topcode", "a:1"],
    ["dp", "synthesize", "{data}", "--epsilon", "1", "--out", "{out}"],
    ["evaluate", "{data}", "{data}", "--target", "a", "--report", "{out}/r.html"],
    ["init", "{data}", "--out", "{out}/plan.yaml"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0] if a[0] != "dp" else "dp")
def test_excel_under_csv_name_is_one_line_exit_2(tmp_path, args):
    data = _book_as_csv(tmp_path)
    out = tmp_path / "out"
    cmd = [a.format(data=data, out=out) for a in args]
    r = CliRunner().invoke(main, cmd)
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert lines == [f"error: file '{data}' is an Excel workbook, not CSV text; save it as CSV "
                     f"or pass it with its .xlsx name"]
    assert not out.exists()
    help_text = CliRunner().invoke(main, [*cmd[: 2 if args[0] == "dp" else 1], "--help"]).output
    assert "--na-values" in help_text and "--strip" in help_text


def test_synthesize_strip_and_na_values(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    sex = rng.choice([" Male", "Female ", " ?"], size=n)
    age = rng.integers(18, 80, size=n).astype(str)
    age[:10] = "-9"
    lines = ["age , sex"] + [f"{a},{s}" for a, s in zip(age, sex, strict=True)]
    f = tmp_path / "conf.csv"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["synthesize", str(f), "--out", str(tmp_path / "plain"),
                                  "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "warning: file" in r.output and "start or end with a space" in r.output
    assert "hold '?'" in r.output and "Male" not in r.output.split("warning")[-1]
    r = CliRunner().invoke(main, ["synthesize", str(f), "--out", str(tmp_path / "clean"),
                                  "--seed", "1", "--strip", "--na-values", "?,-9"])
    assert r.exit_code == 0, r.output
    assert "warning: file" not in r.output
    syn = pd.read_csv(tmp_path / "clean" / "synthetic_1.csv")
    assert list(syn.columns) == ["age", "sex"]
    assert set(syn["sex"].dropna()) <= {"Male", "Female"} and syn["sex"].isna().any()
    assert pd.api.types.is_numeric_dtype(syn["age"]) and (syn["age"].dropna() >= 18).all()


def _spaced_csv(folder):
    rng = np.random.default_rng(1)
    n = 200
    df = pd.DataFrame({"sex": rng.choice([" Male", " Female"], n),
                       "job": rng.choice(["a", "b", "?"], n),
                       "a": rng.integers(18, 80, n)})
    df.to_csv(folder / "conf.csv", index=False)
    return folder / "conf.csv"


READ_FIRST = [
    ["synthesize", "{data}", "--out", "{out}", "--seed", "1"],
    ["protect", "{data}", "--out", "{out}/p.csv", "--topcode", "a:70"],
    ["dp", "synthesize", "{data}", "--epsilon", "1", "--out", "{out}", "--levels-from-data",
     "--bins", "a=0,40,80"],
    ["evaluate", "{data}", "{data}", "--target", "a", "--report", "{out}/r.html"],
    ["init", "{data}", "--out", "{out}/plan.yaml"],
]


@pytest.mark.parametrize("args", READ_FIRST, ids=lambda a: a[0] if a[0] != "dp" else "dp")
def test_read_advice_comes_before_any_work(tmp_path, args):
    """The --strip/--na-values advice arrived after the release was written (issue 31): it is
    printed when the file is read, as the first lines, and recalled once at the end."""
    data = _spaced_csv(tmp_path)
    cmd = [a.format(data=data, out=tmp_path / "out") for a in args]
    r = CliRunner().invoke(main, cmd)
    assert r.exit_code in (0, 1, 3), r.output  # evaluate: the verdict is not the point here
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert "start or end with a space" in lines[0] and "--strip" in lines[0], lines[:3]
    assert "hold '?'" in lines[1] and "--na-values '?'" in lines[1], lines[:3]
    assert "rerun with --strip or --na-values" in lines[-1]
    assert sum("start or end with a space" in x for x in lines) == 1


def test_run_gives_read_advice_first_in_plan_terms(tmp_path):
    """A plan reads its file with data.read_options: the recall says so, not --strip."""
    data = _spaced_csv(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"data:\n  path: {data}\nseed: 1\noutput: out\nreleases:\n"
                    "  s:\n    method: synthesis\n    m: 1\n"
                    "evaluation:\n  keys: [sex]\n  targets: [a]\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(plan), "--out", str(tmp_path / "out")])
    assert r.exit_code in (0, 1, 3), r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert "start or end with a space" in lines[0] and "hold '?'" in lines[1], lines[:3]
    assert any("under data.read_options in the plan" in x for x in lines)
