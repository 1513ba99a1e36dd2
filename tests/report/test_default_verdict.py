"""Issue 31: a verdict on both sides by default; a pass names what it did not judge; a pMSE
ratio far from 1 is said in words; the report's stumbles (empty panels, wrong legend, doubled
names)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from synthguard.evaluation.metrics import utility_loss
from synthguard.evaluation.thresholds import DEFAULT_THRESHOLDS, Threshold, pmse_ratio_words
from synthguard.pipeline.gate import decide
from synthguard.report import evaluate
from synthguard.report.figures import dcr_ecdf, metric_bars
from synthguard.report.frontier_section import axis_reading, frontier_figure
from synthguard.report.narrative import release_story

from .conftest import make_conf

KEYS = ["region", "sex"]


def _permuted(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: df[c].to_numpy()[rng.permutation(len(df))] for c in df.columns})


@pytest.fixture(scope="module")
def parts() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Training records, a holdout, and a fresh sample of the same population."""
    whole = make_conf(n=1500, seed=5)
    return (whole.iloc[:900].reset_index(drop=True), whole.iloc[900:1200].reset_index(drop=True),
            whole.iloc[1200:].reset_index(drop=True))


def test_defaults_judge_usefulness_on_both_sides(parts):
    train, holdout, fresh = parts
    broken = fresh.copy()
    broken["income"] = broken["income"] * 20  # every income off by a factor of 20
    ev = evaluate(train, {"fresh": fresh, "permuted": _permuted(train, 1), "broken": broken,
                          "copy": train.copy()},
                  keys=KEYS, targets="income", holdout=holdout, random_state=1)
    checks = {n: {(c.threshold.metric, c.threshold.bound): c for c in r.checks}
              for n, r in ev.releases.items()}
    # every default is judged: usefulness (both sides), membership and DCR with the holdout
    assert {m for m, _ in checks["fresh"]} == set(DEFAULT_THRESHOLDS)
    # a fresh sample of the population: pMSE ratio near 1, membership near guessing: passes
    assert 0.3 < ev["fresh"].metrics["pmse_ratio"] < 3
    assert ev["fresh"].passed
    # every column permuted: the data's own marginals exactly, so the ratio is about 0
    assert checks["permuted"][("pmse_ratio", "min")].passed is False
    # incomes 20 times too large: a classifier tells it apart at once
    assert checks["broken"][("pmse_ratio", "max")].passed is False
    assert ev["broken"].metrics["pmse_ratio"] > DEFAULT_THRESHOLDS["pmse_ratio"]["max"]
    # the copy: membership AUC 1 and every record closer to the training data
    assert checks["copy"][("membership_auc", "max")].passed is False
    assert checks["copy"][("closer_to_data_excess", "max")].passed is False
    assert ev["copy"].metrics["membership_auc"] == pytest.approx(1.0)
    # a named threshold replaces the default, both sides; the switch drops them all
    named = evaluate(train, {"permuted": _permuted(train, 1)}, keys=KEYS, targets="income",
                     thresholds={"pmse_ratio": 10}, random_state=1)
    assert [c.threshold.bound for c in named["permuted"].checks
            if c.threshold.metric == "pmse_ratio"] == ["max"]
    off = evaluate(train, {"fresh": fresh}, keys=KEYS, targets="income",
                   default_thresholds=False, random_state=1)
    assert off["fresh"].checks == ()


def test_a_pass_names_what_it_did_not_judge(parts):
    train, _, fresh = parts
    ev = evaluate(train, {"fresh": fresh}, keys=KEYS, targets="income", random_state=1)
    r = ev["fresh"]
    assert r.passed
    assert any(t.startswith("membership AUC ≤ 0.75 (no holdout given)") for t in r.not_judged)
    assert any(t.startswith("max IR ≤ 0.5 (not defined") and "fully synthetic" in t
               for t in r.not_judged)
    assert "not judged: " in r.verdict and "(no holdout given)" in r.verdict
    assert "(no holdout given)" in ev.summary()
    story = release_story(r).text
    assert "Not judged: " in story and "no holdout given" in story
    # a protected release: the rows are the records, so membership is no secret it keeps
    prot = evaluate(train, {"masked": train.copy()}, keys=KEYS, targets="income",
                    holdout=parts[1], kinds={"masked": "protected"}, random_state=1)
    na = {c.threshold.metric: c.why for c in prot["masked"].checks if c.passed is None}
    assert "rows are the confidential records" in na["membership_auc"]
    assert "fully synthetic" in na["pmse_ratio"]  # the lower side only


