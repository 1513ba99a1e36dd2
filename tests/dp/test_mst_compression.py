"""MST's domain compression: merged rare levels map back to their own levels (issue 23 #1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.dp.synthesizers import MSTSynthesizer
from synthguard.dp.synthesizers.mst import compress_levels, expand_levels

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def test_one_level_below_threshold_is_not_compressed():
    # the bug: one merged level that is not the last gave a permutation of the same size,
    # which the size test took for "not compressed" and never mapped back
    mapping, size = compress_levels({"x": np.array([5.0, 3000.0, 3000.0])}, 50.0)
    assert mapping["x"].tolist() == [0, 1, 2] and size["x"] == 3


def test_two_levels_below_threshold_merge_last_and_expand_back():
    mapping, size = compress_levels({"x": np.array([3000.0, 4.0, 3000.0, -2.0])}, 50.0)
    assert mapping["x"].tolist() == [0, 2, 1, 2] and size["x"] == 3
    rng = np.random.default_rng(0)
    back = expand_levels(np.array([0, 1, 2, 2, 2, 2] * 500), mapping["x"], rng)
    assert (back[0::6] == 0).all() and (back[1::6] == 2).all()
    rare = back[np.isin(np.arange(back.size) % 6, [2, 3, 4, 5])]
    assert set(rare.tolist()) == {1, 3}
    assert abs((rare == 1).mean() - 0.5) < 0.05  # uniform over the merged levels


def test_all_or_no_level_below_threshold_keeps_the_column():
    for y in ([1.0, 2.0, 3.0], [100.0, 200.0, 300.0]):
        mapping, size = compress_levels({"x": np.array(y)}, 50.0)
        assert mapping["x"].tolist() == [0, 1, 2] and size["x"] == 3


@pytest.mark.parametrize("seed", [3, 11])
def test_mst_levels_within_noise_interval_and_copied_column_stays_equal(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 6))
    counts = rng.integers(800, 3000, size=k)
    rare = rng.choice(k - 1, size=int(rng.integers(1, k - 1)), replace=False)  # never only last
    counts[rare] = rng.integers(0, 6, size=rare.size)
    x = np.repeat(np.arange(k), counts)
    rng.shuffle(x)
    y = (x % 2) ^ (rng.random(x.size) < 0.2)
    z = rng.integers(0, 3, size=x.size)
    levels = [f"L{i}" for i in range(k)]
    df = pd.DataFrame({"x": np.array(levels)[x], "x2": np.array(levels)[x],
                       "y": y.astype(str), "z": z.astype(str)})
    cats = {"x": levels, "x2": levels, "y": ["0", "1"], "z": ["0", "1", "2"]}
    syn = MSTSynthesizer(epsilon=1.0, delta=1e-9, categories=cats, iters=300,
                         random_state=seed).fit(df)
    n = len(df)
    out = syn.sample(n=n, random_state=seed + 1).implicates[0]
    sigma1, sigma2 = syn.sigmas_
    got = out["x"].value_counts().reindex(levels, fill_value=0).to_numpy()
    p = counts / n
    # a kept level: noisy count (σ₁) + sampling; a merged level: the mean of levels whose noisy
    # count was below 3σ₁, so each is within 3σ₁ + 4σ₁ of zero
    bound = 8 * sigma1 + 4 * np.sqrt(n * p * (1 - p)) + 5
    assert (np.abs(got - counts) <= bound).all(), (got, counts, bound)
    # the copy: only the noise of the (x, x2) measurement puts rows off the diagonal
    assert ("x", "x2") in syn.edges_ or ("x2", "x") in syn.edges_
    off = int((out["x"] != out["x2"]).sum())
    assert off <= k * (k - 1) * 3 * sigma2 / 2, off
    assert syn.sigmas_[0] == pytest.approx(np.sqrt(3 * 4 / (2 * syn.rho_)))
