"""The printed ledger states a zCDP line truthfully: its rho and the (epsilon, delta) it is worth."""

from __future__ import annotations

import re

import pytest

from synthguard.dp import PrivacyLedger
from synthguard.dp.conversion import epsilon_to_rho


def test_zcdp_line_prints_rho_and_worth_not_a_zero_epsilon():
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-9)
    rho = epsilon_to_rho(1.0, 1e-9)  # the whole budget, as MST charges it
    ledger.charge_rho("mst: 1-way + tree + 2-way", rho)
    text = str(ledger)
    line = next(ln for ln in text.splitlines() if ln.startswith("mst"))
    # epsilon/delta columns hold no amount for a rho line (it printed 'zcdp 0 0' before)
    assert re.search(r"zcdp\s+-\s+-\s+0\.01497\s+\(alone: epsilon=1, delta=1e-09\)", line)
    # the whole budget is spent: no 1e-16 residue of the bisection shown as budget left
    assert "remaining: epsilon=0, delta=0" in text
    assert "spent:     epsilon=1, delta=1e-09, rho=0.01497" in text


def test_pure_and_zcdp_lines_together():
    ledger = PrivacyLedger(epsilon=2.0, delta=1e-6)
    ledger.charge("count", 0.5)
    ledger.charge_rho("marginals", 0.01)
    text = str(ledger)
    assert re.search(r"count\s+pure\s+0\.5\s+0\s+0\n", text)
    # rho = 0.01 at delta = 1e-6 alone is worth eps 0.6217 (tight; the simple bound: 0.7533)
    assert "(alone: epsilon=0.6217, delta=1e-06)" in text
    assert "remaining: epsilon=0.878307" in text


def test_frame_of_a_zcdp_line_has_no_zero_epsilon_and_says_its_worth():
    import math

    ledger = PrivacyLedger(epsilon=1.0, delta=1e-9)
    ledger.charge_rho("mst", epsilon_to_rho(1.0, 1e-9))
    frame = ledger.to_frame()
    row = frame.iloc[0]
    assert math.isnan(row["epsilon"]) and math.isnan(row["delta"])
    assert row["rho"] > 0.0149 and row["worth"] == "alone: epsilon=1, delta=1e-09"
    assert frame.iloc[-1]["epsilon"] == pytest.approx(1.0)  # the total converts the pooled rho
