"""synthguard.evaluate: the comparison table reads what the utility and risk functions return."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import synthguard
from synthguard.errors import DataError, ParameterError
from synthguard.evaluation.metrics import METRICS
from synthguard.evaluation.thresholds import DEFAULT_THRESHOLDS
from synthguard.report import evaluate
from synthguard.report.narrative import release_story

KEYS = ["region", "sex", "kids"]


def _ev(conf, releases, **kw):
    kw.setdefault("random_state", 5)
    return evaluate(conf, releases, keys=KEYS, targets="income",
                    kinds={"shuffled": "partial", "topcoded": "protected"}, **kw)


def test_top_level_name_is_the_report_function():
    assert synthguard.evaluate is evaluate


def test_table_equals_underlying_function_outputs(conf, releases):
    from synthguard.risk import evaluate_risk, identification_risk
    from synthguard.utility import evaluate_utility

    ev = _ev(conf, releases, formulas=["spend ~ income"])
    table = ev.to_frame()
    assert list(table.index) == ["shuffled", "topcoded"]
    for name in ("shuffled", "topcoded"):
        # logistic pMSE has an analytic null and correlations are deterministic: recompute them
        # a protected file is analysed as the data (rule 'none'), a synthetic one by its rule
        rule = "none" if name == "topcoded" else "partial"
        ref = evaluate_utility(conf, releases[name], formulas=["spend ~ income"], random_state=1,
                               method=rule)
        assert table.loc[name, "pmse_ratio"] == pytest.approx(ref.pmse.ratio, rel=1e-12)
        assert table.loc[name, "auc"] == pytest.approx(ref.pmse.auc, rel=1e-12)
        assert table.loc[name, "correlation_mae"] == pytest.approx(ref.correlation.mae, rel=1e-12)
        assert table.loc[name, "ecdf_umax"] == pytest.approx(
            np.mean([e.u_max for e in ref.ecdf.values()]), rel=1e-12)
        assert table.loc[name, "ci_overlap"] == pytest.approx(
            ref.regressions["spend ~ income"].mean_overlap, rel=1e-12)
        with pytest.warns(synthguard.errors.DisclosureWarning):
            ir = identification_risk(conf, releases[name], keys=KEYS, targets="income", radius=0.2)
        assert table.loc[name, "mean_identification_risk"] == pytest.approx(ir.mean, rel=1e-12)
        assert table.loc[name, "max_identification_risk"] == pytest.approx(ir.max, rel=1e-12)
        risk = evaluate_risk(conf, releases[name], KEYS, "income", radius=0.2, random_state=1)
        assert table.loc[name, "true_match_rate"] == pytest.approx(risk.match.true_match_rate)
        assert table.loc[name, "expected_match_risk"] == pytest.approx(
            risk.match.expected_match_risk)
        assert table.loc[name, "exact_copies"] == pytest.approx(risk.distance.exact_copy_share)
        np.testing.assert_allclose(ev[name].record_risk, ir.per_record, rtol=0, atol=1e-15)


def test_data_risk_is_confidential_ir(conf, releases):
    from synthguard.risk import identification_risk

    ev = _ev(conf, releases)
    with pytest.warns(synthguard.errors.DisclosureWarning):
        ref = identification_risk(conf, None, keys=KEYS, targets="income", radius=0.2)
    np.testing.assert_allclose(ev.data_risk, ref.per_record, atol=1e-15)
    # and it is the confidential risk evaluate_risk reports for every aligned release
    for r in ev:
        np.testing.assert_allclose(r.risk.confidential_identification.per_record, ev.data_risk,
                                   atol=1e-15)


def test_thresholds_pass_and_fail(conf, releases):
    ev = _ev(conf, releases, thresholds={"max_identification_risk": 0.5, "pmse_ratio": 1e9})
    top = ev["topcoded"]
    # top-coding leaves most incomes as they are: some record is certainly identified
    assert top.metrics["max_identification_risk"] > 0.5
    assert not top.passed and ev.failed == [n for n in ev.names if not ev[n].passed]
    fails = [c.threshold.metric for c in top.failures]
    assert fails == ["max_identification_risk"]
    assert "FAIL" in top.verdict()
    assert ev.passed is False
    loose = _ev(conf, releases, thresholds={"max_identification_risk": 1.0})
    assert loose.passed and loose.to_frame()["passed"].tolist() == [True, True]


def test_threshold_directions(conf, releases):
    ev = _ev(conf, releases, thresholds={"ci_overlap": 2.0, "auc": {"max": 0.0}},
             formulas=["spend ~ income"])
    for r in ev:
        by = {c.threshold.metric: c for c in r.checks}
        assert by["ci_overlap"].threshold.bound == "min" and by["ci_overlap"].passed is False
        assert by["auc"].threshold.bound == "max" and by["auc"].passed is False


def test_full_release_records_failures_not_fatal(conf, releases):
    rng = np.random.default_rng(9)
    full = conf.sample(n=300, random_state=1).reset_index(drop=True)
    full["income"] = full["income"].to_numpy()[rng.permutation(300)]
    ev = evaluate(conf, {"full": full, **releases}, keys=KEYS, targets="income",
                  thresholds={"max_identification_risk": 0.5}, random_state=1,
                  kinds={"shuffled": "partial", "topcoded": "protected"},
                  default_thresholds=False)
    f = ev["full"]
    assert f.kind == "full" and f.record_risk is None
    assert "identification risk" in f.errors
    assert f.metrics["max_identification_risk"] is None
    assert f.metrics["pmse_ratio"] is not None  # the other measures still ran
    (check,) = f.checks
    assert check.passed is None and f.passed  # not applicable does not fail
    assert ev["shuffled"].record_risk is not None


def test_bad_inputs_are_named(conf, releases):
    with pytest.raises(ParameterError, match="not in the data: nope"):
        evaluate(conf, releases, keys=["nope"], targets="income")
    with pytest.raises(ParameterError, match="both keys and targets"):
        evaluate(conf, releases, keys=["income"], targets="income")
    with pytest.raises(ParameterError, match="threshold 'bogus'"):
        evaluate(conf, releases, keys=KEYS, targets="income", thresholds={"bogus": 1})
    with pytest.raises(DataError, match="shares no column"):
        evaluate(conf, {"x": pd.DataFrame({"other": [1, 2]})}, keys=KEYS, targets="income")
    with pytest.raises(ParameterError, match="radius"):
        evaluate(conf, releases, keys=KEYS, targets="income", radius=-1)


def test_progress_and_summary(conf, releases):
    seen = []
    ev = _ev(conf, releases, progress=lambda s, d, t: seen.append((d, t)))
    assert seen[-1] == (3, 3) and [d for d, _ in seen] == [1, 2, 3]
    text = ev.summary()
    assert "shuffled" in text and "500 confidential records" in text
    assert isinstance(ev.to_frame(), pd.DataFrame)
    assert set(METRICS) <= set(ev.to_frame().columns)


def test_same_seed_same_table(conf, releases):
    a = _ev(conf, releases, random_state=11).to_frame()
    b = _ev(conf, releases, random_state=11).to_frame()
    pd.testing.assert_frame_equal(a, b)


def test_large_releases_sample_only_the_distance_measures(conf, releases):
    from synthguard.risk import evaluate_risk

    holdout = conf.sample(n=150, random_state=3).reset_index(drop=True)
    ev = _ev(conf, releases, holdout=holdout, max_distance_records=300)
    for name in ("shuffled", "topcoded"):
        full = evaluate_risk(conf, releases[name], KEYS, "income", holdout=holdout, radius=0.2,
                             random_state=1)
        got = ev[name].risk
        # exact measures are identical
        np.testing.assert_array_equal(got.identification.per_record,
                                      full.identification.per_record)
        assert got.match.true_match_rate == full.match.true_match_rate
        pd.testing.assert_frame_equal(got.attribute.table, full.attribute.table)
        # the DCR comes from 300 sampled released records: the exact-copy share is within
        # 4 standard errors of the full value
        assert len(got.distance.dcr) == 300
        p = full.distance.exact_copy_share
        se = max(np.sqrt(p * (1 - p) / 300), 1e-9)
        assert abs(got.distance.exact_copy_share - p) <= 4 * se + 1e-12
        assert any("random sample of 300" in n for n in ev[name].notes)
        assert got.membership is not None


def test_max_distance_records_is_checked(conf, releases):
    with pytest.raises(ParameterError, match="max_distance_records"):
        _ev(conf, releases, max_distance_records=5)


def test_full_release_of_same_length_gets_no_record_level_risk(conf):
    # a fully synthetic release with as many rows as the data: rows are not records
    rng = np.random.default_rng(4)
    full = conf.sample(frac=1.0, random_state=2).reset_index(drop=True)
    full["income"] = full["income"].to_numpy()[rng.permutation(len(full))]
    ev = evaluate(conf, {"full": full}, keys=KEYS, targets="income", random_state=1)
    r = ev["full"]
    assert r.kind == "full" and r.record_risk is None
    assert r.metrics["mean_identification_risk"] is None
    assert r.metrics["true_match_rate"] is None
    assert r.risk.identification is None and r.risk.match is None
    assert r.risk.distance is not None  # the measures for full synthesis remain


def test_a_measure_that_failed_fails_its_threshold(conf, releases):
    # identification risk applies to the top-coded release but cannot be computed when the
    # target has missing values: the threshold fails instead of passing unmeasured
    holey = conf.copy()
    holey.loc[7, "income"] = np.nan
    top = holey.copy()
    top["income"] = top["income"].clip(upper=100000.0)
    ev = evaluate(holey, {"topcoded": top}, keys=KEYS, targets="income",
                  thresholds={"max_identification_risk": 1.0, "membership_auc": 0.9},
                  kinds={"topcoded": "protected"}, random_state=1)
    r = ev["topcoded"]
    assert r.metrics["max_identification_risk"] is None and "identification risk" in r.errors
    by = {c.threshold.metric: c for c in r.checks}
    assert by["max_identification_risk"].passed is False
    assert "could not be computed" in by["max_identification_risk"].describe()
    assert by["membership_auc"].passed is None  # no holdout: membership does not apply
    assert not r.passed and ev.failed == ["topcoded"]


def test_release_lacking_the_target_is_measured_on_the_rest(conf, releases):
    part = conf.drop(columns="income")
    ev = evaluate(conf, {"no_income": part, **releases}, keys=KEYS, targets="income",
                  thresholds={"max_identification_risk": 1.0}, random_state=1,
                  kinds={"no_income": "protected", "shuffled": "partial",
                         "topcoded": "protected"})
    r = ev["no_income"]
    assert "income" in r.errors["risk"] and "income" in r.errors["columns"]
    assert r.risk is None and r.record_risk is None
    assert r.metrics["pmse_ratio"] is not None  # utility on the columns it has
    assert not r.passed  # the risk threshold could not be checked
    assert ev["shuffled"].passed


def test_default_thresholds_judge_replicated_uniques_and_disco(conf):
    # a release that copies the data holds every confidential unique: the defaults fail it
    # with no threshold given; a named threshold replaces the default for its metric; the
    # defaults can be switched off; replicated uniques do not judge a protected release
    copy = conf.copy()
    ev = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1)
    checks = {c.threshold.metric: c for c in ev["copy"].checks}
    assert set(checks) == set(DEFAULT_THRESHOLDS)
    assert checks["replicated_uniques"].passed is False
    assert checks["replicated_uniques"].value > 0
    assert ev.failed == ["copy"]
    relaxed = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1,
                       thresholds={"replicated_uniques": 1.0, "disco": 1.0})
    limits = {c.threshold.metric: c.threshold.limit for c in relaxed["copy"].checks}
    assert limits["replicated_uniques"] == 1.0 and limits["disco"] == 1.0
    # the copy still fails the pMSE ratio's lower limit: its marginals are the data's own
    assert [c.threshold.metric for c in relaxed["copy"].failures] == ["pmse_ratio"]
    relaxed = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1,
                       thresholds={"replicated_uniques": 1.0, "disco": 1.0, "pmse_ratio": 10})
    assert relaxed.failed == []
    off = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1,
                   default_thresholds=False)
    assert off["copy"].checks == () and off.failed == []
    prot = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1,
                    kinds={"copy": "protected"})
    pchecks = {c.threshold.metric: c for c in prot["copy"].checks}
    assert pchecks["replicated_uniques"].passed is None  # not applicable to SDC releases
    # ... and the summary gives the reason that holds for SDC: its rows ARE the records
    story = release_story(prot["copy"]).text
    assert "publishes the confidential records themselves" in story
    assert "do not stand for confidential records" not in story


def test_categorical_target_makes_identification_risk_not_applicable(conf, releases):
    # Adult's income is categorical: eq. (1) casts its ball around a numeric target, so the
    # identification risk does not apply; it is a note, and the evaluation is complete (it
    # used to be 'not computed' and exit 3 for every categorical target)
    ev = evaluate(conf, {"shuffled": releases["shuffled"]}, keys=["region", "kids"],
                  targets="sex", random_state=1, kinds={"shuffled": "partial"},
                  default_thresholds=False)
    assert ev.status == "passed"
    assert ev.data_risk is None and ev.data_risk_error is None
    assert any("not applicable" in n and "numeric target" in n for n in ev.data_notes)
    r = ev["shuffled"]
    assert "identification risk" in r.inapplicable and r.record_risk is None
    assert r.metrics["pmse_ratio"] is not None  # the other measures ran


def test_protected_copy_of_the_data_keeps_its_regression_intervals(conf):
    # one SDC-protected file is analysed as the data (combining rule 'none'): a copy overlaps
    # fully; a synthesis rule with m = 1 would have capped its overlap at (1 + 1/sqrt 2)/2
    copy = conf.copy()
    formula = "income ~ kids"
    prot = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1,
                    kinds={"copy": "protected"}, formulas=[formula])
    assert prot["copy"].metrics["ci_overlap"] == pytest.approx(1.0, abs=1e-12)
    part = evaluate(conf, {"copy": copy}, keys=KEYS, targets="income", random_state=1,
                    kinds={"copy": "partial"}, formulas=[formula])
    assert part["copy"].metrics["ci_overlap"] < 0.86
