"""An integer column synthesized on public bins comes back as integers inside their bins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import MSTSynthesizer
from synthguard.dp.synthesizers._domain import build_domain


def test_integer_bins_decode_to_every_integer_of_the_bin_uniformly():
    df = pd.DataFrame({"age": np.array([18, 20, 31, 49, 50, 90], dtype=np.int64)})
    dom, _ = build_domain(df, bins={"age": [18, 30.5, 50, 90]})
    rng = np.random.default_rng(3)
    k = np.repeat(np.arange(3), 20000)
    out = dom.decode({"age": k}, rng)["age"].to_numpy()
    assert out.dtype == np.int64
    # [18, 30.5) -> 18..30; [30.5, 50) -> 31..49; [50, 90] (last bin closed) -> 50..90
    for j, (lo, hi) in enumerate([(18, 30), (31, 49), (50, 90)]):
        v = out[k == j]
        assert v.min() == lo and v.max() == hi
        counts = np.bincount(v - lo)
        assert counts.size == hi - lo + 1
        assert counts.min() > 0.8 * counts.mean()  # uniform over the bin's integers
    # the codes of the decoded values are the codes drawn (decoding stays inside the bin)
    _, back = build_domain(pd.DataFrame({"age": out}), bins={"age": [18, 30.5, 50, 90]})
    assert np.array_equal(back["age"], k)


def test_bin_without_integer_gives_its_rounded_midpoint_and_floats_stay_floats():
    df = pd.DataFrame({"x": np.array([1, 2], dtype=np.int64), "y": [0.25, 3.5]})
    dom, _ = build_domain(df, bins={"x": [0.1, 0.4, 3.0], "y": [0.0, 1.0, 4.0]})
    out = dom.decode({"x": np.array([0, 0, 1]), "y": np.array([0, 1, 1])},
                     np.random.default_rng(0))
    assert out["x"].tolist()[:2] == [0, 0] and 1 <= out["x"][2] <= 3
    assert out["y"].dtype == np.float64 and not float(out["y"][0]).is_integer()


@pytest.mark.filterwarnings("ignore::synthguard.errors.PrivacyWarning")
def test_mst_release_keeps_integer_column_integer():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"age": rng.integers(18, 91, 400), "sex": rng.choice(["f", "m"], 400)})
    out = MSTSynthesizer(epsilon=2.0, delta=1e-6, categories={"sex": ["f", "m"]},
                         bins={"age": [18, 35, 60, 91]}, random_state=1, iters=50
                         ).fit(df).sample(random_state=2).implicates[0]
    assert out["age"].dtype == np.int64 and out["age"].between(18, 91).all()
