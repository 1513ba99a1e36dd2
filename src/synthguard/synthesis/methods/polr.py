"""``polr``: proportional-odds (ordered logistic) regression for ordered categories."""

from __future__ import annotations

import functools
import warnings

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["PolrMethod"]


@register_method("polr")
class PolrMethod(SynthesisMethod):
    """Ordered logistic regression of an ordered category on its predictors.

    The proportional-odds model (McCullagh 1980) for a target with ordered levels
    ``1 < ... < K``:

        P(y <= j | x) = F(t_j - x' b),   F(u) = 1 / (1 + exp(-u)),   t_1 < ... < t_{K-1},

    fitted by maximum likelihood with statsmodels' ``OrderedModel`` (``distr="logit"``, BFGS),
    as synthpop's ``syn.polr`` fits R's ``MASS::polr``. A synthetic value for ``x*`` is drawn
    from ``P(y = j | x*) = F(t_j - x*' b) - F(t_{j-1} - x*' b)``: the draw is the number of
    cumulative probabilities below one uniform ``u``, so a larger ``x*' b`` gives a
    stochastically larger category. Only levels observed in the fitting data are drawn (the
    model is fitted on them, in their order).

    The target's codes are taken as its order (an ``ordinal`` column's declared levels; for
    other categorical columns, the order of their levels).

    **Weights** (``fit(X, y, weights)``): the weighted log-likelihood
    ``sum_i w_i log P(y_i | x_i)`` is maximised (statsmodels' ``OrderedModel`` with each
    record's log-likelihood multiplied by its weight), so integer weights fit as that many
    copies of the record and a record of weight 0 is left out (a level held only by such
    records is never drawn).

    With ``proper=True`` every draw first draws ``(t, b)`` from their asymptotic posterior
    ``N(theta_hat, H^{-1})`` (the thresholds on statsmodels' increasing parametrisation, so
    they stay ordered); synthpop bootstraps the records instead.

    Parameters
    ----------
    proper : bool, default False
        Draw the parameters from their approximate posterior at every call.
    maxiter : int, default 200
        Most BFGS iterations.

    Attributes
    ----------
    coef_ : ndarray
        The slopes ``b``.
    thresholds_ : ndarray
        The cut points ``t_1 < ... < t_{K-1}``.
    levels_ : ndarray
        The observed codes, in order.

    Raises
    ------
    MethodError
        When the optimiser fails (a target with one observed level draws that level).

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import PolrMethod
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(400, 1))
    >>> y = np.digitize(2 * x[:, 0] + rng.logistic(size=400), [-1.0, 1.0])
    >>> m = PolrMethod().fit(x, y)
    >>> round(float(m.coef_[0]), 0), np.round(m.thresholds_, 0).tolist()
    (2.0, [-1.0, 1.0])
    """

    target_kinds = frozenset({"categorical"})
    supports_weights = True

    def __init__(self, *, proper: bool = False, maxiter: int = 200) -> None:
        self.proper = proper
        self.maxiter = maxiter

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> PolrMethod:
        """Fit the proportional-odds model on the observed levels of ``y``."""
        from statsmodels.miscmodels.ordinal_model import OrderedModel

        X, y, _ = _check_fit_data(self, X, y)
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        if w is not None:
            keep = w > 0
            if not keep.any():
                raise MethodError(f"method '{self.name}': every weight is 0; nothing to fit")
            X, y, w = X[keep], y[keep], w[keep]
        levels, yc = np.unique(y, return_inverse=True)
        p = X.shape[1]
        if len(levels) < 2:  # one observed level: it is always drawn
            self.params_ = np.zeros(p)
            self.coef_, self.thresholds_ = np.zeros(p), np.zeros(0)
            self.cov_root_, self.levels_, self.n_predictors_ = None, levels, p
            return self
        exog = X if p else np.zeros((len(y), 0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence and Hessian notes: checked below
            try:
                model = (OrderedModel(yc.astype(np.int64), exog, distr="logit") if w is None
                         else _weighted_ordered_model()(yc.astype(np.int64), exog, w))
                res = model.fit(method="bfgs", maxiter=int(self.maxiter), disp=False)
            except Exception as e:
                raise MethodError(
                    f"method '{self.name}' failed to fit ({type(e).__name__}); try 'polyreg' "
                    f"or 'cart' for this column"
                ) from None
        params = np.asarray(res.params, dtype=float)
        if not np.all(np.isfinite(params)):
            raise MethodError(
                f"method '{self.name}': the fit did not converge; try 'polyreg' or 'cart'"
            )
        self.params_ = params
        self.coef_ = params[:p]
        self.thresholds_ = np.asarray(model.transform_threshold_params(params)[1:-1], dtype=float)
        cov = None
        if self.proper:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cov = np.asarray(res.cov_params(), dtype=float)
                cov = np.linalg.cholesky((cov + cov.T) / 2.0)
            except Exception:
                raise MethodError(
                    f"method '{self.name}': proper=True needs an invertible information "
                    f"matrix, which this fit lacks; use proper=False or fewer predictors"
                ) from None
        self.cov_root_ = cov
        self.levels_ = levels
        self.n_predictors_ = p
        return self

    def _draw_params(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        if not self.proper or self.cov_root_ is None:
            return self.coef_, self.thresholds_
        theta = self.params_ + self.cov_root_ @ rng.standard_normal(len(self.params_))
        p = self.n_predictors_
        # statsmodels' parametrisation: t_1, then log increments; exp keeps the order
        cuts = np.cumsum(np.r_[theta[p], np.exp(theta[p + 1:])])
        return theta[:p], cuts

    def cumulative_probabilities(self, X: np.ndarray) -> np.ndarray:
        """``P(y <= j | x)`` for ``j = 1..K-1``, one row per record (fitted parameters)."""
        from scipy.special import expit  # on first use: importing the method stays light

        self._check_fitted("coef_")
        X = _check_draw_data(self, X, self.n_predictors_)
        return np.asarray(expit(self.thresholds_[None, :] - (X @ self.coef_)[:, None]))

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One ordered level per row, from the model's category probabilities."""
        self._check_fitted("coef_")
        X = _check_draw_data(self, X, self.n_predictors_)
        rng = check_random_state(rng)
        b, cuts = self._draw_params(rng)
        from scipy.special import expit

        cum = expit(cuts[None, :] - (X @ b)[:, None])
        u = rng.random(len(X))
        idx = np.sum(cum < u[:, None], axis=1)
        return self.levels_[idx].astype(np.int64)


@functools.cache
def _weighted_ordered_model() -> type:
    """statsmodels' ``OrderedModel`` whose per-record log-likelihood is multiplied by the
    record's weight (its score and Hessian are numerical derivatives of the log-likelihood,
    so they follow); made once, on first use, as statsmodels is imported lazily."""
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    class WeightedOrderedModel(OrderedModel):  # type: ignore[misc]
        def __init__(self, endog: np.ndarray, exog: np.ndarray, weights: np.ndarray) -> None:
            super().__init__(endog, exog, distr="logit")
            self.record_weights = np.asarray(weights, dtype=float)

        def loglikeobs(self, params: np.ndarray) -> np.ndarray:
            return self.record_weights * super().loglikeobs(params)

    return WeightedOrderedModel
