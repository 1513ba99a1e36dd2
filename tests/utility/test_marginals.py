"""k-way marginal score against a pandas crosstab reference."""

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.utility import kway_marginal_score


def cats(n, rng, p):
    return pd.DataFrame({
        "a": rng.choice(["x", "y", "z"], n, p=p),
        "b": rng.choice(["u", "v"], n),
    })


def test_two_way_matches_crosstab():
    rng = np.random.default_rng(0)
    conf = cats(400, rng, [0.5, 0.3, 0.2])
    syn = cats(300, rng, [0.2, 0.3, 0.5])
    r = kway_marginal_score(conf, syn, k=2, n_draws=3, random_state=1)
    pc = pd.crosstab(conf.a, conf.b) / len(conf)
    ps = pd.crosstab(syn.a, syn.b) / len(syn)
    tv = 0.5 * (pc - ps).abs().to_numpy().sum()
    assert r.tv == pytest.approx(tv)
    assert r.score == pytest.approx(1 - tv)


def test_identical_zero_disjoint_one():
    rng = np.random.default_rng(1)
    conf = cats(200, rng, [0.5, 0.3, 0.2])
    conf["n"] = rng.normal(size=200)
    assert kway_marginal_score(conf, conf.sample(frac=1, random_state=2), k=2, n_draws=10,
                               random_state=0).tv == pytest.approx(0.0)
    other = pd.DataFrame({"a": ["w"] * 50, "b": ["t"] * 50, "n": np.full(50, np.nan)})
    assert kway_marginal_score(conf, other, k=1, n_draws=10, random_state=0).tv == 1.0


def test_numeric_binned_at_confidential_quantiles():
    rng = np.random.default_rng(3)
    conf = pd.DataFrame({"n": rng.normal(size=1000)})
    syn = pd.DataFrame({"n": rng.normal(size=1000) + 10})  # all above the top edge
    r = kway_marginal_score(conf, syn, k=1, n_draws=1, n_bins=10, random_state=0)
    # synthetic all in the top bin, which holds 10% of the confidential values
    assert r.tv == pytest.approx(0.9, abs=0.002)


def test_seed_and_errors():
    rng = np.random.default_rng(4)
    conf = cats(100, rng, [0.5, 0.3, 0.2])
    conf["c"] = rng.choice(["p", "q"], 100)
    syn = cats(100, rng, [0.2, 0.3, 0.5])
    syn["c"] = rng.choice(["p", "q"], 100)
    a = kway_marginal_score(conf, syn, k=2, n_draws=5, random_state=7)
    b = kway_marginal_score(conf, syn, k=2, n_draws=5, random_state=7)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    with pytest.raises(ParameterError, match="'k'"):
        kway_marginal_score(conf, syn, k=4)