def test_pmse_ratio_far_from_one_is_said_in_words(parts):
    train, _, fresh = parts
    assert pmse_ratio_words(1.2) is None and pmse_ratio_words(None) is None
    assert "closer to the data than a fresh sample" in pmse_ratio_words(0.04)
    assert "far above 1" in pmse_ratio_words(21.0)
    broken = fresh.copy()
    broken["income"] = broken["income"] * 20
    ev = evaluate(train, {"permuted": _permuted(train, 1), "broken": broken}, keys=KEYS,
                  targets="income", random_state=1)
    text = ev.summary()
    assert "permuted: pMSE ratio" in text and "closer to the data than a fresh sample" in text
    assert "broken: pMSE ratio" in text and "far above 1" in text
    assert "far above 1" in release_story(ev["broken"]).text


def test_the_gate_prefers_the_ratio_closest_to_one():
    # on main the gate took the lowest ratio (0.04) as the most useful
    table = pd.DataFrame({"pmse_ratio": [0.04, 1.3, 5.0], "singling_out_risk": [0.0, 0.0, 0.0],
                          "passed": [True, True, True], "n_failed": [0, 0, 0],
                          "failed": ["", "", ""], "worst_excess": [np.nan] * 3},
                         index=["a", "b", "c"])
    assert decide(table).chosen == "b"
    # |log ratio|: 0.25 and 4 are equally far from 1
    loss = utility_loss("pmse_ratio", [0.25, 4.0, 1.0, np.nan])
    assert loss[0] == pytest.approx(loss[1]) and loss[2] == 0 and np.isnan(loss[3])


def test_the_frontier_does_not_call_a_low_ratio_better():
    assert "lower is better" not in axis_reading("pmse_ratio")
    assert "≈ 1 is ideal" in axis_reading("pmse_ratio")
    table = pd.DataFrame({"pmse_ratio": [0.04, 1.3], "singling_out_risk": [0.01, 0.02],
                          "passed": [True, True], "pareto": [True, True]}, index=["a", "b"])
    res = SimpleNamespace(table=table, risk_metric="singling_out_risk",
                          utility_metric="pmse_ratio", chosen="b",
                          thresholds=(Threshold("pmse_ratio", "max", 10.0),))
    xlabel = frontier_figure(res).axes[0].get_xlabel()
    assert "lower is better" not in xlabel and "≈ 1 is ideal" in xlabel


def test_report_figures_say_when_there_is_nothing_to_plot():
    fig = metric_bars({"a": {"exact_copies": 0.0}, "b": {"exact_copies": 0.0}},
                      {"exact_copies": "exact copies"}, {"a": "red", "b": "blue"})
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("0 for every release" in t for t in texts)
    rng = np.random.default_rng(0)
    no_hold = dcr_ecdf({"a": (rng.random(50), None)}, {"a": "red"})
    assert no_hold.axes[0].get_legend().get_title().get_text() != "dashed: holdout"
    with_hold = dcr_ecdf({"a": (rng.random(50), rng.random(50))}, {"a": "red"})
    assert with_hold.axes[0].get_legend().get_title().get_text() == "dashed: holdout"


def test_identification_risk_is_named_once(conf):
    # a categorical target: eq. (1) does not apply; the reason must not repeat the name
    ev = evaluate(conf, {"partial": conf.copy()}, keys=["region", "kids"], targets="sex",
                  kinds={"partial": "partial"}, random_state=1, default_thresholds=False)
    why = ev["partial"].errors["identification risk"]
    assert not why.startswith("identification risk")
    assert "identification risk: identification risk" not in ev.summary()
