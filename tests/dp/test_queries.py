"""The ledger-charging queries: sensitivities, scales, answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import (
    PrivacyLedger,
    count_sensitivity,
    dp_count,
    dp_histogram,
    dp_mean,
    dp_quantile,
    dp_sum,
    histogram_sensitivity,
    mean_sensitivity,
    sum_sensitivity,
)
from synthguard.errors import DataError, ParameterError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def test_sensitivities_course_exercises():
    assert count_sensitivity().l1 == count_sensitivity().l2 == 1.0  # exercise 1
    assert sum_sensitivity(6, 10, "replace").l1 == 4.0  # "Sums": 10 - 6
    assert sum_sensitivity(6, 10, "add_remove").l1 == 10.0
    assert sum_sensitivity(-5, 3).l1 == 5.0
    assert mean_sensitivity(0, 20, 100).l1 == pytest.approx(0.2)
    h = histogram_sensitivity("replace")
    assert (h.l1, h.l2) == (2.0, pytest.approx(math.sqrt(2)))
    with pytest.raises(ParameterError, match="bounds"):
        sum_sensitivity(0, math.inf)
    with pytest.raises(ParameterError, match="relation"):
        count_sensitivity("swap")  # type: ignore[arg-type]


def test_count_sum_mean_scales_and_ledger():
    ledger = PrivacyLedger(epsilon=3.0, delta=1e-5)
    x = np.arange(100.0)
    c = dp_count(x > 49, epsilon=0.5, ledger=ledger, random_state=1)
    assert c.scale == 2.0 and abs(c.value - 50) < 40
    s = dp_sum(x, lower=0, upper=200, epsilon=1.0, ledger=ledger, random_state=2)
    assert s.scale == 200.0 and s.variance == 2 * 200.0**2
    m = dp_mean(x, lower=0, upper=99, epsilon=1.0, n=100, ledger=ledger, random_state=3)
    assert m.scale == pytest.approx(0.99) and 0 <= m.value <= 99
    g = dp_count(x > 49, epsilon=0.5, delta=1e-5, mechanism="gaussian", ledger=ledger,
                 random_state=4)
    assert g.scale == pytest.approx(7.0318266, rel=1e-6)  # analytic σ(Δ=1, ε=0.5, δ=1e-5)
    assert ledger.spent.epsilon == pytest.approx(3.0)
    assert ledger.spent.delta == pytest.approx(1e-5)
    assert [ch.label for ch in ledger.charges] == ["count", "sum", "mean", "count"]


def test_mean_unknown_n_is_accurate_at_large_epsilon():
    x = np.random.default_rng(0).uniform(0, 10, 5000)
    ledger = PrivacyLedger(epsilon=50.0)
    m = dp_mean(x, lower=0, upper=10, epsilon=50.0, ledger=ledger, random_state=5)
    assert abs(m.value - x.mean()) < 0.05
    assert ledger.spent.epsilon == pytest.approx(50.0)
    with pytest.raises(DataError):
        dp_mean(x, lower=0, upper=10, epsilon=1.0, n=10)


def test_histogram_counts_every_public_category():
    vals = ["a"] * 30 + ["c"] * 10
    ledger = PrivacyLedger(epsilon=1.0)
    res = dp_histogram(vals, categories=["a", "b", "c"], epsilon=1.0, ledger=ledger,
                       mechanism="discrete_laplace", random_state=6)
    assert isinstance(res.value, pd.Series)
    assert list(res.value.index) == ["a", "b", "c"]
    assert res.value.dtype.kind == "i"
    assert ledger.spent.epsilon == 1.0
    with pytest.raises(DataError, match="outside the public"):
        dp_histogram(vals, categories=["a", "b"], epsilon=1.0, random_state=0)


def test_quantile_seeded_and_opendp():
    x = np.random.default_rng(1).uniform(0, 100, 2001)
    med = float(np.median(x))
    ledger = PrivacyLedger(epsilon=15.0)
    seeded = dp_quantile(x, 0.5, lower=0, upper=100, epsilon=5.0, ledger=ledger, random_state=7)
    assert abs(seeded.value - med) < 3
    vetted = dp_quantile(x, 0.5, lower=0, upper=100, epsilon=5.0, ledger=ledger)
    assert abs(vetted.value - med) < 3
    q90 = dp_quantile(x, 0.9, lower=0, upper=100, epsilon=5.0, ledger=ledger, random_state=8)
    assert abs(q90.value - np.quantile(x, 0.9)) < 3


def test_mechanism_parameter_checks():
    with pytest.raises(ParameterError, match="delta"):
        dp_count([True], epsilon=1.0, mechanism="gaussian")
    with pytest.raises(ParameterError, match="pure DP"):
        dp_count([True], epsilon=1.0, delta=1e-6)
    with pytest.raises(ParameterError, match="mechanism"):
        dp_count([True], epsilon=1.0, mechanism="cauchy")  # type: ignore[arg-type]


def test_mean_unknown_n_charges_the_whole_budget_once():
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-5)
    dp_mean(np.arange(50.0), lower=0, upper=60, epsilon=1.0, delta=1e-5, mechanism="gaussian",
            ledger=ledger, label="mean", random_state=3)
    assert len(ledger.charges) == 1
    assert ledger.spent.epsilon == 1.0 and ledger.spent.delta == pytest.approx(1e-5)


# ---------------------------------------------------- spending that nobody records (issue 31, L3)
def test_a_query_without_a_ledger_warns_once_per_process_and_says_how_to_keep_an_account():
    """Before: ``dp_count(x, epsilon=5)`` ran three times with no ledger and no warning. After:
    the first call without a ledger warns (UnaccountedWarning, a PrivacyWarning) naming the
    query and how to keep an account; later calls in the same process stay quiet."""
    from synthguard.errors import PrivacyWarning, UnaccountedWarning

    x = np.ones(50, dtype=bool)
    with pytest.warns(UnaccountedWarning, match=r"dp_count: .*PrivacyLedger.*ledger=ledger") as w:
        dp_count(x, epsilon=5, random_state=1)
    assert issubclass(UnaccountedWarning, PrivacyWarning)
    assert sum(isinstance(r.message, UnaccountedWarning) for r in w) == 1
    # once per process: no second warning (it would be an error under filterwarnings=error)
    dp_count(x, epsilon=5)
    dp_sum(np.ones(5), lower=0, upper=1, epsilon=5)


@pytest.mark.parametrize("call", [
    lambda led: dp_sum(np.ones(5), lower=0, upper=1, epsilon=1, ledger=led, random_state=1),
    lambda led: dp_mean(np.ones(5), lower=0, upper=1, epsilon=1, ledger=led, random_state=1),
    lambda led: dp_histogram(["a"], categories=["a", "b"], epsilon=1, ledger=led,
                             random_state=1),
    lambda led: dp_quantile(np.ones(5), 0.5, lower=0, upper=1, epsilon=1, ledger=led,
                            random_state=1),
])
def test_every_query_warns_without_a_ledger_and_not_with_one(call):
    ledger = PrivacyLedger(epsilon=1.0)
    call(ledger)  # with a ledger: no warning (an error under filterwarnings=error)
    assert ledger.spent.epsilon == pytest.approx(1.0)
    from synthguard.errors import UnaccountedWarning

    with pytest.warns(UnaccountedWarning, match="without a ledger"):
        call(None)
