"""Plan parsing: valid plans map onto Python parameters; errors point at the line and field."""

from __future__ import annotations

import textwrap

import pytest

from synthguard.errors import PlanError
from synthguard.pipeline.plan import Plan, load_plan, parse_plan

GOOD = textwrap.dedent("""\
    data:
      dataset: ce
      schema:
        Race: categorical
    seed: 7
    holdout: 0.1
    releases:
      syn:
        method: synthesis
        m: 2
        keep: [UrbanRural, Race, KidsCount]
      top:
        method: sdc
        steps:
          - topcode: {column: Income, percentile: 94}
    evaluation:
      keys: UrbanRural, Race
      targets: [Income]
      radius: 0.15
      formulas: ["Expenditure ~ Income"]
      thresholds: {max_identification_risk: 0.5, ci_overlap: {min: 0.3}}
    report:
      min_cell: 5
    """)


def _error(text: str) -> str:
    with pytest.raises(PlanError) as info:
        parse_plan(text, source="plan.yaml")
    return str(info.value)


def test_good_plan_maps_onto_parameters(tmp_path):
    plan = parse_plan(GOOD, source="plan.yaml", base_dir=tmp_path)
    assert plan.dataset == "ce" and plan.seed == 7 and plan.holdout == 0.1
    assert [(r.name, r.method) for r in plan.releases] == [("syn", "synthesis"), ("top", "sdc")]
    assert plan.releases[0].params == {"m": 2, "keep": ["UrbanRural", "Race", "KidsCount"]}
    assert plan.releases[0].line == 8 and plan.releases[1].line == 12
    assert plan.keys == ("UrbanRural", "Race") and plan.targets == ("Income",)
    assert plan.radius == 0.15 and plan.min_cell == 5
    assert plan.thresholds == {"max_identification_risk": 0.5, "ci_overlap": {"min": 0.3}}
    assert plan.output == tmp_path / "synthguard_output"
    assert plan.where("evaluation.keys") == "plan.yaml, line 17, evaluation.keys"


def test_from_dict_round_trips():
    d = {"data": {"dataset": "ce"}, "releases": {"s": {"method": "synthesis", "m": 1}},
         "evaluation": {"keys": ["Race"], "targets": ["Income"]}}
    plan = Plan.from_dict(d)
    assert plan.releases[0].params == {"m": 1} and plan.targets == ("Income",)


@pytest.mark.parametrize(
    ("old", "new", "line", "field", "what"),
    [
        ("    m: 2\n", "    m: two\n", 10, "releases.syn.m", "positive integer"),
        ("    m: 2\n", "    mm: 2\n", 10, "releases.syn.mm", "unknown parameter of Synthesizer"),
        ("  radius: 0.15\n", "  radius: -1\n", 19, "evaluation.radius", "number >= 0"),
        ("      - topcode: {column: Income, percentile: 94}\n",
         "      - topcod: {column: Income}\n", 15, "releases.top.steps[0].topcod",
         "unknown SDC function"),
        ("      - topcode: {column: Income, percentile: 94}\n",
         "      - topcode: {column: Income, pct: 94}\n", 15,
         "releases.top.steps[0].topcode.pct", "unknown parameter of sdc.topcode"),
        ("    method: sdc\n", "    method: magic\n", 13, "releases.top.method", "expected one of"),
        ("holdout: 0.1\n", "holdout: 1.5\n", 6, "holdout", "[0, 1)"),
        ("  thresholds: {max_identification_risk: 0.5, ci_overlap: {min: 0.3}}\n",
         "  thresholds: {max_risk: 0.5}\n", 21, "evaluation.thresholds.max_risk",
         "unknown metric"),
        ("  dataset: ce\n", "  dataset: nope\n", 2, "data.dataset", "unknown bundled data set"),
        ("report:\n", "reprot:\n", 22, "reprot", "unknown field; did you mean 'report'?"),
        # the command line's --drop is data.columns in a plan (issue 31): say what to write
        ("  dataset: ce\n", "  dataset: ce\n  drop: [Race]\n", 3, "data.drop",
         "unknown field; a plan lists the columns it releases instead: write data.columns:"),
        ("  dataset: ce\n", "  dataset: ce\n  na_values: ['?']\n", 3, "data.na_values",
         "under data.read_options"),
    ],
)
def test_errors_point_at_line_and_field(old, new, line, field, what):
    assert old in GOOD
    msg = _error(GOOD.replace(old, new))
    assert f"plan.yaml, line {line}, {field}:" in msg
    assert what in msg


