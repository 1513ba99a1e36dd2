"""--max-seconds bounds the whole command: the fit gets what start-up and reading left."""

from __future__ import annotations

import time

from synthguard.cli.dp import AFTER_FIT_SHARE, fit_seconds, process_seconds


def test_process_seconds_counts_from_process_start() -> None:
    before = process_seconds()
    assert before > 0.0  # the interpreter and the imports came first
    time.sleep(0.05)
    assert process_seconds() >= before + 0.04


def test_fit_gets_the_budget_less_elapsed_and_the_after_fit_share() -> None:
    budget = 1e6
    got = fit_seconds(budget)
    want = budget * (1 - AFTER_FIT_SHARE) - process_seconds()
    assert abs(got - want) < 1.0
    assert got < budget * (1 - AFTER_FIT_SHARE)
    assert fit_seconds(1e-3) == 1e-4  # a budget already used up still leaves the fit a tenth
