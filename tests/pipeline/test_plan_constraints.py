"""Plans: evaluation.constraints, and a synthesis release with constraints, transforms and a
start release (a DP synthesis of the key variables, then CART for the rest)."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from synthguard.errors import PlanError
from synthguard.pipeline.pipeline import run_plan
from synthguard.pipeline.plan import parse_plan
from synthguard.synthesis import check_constraints
from tests.report.conftest import make_conf

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 5
    privacy:
      epsilon: 1.0
    releases:
      keys_dp:
        method: dp
        synthesizer: stratified
        epsilon: 1.0
        m: 2
        columns: [region, sex]
        categories:
          region: [North, South, East, West, ZZSECRETZZ]
          sex: [f, m]
      rest:
        method: synthesis
        m: 2
        start: keys_dp
        visit_sequence: [region, sex, kids, income, spend]
        constraints: ["spend <= income", "sex == 'f' -> kids <= 3"]
        transforms: {income: log}
    evaluation:
      keys: [region, sex]
      targets: [income]
      constraints: ["spend <= income", "sex == 'f' -> kids <= 3"]
    """)


def test_a_plan_starts_from_a_dp_release_and_keeps_its_constraints(tmp_path):
    conf = make_conf(n=300, seed=4)
    conf.loc[(conf["sex"] == "f") & (conf["kids"] > 3), "kids"] = 3
    conf.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(PLAN)
    res = run_plan(tmp_path / "plan.yaml")
    rest, start = res.releases["rest"], res.releases["keys_dp"]
    for d, s in zip(rest.implicates, start.implicates):
        assert list(d[["region", "sex"]].itertuples(index=False)) == list(
            s[["region", "sex"]].itertuples(index=False))
        assert check_constraints(d, ["spend <= income", "sex == 'f' -> kids <= 3"])[
            "violations"].sum() == 0
        assert (d["income"] > 0).all()
    origin = rest.provenance["start"]["origin"]
    assert origin["kind"] == "dp" and origin["release"] == "keys_dp"
    # the HTML report says what the DP start's guarantee covers, under the release's name
    html = res.report_path.read_text(encoding="utf-8")
    sentence = re.search(r'<h4>rest</h4>\s*<p class="dp-start">(.*?)</p>', html, re.S)
    assert sentence is not None
    assert sentence.group(1).startswith("start: region, sex come from a differentially private "
                                        "synthesizer (stratified, epsilon = 1); ")
    assert "the release as a whole is not differentially private" in sentence.group(1)
    manifest = json.loads((res.release_paths["rest"][0].parent / "synthguard_manifest.json")
                          .read_text(encoding="utf-8"))
    assert manifest["details"]["dp error"]["start"] == sentence.group(1)
    ev = res.evaluation
    assert ev["rest"].metrics["constraint_violations"] == 0
    assert "constraint_violations" in {c.threshold.metric for c in ev["rest"].checks}


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("start: keys_dp", "start: nothere", "releases.rest.start: expected the name of a release"),
        ('targets: [income]\n  constraints: ["spend <= income"',
         'targets: [income]\n  constraints: ["spend <<< 1"',
         "evaluation.constraints: constraint 'spend <<< 1' does not parse"),
    ],
)
def test_bad_plan_fields_are_named(tmp_path, old, new, fragment):
    make_conf(n=50, seed=1).to_csv(tmp_path / "conf.csv", index=False)
    assert old in PLAN
    with pytest.raises(PlanError) as e:
        parse_plan(PLAN.replace(old, new), base_dir=tmp_path)
    assert fragment in str(e.value)
