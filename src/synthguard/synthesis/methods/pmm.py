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

    **Weights** (``fit(X, y, weights)``) are frequency-like likelihood weights: ``b`` is the
    weighted least-squares fit ``argmin sum_i w_i (y_i - b0 - x_i' b)^2``; the pool is the
    nearest donors whose weights add up to at least ``donors`` (all tied at that distance
    join), and a donor is drawn with probability proportional to its weight. A record of
    weight 0 is never a donor, and integer weights act as that many copies of the record
    (the same pool and draw probabilities as on the duplicated data). With ``proper=True``
    the posterior uses ``sum(w) - rank`` residual degrees of freedom, as for copies.

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
    supports_weights = True

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
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        if w is not None and np.all(w == w[0]) and w[0] > 0:
            w = None  # equal weights: the unweighted fit and draw
        if w is not None:
            keep = w > 0
            if not keep.any():
                raise MethodError(f"method '{self.name}': every weight is 0; no donor is left")
            X, y, w = X[keep], y[keep], w[keep]
        try:
            self.norm_ = (NormMethod(proper=self.proper).fit(X, y) if w is None
                          else _weighted_norm(X, y, w, self.proper))
        except MethodError as exc:
            raise MethodError(f"method '{self.name}' (its regression): {exc}") from None
        yhat = self.norm_.coef_[0] + X @ self.norm_.coef_[1:]
        order = np.argsort(yhat, kind="stable")
        self.yhat_ = yhat[order]
        self.values_ = y[order].copy()
        # cumulative donor weights in prediction order (None: unweighted)
        self.cum_weight_ = None if w is None else np.cumsum(w[order])
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
        cw = getattr(self, "cum_weight_", None)
        if cw is not None:
            first, stop = _weighted_pools(self.yhat_, cw, pred, float(self.donors))
            # a donor with probability proportional to its weight: invert the cumulative weight
            before = np.where(first > 0, cw[np.maximum(first - 1, 0)], 0.0)
            target = before + rng.random(len(pred)) * (cw[stop - 1] - before)
            pick = np.clip(np.searchsorted(cw, target, side="right"), first, stop - 1)
            return self.values_[pick].astype(np.float64)
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


def _weighted_pools(yhat: np.ndarray, cum_weight: np.ndarray, pred: np.ndarray, k: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per prediction, the run ``[first, stop)`` of sorted ``yhat`` within ``d_k`` of it,
    ``d_k`` the smallest distance whose run holds donor weight ``>= k`` (or all donors).

    The run's weight ``W(d)`` is a non-decreasing step function of ``d``; ``d_k`` is found by
    bisection (60 halvings of ``[0, max distance]``, vectorised over the predictions), and
    values within a relative ``1e-12`` of the bound join the pool, as ties do unweighted.
    """
    total = cum_weight[-1]
    k = min(k, total)

    def run(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tol = 1e-12 * np.maximum(1.0, np.abs(pred))
        first = np.searchsorted(yhat, pred - d - tol, side="left")
        stop = np.searchsorted(yhat, pred + d + tol, side="right")
        return first, stop

    def weight(first: np.ndarray, stop: np.ndarray) -> np.ndarray:
        hi = np.where(stop > 0, cum_weight[np.maximum(stop - 1, 0)], 0.0)
        lo = np.where(first > 0, cum_weight[np.maximum(first - 1, 0)], 0.0)
        return hi - lo

    lo = np.zeros(len(pred))
    hi = np.maximum(np.abs(pred - yhat[0]), np.abs(pred - yhat[-1]))
    done = weight(*run(lo)) >= k * (1 - 1e-12)
    hi[done] = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        ok = weight(*run(mid)) >= k * (1 - 1e-12)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    first, stop = run(hi)
    return first, np.maximum(stop, first + 1)


def _weighted_norm(X: np.ndarray, y: np.ndarray, w: np.ndarray, proper: bool) -> NormMethod:
    """A fitted :class:`NormMethod` holding the weighted least-squares fit: ``coef_``,
    ``rss_ = sum w r^2``, ``df_resid_ = sum(w) - rank`` and ``cov_root_`` with
    ``cov_root_ cov_root_' = (D'WD)^+`` (from the SVD of ``W^(1/2) D``, ``D = [1, X]``), as
    the unweighted fit on records copied ``w`` times would give for integer ``w``."""
    D = np.column_stack([np.ones(len(y)), X])
    sw = np.sqrt(w)
    u, sv, vt = np.linalg.svd(D * sw[:, None], full_matrices=False)
    rank = int(np.sum(sv > sv[0] * max(D.shape) * np.finfo(float).eps)) if len(sv) else 0
    coef = vt[:rank].T @ ((u[:, :rank].T @ (sw * y)) / sv[:rank])
    resid = y - D @ coef
    rss = float(w @ (resid * resid))
    df = float(w.sum()) - rank
    if df <= 0:
        raise MethodError(
            f"method 'norm': the weights add up to too little for a regression of rank {rank} "
            "with a residual variance; use 'sample' or 'cart', or fewer predictors"
        )
    norm = NormMethod(proper=proper)
    norm.coef_, norm.rss_, norm.rank_ = coef, rss, rank
    norm.df_resid_ = df  # type: ignore[assignment]  # sum of weights: not always whole
    norm.sigma_ = float(np.sqrt(rss / df))
    norm.cov_root_ = vt[:rank].T / sv[:rank]
    norm.se_ = norm.sigma_ * np.sqrt(np.sum(norm.cov_root_**2, axis=1))
    norm.n_predictors_ = X.shape[1]
    return norm
