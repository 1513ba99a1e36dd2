"""The fixed-Hessian refits of the permutation null give IRLS's maximum-likelihood fit."""

from __future__ import annotations

import numpy as np

from synthguard.utility._propensity import NullLogistic, fit_logistic, predict_logistic


def _design(n: int, rng: np.random.Generator) -> np.ndarray:
    blocks = [(rng.integers(0, 10, n)[:, None] == np.arange(1, 10)).astype(float)
              for _ in range(3)]  # one-hot, mostly zeros: held as CSR
    return np.column_stack([*blocks, rng.normal(size=n)])


def test_permuted_fits_equal_irls() -> None:
    rng = np.random.default_rng(3)
    X = _design(2000, rng)
    y = (rng.random(2000) < 0.5).astype(float)
    null = NullLogistic(X)
    assert null.sparse
    for _ in range(5):
        yp = y[rng.permutation(len(y))]
        want = predict_logistic(fit_logistic(X, yp), X)
        np.testing.assert_allclose(null.predict(yp), want, rtol=1e-7, atol=1e-10)


def test_weighted_and_dense_design_equal_irls() -> None:
    rng = np.random.default_rng(4)
    X = rng.normal(size=(1500, 4))  # dense
    y = (rng.random(1500) < 0.3).astype(float)
    sw = rng.uniform(0.5, 2.0, 1500)
    null = NullLogistic(X, sw)
    assert not null.sparse
    want = predict_logistic(fit_logistic(X, y, sample_weight=sw), X)
    np.testing.assert_allclose(null.predict(y), want, rtol=1e-7, atol=1e-10)


def test_separated_level_finishes_by_newton() -> None:
    rng = np.random.default_rng(5)
    X = _design(1000, rng)
    X = np.column_stack([X, np.zeros(1000)])
    X[:2, -1] = 1.0  # a level of two rows, both synthetic: its coefficient has no finite MLE
    y = (rng.random(1000) < 0.5).astype(float)
    y[:2] = 1.0
    null = NullLogistic(X)
    p = null.predict(y)
    assert null.newton_finishes == 1
    want = predict_logistic(fit_logistic(X, y), X)
    assert p[:2].min() > 0.999  # pushed to the label, as IRLS pushes it
    np.testing.assert_allclose(p[2:], want[2:], atol=1e-6)
