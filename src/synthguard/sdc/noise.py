"""Noise infusion: perturb numeric variables with random noise that keeps their means.

Course book ch. 1, "Noise Infusion: adding random noise, often to continuous variables";
sdcMicro's ``addNoise``. For a column :math:`x` with sample mean :math:`\\bar x` and
standard deviation :math:`s_x`, and noise level ``scale`` :math:`= \\sigma`:

* **additive** (sdcMicro ``method="additive"``, Brand 2002):
  :math:`x'_i = x_i + e_i`, :math:`e_i \\sim N(0, \\sigma^2 s_x^2)`. The mean is kept in
  expectation; the variance grows by the factor :math:`1 + \\sigma^2`.
* **multiplicative** (Kim & Winkler 2003; Nayak, Sinha & Zayatz 2011):
  :math:`x'_i = x_i \\, u_i`, :math:`u_i \\sim N(1, \\sigma^2)`. The mean is kept in
  expectation; the noise is proportional to the value, so large values get large noise
  (useful for skewed incomes); the variance grows by :math:`\\sigma^2 \\overline{x^2}`.

With ``keep_variance=True`` the noisy values are shrunk linearly towards the mean so the
expected variance equals the original one (Kim 1986; the linear transformation behind
sdcMicro's ``"restr"`` / ``"correlated2"`` methods):

.. math:: x''_i = \\bar x + c\\,(x'_i - \\bar x), \\qquad
          c = \\sqrt{\\frac{s_x^2}{E[\\operatorname{Var}(x')]}},

which is :math:`c = 1/\\sqrt{1 + \\sigma^2}` for additive noise (so
:math:`x'' = \\bar x + (x + e - \\bar x)/\\sqrt{1+\\sigma^2}`) and
:math:`c = s_x / \\sqrt{s_x^2 + \\sigma^2 \\overline{x^2}}` for multiplicative noise.
Means stay unbiased and variances are kept in expectation (up to sampling error of the
noise). Missing values stay missing. Each column is perturbed independently: O(n).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.errors import DataError, ParameterError
from synthguard.sdc._common import (
    check_columns,
    check_frame,
    check_positive,
    float_values,
    numeric_columns,
)
from synthguard.sdc.result import ProtectedData

__all__ = ["add_noise"]


def add_noise(
    data: pd.DataFrame,
    columns: Sequence[str] | str,
    kind: Literal["additive", "multiplicative"] = "additive",
    scale: float = 0.1,
    keep_variance: bool = False,
    *,
    random_state: RandomState = None,
) -> ProtectedData:
    """Add mean-zero (additive) or mean-one (multiplicative) noise to numeric columns.

    Parameters
    ----------
    data : confidential DataFrame (not mutated).
    columns : numeric or count columns to perturb (released as floats).
    kind : ``"additive"`` (noise sd = ``scale`` × the column's sd) or ``"multiplicative"``
        (factor with mean 1 and sd ``scale``).
    scale : the noise level :math:`\\sigma > 0` (see module formulas).
    keep_variance : shrink towards the mean so the variance is kept (Kim 1986).
    random_state : seed or Generator.

    Returns
    -------
    ProtectedData
        ``params`` holds the inputs and ``factor`` (the shrinkage :math:`c` per column,
        1 without ``keep_variance``).

    Raises
    ------
    ParameterError
        Unknown or non-numeric columns, an unknown kind, a non-positive scale.
    DataError
        A column with fewer than two observed values.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"income": [10.0, 20.0, 30.0, 40.0]})
    >>> out = add_noise(df, "income", scale=0.1, random_state=0)
    >>> out.n_changed_cells
    4
    """
    data = check_frame(data)
    cols = check_columns(data, columns, "columns", as_levels=False)
    if kind not in ("additive", "multiplicative"):
        raise ParameterError("parameter 'kind': expected 'additive' or 'multiplicative'")
    sigma = check_positive(scale, "scale")
    numeric_columns(data, cols, "columns")
    rng, seed = resolve_seed(random_state)
    out = data.copy()
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    factors: dict[str, float] = {}
    for c in cols:
        x = float_values(data[c])
        obs = ~np.isnan(x)
        xo = x[obs]
        if xo.size < 2:
            raise DataError(f"column '{c}': needs at least two observed values to add noise")
        mean = float(xo.mean())
        sd = float(xo.std(ddof=1))
        if kind == "additive":
            noisy = xo + rng.normal(0.0, sigma * sd, size=xo.size)
            factor = 1.0 / np.sqrt(1.0 + sigma**2)
        else:
            noisy = xo * rng.normal(1.0, sigma, size=xo.size)
            second = float(np.mean(xo**2))
            denom = sd**2 + sigma**2 * second
            factor = float(np.sqrt(sd**2 / denom)) if denom > 0 else 1.0
        if keep_variance:
            noisy = mean + factor * (noisy - mean)
        else:
            factor = 1.0
        new = x.copy()
        new[obs] = noisy
        out[c] = pd.Series(new, index=out.index, name=c)
        changes[c] = obs & (new != x)
        factors[c] = float(factor)
    params: dict[str, Any] = {
        "columns": cols,
        "kind": kind,
        "scale": sigma,
        "keep_variance": bool(keep_variance),
        "factor": factors,
    }
    return ProtectedData(data=out, changes=changes, method="add_noise", params=params, seed=seed)
