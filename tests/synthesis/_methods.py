"""Tiny per-variable methods registered for the synthesizer's tests (independent of the
built-in methods, so these tests check the synthesizer alone)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from synthguard.synthesis import SynthesisMethod, check_weights, register_method


@register_method("test_marginal")
class MarginalMethod(SynthesisMethod):
    """Draw from the confidential marginal of y, ignoring X (no weights)."""

    def fit(self, X, y, weights=None):
        check_weights(self.name, weights, len(y), self.supports_weights)
        self.y_ = np.asarray(y).copy()
        return self

    def draw(self, X, rng):
        return rng.choice(self.y_, size=len(X))


@register_method("test_weights")
class WeightRecorder(SynthesisMethod):
    """Records every fit's weights and X in a class-level log; draws the weighted marginal."""

    supports_weights = True
    log: ClassVar[list[dict]] = []

    def fit(self, X, y, weights=None):
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        WeightRecorder.log.append({"weights": None if w is None else w.copy(), "X": X.copy(),
                                   "y": np.asarray(y).copy()})
        self.y_ = np.asarray(y).copy()
        self.p_ = None if w is None else w / w.sum()
        return self

    def draw(self, X, rng):
        return rng.choice(self.y_, size=len(X), p=self.p_)


@register_method("test_copy_x")
class CopyFirstPredictor(SynthesisMethod):
    """Numeric target = first design column of X: shows what the draw was predicted from."""

    target_kinds = frozenset({"numeric"})

    def __init__(self, *, shift: float = 0.0) -> None:
        self.shift = shift

    def fit(self, X, y, weights=None):
        self.fit_X_ = X.copy()
        return self

    def draw(self, X, rng):
        return X[:, 0] + self.shift


@register_method("test_leafy")
class LeafyMethod(MarginalMethod):
    """Marginal draw that reports fixed leaf diagnostics, as a tree method would."""

    def leaf_diagnostics(self):
        return {"n_leaves": 2, "n_homogeneous_leaves": 1, "n_records_homogeneous": 3,
                "n_records": len(self.y_)}


@register_method("test_float32")
class Float32Recorder(MarginalMethod):
    """Declares float32 designs (as tree methods may) and records what it was given."""

    design_dtype = np.float32
    seen: ClassVar[list[np.ndarray]] = []

    def fit(self, X, y, weights=None):
        Float32Recorder.seen.append(X)
        return super().fit(X, y, weights)

    def draw(self, X, rng):
        Float32Recorder.seen.append(X)
        return super().draw(X, rng)
