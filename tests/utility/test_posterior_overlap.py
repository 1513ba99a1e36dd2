"""Karr et al.'s (2006) posterior-weighted interval overlap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from synthguard.errors import ParameterError
from synthguard.utility import ci_overlap, posterior_overlap


def test_normal_posteriors_brute_force():
    (mc, sc), (ms, ss) = (0.0, 1.0), (1.0, 2.0)
    lc, uc = norm.ppf([0.025, 0.975], mc, sc)
    ls, us = norm.ppf([0.025, 0.975], ms, ss)
    li, ui = max(lc, ls), min(uc, us)
    want = 0.5 * ((norm.cdf(ui, mc, sc) - norm.cdf(li, mc, sc)) / 0.95
                  + (norm.cdf(ui, ms, ss) - norm.cdf(li, ms, ss)) / 0.95)
    assert posterior_overlap((mc, sc), (ms, ss)) == pytest.approx(want)


def test_mass_in_a_tail_counts_less_than_length():
    # the overlap lies in the confidential posterior's tail: by length it counts more
    conf, syn = (0.0, 1.0), (3.0, 1.0)
    lc, uc = norm.ppf([0.025, 0.975], *conf)
    ls, us = norm.ppf([0.025, 0.975], *syn)
    assert posterior_overlap(conf, syn) < ci_overlap((lc, uc), (ls, us))
    assert posterior_overlap(conf, conf) == pytest.approx(1.0)
    assert posterior_overlap(conf, (10.0, 1.0)) == 0.0


def test_draws_agree_with_the_normal_law():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 200_000), rng.normal(1, 2, 200_000)
    assert posterior_overlap(a, b) == pytest.approx(posterior_overlap((0, 1), (1, 2)),
                                                    abs=0.01)


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="'conf_posterior'"):
        posterior_overlap((0.0, -1.0), (0.0, 1.0))
    with pytest.raises(ParameterError, match="'synthetic_posterior'"):
        posterior_overlap((0.0, 1.0), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ParameterError, match="'level'"):
        posterior_overlap((0.0, 1.0), (0.0, 1.0), level=1.5)
