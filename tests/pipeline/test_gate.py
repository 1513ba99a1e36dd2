"""The gate: thresholds merged as documented, the choice and the verdict on hand-made tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.evaluation.thresholds import Threshold, ThresholdCheck
from synthguard.pipeline.gate import GATE_THRESHOLDS, decide, failures, gate_thresholds
from synthguard.pipeline.gate_measures import check_measurable, measure_release
from synthguard.risk.release_disclosure import release_disclosure
from synthguard.utility import compare_regression


def _rules(ths):
    return {(t.metric, t.bound): t.limit for t in ths}


def test_gate_thresholds_merge_defaults_gate_and_user():
    got = _rules(gate_thresholds({"disco": 0.3, "pmse_ratio": 2}))
    # the evaluation's defaults (a named rule replacing one: pMSE ratio <= 2 drops both of
    # the default's sides), the gate's rare and tail values, the attacks'
    assert got == {("replicated_uniques", "max"): 0.0, ("disco", "max"): 0.3,
                   ("singling_out_risk", "max"): 0.05,
                   ("singling_out_multivariate_risk", "max"): 0.25,
                   ("pmse_ratio", "max"): 2.0, ("max_identification_risk", "max"): 0.5,
                   ("membership_auc", "max"): 0.75, ("closer_to_data_excess", "max"): 0.75,
                   ("rare_values_released", "max"): 0.0, ("extremes_released", "max"): 0.0}
    assert GATE_THRESHOLDS == {"singling_out_multivariate_risk": 0.25}
    # without the attacks no attack threshold, and naming one is refused
    no_attacks = _rules(gate_thresholds(None, attacks=False))
    assert not any(m.startswith("singling_out") for m, _ in no_attacks)
    assert no_attacks[("pmse_ratio", "max")] == 5 and no_attacks[("pmse_ratio", "min")] == 0.01
    with pytest.raises(ParameterError, match=r"singling_out_risk.*attacks"):
        gate_thresholds({"singling_out_risk": 0.1}, attacks=False)
    assert _rules(gate_thresholds({"ci_overlap": 0.5}, default_thresholds=False)) == {
        ("ci_overlap", "min"): 0.5}
    # a sweep measures a fixed set: a threshold on anything else is refused, not ignored
    with pytest.raises(ParameterError, match="membership_auc"):
        check_measurable(gate_thresholds({"membership_auc": 0.6}, default_thresholds=False))


def test_failures_state_the_excess_by_hand():
    so = Threshold("singling_out_risk", "max", 0.05)
    ci = Threshold("ci_overlap", "min", 0.5)
    text, worst = failures([ThresholdCheck(so, 0.71, False), ThresholdCheck(ci, 0.4, False),
                            ThresholdCheck(Threshold("disco", "max", 0.15), 0.1, True)])
    assert text == ["singling out ≤ 0.05 by 0.66 (0.71)", "CI overlap ≥ 0.5 by 0.1 (0.4)"]
    assert worst == pytest.approx(0.66 / 0.05)  # relative excess, the larger of 13.2 and 0.2
    text, worst = failures([ThresholdCheck(so, None, False)])
    assert text == ["singling out ≤ 0.05 (not computed)"] and worst == 1e3


def _table(rows):
    t = pd.DataFrame(rows).set_index("configuration")
    t["n_failed"] = t["failed"].map(lambda s: 0 if not s else s.count(";") + 1)
    return t


def test_decide_picks_most_useful_passing_ties_to_lower_risk():
    t = _table([
        {"configuration": "a", "pmse_ratio": 0.9, "singling_out_risk": 0.5, "passed": False,
         "failed": "singling out ≤ 0.05 by 0.45 (0.5)", "worst_excess": 9.0},
        {"configuration": "b", "pmse_ratio": 1.4, "singling_out_risk": 0.04, "passed": True,
         "failed": "", "worst_excess": np.nan},
        {"configuration": "c", "pmse_ratio": 1.2, "singling_out_risk": 0.03, "passed": True,
         "failed": "", "worst_excess": np.nan},
        {"configuration": "d", "pmse_ratio": 1.2, "singling_out_risk": 0.01, "passed": True,
         "failed": "", "worst_excess": np.nan},
    ])
    d = decide(t)
    assert d.chosen == "d" and d.passed and d.n_passed == 3 and d.closest is None
    assert d.verdict.startswith("chosen: d (pMSE ratio 1.2, singling out 0.01); the most "
                                "useful of 3 configuration(s) of 4")
    assert d.lines[0] == "a: FAIL: singling out ≤ 0.05 by 0.45 (0.5)" and d.lines[1] == "b: PASS"
    # higher is better for CI overlap: the gate follows the metric's goal
    t["ci_overlap"] = [0.9, 0.8, 0.5, 0.6]
    assert decide(t, utility_metric="ci_overlap").chosen == "b"


def test_decide_when_none_passes_names_the_closest():
    t = _table([
        {"configuration": "two", "pmse_ratio": 1.0, "singling_out_risk": 0.06, "passed": False,
         "failed": "x by 1; y by 1", "worst_excess": 0.2},
        {"configuration": "far", "pmse_ratio": 1.0, "singling_out_risk": 0.5, "passed": False,
         "failed": "singling out ≤ 0.05 by 0.45 (0.5)", "worst_excess": 9.0},
        {"configuration": "near", "pmse_ratio": 1.0, "singling_out_risk": 0.06, "passed": False,
         "failed": "singling out ≤ 0.05 by 0.01 (0.06)", "worst_excess": 0.2},
    ])
    d = decide(t)
    assert d.chosen is None and not d.passed and d.closest == "near"
    assert d.verdict == ("no configuration passes every threshold; the closest, near, failed "
                         "singling out ≤ 0.05 by 0.01 (0.06)")


def test_measure_release_reads_the_measures_it_names():
    rng = np.random.default_rng(1)
    n = 240
    conf = pd.DataFrame({"g": rng.choice(["a", "b"], n), "k": rng.integers(0, 3, n),
                         "y": np.round(rng.normal(50, 10, n), 1)})
    # the release is the data itself: every record unique on all columns comes back
    ths = gate_thresholds({"ci_overlap": 0.9}, attacks=False)
    metrics, checks, errors = measure_release(
        conf, conf.copy(), keys=["g", "k"], targets=["y"], holdout=None, thresholds=ths,
        formulas=["y ~ k"], attacks=False, random_state=0)
    ref = release_disclosure(conf, [conf], ["g", "k"], ["y"])
    assert metrics["replicated_uniques"] == pytest.approx(ref.replicated_uniques)
    assert metrics["replicated_uniques"] > 0.5
    assert metrics["disco"] == pytest.approx(ref.disco)
    # the combining rule of full synthesis widens the interval: the same as computed directly
    assert metrics["ci_overlap"] == pytest.approx(
        compare_regression("y ~ k", conf, [conf], method="full").mean_overlap)
    assert metrics["singling_out_risk"] is None and not errors
    by_metric = {c.threshold.metric: c.passed for c in checks}
    assert by_metric["replicated_uniques"] is False
    assert by_metric["ci_overlap"] is (metrics["ci_overlap"] >= 0.9)
