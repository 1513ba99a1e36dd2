"""The course's classic Gaussian calibration as a query mechanism (issue 36: the course's
sigma beside the analytic one), reproducing the course's penguin count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthguard import load_dataset
from synthguard.dp import PrivacyLedger, dp_count, dp_mean
from synthguard.errors import ParameterError, PrivacyWarning

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")

# R: set.seed(1); rnorm(1) -- the standard normal draw behind the course's figure
R_FIRST_NORMAL = -0.6264538107423324


def test_reproduces_the_courses_gaussian_penguin_count() -> None:
    penguins = load_dataset("penguins")
    adelie = (penguins["species"] == "Adelie").to_numpy()
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-6)
    res = dp_count(adelie, epsilon=0.1, delta=1e-7, mechanism="classic_gaussian",
                   ledger=ledger, random_state=1)
    assert res.scale == pytest.approx(math.sqrt(2 * math.log(1.25e7)) / 0.1, rel=1e-12)
    # the course (7.6.4): 146 + sigma * rnorm(1) with R's seed 1 prints 110.1865
    assert round(146 + res.scale * R_FIRST_NORMAL, 4) == 110.1865
    assert res.variance == pytest.approx(res.scale**2)
    assert ledger.spent.epsilon == pytest.approx(0.1)


def test_never_less_noise_than_the_analytic_calibration() -> None:
    x = np.ones(50, dtype=bool)
    for eps in (0.1, 0.5, 0.9):
        classic = dp_count(x, epsilon=eps, delta=1e-6, mechanism="classic_gaussian",
                           ledger=PrivacyLedger(epsilon=1.0, delta=1e-5), random_state=2)
        analytic = dp_count(x, epsilon=eps, delta=1e-6, mechanism="gaussian",
                            ledger=PrivacyLedger(epsilon=1.0, delta=1e-5), random_state=2)
        assert classic.scale > analytic.scale


def test_needs_delta_and_warns_past_epsilon_one() -> None:
    x = np.ones(10, dtype=bool)
    with pytest.raises(ParameterError, match="needs 0 < delta < 1"):
        dp_count(x, epsilon=0.5, mechanism="classic_gaussian", random_state=1,
                 ledger=PrivacyLedger(epsilon=1.0))
    with pytest.warns(PrivacyWarning, match="proven only for epsilon < 1"):
        dp_mean(np.arange(10.0), lower=0, upper=10, n=10, epsilon=2.0, delta=1e-6,
                mechanism="classic_gaussian", random_state=1,
                ledger=PrivacyLedger(epsilon=2.0, delta=1e-5))
