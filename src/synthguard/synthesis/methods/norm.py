"""``norm``: linear regression of the target on its predictors plus Normal noise."""

from __future__ import annotations

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["MAX_DECIMALS", "NormMethod", "decimal_places"]

#: most decimal places kept when rounding draws (beyond this, values are left as drawn)
MAX_DECIMALS = 8


def decimal_places(y: np.ndarray) -> int | None:
    """The most decimal places any value of ``y`` has (up to :data:`MAX_DECIMALS`), or None
    when some value has more (synthpop rounds to ``max(decimalplaces(y))``).

    A value ``v`` has at most ``d`` decimals when ``|v 10^d - round(v 10^d)| <= 1e-9
    max(1, |v 10^d|)`` (the tolerance absorbs the binary representation of, e.g., 0.1).
    Only the count leaves the data: no value is kept.
    """
    y = np.asarray(y, dtype=float)
    y = y[np.isfinite(y)]
    for d in range(MAX_DECIMALS + 1):
        scaled = y * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-9 * np.maximum(1.0, np.abs(scaled))):
            return d
    return None


def _least_squares(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Ordinary least squares of ``y`` on ``[1, X]`` by a QR then SVD of the centred design.

    Centring removes the intercept column and improves conditioning. One Householder QR of
    ``[Xc | yc]``, in place (``Q`` is never formed), gives ``R`` and ``Q'yc``; an SVD
    of the small ``p x p`` block ``R = U S V'`` reveals the rank ``r`` and gives the
    minimum-norm solution ``b = V_r S_r^{-1} U_r' Q'yc`` (Golub & Van Loan 2013, sec. 5.5).

    Returns
    -------
    coef : ndarray, shape (p + 1,)
        Intercept first, then slopes.
    cov_root : ndarray, shape (p + 1, 1 + r)
        ``L`` with ``L L' = (D'D)^+`` for the full design ``D = [1, X]``, so that
        ``Var(coef) = sigma^2 L L'``. Built from ``(Xc'Xc)^+ = Lc Lc'`` with
        ``Lc = V_r S_r^{-1}``: ``L = [[n^{-1/2}, -xbar' Lc], [0, Lc]]``.
    rank : int
        Rank of ``D`` (``1 + r``).
    rss : float
        Residual sum of squares.
    """
    n, p = X.shape
    ybar = float(y.mean())
    yc = y - ybar
    if p == 0:
        rss = float(yc @ yc)
        return np.array([ybar]), np.full((1, 1), 1.0 / np.sqrt(n)), 1, rss
    xbar = X.mean(axis=0)
    # One Fortran-ordered n x (p + 1) work array, overwritten by LAPACK: no other n-sized copy.
    work = np.empty((n, p + 1), order="F")
    np.subtract(X, xbar, out=work[:, :p])
    work[:, p] = yc
    # LAPACK's dgeqrf directly: scipy.linalg.qr copies the input even with overwrite_a.
    from scipy.linalg import get_lapack_funcs  # on first fit: a CLI run without norm skips it

    (geqrf,) = get_lapack_funcs(("geqrf",), (work,))
    qr, _, _, info = geqrf(work, lwork=64 * (p + 1), overwrite_a=1)
    if info != 0:  # pragma: no cover - only for invalid arguments
        raise MethodError(f"method 'norm': LAPACK geqrf failed (info={info})")
    r_aug = np.triu(qr[: p + 1])
    del work, qr
    m = min(r_aug.shape[0], p)
    r_x, qty = r_aug[:m, :p], r_aug[:m, p]
    u, s, vt = np.linalg.svd(r_x, full_matrices=False)
    tol = s[0] * max(n, p) * np.finfo(float).eps if s.size and s[0] > 0 else np.inf
    keep = s > tol
    lc = vt[keep].T / s[keep]  # p x r
    b = lc @ (u[:, keep].T @ qty)
    resid = X @ b
    resid -= float(xbar @ b)
    np.subtract(yc, resid, out=resid)
    rss = float(resid @ resid)
    r = int(keep.sum())
    cov_root = np.zeros((p + 1, 1 + r))
    cov_root[0, 0] = 1.0 / np.sqrt(n)
    cov_root[0, 1:] = -(xbar @ lc)
    cov_root[1:, 1:] = lc
    coef = np.concatenate([[ybar - xbar @ b], b])
    return coef, cov_root, 1 + r, rss


@register_method("norm")
class NormMethod(SynthesisMethod):
    """Linear regression of the target on its predictors, plus Normal noise.

    The model is ``y = b0 + X b + e``, ``e ~ N(0, sigma^2)``, fitted by least squares (the
    course's "method 2"; synthpop's ``syn.norm``). A synthetic value for predictors ``x*``
    is ``b0 + x*' b + sigma * z`` with ``z ~ N(0, 1)``, where ``sigma`` is the residual
    standard error ``sqrt(RSS / (n - k))`` and ``k`` the rank of the design ``[1, X]``.

    Draws are released at the data's precision, as synthpop's ``syn.norm`` rounds to the
    observed ``decimalplaces``: ``fit`` records the most decimal places a confidential value
    has (``decimals_``; only the count, no value) and ``draw`` rounds to it, so a column
    recorded in whole numbers comes back in whole numbers and one recorded in cents in cents.
    A column with more than :data:`MAX_DECIMALS` decimals is left as drawn.

    With ``proper=True`` every call of :meth:`draw` first draws the parameters from their
    posterior under the noninformative prior ``p(b, sigma^2) ∝ 1 / sigma^2``
    (Gelman et al. 2013, sec. 14.2):
    ``sigma*^2 = RSS / c`` with ``c ~ chi^2_{n-k}``, then
    ``b* ~ N(b_hat, sigma*^2 (D'D)^{-1})``, and uses ``(b*, sigma*)`` for that draw, so each
    implicate comes from its own posterior draw (Rubin 1987; Raghunathan, Reiter & Rubin
    2003).

    Parameters
    ----------
    proper : bool, default False
        Draw the coefficients and the variance from their posterior at every call.

    Attributes
    ----------
    coef_ : ndarray, shape (p + 1,)
        Least-squares coefficients, intercept first (as R's ``lm``). For a rank-deficient
        design, the minimum-norm solution (R would report the aliased ones as NA).
    se_ : ndarray, shape (p + 1,)
        Their standard errors ``sigma * sqrt(diag((D'D)^+))``.
    sigma_ : float
        Residual standard error.
    df_resid_ : int
        Residual degrees of freedom ``n - k``.
    rank_ : int
        Rank ``k`` of the design including the intercept.
    decimals_ : int or None
        Decimal places draws are rounded to (None: not rounded).

    Raises
    ------
    MethodError
        In ``fit``, when there are no residual degrees of freedom (``n <= k``): the noise
        scale cannot be estimated. Use ``sample`` or ``cart``, or fewer predictors.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import NormMethod
    >>> m = NormMethod().fit(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([1.0, 3.0, 4.0, 7.0]))
    >>> np.round(m.coef_, 4).tolist(), m.df_resid_
    ([0.9, 1.9], 2)
    >>> m.decimals_  # whole numbers in, whole numbers out
    0
    >>> m.draw(np.array([[10.0], [11.0]]), np.random.default_rng(1)).tolist()
    [20.0, 22.0]
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = False

    def __init__(self, *, proper: bool = False) -> None:
        self.proper = proper

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> NormMethod:
        """Least-squares fit of ``y`` on ``[1, X]``."""
        X, y, _ = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        coef, cov_root, rank, rss = _least_squares(X, y)
        df_resid = len(y) - rank
        if df_resid < 1:
            raise MethodError(
                f"method '{self.name}': {len(y)} record(s) cannot fit a regression of rank {rank} "
                "with a residual variance; use 'sample' or 'cart', or fewer predictors"
            )
        self.coef_ = coef
        self.rss_ = rss
        self.df_resid_ = df_resid
        self.rank_ = rank
        self.sigma_ = float(np.sqrt(rss / df_resid))
        self.cov_root_ = cov_root
        self.se_ = self.sigma_ * np.sqrt(np.sum(cov_root**2, axis=1))
        self.n_predictors_ = X.shape[1]
        self.decimals_ = decimal_places(y)
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``b0 + X b + sigma z`` for each row, with posterior draws of ``(b, sigma)`` if
        proper, rounded to the data's decimal places."""
        out = self.draw_unrounded(X, rng)
        decimals = getattr(self, "decimals_", None)  # None too for a model saved before it
        return out if decimals is None else np.round(out, decimals)

    def draw_unrounded(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """:meth:`draw` before rounding: ``b0 + X b + sigma z`` on the model's scale (what
        ``normrank`` and the transformed methods map back before they round)."""
        self._check_fitted("coef_")
        X = _check_draw_data(self, X, self.n_predictors_)
        rng = check_random_state(rng)
        coef, sigma = self.coef_, self.sigma_
        if self.proper:
            sigma = float(np.sqrt(self.rss_ / rng.chisquare(self.df_resid_)))
            coef = coef + sigma * (self.cov_root_ @ rng.standard_normal(self.cov_root_.shape[1]))
        mean = coef[0] + X @ coef[1:]
        return mean + sigma * rng.standard_normal(X.shape[0])
