"""``rf`` and ``bag``: draws are donors pooled over the trees' leaves (brute force)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthguard import Synthesizer
from synthguard.synthesis.methods import BagMethod, RandomForestMethod


def _pooled_shares(m, X, y, row):
    """Brute force: the pooled donor list of one row, as shares of each value."""
    obs = m.forest_.apply(X.astype(np.float32))
    new = m.forest_.apply(row.astype(np.float32))[0]
    pool = np.concatenate([y[obs[:, t] == new[t]] for t in range(obs.shape[1])])
    vals, counts = np.unique(pool, return_counts=True)
    return dict(zip(vals.tolist(), (counts / counts.sum()).tolist()))


def test_rf_draws_follow_the_pooled_leaf_donors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.round(X[:, 0] * 3 + rng.normal(size=120))
    m = RandomForestMethod(ntree=5, min_samples_leaf=8).fit(X, y)
    row = np.array([[0.3, -0.2]])
    expected = _pooled_shares(m, X, y, row)
    out = m.draw(np.repeat(row, 40000, axis=0), np.random.default_rng(1))
    vals, counts = np.unique(out, return_counts=True)
    assert set(vals.tolist()) == set(expected)
    for v, c in zip(vals.tolist(), counts):
        assert abs(c / 40000 - expected[v]) < 0.01


def test_integer_weights_pool_donors_like_copies_and_zero_weights_never_donate():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 1))
    y = np.arange(80, dtype=float)
    w = rng.integers(0, 3, 80).astype(float)
    m = BagMethod(ntree=3, min_samples_leaf=10).fit(X, y, weights=w)
    out = m.draw(np.repeat([[0.0]], 30000, axis=0), np.random.default_rng(3))
    assert not np.isin(out, y[w == 0]).any()
    # brute force: donors of the row pooled over trees, each counted w_i times
    obs = m.forest_.apply(X.astype(np.float32))
    new = m.forest_.apply(np.array([[0.0]], dtype=np.float32))[0]
    share = np.zeros(80)
    for t in range(3):
        share += np.where(obs[:, t] == new[t], w, 0.0)
    share /= share.sum()
    got = np.bincount(out.astype(int), minlength=80) / 30000
    assert np.abs(got - share).max() < 0.012


def test_rf_and_bag_in_the_synthesizer_reproduce_by_seed():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y", "z"], 200)})
    df["c"] = np.round(df["a"] * 2 + (df["b"] == "x"), 1)
    spec = {"b": "bag", "c": "rf:ntree=5"}
    one = Synthesizer(methods=spec, random_state=9).fit(df).sample().implicates[0]
    two = Synthesizer(methods=spec, random_state=9).fit(df).sample().implicates[0]
    pd.testing.assert_frame_equal(one, two)
    # donor draws (rare values, held by fewer than 5 records, are redrawn by default)
    plain = Synthesizer(methods=spec, random_state=9, rare_values=0).fit(df).sample()
    assert plain.implicates[0]["c"].isin(df["c"]).all()
