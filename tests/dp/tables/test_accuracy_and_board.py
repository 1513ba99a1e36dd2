"""Accuracy metrics against hand-computed values; the ε table against published figures."""

from __future__ import annotations

import math

import pytest

from synthguard.dp import PrivacyLedger
from synthguard.dp.board import epsilon_table, epsilon_words
from synthguard.dp.tables import accuracy_metrics


def test_accuracy_metrics_by_hand():
    est = [1, 4, 5, 0]
    true = [2, 4, 8, 0]
    m = accuracy_metrics(est, true, units=["a", "a", "b", "b"])
    assert m["cells"] == 4
    assert m["mae"] == pytest.approx((1 + 0 + 3 + 0) / 4)
    assert m["mne"] == pytest.approx((-1 + 0 - 3 + 0) / 4)  # signed: the release understates
    assert m["rmse"] == pytest.approx(math.sqrt((1 + 9) / 4))
    assert m["mape"] == pytest.approx(100 * (1 / 2 + 0 + 3 / 8) / 3)  # cells with truth > 0
    assert m["cv"] == pytest.approx(100 * math.sqrt(10 / 4) / (14 / 4))
    # unit a: shares (1/5, 4/5) vs (2/6, 4/6): |.2-.333|+|.8-.667| = 0.2667; unit b: 0
    assert m["taes"] == pytest.approx((abs(1 / 5 - 2 / 6) + abs(4 / 5 - 4 / 6) + 0) / 2)


def test_suppressed_cells_are_left_out():
    m = accuracy_metrics([float("nan"), 3], [10, 2])
    assert m["cells"] == 1 and m["mae"] == 1.0


def test_epsilon_table_published_figures():
    t = epsilon_table([0.1, 1.0, math.log(3)])
    assert t["e^epsilon"].tolist() == pytest.approx([1.10517, 2.71828, 3.0], abs=1e-5)
    assert t["max_posterior"].tolist() == pytest.approx([0.52498, 0.73106, 0.75], abs=1e-5)
    assert "factor of 3" in t["meaning"][2] and "75% sure" in t["meaning"][2]


def test_ledger_rows_convert_census_rho_tightly():
    # 2020 Census redistricting data: rho = 2.56 -> epsilon 17.14 (Census) / 17.16 here, δ=1e-10
    ledger = PrivacyLedger(epsilon=20.0, delta=1e-10)
    ledger.charge_rho("redistricting", 2.56)
    ledger.charge("an extra table", 0.5)
    t = epsilon_table(ledger).set_index("label")
    assert 17.14 <= t.loc["redistricting", "epsilon"] <= 17.17
    assert t.loc["TOTAL", "epsilon"] == pytest.approx(ledger.spent.epsilon)
    assert "except with probability 1e-10" in t.loc["redistricting", "meaning"]
    assert "virtually certain" in epsilon_words(17.16)
