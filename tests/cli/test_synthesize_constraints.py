"""``synthesize --constraints FILE.yaml --transform COL=NAME``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.synthesis import check_constraints


@pytest.fixture
def conf_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    rel = rng.choice(["husband", "wife", "child"], size=n)
    df = pd.DataFrame({
        "rel": rel,
        "sex": np.where(rel == "husband", "m", np.where(rel == "wife", "f",
                                                       rng.choice(["m", "f"], n))),
        "income": np.round(rng.lognormal(10, 1, size=n), 2),
    })
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    return path, df


RULES = ["rel == 'husband' -> sex == 'm'", "rel == 'wife' -> sex == 'f'", "income >= 100"]


def _invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_constraints_and_transforms_from_the_command_line(conf_csv, tmp_path):
    path, _ = conf_csv
    rules = tmp_path / "rules.yaml"
    rules.write_text("constraints:\n" + "".join(f'  - "{r}"\n' for r in RULES))
    out = tmp_path / "syn"
    res = _invoke(["synthesize", path, "--out", out, "--m", 2, "--seed", 1, "--quiet",
                   "--method", "rel=sample", "--method", "sex=sample",
                   "--method", "income=norm", "--constraints", rules,
                   "--transform", "income=log"])
    assert res.exit_code == 0, res.output
    for i in (1, 2):
        syn = pd.read_csv(out / f"synthetic_{i}.csv")
        assert check_constraints(syn, RULES)["violations"].sum() == 0
        assert (syn["income"] > 0).all()
    manifest = json.loads((out / "synthguard_manifest.json").read_text())
    assert manifest["details"]["constraints"]["constraints"] == RULES
    assert manifest["details"]["transforms"]["income"]["transform"] == "log"
    redrawn = manifest["details"]["constraints"]["redrawn"][0]
    assert any(v == "< 10" or v > 0 for v in redrawn)


def test_redraw_counts_of_a_one_record_level_pass_the_small_cell_rule(tmp_path):
    # audit N2: a rule about a level one record holds is redrawn (and forced) for that
    # record only; main printed and wrote "1 record redrawn, 1 forced" beside the rule's
    # text, and 0/0 for an absent level, which tells whether the level exists
    rng = np.random.default_rng(5)
    n = 300
    df = pd.DataFrame({"occupation": rng.choice(["a", "b", "c"], n),
                       "income_amt": rng.integers(1_000, 90_000, n)})
    df.loc[7, ["occupation", "income_amt"]] = ["ZZ_PLANTED", 987654321]
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    rules = tmp_path / "rules.yaml"
    rules.write_text('constraints:\n  - "occupation == \'ZZ_PLANTED\' -> income_amt >= '
                     '987654321"\n')
    out = tmp_path / "syn"
    res = _invoke(["synthesize", path, "--out", out, "--seed", 1, "--keep", "occupation",
                   "--rare-values", 0, "--extremes", 0, "--constraints", rules,
                   "--partial-uniques", "suppress"])  # keeps the planted record's level
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if "ZZ_PLANTED" in x)
    assert "1 record" not in line and "< 10 records redrawn, < 10 forced" in line
    manifest = json.loads((out / "synthguard_manifest.json").read_text())
    cons = manifest["details"]["constraints"]
    for key in ("redrawn", "forced", "remaining"):
        assert all(v == "< 10" or v == 0 for t in cons[key] for v in t)
        assert 1 not in [v for t in cons[key] for v in t]
    provenance = (out / "metadata" / "provenance.json").read_text()
    assert '"redrawn": [\n' in provenance and "987654321" in provenance  # the rule text
    assert json.loads(provenance)["provenance"]["constraints"]["redrawn"] == cons["redrawn"]


def test_a_table_file_of_rules(conf_csv, tmp_path):
    path, _ = conf_csv
    table = tmp_path / "rules.csv"
    pd.DataFrame({"variable": ["income"], "minimum": [100]}).to_csv(table, index=False)
    res = _invoke(["synthesize", path, "--out", tmp_path / "o", "--quiet", "--seed", 2,
                   "--constraints", table])
    assert res.exit_code == 0, res.output
    assert (pd.read_csv(tmp_path / "o" / "synthetic_1.csv")["income"] >= 100).all()


@pytest.mark.parametrize(
    ("content", "extra", "fragment"),
    [
        ('- "sex == \'f\' -> income >= 1e9"\n', [], "allow-violations"),
        ('- "salary >= 0"\n', [], "not in the data: salary"),
        ("- [unclosed\n", [], "not valid YAML"),
        ("rules: []\n", [], "'constraints:'"),
        ('- "income >= 0"\n', ["--transform", "sex=log"], "'sex' is not numeric"),
    ],
)
def test_bad_constraints_exit_2_named_in_one_line(conf_csv, tmp_path, content, extra,
                                                 fragment):
    path, df = conf_csv
    rules = tmp_path / "rules.yaml"
    rules.write_text(content)
    out = tmp_path / "syn"
    res = _invoke(["synthesize", path, "--out", out, "--constraints", rules, *extra])
    assert res.exit_code == 2, res.output
    assert fragment in res.output
    assert not out.exists() or not any(out.iterdir())
    # never a data value
    assert not any(f"{v:.2f}" in res.output for v in df["income"].head(50))


def test_evaluate_fails_a_release_that_breaks_a_constraint(conf_csv, tmp_path):
    path, df = conf_csv
    rules = tmp_path / "rules.yaml"
    rules.write_text('- "rel == \'husband\' -> sex == \'m\'"\n')
    bad = df.copy()
    bad.loc[:2, ["rel", "sex"]] = ["husband", "f"]
    bad.to_csv(tmp_path / "bad.csv", index=False)
    res = _invoke(["evaluate", path, tmp_path / "bad.csv", "--keys", "rel,sex", "--target",
                   "income", "--constraints", rules, "--seed", 1, "--quiet"])
    assert res.exit_code == 1, res.output
