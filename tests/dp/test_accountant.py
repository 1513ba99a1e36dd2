"""Ledger arithmetic, refusal on overspend, persistence and crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from synthguard.data import load_dataset
from synthguard.dp import (
    PrivacyLedger,
    dp_count,
    dp_sum,
    pure_to_zcdp,
    sum_sensitivity,
    zcdp_to_dp,
)
from synthguard.dp.conversion import rho_to_epsilon
from synthguard.errors import DataError, ParameterError, PrivacyBudgetError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def test_sequential_composition_course_example():
    ledger = PrivacyLedger(epsilon=2.0)
    for label, eps in (("analysis 1", 1.0), ("analysis 2", 0.5), ("analysis 3", 0.5)):
        ledger.charge(label, eps)
    assert ledger.spent.epsilon == 2.0
    assert ledger.remaining.epsilon == 0.0
    with pytest.raises(PrivacyBudgetError, match="no noise was drawn"):
        ledger.charge("one more", 1e-6)
    assert len(ledger.charges) == 3


def test_parallel_composition_course_example():
    ledger = PrivacyLedger(epsilon=1.0)
    with ledger.parallel("three states") as part:
        part.charge("state 1", 1.0)
        part.charge("state 2", 0.5)
        part.charge("state 3", 0.5)
    assert ledger.spent.epsilon == 1.0
    # a parallel part above the budget is refused
    ledger2 = PrivacyLedger(epsilon=1.0)
    with ledger2.parallel("g") as part, pytest.raises(PrivacyBudgetError):
        part.charge("a", 0.4)
        part.charge("b", 1.2)
    assert ledger2.spent.epsilon == 0.4


def test_mixed_sequential_and_parallel():
    ledger = PrivacyLedger(epsilon=3.0, delta=1e-5)
    ledger.charge("total", 0.5)
    with ledger.parallel("by region") as part:
        for eps in (0.3, 0.7, 0.2):
            part.charge("region", eps, 1e-6)
    ledger.charge("gaussian", 0.25, 2e-6)
    assert ledger.spent.epsilon == pytest.approx(0.5 + 0.7 + 0.25)
    assert ledger.spent.delta == pytest.approx(3e-6)
    frame = ledger.to_frame()
    assert frame["label"].iloc[-1] == "TOTAL"
    assert frame["epsilon"].iloc[-1] == pytest.approx(1.45)
    assert frame.loc[frame["counted"], "epsilon"].sum() == pytest.approx(1.45)
    text = str(ledger)
    assert "by region" in text and "remaining" in text


def test_zcdp_conversion_hand_computed():
    # ρ = 0.5, δ = 1e-6: ε = 0.5 + 2√(0.5 · ln 10⁶) = 0.5 + 2√6.907755 = 5.756522
    assert zcdp_to_dp(0.5, 1e-6) == pytest.approx(5.756522, abs=1e-6)
    # ρ = 0.01, δ = 1e-5: 0.01 + 2√(0.01 · 11.512925) = 0.688614
    assert zcdp_to_dp(0.01, 1e-5) == pytest.approx(0.688614, abs=1e-6)
    assert pure_to_zcdp(1.0) == 0.5
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-6)
    ledger.charge_rho("a", 0.25)
    ledger.charge_rho("b", 0.25)  # ρ's add up before one conversion
    assert ledger.spent.rho == 0.5
    # the ledger converts with the tight bound (Canonne, Kamath & Steinke 2020), below 5.756522
    tight = rho_to_epsilon(0.5, 1e-6)
    assert 5.0 < tight < 5.756522 - 0.3
    assert ledger.spent.epsilon == pytest.approx(tight, abs=1e-9)
    ledger.charge("laplace", 1.0)
    assert ledger.spent.epsilon == pytest.approx(1.0 + tight, abs=1e-9)
    # δ used by approximate-DP charges is not available to the conversion
    ledger.charge("gauss", 0.0, 5e-7)
    expected = 1.0 + rho_to_epsilon(0.5, 5e-7)
    assert expected > 1.0 + tight
    assert ledger.spent.epsilon == pytest.approx(expected)
    # each ρ line prints the (ε, δ) it is worth alone, at the ledger's δ
    assert f"alone: epsilon={rho_to_epsilon(0.25, 1e-6):.4g}, delta=1e-06" in ledger.summary()
    with pytest.raises(PrivacyBudgetError, match="delta > 0"):
        PrivacyLedger(epsilon=1.0).charge_rho("x", 0.01)


def test_refusal_draws_no_noise():
    ledger = PrivacyLedger(epsilon=0.5)
    rng = np.random.default_rng(7)
    before = rng.bit_generator.state
    with pytest.raises(PrivacyBudgetError):
        dp_count(np.ones(10, dtype=bool), epsilon=1.0, ledger=ledger, random_state=rng)
    assert rng.bit_generator.state == before
    assert ledger.spent.epsilon == 0.0
    dp_count(np.ones(10, dtype=bool), epsilon=0.5, ledger=ledger, random_state=rng)
    assert rng.bit_generator.state != before


def test_small_businesses_exercises():
    df = load_dataset("small_businesses")
    # exercise 3: counts by state with overall ε = 0.1 by parallel composition
    ledger = PrivacyLedger(epsilon=0.1)
    answers = {}
    with ledger.parallel("count by state") as part:
        for state in ("Texas", "Vermont"):
            answers[state] = dp_count(df["state"] == state, epsilon=0.1, ledger=part,
                                      label=state, random_state=46)
    assert ledger.spent.epsilon == pytest.approx(0.1)
    assert answers["Texas"].scale == pytest.approx(10.0)  # Δ = 1, b = 1/0.1
    assert abs(answers["Vermont"].value - 403) < 200 and abs(answers["Texas"].value - 100010) < 200
    # exercise 4: sum of employees, bounds 0..20 known publicly → Δ = 20
    assert sum_sensitivity(0, 20).l1 == 20.0
    with pytest.raises(PrivacyBudgetError):
        dp_sum(df["employees"], lower=0, upper=20, epsilon=0.1, ledger=ledger)
    ledger4 = PrivacyLedger(epsilon=0.1)
    res = dp_sum(df["employees"], lower=0, upper=20, epsilon=0.1, ledger=ledger4, random_state=47)
    assert res.scale == pytest.approx(200.0)
    assert abs(res.value - df["employees"].sum()) < 200 * 15


def test_persistence_roundtrip(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-6, path=path)
    ledger.charge("a", 0.25)
    with ledger.parallel("p") as part:
        part.charge("x", 0.1)
        part.charge("y", 0.3)
    ledger.charge_rho("z", 0.001)
    doc = json.loads(path.read_text())
    assert len(doc["charges"]) == 3
    again = PrivacyLedger(epsilon=1.0, delta=1e-6, path=path)
    assert again.spent == ledger.spent
    assert [c.label for c in again.charges] == ["a", "p", "z"]
    assert PrivacyLedger.open(path).spent == ledger.spent
    with pytest.raises(ParameterError, match="budget"):
        PrivacyLedger(epsilon=2.0, delta=1e-6, path=path)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DataError):
        PrivacyLedger.open(bad)


@pytest.mark.parametrize("how", ["sigkill", "os_exit"])
def test_crash_between_charge_and_answer_keeps_the_charge(tmp_path, how):
    path = tmp_path / "ledger.json"
    crash = ("os.kill(os.getpid(), signal.SIGKILL)" if how == "sigkill" else "os._exit(3)")
    script = textwrap.dedent(f"""
        import os, signal, sys
        import numpy as np
        from synthguard.dp import PrivacyLedger, dp_count
        from synthguard.dp import _noise

        def crash(*args, **kwargs):
            {crash}

        _noise.add_laplace = crash   # the process dies while drawing the noise
        ledger = PrivacyLedger(epsilon=1.0, path=sys.argv[1])
        ledger.charge("before", 0.25)
        answer = dp_count(np.ones(100, dtype=bool), epsilon=0.5, ledger=ledger, label="doomed")
        print("ANSWER", answer.value)
    """)
    proc = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert "ANSWER" not in proc.stdout
    if how == "sigkill":
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 3
    reopened = PrivacyLedger(epsilon=1.0, path=path)
    assert reopened.spent.epsilon == pytest.approx(0.75)
    assert [c.label for c in reopened.charges] == ["before", "doomed"]
    with pytest.raises(PrivacyBudgetError):
        reopened.charge("too much", 0.5)


def test_bad_budgets():
    with pytest.raises(ParameterError):
        PrivacyLedger(epsilon=0.0)
    with pytest.raises(ParameterError):
        PrivacyLedger(epsilon=1.0, delta=1.0)
    with pytest.raises(ParameterError):
        PrivacyLedger(epsilon=1.0).charge("neg", -0.1)


def test_two_handles_on_one_file_cannot_both_spend_the_budget(tmp_path):
    path = tmp_path / "ledger.json"
    first = PrivacyLedger(epsilon=1.0, path=path)
    second = PrivacyLedger(epsilon=1.0, path=path)  # e.g. another process
    first.charge("analyst A", 0.6)
    with pytest.raises(PrivacyBudgetError):
        second.charge("analyst B", 0.6)
    second.charge("analyst B", 0.4)
    assert first.spent.epsilon == pytest.approx(1.0)
    assert [c.label for c in first.charges] == ["analyst A", "analyst B"]


def test_summary_prints_long_labels_whole_and_aligned():
    # a label cut at 32 characters ('dp table UrbanRural_x_Race: coun') hid what was charged
    ledger = PrivacyLedger(epsilon=1.0)
    long = "dp table UrbanRural_x_Race_x_KidsCount: count"
    ledger.charge(long, 0.4)
    ledger.charge("short", 0.1)
    lines = ledger.summary().splitlines()
    row = next(line for line in lines if line.startswith(long))
    assert row.split()[-4:] == ["pure", "0.4", "0", "0"]
    header = next(line for line in lines if line.startswith("label"))
    short = next(line for line in lines if line.startswith("short"))
    # the kind column starts at the same place on every line
    assert header.index("kind") == row.index("pure") == short.index("pure") == len(long) + 1
