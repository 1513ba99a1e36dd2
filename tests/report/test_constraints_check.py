"""Constraints in evaluate and the report: a release breaking one fails a default of zero."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.report import evaluate
from synthguard.report.html import build_report

RULES = ["rel == 'husband' -> sex == 'm'", "income >= 0"]


@pytest.fixture
def data() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(2)
    n = 300
    rel = rng.choice(["husband", "wife", "child"], size=n)
    conf = pd.DataFrame({
        "rel": rel,
        "sex": np.where(rel == "husband", "m", "f"),
        "age": rng.integers(18, 80, n),
        "income": rng.lognormal(8, 1, n),
    })
    good = conf.sample(frac=1, random_state=1).reset_index(drop=True)
    good["income"] = good["income"] * rng.uniform(0.8, 1.2, n)
    bad = good.copy()
    bad.loc[:4, ["rel", "sex"]] = ["husband", "f"]  # five female husbands
    bad.loc[10:11, "income"] = -1.0
    return conf, good, bad


def test_a_release_breaking_a_constraint_fails_by_default(data) -> None:
    conf, good, bad = data
    ev = evaluate(conf, {"good": good, "bad": [good, bad]}, keys=["rel", "age"],
                  targets="income", constraints=RULES, random_state=1)
    assert ev["good"].metrics["constraint_violations"] == 0
    # worst implicate: 5 + 2 broken (record, rule) pairs
    assert ev["bad"].metrics["constraint_violations"] == 7
    checks = {c.threshold.metric: c.passed for c in ev["bad"].checks}
    assert checks["constraint_violations"] is False
    assert {c.threshold.metric: c.passed for c in ev["good"].checks}[
        "constraint_violations"] is True
    t = ev.constraints.releases["bad"]
    assert t[2].tolist() == [5, 2] and t[1].tolist() == [0, 0]
    assert ev.constraints.data["violations"].tolist() == [0, 0]
    html = build_report(ev)
    assert 'id="constraints-table"' in html and "rel == &#39;husband&#39; -&gt;" in html


def test_a_named_threshold_replaces_the_default_and_no_constraints_no_check(data) -> None:
    conf, _, bad = data
    ev = evaluate(conf, {"bad": bad}, keys=["rel"], targets="income", constraints=RULES,
                  thresholds={"constraint_violations": 10}, random_state=1)
    assert {c.threshold.metric: c.passed for c in ev["bad"].checks}[
        "constraint_violations"] is True
    ev = evaluate(conf, {"bad": bad, "part": bad[["rel", "age", "income"]]}, keys=["rel"],
                  targets="income", constraints=["sex == 'm' -> age > 0"], random_state=1)
    # a release lacking every column of the constraints: not applicable, not a failure
    assert {c.threshold.metric: c.passed for c in ev["part"].checks}[
        "constraint_violations"] is None
    ev = evaluate(conf, {"bad": bad}, keys=["rel"], targets="income", random_state=1)
    assert "constraint_violations" not in {c.threshold.metric for c in ev["bad"].checks}
    assert ev["bad"].metrics["constraint_violations"] is None


def test_bad_constraints_are_refused_before_any_work(data) -> None:
    conf, good, _ = data
    with pytest.raises(ParameterError, match="not in the data: salary"):
        evaluate(conf, {"good": good}, keys=["rel"], targets="income",
                 constraints=["salary >= 0"])
