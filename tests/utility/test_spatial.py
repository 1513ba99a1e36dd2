"""Ripley's K and L (the geocodes case study's spatial utility) against brute-force pair counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist, squareform

from synthguard.errors import DataError, ParameterError
from synthguard.utility import compare_ripley, ripley_k


def _brute(pts: np.ndarray, radii: np.ndarray, window: tuple[float, float, float, float],
           border: bool) -> np.ndarray:
    x0, x1, y0, y1 = window
    area = (x1 - x0) * (y1 - y0)
    d = squareform(pdist(pts))
    np.fill_diagonal(d, np.inf)
    n = len(pts)
    edge = np.minimum.reduce([pts[:, 0] - x0, x1 - pts[:, 0], pts[:, 1] - y0, y1 - pts[:, 1]])
    out = []
    for r in radii:
        rows = edge >= r if border else np.ones(n, bool)
        out.append(area * (d[rows] <= r).sum() / (rows.sum() * (n - 1)))
    return np.array(out)


@pytest.mark.parametrize("correction", ["none", "border"])
def test_k_and_l_equal_brute_force(correction: str) -> None:
    rng = np.random.default_rng(1)
    pts = np.vstack([rng.random((150, 2)) * [4.0, 2.0],
                     rng.normal([1.0, 1.0], 0.05, (50, 2))])  # a cluster
    radii = np.linspace(0.01, 0.5, 9)
    win = (-0.5, 4.5, -0.5, 2.5)
    k, l_fn = ripley_k(pts, radii, window=win, correction=correction)
    ref = _brute(pts, radii, win, correction == "border")
    np.testing.assert_allclose(k, ref, rtol=1e-12)
    np.testing.assert_allclose(l_fn, np.sqrt(ref / np.pi), rtol=1e-12)


def test_random_points_have_l_near_r_and_a_cluster_lifts_it() -> None:
    rng = np.random.default_rng(7)
    uniform = rng.random((3000, 2))
    radii = np.array([0.02, 0.05, 0.1])
    _, l_u = ripley_k(uniform, radii, window=(0, 1, 0, 1), correction="border")
    np.testing.assert_allclose(l_u, radii, rtol=0.06)  # complete spatial randomness: L(r) = r
    clustered = np.vstack([uniform[:2000], rng.normal(0.5, 0.02, (1000, 2))])
    _, l_c = ripley_k(clustered, radii, window=(0, 1, 0, 1), correction="border")
    assert np.all(l_c > 1.5 * radii)


def test_compare_ripley_sees_lost_clustering() -> None:
    rng = np.random.default_rng(3)
    towns = rng.random((8, 2))
    conf = pd.DataFrame(towns[rng.integers(0, 8, 600)] + rng.normal(0, 0.01, (600, 2)),
                        columns=["lon", "lat"])
    kept = conf + rng.normal(0, 0.005, conf.shape)           # the towns survive
    spread = pd.DataFrame(rng.random((600, 2)), columns=["lon", "lat"])  # they do not
    good = compare_ripley(conf, [kept, kept], x="lon", y="lat")
    bad = compare_ripley(conf, spread, x="lon", y="lat")
    assert good.max_l_diff < 0.2 * bad.max_l_diff
    assert compare_ripley(conf, conf, x="lon", y="lat").max_l_diff == 0.0
    frame = good.to_frame()
    assert list(frame.columns) == ["radius", "L_conf", "L_implicate_0", "L_implicate_1"]
    assert len(frame) == 20 and "Ripley's L" in good.summary()


def test_bad_input_is_named() -> None:
    conf = pd.DataFrame({"lon": [0.0, 1.0, np.nan], "lat": [0.0, 1.0, 2.0]})
    with pytest.raises(DataError, match="'lon' and 'lat' must be numeric and complete"):
        compare_ripley(conf, conf, x="lon", y="lat")
    with pytest.raises(DataError, match=r"coordinate column\(s\) \['east'\]"):
        compare_ripley(conf.dropna(), conf.dropna(), x="east", y="lat")
    with pytest.raises(ParameterError, match="'correction'"):
        ripley_k(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), [0.5], correction="ripley")
    with pytest.raises(ParameterError, match="'radii'"):
        ripley_k(np.array([[0.0, 0.0], [1.0, 1.0]]), [-1.0])