def test_all_problems_reported_at_once():
    text = GOOD.replace("    m: 2\n", "    m: 0\n").replace("  radius: 0.15\n", "  radius: x\n")
    msg = _error(text)
    assert "line 10, releases.syn.m" in msg and "line 19, evaluation.radius" in msg
    assert msg.index("line 10") < msg.index("line 19")  # in file order


def test_yaml_syntax_error_has_line():
    msg = _error("data:\n  dataset: ce\nreleases: [unclosed\n")
    assert msg.startswith("plan.yaml, line ")


def test_duplicate_release_name():
    text = GOOD.replace("  top:\n", "  syn:\n")
    assert "line 12, releases.syn: appears twice" in _error(text)


def test_missing_sections():
    msg = _error("seed: 1\n")
    assert "data: missing" in msg and "releases: expected a mapping" in msg
    assert "evaluation.targets" in msg


def test_dp_needs_budget_and_fits_it():
    text = GOOD.replace("  top:\n", "  dp:\n    method: dp\n    synthesizer: stratified\n"
                                     "    epsilon: 2.0\n  top:\n")
    assert "privacy: a dp release needs privacy.epsilon" in _error(text)
    over = "privacy:\n  epsilon: 1.0\n" + text
    assert "more than the budget" in _error(over)
    mst = text.replace("synthesizer: stratified", "synthesizer: mst\n    delta: 1.0e-6")
    msg = _error("privacy:\n  epsilon: 3.0\n" + mst)
    assert "line 1, privacy.delta: the dp releases ask for delta 1e-06 in total" in msg
    ok = parse_plan("privacy:\n  epsilon: 3.0\n  delta: 1.0e-5\n" + mst)
    assert [r.method for r in ok.releases] == ["synthesis", "dp", "sdc"]


def test_reserved_parameters_refused():
    msg = _error(GOOD.replace("    m: 2\n", "    m: 2\n    random_state: 3\n"))
    assert "releases.syn.random_state: set by the pipeline" in msg


def test_load_plan_missing_file(tmp_path):
    with pytest.raises(PlanError, match="does not exist"):
        load_plan(tmp_path / "nope.yaml")


def test_data_path_relative_to_plan(tmp_path):
    (tmp_path / "conf.csv").write_text("a,b\n1,2\n")
    p = tmp_path / "plan.yaml"
    p.write_text(GOOD.replace("  dataset: ce\n", "  path: conf.csv\n"))
    assert load_plan(p).data_path == tmp_path / "conf.csv"
    p.write_text(GOOD.replace("  dataset: ce\n", "  path: other.csv\n"))
    with pytest.raises(PlanError, match=r"plan.yaml, line 2, data.path: file .* does not exist"):
        load_plan(p)


def test_example_plan_validates():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "plan.yaml"
    plan = load_plan(path)
    assert [r.method for r in plan.releases] == ["synthesis", "sdc", "risk_weighted", "dp"]
    assert plan.output == path.parent / "ce_output"
    assert plan.epsilon == 1.0 and plan.delta == 1e-6


def test_attacks_switch_parses_and_is_checked(tmp_path):
    assert parse_plan(GOOD, source="plan.yaml", base_dir=tmp_path).attacks is False
    text = GOOD.replace("  radius: 0.15\n", "  radius: 0.15\n  attacks: true\n")
    assert parse_plan(text, source="plan.yaml", base_dir=tmp_path).attacks is True
    bad = GOOD.replace("  radius: 0.15\n", "  radius: 0.15\n  attacks: sometimes\n")
    assert "evaluation.attacks" in _error(bad)
