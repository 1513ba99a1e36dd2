"""satcat: the saturated model over predictor combinations (synthpop's syn.satcat)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import MethodError
from synthguard.synthesis.methods import SatCatMethod


def test_each_draw_comes_from_its_own_cell():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (600, 2)).astype(float)
    y = (X[:, 0] * 10 + X[:, 1]).astype(np.int64) + rng.integers(0, 2, 600) * 100
    m = SatCatMethod().fit(X, y)
    Xp = rng.integers(0, 3, (400, 2)).astype(float)
    got = m.draw(Xp, np.random.default_rng(1))
    assert ((got % 100) == (Xp[:, 0] * 10 + Xp[:, 1])).all()
    # within a cell the donor is uniform: both halves (+0, +100) appear about equally
    assert 0.4 < (got >= 100).mean() < 0.6
    # same generator, same draw
    np.testing.assert_array_equal(got, m.draw(Xp, np.random.default_rng(1)))


def test_an_unseen_combination_is_refused():
    m = SatCatMethod().fit(np.array([[0.0], [1.0]]), np.array([1, 2]))
    with pytest.raises(MethodError, match="catall"):
        m.draw(np.array([[2.0]]), np.random.default_rng(0))


def test_in_the_synthesizer_the_conditional_shares_survive():
    rng = np.random.default_rng(3)
    n = 3000
    region = rng.choice(["N", "S"], n)
    tenure = np.where(region == "N", np.where(rng.random(n) < 0.8, "own", "rent"),
                      np.where(rng.random(n) < 0.2, "own", "rent"))
    df = pd.DataFrame({"region": region, "tenure": tenure})
    rel = Synthesizer(methods={"region": "sample", "tenure": "satcat"},
                      random_state=4).fit(df).sample().implicates[0]
    share = pd.crosstab(rel["region"], rel["tenure"], normalize="index")
    assert share.loc["N", "own"] == pytest.approx(0.8, abs=0.05)
    assert share.loc["S", "own"] == pytest.approx(0.2, abs=0.05)
