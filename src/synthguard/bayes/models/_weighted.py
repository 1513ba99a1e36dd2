"""Shared plumbing of the weighted (pseudo-posterior) models.

Every model here targets the pseudo posterior of Hu, Savitsky & Williams, eq. (4),

    p_w(theta | y, X) ∝ [ prod_i p(y_i | x_i, theta) ** w_i ] p(theta),

where ``w_i`` in ``[0, inf)`` is a risk weight (alpha_i in [0, 1]), a survey weight
normalised to sum to n (Savitsky & Toth 2016) or their product. A weight of 0 removes
record i; an integer weight k counts it k times.

Models work on a standardised scale: predictors and outcome are centred and scaled by
their *weighted* means and standard deviations (weights normalised by their sum), and
an intercept column is added, so the default priors are weakly informative whatever the
units. Because the standardisation uses the weights, a zero weight removes a record
exactly and an integer weight is the same as duplicating the record.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from synthguard._random import RandomState, check_random_state
from synthguard.errors import DataError, MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights

__all__ = ["Standardizer", "StoredDrawsMethod", "check_hyper", "prepare"]


def prepare(
    method: str, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate ``X``, ``y`` and ``weights``; return float64 copies with weights (ones if None)."""
    Xa = np.asarray(X, dtype=float)
    if Xa.ndim == 1:
        Xa = Xa[:, None]
    ya = np.asarray(y, dtype=float).ravel()
    if Xa.ndim != 2 or Xa.shape[0] != ya.shape[0]:
        raise DataError(
            f"method '{method}': X must be 2-D with one row per value of y "
            f"(got X shape {Xa.shape} and {ya.shape[0]} values of y)"
        )
    if ya.size == 0:
        raise DataError(f"method '{method}': no records to fit; pass at least one row")
    if not (np.all(np.isfinite(Xa)) and np.all(np.isfinite(ya))):
        raise DataError(
            f"method '{method}': X and y must be finite (no missing or infinite values); "
            "the synthesizer hands methods complete data"
        )
    w = check_weights(method, weights, ya.size, True)
    w = np.ones(ya.size) if w is None else w
    if not w.sum() > 0:
        raise MethodError(
            f"method '{method}': the weights sum to zero, so no record informs the model; "
            "give at least one record a positive weight"
        )
    return Xa, ya, w


def check_hyper(method: str, **values: float) -> None:
    """Raise :class:`MethodError` unless every named hyper-parameter is finite and positive."""
    bad = [k for k, v in values.items() if not (np.isfinite(v) and v > 0)]
    if bad:
        raise MethodError(
            f"method '{method}': hyper-parameter(s) {', '.join(bad)} must be finite and positive"
        )


@dataclass(frozen=True)
class Standardizer:
    """Weighted centring and scaling of predictors (and optionally the outcome).

    ``transform(X)`` returns ``[1, (X - x_center) / x_scale]``; constant columns keep
    scale 1, and so do 0/1 columns with ``scale_binary=False`` (a rare dummy divided by its
    small standard deviation would turn a unit prior into a very vague one). With ``standardize=False`` the centres are 0 and the scales 1 (raw scale).
    """

    x_center: np.ndarray
    x_scale: np.ndarray
    y_center: float
    y_scale: float

    @classmethod
    def fit(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        w: np.ndarray,
        *,
        standardize: bool,
        scale_y: bool = True,
        scale_binary: bool = True,
    ) -> Standardizer:
        p = X.shape[1]
        if not standardize:
            return cls(np.zeros(p), np.ones(p), 0.0, 1.0)
        wn = w / w.sum()
        xc = wn @ X if p else np.zeros(0)
        xs = np.sqrt(wn @ (X - xc) ** 2) if p else np.zeros(0)
        xs = np.where(xs > 0, xs, 1.0)
        if not scale_binary and p:
            binary = np.all((X == 0) | (X == 1), axis=0)
            xs = np.where(binary, 1.0, xs)
        if scale_y:
            yc = float(wn @ y)
            ys = float(np.sqrt(wn @ (y - yc) ** 2))
            ys = ys if ys > 0 else 1.0
        else:
            yc, ys = 0.0, 1.0
        return cls(xc, xs, yc, ys)

    def transform(self, X: np.ndarray) -> np.ndarray:
        Xa = np.asarray(X, dtype=float)
        if Xa.ndim == 1:
            Xa = Xa[:, None]
        if Xa.shape[1] != self.x_center.size:
            raise DataError(
                f"expected {self.x_center.size} predictor columns, got {Xa.shape[1]}; "
                "draw with the same predictors the method was fitted on"
            )
        out = np.empty((Xa.shape[0], Xa.shape[1] + 1))
        out[:, 0] = 1.0
        out[:, 1:] = (Xa - self.x_center) / self.x_scale
        return out

    def scale_y(self, y: np.ndarray) -> np.ndarray:
        return (y - self.y_center) / self.y_scale

    def unscale_y(self, z: np.ndarray) -> np.ndarray:
        return self.y_center + self.y_scale * z


def _side_stream(rng: np.random.Generator) -> np.random.Generator:
    """A generator derived from ``rng`` without advancing it (so the caller's draws do not
    depend on whether a chain ran first): the bit generator jumped far ahead, or a spawned
    child when the bit generator cannot jump."""
    bg = rng.bit_generator
    if hasattr(bg, "jumped"):
        return np.random.Generator(bg.jumped())
    return rng.spawn(1)[0]


class StoredDrawsMethod(SynthesisMethod):
    """Base of the MCMC models: keep posterior draws, give each implicate one of them.

    ``fit`` validates the data and runs the chain, from the method's own ``random_state``
    when it is set, else from the generator ``fit`` receives (the synthesizer passes each
    model its own child of the fit seed), else from fresh randomness. So the chain is fixed
    by the fit alone: a release depends on its recorded seeds only, not on which seeds were
    sampled before (the chain used to run at the first ``draw`` and be kept, so
    ``sample(random_state=3)`` changed with the seed sampled first).
    Each ``draw`` takes the kept draw at an index chosen by its own generator, so the same
    generator gives the same synthetic values (also on a second ``sample`` of the same fit)
    and implicates, which get independent generators, take independent draws from the
    posterior sample. (Two of L implicates share a parameter draw with probability about
    L^2 / (2 S) for S kept draws; that correlates them by about 1/S, which is negligible for
    the between-implicate variance of the combining rules.)
    """

    supports_weights = True
    random_state: RandomState
    draws_: dict[str, np.ndarray]

    @abstractmethod
    def _run_chain(self, rng: np.random.Generator) -> None:
        """Run the sampler; set ``draws_`` (a dict of arrays with the draws first) and
        ``diagnostics_``."""

    def _reset(self, rng: np.random.Generator | None = None) -> None:
        for attr in ("draws_", "diagnostics_"):
            if hasattr(self, attr):
                delattr(self, attr)
        if self.random_state is not None:
            chain_rng = check_random_state(self.random_state)
        else:
            chain_rng = check_random_state(rng)  # None: fresh randomness
        self._run_chain(chain_rng)

    def _ensure_chain(self, rng: np.random.Generator) -> None:
        self._check_fitted("data_")
        if not hasattr(self, "draws_"):
            # only a model fitted and saved before fit ran the chain gets here
            self._run_chain(_side_stream(rng))

    def _pick(self, rng: np.random.Generator) -> int:
        n_kept = len(next(iter(self.draws_.values())))
        return int(rng.integers(n_kept))
