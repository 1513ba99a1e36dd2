"""``logreg``: logistic regression for a binary target (codes 0 and 1)."""

from __future__ import annotations

import numpy as np

from synthguard.errors import MethodError
from synthguard.synthesis.methods.polyreg import PolyRegMethod
from synthguard.synthesis.registry import register_method

__all__ = ["LogRegMethod"]


@register_method("logreg")
class LogRegMethod(PolyRegMethod):
    """Logistic regression of a binary target; draws from the fitted probabilities.

    ``P(y = 1 | x) = 1 / (1 + exp(-(b0 + x' b)))``, fitted by (tiny-ridge) maximum
    likelihood exactly as :class:`~synthguard.synthesis.methods.polyreg.PolyRegMethod`
    with two levels (synthpop's ``syn.logreg``; Nowok, Raab & Dibben 2016). A synthetic
    value is 1 with the fitted probability at the row's predictors, else 0. Targets with
    more than two codes belong to ``polyreg``.

    Parameters
    ----------
    ridge : float, default 1e-4
        L2 penalty on the standardised slopes (0 for maximum likelihood); see ``polyreg``.
    max_iter : int, default 1000
        Maximum lbfgs iterations.

    Attributes
    ----------
    coef_ : ndarray, shape (p + 1,)
        ``(b0, b)`` on the original scale of the predictors, as R's ``glm`` or statsmodels'
        ``Logit`` report them. Empty when only one of the two codes is observed (that code
        is then always drawn).
    classes_ : ndarray of int64
        The observed codes.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import LogRegMethod
    >>> m = LogRegMethod().fit(np.empty((10, 0)), np.array([0] * 8 + [1] * 2))
    >>> np.round(m.coef_, 4).tolist()  # log(2 / 8)
    [-1.3863]
    """

    def _check_target(self, y: np.ndarray) -> None:
        if np.any(y > 1):
            raise MethodError(
                f"method '{self.name}' needs a binary target coded 0/1; this target has more "
                "than two levels: use 'polyreg' or 'cart'"
            )

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> LogRegMethod:
        """Fit the logistic regression of ``y`` on ``X``."""
        super().fit(X, y, weights, rng=rng)
        self.coef_ = self.coef_[0] if len(self.coef_) else np.empty(0)
        return self
