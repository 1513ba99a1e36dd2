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
    got, theta = mirror_descent(mbi, dom, meas, None, 200, line_search=False)
    assert float(got.total) == pytest.approx(total)
    for cl in [("a", "b"), ("c", "d"), ("b", "c"), ("a", "c")]:
        want = np.asarray(ref.marginals.project(cl).datavector(), dtype=float)
        have = np.asarray(got.marginals.project(cl).datavector(), dtype=float)
        np.testing.assert_allclose(have, want, atol=1e-3 * total)  # mbi runs in float32
    # 80 + 120 warm-started iterations are the same 200 iterations
    _, warm = mirror_descent(mbi, dom, meas, None, 80, line_search=False)
    again, _ = mirror_descent(mbi, dom, meas, warm, 120, line_search=False)
    for c in theta:
        np.testing.assert_allclose(np.asarray(again.potentials[c].values),
                                   np.asarray(got.potentials[c].values), rtol=1e-6, atol=1e-6)


def test_line_search_converges_faster_to_mbis_optimum():
    mbi = _mbi()
    rng = np.random.default_rng(5)
    cols = ("a", "b", "c", "d", "e")
    dom = mbi.Domain(cols, (3, 4, 2, 5, 3))
    truth = rng.dirichlet(np.full(dom.size(), 0.3)).reshape(dom.shape) * 5000
    meas = []
    for cl in [("a",), ("b",), ("c",), ("d",), ("e",), ("a", "b"), ("b", "c"), ("c", "d"),
               ("a", "d"), ("d", "e")]:
        axes = tuple(i for i, c in enumerate(cols) if c not in cl)
        y = truth.sum(axis=axes).ravel() + rng.normal(0, 20.0, dom.size(cl))
        meas.append(mbi.LinearMeasurement(y, cl, stddev=20.0))

    def loss(model) -> float:
        return sum(0.5 * float(np.sum(((np.asarray(model.project(m.clique).datavector(),
                                                   dtype=float) - m.noisy_measurement)
                                       / m.stddev) ** 2)) for m in meas)

    fixed, _ = mirror_descent(mbi, dom, meas, None, 150, line_search=False)
    armijo, _ = mirror_descent(mbi, dom, meas, None, 150)
    optimum, _ = mirror_descent(mbi, dom, meas, None, 1000)
    # the fixed step is far from the optimum after 150 steps, the line search close to it
    gap_fixed, gap_armijo = loss(fixed) - loss(optimum), loss(armijo) - loss(optimum)
    assert gap_armijo >= -1e-6 * loss(optimum) and gap_armijo < 0.2 * gap_fixed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        total = float(mbi.estimation.minimum_variance_unbiased_total(meas))
        ref = mbi.estimation.MirrorDescent().estimate(  # mbi's default: Armijo
            dom, mbi.marginal_loss.from_linear_measurements(meas, dom), known_total=total,
            iters=1000)
    for cl in [("a", "b"), ("a", "d"), ("d", "e")]:
        np.testing.assert_allclose(np.asarray(optimum.project(cl).datavector(), dtype=float),
                                   np.asarray(ref.project(cl).datavector(), dtype=float),
                                   atol=2e-3 * 5000)


def test_a_deadline_stops_the_refit_after_the_last_step_begun_in_time():
    mbi = _mbi()
    rng = np.random.default_rng(4)
    dom = mbi.Domain(("a", "b", "c"), (2, 3, 2))
    meas = [mbi.LinearMeasurement(rng.gamma(2, 50, dom.size(cl)), cl, stddev=3.0)
            for cl in [("a",), ("b",), ("c",), ("a", "b"), ("b", "c")]]

    class Readings:  # the clock reads 1, 2, 3, ...: the refit reads it before every step
        now = 0.0

        def __call__(self) -> float:
            self.now += 1.0
            return self.now

    _, cut = mirror_descent(mbi, dom, meas, None, 50, deadline=4.0, clock=Readings())
    _, three = mirror_descent(mbi, dom, meas, None, 3)   # steps begun at 1, 2 and 3
    for c in three:
        np.testing.assert_array_equal(cut[c], three[c])
    # past the deadline already: no step, the (warm) start comes back as a model
    model, none = mirror_descent(mbi, dom, meas, three, 50, deadline=0.0, clock=Readings())
    for c in three:
        np.testing.assert_array_equal(none[c], three[c])
    assert float(model.total) > 0
