"""``pmm``: predictive mean matching, so only observed values are released."""

from __future__ import annotations

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.norm import NormMethod
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["PMMMethod"]


@register_method("pmm")
class PMMMethod(SynthesisMethod):
    """Predictive mean matching: a confidential value whose prediction is close to the new one.

    A linear regression ``y = b0 + X b + e`` is fitted by least squares
    (:class:`~synthguard.synthesis.methods.norm.NormMethod`), giving predictions
    ``yhat_i = b0 + x_i' b`` for the confidential records. For a synthetic record with
    predictors ``x*``, its prediction ``yhat* = b0* + x*' b*`` is matched to the ``donors``
    confidential records whose ``yhat_i`` are closest (all records tied at the ``donors``-th
    distance join the pool), and the synthetic value is the observed ``y`` of one of them,
    drawn uniformly (Little 1988;
    van Buuren 2018, sec. 3.4; synthpop's ``syn.pmm`` with its default of 3 donors). Only
    observed values are released, so the marginal keeps its shape, bounds and heaps.

    With ``proper=True`` the coefficients ``b*`` of the new predictions are drawn from their
    posterior at every call (as in ``norm``; synthpop's type 1 matching), while the donors'
    predictions use the least-squares ``b``.

    Parameters
    ----------
    donors : int, default 3
        Size of the donor pool.
    proper : bool, default False
        Draw the coefficients of the new predictions from their posterior at every call.

    Attributes
    ----------
    norm_ : NormMethod
        The fitted regression.
    values_ : ndarray
        The confidential values, ordered by their predictions (confidential).

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import PMMMethod
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 1))
    >>> y = np.round(3 * x[:, 0] + rng.normal(size=200))
    >>> out = PMMMethod().fit(x, y).draw(rng.normal(size=(50, 1)), rng)
    >>> bool(np.isin(out, y).all())
    True
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = False

    def __init__(self, *, donors: int = 3, proper: bool = False) -> None:
        self.donors = donors
        self.proper = proper

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> PMMMethod:
        """Fit the regression; order the confidential values by their predictions."""
        if isinstance(self.donors, bool) or not isinstance(self.donors, int | np.integer) or (
            self.donors < 1
        ):
            raise MethodError(f"method '{self.name}': option 'donors' must be a positive integer")
        X, y, _ = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        try:
            self.norm_ = NormMethod(proper=self.proper).fit(X, y)
        except MethodError as exc:
            raise MethodError(f"method '{self.name}' (its regression): {exc}") from None
        yhat = self.norm_.coef_[0] + X @ self.norm_.coef_[1:]
        order = np.argsort(yhat, kind="stable")
        self.yhat_ = yhat[order]
        self.values_ = y[order].copy()
        self.n_predictors_ = X.shape[1]
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Match each row's prediction to its ``donors`` nearest confidential predictions."""
        self._check_fitted("norm_")
        X = _check_draw_data(self, X, self.n_predictors_)
        rng = check_random_state(rng)
        coef = self.norm_.coef_
        if self.proper:
            sigma = float(np.sqrt(self.norm_.rss_ / rng.chisquare(self.norm_.df_resid_)))
            cov_root = self.norm_.cov_root_
            coef = coef + sigma * (cov_root @ rng.standard_normal(cov_root.shape[1]))
        pred = coef[0] + X @ coef[1:]
        n, k = len(self.yhat_), min(int(self.donors), len(self.yhat_))
        if len(pred) == 0:
            return np.empty(0)
        # the k nearest of the sorted predictions lie among the k on each side of the
        # insertion point: the k-th smallest distance d_k is read from that window of 2k
        pos = np.searchsorted(self.yhat_, pred)
        width = min(2 * k, n)
        lo = np.clip(pos - k, 0, n - width)
        window = lo[:, None] + np.arange(width)[None, :]
        d_k = np.sort(np.abs(self.yhat_[window] - pred[:, None]), axis=1)[:, k - 1]
        # the pool: every record within d_k (ties at d_k join it), a contiguous run
        tol = 1e-12 * np.maximum(1.0, np.abs(pred))
        first = np.searchsorted(self.yhat_, pred - d_k - tol, side="left")
        stop = np.maximum(np.searchsorted(self.yhat_, pred + d_k + tol, side="right"), first + 1)
        pick = first + np.floor(rng.random(len(pred)) * (stop - first)).astype(np.int64)
        return self.values_[np.minimum(pick, n - 1)].astype(np.float64)
