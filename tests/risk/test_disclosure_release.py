"""repU, DiSCO and replicated uniques as the evaluation reports them, and the default
thresholds that judge them (evaluation/thresholds.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.evaluation.metrics import METRICS, extract_metric
from synthguard.evaluation.thresholds import DEFAULT_THRESHOLDS, check_thresholds, parse_thresholds
from synthguard.risk import disclosure, evaluate_risk
from synthguard.risk.release_disclosure import release_disclosure, replicated_uniques


def frames(seed=0, n=200):
    rng = np.random.default_rng(seed)

    def make():
        return pd.DataFrame({
            "a": rng.integers(0, 6, n), "b": rng.choice(list("xyz"), n),
            "c": rng.integers(0, 4, n), "t": rng.choice(list("pq"), n),
            "y": rng.normal(size=n).round(1),
        })  # fmt: skip

    return make(), make()


def brute_replicated_uniques(conf, syn):
    key = lambda f: [tuple(r) for r in f.to_numpy(dtype=object)]  # noqa: E731
    kc, ks = key(conf), key(syn)
    uc = {k for k in kc if kc.count(k) == 1}
    us = {k for k in ks if ks.count(k) == 1}
    return len(uc & us) / len(conf)


def test_replicated_uniques_by_brute_force():
    conf, other = frames(1)
    syn = pd.concat([conf.iloc[:60], other.iloc[60:]], ignore_index=True)
    got = replicated_uniques(conf, [syn, other])
    assert got[0] == pytest.approx(brute_replicated_uniques(conf, syn))
    assert got[1] == pytest.approx(brute_replicated_uniques(conf, other))
    assert got[0] > got[1]
    assert replicated_uniques(conf, conf)[0] == pytest.approx(brute_replicated_uniques(conf, conf))


def test_release_disclosure_is_synthpops_per_target():
    conf, syn = frames(2)
    r = release_disclosure(conf, syn, ["a", "b"], ["t", "c"])
    per = {t: disclosure(conf, syn, keys=["a", "b"], targets=t) for t in ("t", "c")}
    worst = max(per, key=lambda t: per[t].disco)
    assert r.disco == per[worst].disco and r.disco_target == worst
    assert r.repu == per["t"].repu and r.uio == per["t"].uio
    assert list(r.to_frame().index) == ["t", "c"]
    assert "replicated uniques" in r.summary()


def test_evaluate_risk_reports_disclosure_and_metrics_read_it():
    conf, syn = frames(3)
    risk = evaluate_risk(conf, syn, keys=["a", "b"], targets=["t"])
    assert risk.disclosure is not None
    assert extract_metric(risk, METRICS["disco"]) == risk.disclosure.disco
    assert extract_metric(risk, METRICS["repu"]) == risk.disclosure.repu
    ru = extract_metric(risk, METRICS["replicated_uniques"])
    assert ru == pytest.approx(brute_replicated_uniques(conf, syn))
    assert "repU" in set(risk.to_frame()["measure"])


def test_default_thresholds_fail_a_copy_and_pass_an_independent_sample():
    conf, syn = frames(4)
    # the disclosure defaults among the defaults (the others judge utility, record-level
    # risk and membership: tests/report/test_default_verdict.py)
    assert {"replicated_uniques", "disco"} <= set(DEFAULT_THRESHOLDS)
    risk_defaults = {m: DEFAULT_THRESHOLDS[m] for m in ("replicated_uniques", "disco")}
    parsed = parse_thresholds(risk_defaults)
    # an independent sample with a continuous column replicates no unique by chance, and with
    # about 11 records per key cell few targets are disclosed
    syn = syn.assign(y=np.random.default_rng(9).normal(size=len(syn)).round(4))
    for release, ok in ((conf.copy(), False), (syn, True)):
        risk = evaluate_risk(conf, release, keys=["a", "b"], targets=["t"])
        metrics = {m: extract_metric(risk, METRICS[m]) for m in risk_defaults}
        checks = check_thresholds(parsed, metrics)
        assert all(c.passed for c in checks) is ok, metrics


def test_report_shows_the_disclosure_table_and_default_verdict(tmp_path):
    from synthguard.report import evaluate
    from synthguard.report.html import write_report

    conf, syn = frames(5, n=150)
    syn = syn.assign(y=np.random.default_rng(3).normal(size=len(syn)).round(4))
    ev = evaluate(conf, {"copy": conf.copy(), "indep": syn}, keys=["a", "b"], targets=["t"],
                  thresholds=DEFAULT_THRESHOLDS, random_state=1)  # fmt: skip
    assert {t.metric for t in ev.thresholds} == set(DEFAULT_THRESHOLDS)
    assert ev.failed == ["copy"]  # hands out every unique record; the independent one passes
    assert ev["copy"].metrics["replicated_uniques"] == pytest.approx(
        brute_replicated_uniques(conf, conf)
    )
    path = tmp_path / "r.html"
    write_report(ev, path)
    html = path.read_text(encoding="utf-8")
    assert 'id="disclosure-table"' in html and "DiSCO" in html
