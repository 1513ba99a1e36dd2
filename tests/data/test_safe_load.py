"""One safe loader for every YAML and JSON file (issue 31, N1).

Before: a 400-byte alias bomb given as ``--levels`` to ``dp synthesize`` or ``dp tabulate`` was
read with plain ``yaml.safe_load``: it held 1.19 GB after 25 s and still ran at 120 s. Plans
refused aliases, other readers did not. After: every reader goes through
``synthguard.data.safe_load``, which refuses anchors, aliases, oversized files and deep nesting
before anything is built, with the file named and what to do.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import synthguard
from synthguard.cli import main
from synthguard.data.safe_load import parse_json, parse_yaml, read_json, read_yaml
from synthguard.dp import PrivacyLedger
from synthguard.errors import DataError, FileFormatError, ParameterError, PlanError


def _bomb(levels: int = 9) -> str:
    """The "billion laughs": 9 ** levels strings from a few hundred bytes."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghijklmnop"
    for prev, cur in itertools.pairwise(names[:levels]):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_before_anything_is_built():
    t = time.perf_counter()
    with pytest.raises(FileFormatError, match=r"'x.yaml', line 1: YAML anchors and aliases"):
        parse_yaml(_bomb(), source="'x.yaml'")
    assert time.perf_counter() - t < 1.0


def test_a_single_alias_is_refused_too_with_its_line():
    with pytest.raises(ParameterError, match=r"line 2.*write the values out"):
        parse_yaml("a: 1\nb: *x\n", error=ParameterError)


def test_plain_yaml_and_json_read_as_before(tmp_path):
    p = tmp_path / "levels.yaml"
    p.write_text("sex: [F, M]\nage: {lo: 0, hi: 90}\n")
    assert read_yaml(p) == {"sex": ["F", "M"], "age": {"lo": 0, "hi": 90}}
    j = tmp_path / "d.json"
    j.write_text(json.dumps({"a": [1, 2.5, None, "x"], "b": float("nan")}))
    got = read_json(j)
    assert got["a"] == [1, 2.5, None, "x"] and np.isnan(got["b"])


@pytest.mark.parametrize("text", ["[" * 200 + "]" * 200, "a:\n" + "".join(
    "  " * i + f"k{i}:\n" for i in range(1, 120)) + "  " * 120 + "v"])
def test_deep_yaml_is_refused_by_depth(text):
    with pytest.raises(FileFormatError, match="nested more than 64 levels"):
        parse_yaml(text)


def test_deep_json_is_refused_not_a_recursion_error():
    with pytest.raises(FileFormatError, match="nested more than 64 levels"):
        parse_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(FileFormatError, match="nested more than 64 levels"):
        parse_json("[" * 100 + "]" * 100)
    inner = parse_json("[" * 64 + "]" * 64)
    for _ in range(63):
        inner = inner[0]
    assert inner == []
    with pytest.raises(FileFormatError, match="nested"):
        parse_json("[" * 65 + "]" * 65)


def test_oversized_file_is_refused_without_reading_it_whole(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(FileFormatError, match=r"'big.yaml': 2,004 bytes, more than the 1,000"):
        read_yaml(p, max_bytes=1000)


def test_invalid_yaml_names_the_line_and_the_hint():
    with pytest.raises(PlanError, match=r"p.yaml, line 2: not valid YAML .*quoting"):
        parse_yaml("a: [1\nb: ]]\n", source="p.yaml", error=PlanError)


def test_a_ledger_nested_too_deep_is_refused_with_its_name(tmp_path):
    p = tmp_path / "ledger.json"
    p.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(DataError, match=r"'ledger\.json': nested more than 64"):
        PrivacyLedger.open(p)


# ------------------------------------------------------------------ the command line, as reported
@pytest.fixture
def conf(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"sex": rng.choice(["F", "M"], 200), "age": rng.choice(["y", "o"], 200),
                       "income": rng.uniform(0, 90, 200).round(1)})
    df.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "bomb.yaml").write_text(_bomb())
    return tmp_path


@pytest.mark.parametrize("command", [
    ["dp", "tabulate", "{conf}", "--table", "sex x age", "--epsilon", "1"],
    ["dp", "synthesize", "{conf}", "--method", "stratified", "--epsilon", "1",
     "--columns", "sex,age"],
])
def test_levels_alias_bomb_exits_2_at_once(conf, command):
    out = conf / "out"
    args = [a.replace("{conf}", str(conf / "conf.csv")) for a in command]
    t = time.perf_counter()
    res = CliRunner().invoke(main, [*args, "--levels", str(conf / "bomb.yaml"),
                                    "--ledger", str(conf / "ledger.json"), "--out", str(out)])
    assert time.perf_counter() - t < 10.0
    assert res.exit_code == 2, res.output
    assert "bomb.yaml" in res.output and "aliases" in res.output
    assert not out.exists() and not (conf / "ledger.json").exists()


def test_constraints_alias_bomb_exits_2_at_once(conf):
    out = conf / "syn"
    res = CliRunner().invoke(main, ["synthesize", str(conf / "conf.csv"), "--out", str(out),
                                    "--constraints", str(conf / "bomb.yaml")])
    assert res.exit_code == 2, res.output
    assert "bomb.yaml" in res.output and "aliases" in res.output
    assert not out.exists() or not any(out.iterdir())


# ------------------------------------------------------------------ one loader, no other reader
_READERS = re.compile(
    r"\b(?:yaml\.(?:safe_load|load|full_load|unsafe_load|load_all|safe_load_all|compose|"
    r"compose_all|scan|parse)|json\.loads?|pd\.read_json|pandas\.read_json)\s*\(")


def test_no_module_but_the_safe_loader_reads_yaml_or_json():
    src = Path(synthguard.__file__).parent
    offenders = [f"{p.relative_to(src)}:{i}" for p in sorted(src.rglob("*.py"))
                 if p.name != "safe_load.py"
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if _READERS.search(line)]
    assert offenders == []
    # and the pattern does catch what it is meant to catch
    assert _READERS.search("doc = yaml.safe_load(text)")
    assert _READERS.search("json.load(fh)") and not _READERS.search("json.dumps(x)")
