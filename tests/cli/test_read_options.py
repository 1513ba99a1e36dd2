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
