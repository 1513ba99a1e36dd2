"""k-way identification risk (Hu, Savitsky & Williams, section 3.2) against a brute-force
enumeration of every k-tuple, and order 2 against the pairwise risk."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DisclosureWarning, ParameterError
from synthguard.risk import multiway_identification_risk, pairwise_identification_risk


def _in_ball(y: np.ndarray, centre: np.ndarray, r: float) -> np.ndarray:
    """Rows of y inside the open relative ball around centre (every target)."""
    lo = np.minimum(centre * (1 - r), centre * (1 + r))
    hi = np.maximum(centre * (1 - r), centre * (1 + r))
    return ((y > lo) & (y < hi)).all(axis=1)


def _brute(conf: pd.DataFrame, keys: list[str], targets: list[str], k: int, r: float) -> np.ndarray:
    y = conf[targets].to_numpy(float)
    out = np.full(len(conf), np.nan)
    for _, idx in conf.groupby(keys, sort=False).indices.items():
        m = len(idx)
        if m < k:
            continue
        inside = np.array([_in_ball(y[idx], y[i], r) for i in idx])  # inside[t, h]
        for a, i in enumerate(idx):
            others = [b for b in range(m) if b != a]
            vals = []
            for rest in itertools.combinations(others, k - 1):
                union = inside[[a, *rest]].any(axis=0)
                vals.append((~union).sum() / m)
            out[i] = np.mean(vals)
    return out


@pytest.mark.parametrize("n_targets", [1, 2, 3])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_equals_brute_force(n_targets: int, k: int) -> None:
    rng = np.random.default_rng(10 * k + n_targets)
    n = 60
    conf = pd.DataFrame({
        "a": rng.integers(0, 2, n),
        "b": rng.integers(0, 3, n),
    })
    targets = [f"y{t}" for t in range(n_targets)]
    for t in targets:
        conf[t] = rng.lognormal(3, 0.4, n)  # no value on another's ball boundary
    res = multiway_identification_risk(conf, keys=["a", "b"], targets=targets, order=k,
                                       radius=0.15, singletons="exclude")
    ref = _brute(conf, ["a", "b"], targets, k, 0.15)
    np.testing.assert_allclose(res.per_record, ref, rtol=1e-12, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(res.weights, 1 - ref, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert res.order == k
    assert res.n_singletons == int(np.isnan(ref).sum())


def test_order_two_is_the_pairwise_risk() -> None:
    rng = np.random.default_rng(3)
    conf = pd.DataFrame({"g": rng.integers(0, 4, 300), "x": rng.gamma(2, 10, 300)})
    pw = pairwise_identification_risk(conf, keys=["g"], targets="x", singletons="zero")
    mw = multiway_identification_risk(conf, keys=["g"], targets="x", order=2, singletons="zero")
    np.testing.assert_allclose(mw.per_record, pw.per_record, rtol=1e-12)


def test_short_patterns_follow_the_singleton_policy() -> None:
    conf = pd.DataFrame({"g": [1, 1, 2, 2, 2], "x": [1.0, 5.0, 1.0, 5.0, 9.0]})
    res = multiway_identification_risk(conf, keys=["g"], targets="x", order=3, singletons="one")
    assert res.per_record[:2].tolist() == [1.0, 1.0]  # two records: no triple holds them
    assert res.n_singletons == 2
    with pytest.warns(DisclosureWarning, match="3-way identification risk: 2 of 5"):
        multiway_identification_risk(conf, keys=["g"], targets="x", order=3)
    assert "3-way identification risk" in res.summary()


@pytest.mark.parametrize("order", [1, 2.5, True, "3"])
def test_bad_order_is_refused(order: object) -> None:
    conf = pd.DataFrame({"g": [1, 1, 1], "x": [1.0, 2.0, 3.0]})
    with pytest.raises(ParameterError, match="'order'"):
        multiway_identification_risk(conf, keys=["g"], targets="x", order=order)  # type: ignore[arg-type]
