"""AIM's numpy mirror descent gives mbi's MirrorDescent model on the same measurements."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from synthguard.dp.synthesizers._mirror_descent import mirror_descent
from synthguard.dp.synthesizers.mst import _mbi


def test_numpy_mirror_descent_equals_mbi_and_warm_starts_exactly():
    mbi = _mbi()
    rng = np.random.default_rng(3)
    cols = ("a", "b", "c", "d")
    dom = mbi.Domain(cols, (2, 3, 2, 3))
    meas = [mbi.LinearMeasurement(rng.gamma(2, 50, dom.size((c,))), (c,), stddev=5.0)
            for c in cols]
    for u, v in [("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")]:  # a cycle: a 3-way clique
        meas.append(mbi.LinearMeasurement(rng.gamma(0.5, 80, dom.size((u, v))), (u, v),
                                          stddev=2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = mbi.marginal_loss.from_linear_measurements(meas, dom)
        total = max(1.0, float(mbi.estimation.minimum_variance_unbiased_total(meas)))
        step = 2.0 / (float(loss.lipschitz) * total)
        ref = mbi.estimation.MirrorDescent(stepsize=step).estimate(
            dom, loss, known_total=total, iters=200)
    got, theta = mirror_descent(mbi, dom, meas, None, 200)
    assert float(got.total) == pytest.approx(total)
    for cl in [("a", "b"), ("c", "d"), ("b", "c"), ("a", "c")]:
        want = np.asarray(ref.marginals.project(cl).datavector(), dtype=float)
        have = np.asarray(got.marginals.project(cl).datavector(), dtype=float)
        np.testing.assert_allclose(have, want, atol=1e-3 * total)  # mbi runs in float32
    # 80 + 120 warm-started iterations are the same 200 iterations
    _, warm = mirror_descent(mbi, dom, meas, None, 80)
    again, _ = mirror_descent(mbi, dom, meas, warm, 120)
    for c in theta:
        np.testing.assert_allclose(np.asarray(again.potentials[c].values),
                                   np.asarray(got.potentials[c].values), rtol=1e-6, atol=1e-6)
