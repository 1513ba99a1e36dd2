"""Households in plans (issue 33): a synthesis release's ``household:`` and the evaluation's
``household`` / ``household_roles``, run on a household file, and the plan's errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest

from synthguard.errors import PlanError
from synthguard.pipeline.pipeline import run_plan
from synthguard.pipeline.plan import parse_plan
from tests.synthesis.test_households import simulate

HEAD = """\
data:
  path: persons.csv
seed: 1
output: out
releases:
  households:
    method: synthesis
    household: hid
    constraints: ["count(relat == 1) == 1", "relat == 2 -> age >= 16"]
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    simulate(150, seed=4).to_csv(tmp_path / "persons.csv", index=False)
    return tmp_path


def _plan(folder: Path, evaluation: str, head: str = HEAD) -> Path:
    path = folder / "plan.yaml"
    path.write_text(head + textwrap.dedent(evaluation), encoding="utf-8")
    return path


def test_a_household_plan_releases_households_and_measures_them(folder: Path) -> None:
    path = _plan(folder, """\
        evaluation:
          keys: [region, age]
          targets: [sex]
          household_roles: {relationship: relat, age: age, sex: sex, income: income}
        """)
    res = run_plan(path)
    assert res.plan.household == "hid"  # defaulted from the release
    data = pd.read_csv(folder / "persons.csv")
    files = res.release_paths["households"]
    rel = pd.read_csv(next(p for p in files if p.suffix == ".csv"))
    g = rel.groupby("hid")
    assert (g[["region", "rent", "hsize"]].nunique() == 1).all().all()
    assert (g.size() == g["hsize"].first()).all()
    assert set(rel["hid"]) == set(range(1, rel["hid"].nunique() + 1))  # new ids
    assert (g["relat"].apply(lambda s: int((s == 1).sum())) == 1).all()
    row = res.evaluation.to_frame().loc["households"]
    assert row["replicated_households"] == 0
    # the evaluation's household size TV is the one computed here from the two files
    sizes = pd.concat({"d": data.groupby("hid").size().value_counts(normalize=True),
                       "r": g.size().value_counts(normalize=True)}, axis=1).fillna(0)
    assert row["household_size_tv"] == pytest.approx(0.5 * (sizes["d"] - sizes["r"]).abs().sum())
    for name in ("partner_age_corr_diff", "poverty_rate_diff", "household_composition_tv"):
        assert pd.notna(row[name]), name
    assert "hid" not in res.evaluation.to_frame().columns  # the id is not a variable
    html = res.report_path.read_text(encoding="utf-8")
    assert 'id="households"' in html


@pytest.mark.parametrize("evaluation, path, message", [
    ("  household: other\n", "evaluation.household", "differs from the releases"),
    ("  household: hid\n  household_roles: {relation: relat}\n",
     "evaluation.household_roles.relation", "unknown role"),
    ("  household: hid\n  household_roles: [relat]\n", "evaluation.household_roles",
     "expected a mapping"),
    ("  household: 3\n", "evaluation.household", "household-id column"),
    ("  household_roles: {age: age}\n", "evaluation.household_roles",
     "need the household id"),
])
def test_plan_errors_name_the_household_field(folder: Path, evaluation: str, path: str,
                                              message: str) -> None:
    head = HEAD if "differs" in message else HEAD.replace("    household: hid\n", "")
    text = head + "evaluation:\n  keys: [region, age]\n  targets: [sex]\n" + evaluation
    with pytest.raises(PlanError, match=message) as err:
        parse_plan(text, base_dir=folder)
    assert path in str(err.value)


def test_a_household_plan_sets_no_holdout(folder: Path) -> None:
    text = HEAD + "holdout: 0.2\nevaluation:\n  keys: [region, age]\n  targets: [sex]\n"
    with pytest.raises(PlanError, match=r"holdout.*members of one household on both sides"):
        parse_plan(text, base_dir=folder)


def test_a_household_id_or_role_column_not_in_the_data(folder: Path) -> None:
    path = _plan(folder, """\
        evaluation:
          keys: [region, age]
          targets: [sex]
          household_roles: {age: years}
        """)
    with pytest.raises(PlanError, match=r"evaluation.household_roles.age: columns years"):
        run_plan(path)
