"""``synthguard dp domain``: a public domain file from a codebook or, reviewed, from the data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.cli.dp_domain import load_domain, nice_edges
from synthguard.errors import ParameterError


@pytest.fixture
def conf(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame({"sex": rng.choice(["F", "M"], n),
                       "region": rng.choice(["north", "south", "east"], n),
                       "age": rng.integers(18, 91, n),
                       "income": rng.uniform(1234.5, 98765.4, n).round(1)})
    df.loc[7, "region"] = "Zq-Secret-Hamlet"  # a level held by one record
    df.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "codebook.yaml").write_text(
        "categories:\n  sex: [F, M, X]\nbins:\n  age: [0, 18, 65, 120]\n")
    return tmp_path


def _run(*args):
    return CliRunner().invoke(main, ["dp", "domain", *map(str, args)], catch_exceptions=False)


def test_codebook_only_copies_declarations_and_reads_no_values(conf):
    out = conf / "domain.yaml"
    r = _run(conf / "conf.csv", "--codebook", conf / "codebook.yaml", "--out", out)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    doc = yaml.safe_load(text)
    assert doc["reviewed"] is True and doc["source"] == "codebook"
    assert doc["categories"] == {"sex": ["F", "M", "X"]}  # as declared, X although unseen
    assert doc["bins"] == {"age": [0.0, 18.0, 65.0, 120.0]}
    assert doc["undeclared"] == ["region", "income"]
    for leak in ("Zq-Secret", "north", "1234", "9876"):
        assert leak not in text and leak not in r.output


def test_from_data_leaves_out_rare_levels_and_must_be_reviewed(conf):
    out = conf / "domain.yaml"
    r = _run(conf / "conf.csv", "--codebook", conf / "codebook.yaml", "--from-data",
             "--out", out)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    doc = yaml.safe_load(text)
    assert doc["reviewed"] is False and doc["source"] == "data"
    assert doc["categories"]["region"] == ["east", "north", "south"]
    assert "Zq-Secret" not in text  # held by one record: left out
    assert doc["bins"]["income"] == [0.0, 10000.0, 20000.0, 30000.0, 40000.0, 50000.0,
                                     60000.0, 70000.0, 80000.0, 90000.0, 100000.0]
    assert doc["categories"]["sex"] == ["F", "M", "X"]  # the codebook wins
    assert "PROPOSED FROM THE DATA" in text
    # DP commands refuse it until reviewed, then accept it
    tab = ["dp", "tabulate", str(conf / "conf.csv"), "--table", "sex x region",
           "--levels", str(out), "--epsilon", "1", "--seed", "1", "--out", str(conf / "t")]
    res = CliRunner().invoke(main, tab)
    assert res.exit_code != 0 and "reviewed" in res.output and "Zq" not in res.output
    conf_df = pd.read_csv(conf / "conf.csv")
    conf_df = conf_df[conf_df["region"] != "Zq-Secret-Hamlet"]  # the steward recodes it
    conf_df.to_csv(conf / "conf.csv", index=False)
    out.write_text(text.replace("reviewed: false", "reviewed: true"))
    res = CliRunner().invoke(main, tab)
    assert res.exit_code == 0, res.output
    assert len(pd.read_csv(conf / "t" / "sex_x_region.csv")) == 3 * 3


def test_synthesize_reads_the_domain_file_with_bins(conf):
    out = conf / "domain.yaml"
    _run(conf / "conf.csv", "--codebook", conf / "codebook.yaml", "--columns", "sex,age",
         "--out", out)
    r = CliRunner().invoke(main, [
        "dp", "synthesize", str(conf / "conf.csv"), "--method", "stratified", "--epsilon", "1",
        "--columns", "sex,age", "--levels", str(out), "--seed", "2",
        "--out", str(conf / "syn")])
    assert r.exit_code == 0, r.output
    syn = pd.read_csv(conf / "syn" / "dp_stratified_1.csv")
    assert set(syn["sex"]) <= {"F", "M", "X"} and syn["age"].between(0, 120).all()


def test_refusals_and_helpers(conf, tmp_path):
    out = conf / "domain.yaml"
    out.write_text("x: 1\n")
    r = CliRunner().invoke(main, ["dp", "domain", str(conf / "conf.csv"), "--out", str(out)])
    assert r.exit_code != 0 and "--force" in r.output
    r = CliRunner().invoke(main, ["dp", "domain", str(conf / "conf.csv"), "--columns", "nope",
                                  "--out", str(conf / "d2.yaml")])
    assert r.exit_code != 0 and "nope" in r.output
    with pytest.raises(ParameterError, match="not a mapping"):
        load_domain(out)
    assert nice_edges(3.2, 97.0, 10) == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0,
                                         90.0, 100.0]
    assert nice_edges(0.013, 0.049, 4) == [0.01, 0.02, 0.03, 0.04, 0.05]
    assert nice_edges(5.0, 5.0, 3) == [5.0, 6.0]
