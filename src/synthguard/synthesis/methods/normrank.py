"""``normrank``: ``norm`` on normal scores, mapped back to the observed marginal."""

from __future__ import annotations

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.norm import NormMethod, decimal_places
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["NormRankMethod"]

# Blom's (1958) plotting position: the i-th of n normal scores is Phi^{-1}((i - a) / (n + 1 - 2a)).
_BLOM_A = 3.0 / 8.0


def _average_ranks(y: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``y``, ties sharing the average of their ranks (R's ``rank`` default)."""
    order = np.argsort(y, kind="stable")
    s = y[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    end = np.r_[start[1:], len(s)]  # one past the last of each tie group
    ranks = np.empty(len(y))
    ranks[order] = np.repeat((start + 1 + end) / 2.0, end - start)
    return ranks


def _normal_scores(y: np.ndarray) -> np.ndarray:
    """Blom normal scores ``Phi^{-1}((r - 3/8) / (n + 1/4))`` of ``y``, ``r`` its average ranks."""
    from scipy.special import ndtri  # on first use: importing the method stays light

    n = len(y)
    return np.asarray(ndtri((_average_ranks(y) - _BLOM_A) / (n + 1.0 - 2.0 * _BLOM_A)))


@register_method("normrank")
class NormRankMethod(SynthesisMethod):
    """Linear regression on normal scores of the target, mapped back to its observed marginal.

    For skewed numeric variables (income, expenditure) a Normal linear model fits badly on
    the original scale. ``normrank`` replaces the target by its normal scores
    ``z_i = Phi^{-1}((r_i - 3/8) / (n + 1/4))`` (Blom 1958; ``r_i`` the rank of ``y_i``,
    ties getting their average rank), fits :class:`~synthguard.synthesis.methods.norm.NormMethod`
    to ``z``, draws synthetic scores ``z*`` from it, and maps each back through the
    inverse of the same plotting position: ``u = Phi(z*)`` gives the fractional order
    position ``r* = u (n + 1/4) + 3/8``, clipped to ``[1, n]``, and the synthetic value is the
    observed order statistic there, interpolated linearly between neighbours. Synthetic
    values therefore keep the observed marginal's shape and never leave the observed
    range ``[min y, max y]``. This is the idea of synthpop's ``syn.normrank`` (Nowok, Raab &
    Dibben 2016), with Blom's positions so that the forward and backward maps are inverses.
    An interpolated value is rounded to the data's precision (the most decimal places a
    confidential value has, at most 8; synthpop rounds its draws to ``decimalplaces``), so a
    whole-number column stays whole; the observed minimum and maximum are on that grid, so
    rounding never leaves the observed range.

    Parameters
    ----------
    proper : bool, default False
        Passed to the inner ``norm`` model: draw its coefficients and variance from their
        posterior at every call.

    Attributes
    ----------
    norm_ : NormMethod
        The regression fitted to the normal scores.
    sorted_values_ : ndarray
        The sorted confidential values (confidential: a fitted method holds real data).
    decimals_ : int or None
        Decimal places draws are rounded to (None: not rounded).

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import NormRankMethod
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 1))
    >>> y = np.exp(x[:, 0] + rng.normal(size=200))
    >>> out = NormRankMethod().fit(x, y).draw(x, rng)
    >>> bool(y.min() <= out.min() and out.max() <= y.max())
    True
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = False

    def __init__(self, *, proper: bool = False) -> None:
        self.proper = proper

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> NormRankMethod:
        """Fit ``norm`` to the normal scores of ``y``."""
        X, y, _ = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        try:
            self.norm_ = NormMethod(proper=self.proper).fit(X, _normal_scores(y))
        except MethodError as exc:
            raise MethodError(f"method '{self.name}' (its inner regression): {exc}") from None
        self.sorted_values_ = np.sort(y)
        self.decimals_ = decimal_places(y)
        self.n_predictors_ = X.shape[1]
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw normal scores from the regression and map them to observed quantiles."""
        self._check_fitted("norm_")
        X = _check_draw_data(self, X, self.n_predictors_)
        rng = check_random_state(rng)
        z = self.norm_.draw_unrounded(X, rng)
        n = len(self.sorted_values_)
        from scipy.special import ndtr

        position = np.clip(ndtr(z) * (n + 1.0 - 2.0 * _BLOM_A) + _BLOM_A, 1.0, float(n)) - 1.0
        out = np.interp(position, np.arange(n, dtype=float), self.sorted_values_)
        decimals = getattr(self, "decimals_", None)  # None too for a model saved before it
        return out if decimals is None else np.round(out, decimals)
