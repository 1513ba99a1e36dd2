"""The metric registry: every registered metric is read from a real evaluation, within its
declared range; readers are strict; a metric registered in a test file shows up in Python,
thresholds, plans, the CLI and the report with no other edit."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.errors import ParameterError
from synthguard.evaluation.households import HOUSEHOLD_METRICS
from synthguard.evaluation.metrics import extract_metric, mean_of, path
from synthguard.evaluation.thresholds import parse_thresholds
from synthguard.pipeline import parse_plan
from synthguard.report import METRICS, Metric, evaluate, register_metric
from synthguard.utility.discriminant import PMSEResult
from tests.report.conftest import make_conf, shuffled

KEYS = ["region", "sex", "kids"]
HOUSEHOLD = {"replicated_households", *HOUSEHOLD_METRICS}


@pytest.fixture(scope="module")
def evaluation():
    conf = make_conf()
    train, hold = conf.iloc[:400], conf.iloc[400:]
    rel = {"shuffled": [shuffled(train, ["income", "spend"], s) for s in (1, 2)]}
    return evaluate(train, rel, keys=KEYS, targets="income", holdout=hold,
                    formulas=["spend ~ income"], kinds={"shuffled": "partial"}, random_state=3)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metric_is_read_and_within_its_declared_range(evaluation, name):
    m = METRICS[name]
    value = evaluation.releases["shuffled"].metrics[name]
    # the attacks run on request (evaluate(attacks=True)); constraints are checked when given;
    # the household measures with household= (tests/report/test_household_evaluation.py)
    if m.section == "attacks" or name == "constraint_violations" or name in HOUSEHOLD:
        assert value is None
        return
    assert value is not None, f"{name}: not read from a partial release with a holdout"
    assert m.lower is None or value >= m.lower - 1e-12
    assert m.upper is None or value <= m.upper + 1e-12
    if m.goal == "target":
        assert m.lower is None or m.lower <= m.target
        assert m.upper is None or m.target <= m.upper


def test_utility_metrics_take_direction_from_their_result_class():
    # pMSE ratio and AUC aim at a value (1, 0.5), as utility/discriminant.py declares
    assert (METRICS["pmse_ratio"].goal, METRICS["pmse_ratio"].target) == ("target", 1.0)
    assert (METRICS["auc"].goal, METRICS["auc"].target) == ("target", 0.5)
    assert PMSEResult.metrics["auc"].target == METRICS["auc"].target
    assert METRICS["ci_overlap"].goal == "max" and METRICS["ci_overlap"].default_bound == "min"
    # a bare threshold on a target metric is an upper limit
    (t,) = parse_thresholds({"pmse_ratio": 3})
    assert (t.bound, t.limit) == ("max", 3.0)


def test_readers_are_strict_about_renames_and_lenient_about_absent_measures():
    m = Metric("x", "x", "utility", "min", 0.0, 1.0, path("pmse.ratio"), "d")
    assert extract_metric(SimpleNamespace(pmse=SimpleNamespace(ratio=0.25)), m) == 0.25
    assert extract_metric(SimpleNamespace(pmse=None), m) is None
    with pytest.raises(AttributeError, match="ratio"):
        extract_metric(SimpleNamespace(pmse=SimpleNamespace(rate=0.25)), m)
    avg = mean_of("ecdf", "u_max")
    bundle = SimpleNamespace(ecdf={"a": SimpleNamespace(u_max=0.1), "b": SimpleNamespace(u_max=0.3)})
    assert avg(bundle) == pytest.approx(0.2)
    assert avg(SimpleNamespace(ecdf={})) is None


def test_metric_declarations_are_checked():
    with pytest.raises(ParameterError, match="function"):
        Metric("x", "x", "utility", "min", 0.0, 1.0, ("pmse.ratio",), "d")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="goal"):
        Metric("x", "x", "utility", "lower", 0.0, 1.0, path("a"), "d")
    with pytest.raises(ParameterError, match="target"):
        Metric("x", "x", "utility", "target", 0.0, 1.0, path("a"), "d")
    with pytest.raises(ParameterError, match="already registered"):
        register_metric(Metric("auc", "AUC", "utility", "min", 0.0, 1.0, path("pmse.auc"), "d"))


@pytest.fixture
def toy():
    """A metric a plug-in would add: the standardized pMSE (ideal 0)."""
    m = register_metric(Metric(
        "toy_pmse_z", "toy pMSE z", "utility", "target", None, None, path("pmse.standardized"),
        "standardized pMSE (a test's metric)", target=0.0,
    ))
    yield m
    del METRICS[m.name]


def test_a_registered_metric_appears_everywhere(toy, tmp_path):
    conf = make_conf(n=150)
    conf.to_csv(tmp_path / "conf.csv", index=False)
    folder = tmp_path / "releases" / "shuffled"
    folder.mkdir(parents=True)
    shuffled(conf, ["income"], 1).to_csv(folder / "shuffled_1.csv", index=False)
    # the CLI (which calls the Python evaluate): a threshold on it, its column in the table,
    # its column and glossary entry in the report
    res = CliRunner().invoke(main, [
        "evaluate", str(tmp_path / "conf.csv"), str(folder), "--keys", "region",
        "--target", "income", "--threshold", "toy_pmse_z=1e9", "--quiet",
        "--kind", "shuffled=partial", "--no-default-thresholds", "--seed", "1",
        "--table", str(tmp_path / "t.csv"), "--report", str(tmp_path / "r.html"),
    ])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(tmp_path / "t.csv").set_index("release")
    assert np.isfinite(table.loc["shuffled", "toy_pmse_z"])
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "toy pMSE z" in html and "≈ 0 is ideal" in html
    # thresholds in Python: a bare number is an upper limit on a target metric
    (t,) = parse_thresholds({"toy_pmse_z": -1e9})
    assert (t.metric, t.bound) == ("toy_pmse_z", "max")
    # a plan's thresholds
    plan = parse_plan(
        "data: {path: conf.csv}\nreleases: {s: {method: synthesis}}\n"
        "evaluation: {keys: [region], targets: [income], thresholds: {toy_pmse_z: 2}}\n",
        base_dir=tmp_path,
    )
    assert plan.thresholds == {"toy_pmse_z": 2}
