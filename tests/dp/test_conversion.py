"""zCDP ↔ (ε, δ): tight conversion (Canonne, Kamath & Steinke 2020) against published figures and OpenDP."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthguard.dp.conversion import epsilon_to_rho, rho_to_delta, rho_to_epsilon
from synthguard.errors import ParameterError


def test_published_figures():
    # issue 23: ε = 1, δ = 1e-9 buys ρ = 0.01497 (tight) against 0.01178 (simple bound)
    assert epsilon_to_rho(1.0, 1e-9) == pytest.approx(0.01497, abs=5e-6)
    assert epsilon_to_rho(1.0, 1e-9, conversion="simple") == pytest.approx(0.01178, abs=5e-6)
    # 2020 Census redistricting data: ρ = 2.56 is ε ≈ 17.14 (Census) – 17.16 at δ = 1e-10,
    # 17.92 by the simple bound
    assert 17.14 <= rho_to_epsilon(2.56, 1e-10) <= 17.16
    assert rho_to_epsilon(2.56, 1e-10, conversion="simple") == pytest.approx(17.915, abs=1e-3)
    # simple bound by hand: 0.5 + 2√(0.5 ln 10⁶) = 5.756522
    assert rho_to_epsilon(0.5, 1e-6, conversion="simple") == pytest.approx(5.756522, abs=1e-6)


def test_equals_opendp_privacy_map():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    rng = np.random.default_rng(0)
    for _ in range(8):
        rho = float(10 ** rng.uniform(-4, 1))
        delta = float(10 ** rng.uniform(-12, -3))
        meas = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(
            dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
            scale=1.0 / math.sqrt(2.0 * rho)))
        want = meas.map(1.0).epsilon(delta)
        assert rho_to_epsilon(rho, delta) == pytest.approx(want, rel=1e-9)


def test_tight_is_the_infimum_over_alpha_and_below_simple():
    rng = np.random.default_rng(1)
    alphas = np.concatenate([1 + np.logspace(-6, 0, 2000), np.linspace(2, 5000, 20000)])
    for _ in range(20):
        rho = float(10 ** rng.uniform(-5, 1.5))
        delta = float(10 ** rng.uniform(-14, -2))
        grid = (alphas * rho + np.log(1 / (alphas * delta)) / (alphas - 1)
                + np.log1p(-1 / alphas))
        got = rho_to_epsilon(rho, delta)
        assert got <= grid.min() + 1e-9
        assert got >= grid.min() - 1e-3 * grid.min()  # no α on the grid does much better
        assert got <= rho_to_epsilon(rho, delta, conversion="simple")


def test_round_trips_and_delta_direction():
    rng = np.random.default_rng(2)
    for _ in range(20):
        eps = float(10 ** rng.uniform(-2, 1.3))
        delta = float(10 ** rng.uniform(-12, -3))
        for conv in ("tight", "simple"):
            rho = epsilon_to_rho(eps, delta, conversion=conv)
            back = rho_to_epsilon(rho, delta, conversion=conv)
            assert back <= eps  # exactly: never promises more than asked
            assert back == pytest.approx(eps, rel=1e-9)
        rho = epsilon_to_rho(eps, delta)
        assert rho >= epsilon_to_rho(eps, delta, conversion="simple")
        # δ at the ε the ρ is worth is the δ asked for (the same bound read the other way)
        assert rho_to_delta(rho, rho_to_epsilon(rho, delta)) == pytest.approx(delta, rel=1e-6)
    assert rho_to_epsilon(0.0, 1e-6) == 0.0 and epsilon_to_rho(0.0, 1e-6) == 0.0
    assert rho_to_delta(1.0, 1.0) > rho_to_delta(1.0, 2.0) > rho_to_delta(1.0, 3.0)


def test_bad_arguments_raise():
    with pytest.raises(ParameterError, match="delta"):
        rho_to_epsilon(0.1, 0.0)
    with pytest.raises(ParameterError, match="rho"):
        rho_to_epsilon(-1.0, 1e-6)
    with pytest.raises(ParameterError, match="epsilon"):
        epsilon_to_rho(math.inf, 1e-6)
    with pytest.raises(ParameterError, match="conversion"):
        epsilon_to_rho(1.0, 1e-6, conversion="loose")
