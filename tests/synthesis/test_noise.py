"""Kernel noise within n-tiles of a drawn column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from synthguard.synthesis.noise import KernelNoise


def test_kernel_noise_has_silverman_bandwidth_within_each_ntile() -> None:
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.normal(0, 1, 5000), rng.normal(100, 10, 5000), np.zeros(2000)])
    noisy = KernelNoise("x", ntiles=6, bandwidth=1.0).apply(v, np.random.default_rng(1))
    order = np.argsort(v, kind="stable")
    for g in np.array_split(order, 6):
        x, d = v[g], noisy[g] - v[g]
        if np.ptp(x) == 0:
            assert (d == 0).all()  # a point mass stays
            continue
        q75, q25 = np.percentile(x, [75, 25])
        h = 0.9 * min(np.std(x, ddof=1), (q75 - q25) / 1.34) * len(x) ** -0.2
        assert np.std(d) == pytest.approx(h, rel=0.06)


def test_noise_in_the_synthesizer_is_seeded_and_recorded() -> None:
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 500), "x": rng.normal(50, 5, 500)})
    kw = dict(noise={"x": {"kind": "kernel", "ntiles": 5}}, random_state=3, extremes=0)
    a = Synthesizer(**kw).fit(df).sample()
    b = Synthesizer(**kw).fit(df).sample()
    pd.testing.assert_frame_equal(a.implicates[0], b.implicates[0])
    plain = Synthesizer(random_state=3, extremes=0).fit(df).sample().implicates[0]
    # the same draw, moved by noise of about a within-quintile Silverman bandwidth
    pd.testing.assert_series_equal(plain["g"], a.implicates[0]["g"])
    moved = (a.implicates[0]["x"] - plain["x"]).to_numpy()
    assert (moved != 0).all() and 0.1 < np.std(moved) < 2.0
    assert a.provenance["noise"] == {"x": {"kind": "kernel", "ntiles": 5, "bandwidth": 1.0}}


@pytest.mark.parametrize(
    ("noise", "match"),
    [({"g": "kernel"}, "numeric"), ({"x": "laplace"}, "kind 'kernel'"),
     ({"x": {"kind": "kernel", "ntiles": 0}}, "ntiles"), ("kernel", "mapping")],
)
def test_bad_noise_is_named(noise, match) -> None:
    df = pd.DataFrame({"g": ["a", "b"] * 30, "x": np.arange(60.0) % 7 + 0.5})
    with pytest.raises(ParameterError, match=match):
        Synthesizer(noise=noise).fit(df)
