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
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.data._backend import dask_backend, is_dask_collection
from synthguard.errors import DataError, ParameterError
from synthguard.sdc._common import (
    check_columns,
    check_frame,
    check_positive,
    float_values,
    numeric_columns,
)
from synthguard.sdc._strata import release_seed, split_changes, within_strata
from synthguard.sdc.result import ProtectedData

__all__ = ["add_noise"]


@dask_backend
def add_noise(
    data: pd.DataFrame,
    columns: Sequence[str] | str,
    kind: Literal["additive", "multiplicative"] = "additive",
    scale: float = 0.1,
    keep_variance: bool = False,
    *,
    strata: Sequence[str] | str | None = None,
    random_state: RandomState = None,
) -> ProtectedData:
    """Add mean-zero (additive) or mean-one (multiplicative) noise to numeric columns.

    Parameters
    ----------
    data : confidential DataFrame (not mutated), pandas or Dask. On Dask the column's mean,
        standard deviation and mean square are those of all partitions (one pass), and each
        partition draws its noise from its own generator
        (``SeedSequence(seed, spawn_key=(partition number,))``): the release is equal in
        distribution to the pandas release and the same seed gives the same release;
        ``data`` and ``changes`` of the result are Dask frames, ``factor`` is the pandas one.
    columns : numeric or count columns to perturb (released as floats).
    kind : ``"additive"`` (noise sd = ``scale`` × the column's sd) or ``"multiplicative"``
        (factor with mean 1 and sd ``scale``).
    scale : the noise level :math:`\\sigma > 0` (see module formulas).
    keep_variance : shrink towards the mean so the variance is kept (Kim 1986).
    strata : stratum column(s): the noise of a stratum is scaled by the stratum's own
        statistics, and every stratum draws from its own generator
        (:mod:`synthguard.sdc._strata`), so pandas and any partitioning of a Dask frame give
        the same release for the same seed. ``params`` then holds no ``factor``.
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
    if is_dask_collection(data):  # global statistics in one pass, noise drawn per partition
        from synthguard.sdc._on_dask.noise import noisy

        return noisy(data, columns, kind, scale, keep_variance, strata, random_state)
    if strata is not None:
        return noisy_within_strata(data, columns, kind, scale, keep_variance, strata,
                                   random_state)
    data = check_frame(data)
    cols, sigma = check_noise(data, columns, kind, scale)
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
        stats = ColumnMoments(float(xo.mean()), float(xo.std(ddof=1)), float(np.mean(xo**2)))
        noisy_values, factor = noise_kernel(xo, stats, kind, sigma, keep_variance, rng)
        new = x.copy()
        new[obs] = noisy_values
        out[c] = pd.Series(new, index=out.index, name=c)
        changes[c] = obs & (new != x)
        factors[c] = factor
    params = noise_params(cols, kind, sigma, keep_variance)
    params["factor"] = factors
    return ProtectedData(data=out, changes=changes, method="add_noise", params=params, seed=seed)


@dataclass(frozen=True)
class ColumnMoments:
    """What the noise of a column depends on: its mean, standard deviation (ddof 1) and mean
    square over all observed values (the whole data, however it is partitioned)."""

    mean: float
    sd: float
    second: float


def check_noise(data: pd.DataFrame, columns: Sequence[str] | str, kind: str, scale: float
                ) -> tuple[list[str], float]:
    """The checked columns and noise level (``data`` may be an empty frame of the dtypes)."""
    cols = check_columns(data, columns, "columns", as_levels=False)
    if kind not in ("additive", "multiplicative"):
        raise ParameterError("parameter 'kind': expected 'additive' or 'multiplicative'")
    sigma = check_positive(scale, "scale")
    numeric_columns(data, cols, "columns")
    return cols, sigma


def noise_params(cols: list[str], kind: str, sigma: float, keep_variance: bool
                 ) -> dict[str, Any]:
    """The inputs recorded in ``ProtectedData.params``."""
    return {"columns": cols, "kind": kind, "scale": sigma, "keep_variance": bool(keep_variance)}


def noise_kernel(
    xo: np.ndarray,
    stats: ColumnMoments,
    kind: str,
    sigma: float,
    keep_variance: bool,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float]:
    """The noisy values of a block of observed values ``xo`` and the shrinkage factor
    :math:`c` (1 without ``keep_variance``), by the module's formulas with the column's
    ``stats``: the same code for the whole column (pandas) and for one partition (Dask)."""
    mean, sd = stats.mean, stats.sd
    if kind == "additive":
        noisy = xo + rng.normal(0.0, sigma * sd, size=xo.size)
        factor = 1.0 / np.sqrt(1.0 + sigma**2)
    else:
        noisy = xo * rng.normal(1.0, sigma, size=xo.size)
        denom = sd**2 + sigma**2 * stats.second
        factor = float(np.sqrt(sd**2 / denom)) if denom > 0 else 1.0
    if keep_variance:
        noisy = mean + factor * (noisy - mean)
    else:
        factor = 1.0
    return noisy, float(factor)


def noisy_within_strata(
    data: pd.DataFrame,
    columns: Sequence[str] | str,
    kind: str,
    scale: float,
    keep_variance: bool,
    strata: Sequence[str] | str,
    random_state: RandomState,
) -> ProtectedData:
    """:func:`add_noise` on every stratum with the stratum's generator
    (:mod:`synthguard.sdc._strata`): the release the Dask path gives for the same seed."""
    data = check_frame(data)
    cols, sigma = check_noise(data, columns, kind, scale)
    strata_l = check_columns(data, strata, "strata")
    seed = release_seed(random_state)
    kwargs = dict(columns=cols, kind=kind, scale=sigma, keep_variance=keep_variance)
    out, changes = split_changes(within_strata(data, strata_l, add_noise, seed, kwargs),
                                 list(data.columns))
    params = {**noise_params(cols, kind, sigma, keep_variance), "strata": strata_l}
    return ProtectedData(data=out, changes=changes, method="add_noise", params=params, seed=seed)
