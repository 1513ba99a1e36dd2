"""`synthguard init data.csv`: a commented plan that validates and guesses keys and target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.pipeline.plan import load_plan, parse_plan


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    pd.DataFrame({
        "age_group": rng.choice(["18-34", "35-64", "65+"], n),
        "sex": rng.choice(["f", "m"], n),
        "household_income": np.round(rng.lognormal(10, 0.7, n), 2),
        "weight": rng.uniform(0.5, 2.0, n),
    }).to_csv(tmp_path / "survey.csv", index=False)
    return tmp_path / "survey.csv"


def test_init_to_stdout_is_a_valid_commented_plan(data, monkeypatch):
    monkeypatch.chdir(data.parent)
    res = CliRunner().invoke(main, ["init", "survey.csv"])
    assert res.exit_code == 0, res.output
    text = res.output
    assert text.count("#") > 20  # commented throughout
    plan = parse_plan(text, base_dir=data.parent)
    assert plan.data_path == data
    assert plan.keys == ("age_group", "sex")
    assert plan.targets == ("household_income",)  # the sensitive-sounding name wins
    assert [r.name for r in plan.releases] == ["partial", "full", "topcoded"]


def test_init_out_file_and_force(data, tmp_path):
    out = tmp_path / "plans" / "plan.yaml"
    runner = CliRunner()
    res = runner.invoke(main, ["init", str(data), "--out", str(out)])
    assert res.exit_code == 0 and out.exists()
    assert load_plan(out).data_path == data  # relative to the plan's folder
    res = runner.invoke(main, ["init", str(data), "--out", str(out)])
    assert res.exit_code == 2 and "--force" in res.output
    assert runner.invoke(main, ["init", str(data), "--out", str(out), "--force"]).exit_code == 0


def test_help_has_example():
    res = CliRunner().invoke(main, ["init", "--help"])
    assert res.exit_code == 0 and "synthguard init conf.csv > plan.yaml" in res.output


def test_init_guesses_a_stewards_plan_and_never_an_identifier(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # CE-like: a record number, a coded race, two sensitive amounts; Income outranks Expenditure
    rng = np.random.default_rng(5)
    n = 300
    df = pd.DataFrame({
        "ID": np.arange(1001, 1001 + n),
        "Expenditure": np.round(rng.lognormal(9, 0.8, n), 2),
        "hours": rng.integers(1, 30, n),
        "Race": rng.integers(1, 7, n),
        "UrbanRural": rng.integers(1, 3, n),
        "Income": np.round(rng.lognormal(10, 1, n)),
        "household_size": rng.integers(1, 9, n),
        "fnlwgt": rng.integers(10_000, 900_000, n),
        "pets": rng.integers(0, 4, n),
    })
    df.to_csv(tmp_path / "ce.csv", index=False)
    res = CliRunner().invoke(main, ["init", "ce.csv"])
    assert res.exit_code == 0, res.output
    plan = parse_plan(res.output, base_dir=tmp_path)
    assert plan.targets == ("Income",)
    # demographic/geographic names first (race, urban, household), then other few-level
    # columns in file order (hours before pets) up to 4 keys; listed in file order
    assert plan.keys == ("hours", "Race", "UrbanRural", "household_size")
    assert "ID" not in res.output.split("left out as identifiers")[1].split("\n", 2)[2]
    assert plan.columns is not None and "ID" not in plan.columns
    assert "fnlwgt" not in plan.keys and "ID" not in str(plan.formulas)
    for line in res.output.splitlines():
        if line.lstrip().startswith(("keys:", "targets:", "keep:", "columns:", "formulas:")):
            assert "# guess: check" in line, line
    # the topcoded release codes every numeric non-key column, not only the target: an
    # extreme expenditure must not be released unchanged beside a coded income
    (top,) = [r for r in plan.releases if r.name == "topcoded"]
    coded = [step["topcode"]["column"] for step in top.params["steps"]]
    assert coded == ["Expenditure", "Income", "pets"]  # not keys, ID or the weight fnlwgt


def test_init_target_falls_back_to_the_most_skewed_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(6)
    n = 300
    pd.DataFrame({
        "sex": rng.choice(["f", "m"], n),
        "x": rng.normal(50, 10, n),            # symmetric
        "y": np.round(rng.lognormal(3, 1.2, n), 3),  # right-skewed, like an amount
    }).to_csv(tmp_path / "d.csv", index=False)
    res = CliRunner().invoke(main, ["init", "d.csv"])
    assert res.exit_code == 0, res.output
    plan = parse_plan(res.output, base_dir=tmp_path)
    assert plan.targets == ("y",) and plan.keys == ("sex",)


def test_init_writes_read_options_into_the_plan(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = ["sex ,age,Income"] + [f"{s},{a},{i}" for s, a, i in
                                  zip([" f", "m ", " ?"] * 40, range(20, 140), np.arange(120) * 37 % 101 * 1000.5,
                                      strict=True)]
    (tmp_path / "s.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["init", "s.csv", "--strip", "--na-values", "?"])
    assert res.exit_code == 0, res.output
    plan = parse_plan(res.output, base_dir=tmp_path)
    assert dict(plan.read_options) == {"na_values": ["?"], "strip": True}
    assert "sex" in plan.keys


def test_init_dp_block_uncommented_is_a_valid_dp_release(data, monkeypatch):
    # the commented privacy and dp blocks name every registered DP synthesizer and a delta
    # MST and AIM accept (delta 0 was written before, which both refuse)
    from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS

    monkeypatch.chdir(data.parent)
    text = CliRunner().invoke(main, ["init", "survey.csv"]).output
    assert all(name in text for name in DP_SYNTHESIZERS)
    lines = []
    for line in text.splitlines():
        for head in ("# privacy:", "#   epsilon:", "#   delta:", "  # dp:", "  #   method: dp",
                     "  #   synthesizer:", "  #   epsilon:", "  #   delta:"):
            if line.startswith(head):
                line = line[:2] + line[4:] if line.startswith("  #") else line[2:]
                break
        lines.append(line)
    plan = parse_plan("\n".join(lines), base_dir=data.parent)
    (dp,) = [r for r in plan.releases if r.name == "dp"]
    assert dp.method == "dp" and dp.params["synthesizer"] == "mst"
    assert dp.params["delta"] == 1e-6 and plan.delta == 1e-6 and plan.epsilon == 1.0


def test_init_proposes_integer_codes_as_categorical(tmp_path, monkeypatch):
    """CE's Race (coded 1..6) was proposed as a count (issue 31). Integer codes (few levels,
    none zero, small, no count-like name) are proposed categorical; counts stay counts."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["datasets", "ce", "--out", "conf.csv"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["init", "conf.csv"])
    assert res.exit_code == 0, res.output
    plan = parse_plan(res.output, base_dir=tmp_path)
    assert plan.schema["Race"] == "categorical" and plan.schema["UrbanRural"] == "categorical"
    assert plan.schema["KidsCount"] == "count"  # holds zeros: a count
    assert plan.schema["Income"] == "numeric"
    (race,) = [x for x in res.output.splitlines() if x.strip().startswith("Race:")]
    assert "guess" in race and "6 levels" in race

    rng = np.random.default_rng(8)
    n = 300
    pd.DataFrame({
        "region": rng.integers(1, 5, n),            # codes
        "household_size": rng.integers(1, 9, n),    # a count by its name, no zero
        "pets": rng.integers(0, 4, n),              # a count: zeros
        "year": rng.integers(2007, 2010, n),        # a year, not a code
        "grade": rng.integers(1, 17, n),            # 16 levels: too many for codes
        "y": rng.normal(size=n),
    }).to_csv(tmp_path / "other.csv", index=False)
    res = CliRunner().invoke(main, ["init", "other.csv"])
    assert res.exit_code == 0, res.output
    schema = parse_plan(res.output, base_dir=tmp_path).schema
    assert schema["region"] == "categorical"
    assert {schema[c] for c in ("household_size", "pets", "year", "grade")} == {"count"}


@pytest.mark.parametrize("name", ["penguins", "adult/adult_train.csv", "sd2011/SD2011.csv",
                                  "sdcmicro/testdata.csv"])
def test_init_codes_rule_on_other_datasets(request, name):
    """Penguins' year, Adult's integer columns (education_num has 16 levels) and SD2011 stay
    as the library infers them; sdcMicro's testdata has its household codes made categorical
    and its counts (age) and amounts left alone."""
    from synthguard.data.io import read_table
    from synthguard.data.schema import infer_schema
    from synthguard.pipeline.scaffold import code_like

    if "/" in name:
        df = read_table(request.getfixturevalue("shared_data") / name, na_values=["-8"])
    else:
        from synthguard.data.datasets import load_dataset

        df = load_dataset(name)
    schema = infer_schema(df)
    codes = [c for c in df.columns if code_like(c, df[c], schema)]
    if name.startswith("sdcmicro"):
        assert {"urbrur", "roof", "water", "relat", "sex"} <= set(codes)
        assert "age" not in codes and "expend" not in codes
    else:
        assert codes == []
