"""Top and bottom coding: censor a numeric variable beyond a threshold.

Top coding replaces every value above a threshold by the threshold (or by the
mean of the censored values); bottom coding does the same below a threshold
(course book ch. 1, "Generalization ... top/bottom coding"; An & Little 2007).
The Consumer Expenditure Surveys top-code family income this way, censoring
about 6% of the records (Hu, Savitsky & Williams, sec. 1.1 and 2.3).

A threshold given as a percentile is a quantile of the confidential data and
therefore itself a confidential statistic: it is stored in
``ProtectedData.params["threshold"]`` for the steward, but summaries do not
print it and the report layer rounds or ranges it before publication.
"""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard.data._backend import dask_backend, is_dask_collection
from synthguard.errors import ParameterError
from synthguard.sdc._common import check_columns, check_frame, float_values, numeric_columns
from synthguard.sdc.result import ProtectedData

__all__ = ["bottomcode", "topcode"]

Replacement = Literal["threshold", "mean"]


@dask_backend
def topcode(
    data: pd.DataFrame,
    column: str,
    at: float | None = None,
    percentile: float | None = None,
    *,
    replacement: Replacement = "threshold",
) -> ProtectedData:
    """Censor the values of ``column`` above a threshold.

    With threshold :math:`t`, each value :math:`x_i > t` becomes :math:`t`
    (``replacement="threshold"``) or the mean of the censored values
    :math:`\\bar x_{>t}` (``replacement="mean"``, which keeps the column total);
    values :math:`\\le t` and missing values are released unchanged.

    Parameters
    ----------
    data : confidential DataFrame (not mutated), pandas or Dask. On Dask every partition is
        coded by the pandas function (``percentile=`` computed exactly on the workers;
        ``replacement="mean"`` refused); ``data`` and ``changes`` of the result are Dask
        frames, the counts in ``params`` computed in one pass.
    column : a numeric or count column.
    at : the threshold, a public value chosen by the agency.
    percentile : alternatively, a percentile in (0, 100); the threshold is the
        ``percentile``-th sample quantile of the non-missing values (linear interpolation,
        Hyndman & Fan type 7, R's default). The CE practice, topping about 6% of
        incomes, is ``percentile=94``. The derived threshold is confidential (see module notes).
    replacement : ``"threshold"`` (default) or ``"mean"``.

    Returns
    -------
    ProtectedData
        ``params`` holds ``threshold``, ``n_censored``, ``share_censored`` and the inputs.

    Raises
    ------
    ParameterError
        Neither or both of ``at`` and ``percentile``; a percentile outside (0, 100); a
        non-numeric column.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"income": [10.0, 20.0, 30.0, 400.0]})
    >>> topcode(df, "income", at=100).data["income"].tolist()
    [10.0, 20.0, 30.0, 100.0]
    """
    return _censor(data, column, at, percentile, replacement, upper=True)


@dask_backend
def bottomcode(
    data: pd.DataFrame,
    column: str,
    at: float | None = None,
    percentile: float | None = None,
    *,
    replacement: Replacement = "threshold",
) -> ProtectedData:
    """Censor the values of ``column`` below a threshold.

    Each value :math:`x_i < t` becomes :math:`t` (or the mean of the censored values with
    ``replacement="mean"``). Parameters as in :func:`topcode`; ``percentile=5`` censors
    about the lowest 5%.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [3, 15, 40, 70]})
    >>> bottomcode(df, "age", at=16).data["age"].tolist()
    [16, 16, 40, 70]
    """
    return _censor(data, column, at, percentile, replacement, upper=False)


def _censor(
    data: Any,
    column: str,
    at: float | None,
    percentile: float | None,
    replacement: str,
    *,
    upper: bool,
) -> ProtectedData:
    method = "topcode" if upper else "bottomcode"
    if is_dask_collection(data):  # the pandas coding on every partition
        from synthguard.sdc._on_dask.censor import censored

        return censored(topcode if upper else bottomcode, data, column, at, percentile,
                        replacement, upper=upper)
    data = check_frame(data)
    (column,) = check_columns(data, [column], "column", as_levels=False)
    numeric_columns(data, [column], "column")
    if (at is None) == (percentile is None):
        raise ParameterError(
            f"{method}: give exactly one of parameters 'at' (a threshold) or 'percentile'"
        )
    if replacement not in ("threshold", "mean"):
        raise ParameterError(
            "parameter 'replacement': expected 'threshold' or 'mean'"
        )
    x = float_values(data[column])
    observed = ~np.isnan(x)
    if percentile is not None:
        if isinstance(percentile, bool) or not isinstance(percentile, numbers.Real):
            raise ParameterError("parameter 'percentile': expected a number in (0, 100)")
        if not 0 < float(percentile) < 100:
            raise ParameterError("parameter 'percentile': expected a number in (0, 100)")
        threshold = float(np.percentile(x[observed], float(percentile)))
    else:
        if isinstance(at, bool) or not isinstance(at, numbers.Real) or not np.isfinite(at):
            raise ParameterError("parameter 'at': expected a finite number")
        threshold = float(at)  # type: ignore[arg-type]
    with np.errstate(invalid="ignore"):
        hit = (x > threshold) if upper else (x < threshold)
    hit &= observed
    n_hit = int(hit.sum())
    if replacement == "mean" and n_hit:
        value = float(x[hit].mean())
    else:
        value = threshold
    out = data.copy()
    col = out[column]
    if n_hit:
        if pd.api.types.is_integer_dtype(col.dtype) and float(value).is_integer():
            new = col.to_numpy(copy=True)
            new[hit] = int(value)
            out[column] = pd.Series(new, index=out.index, dtype=col.dtype)
        else:
            x_new = x.copy()
            x_new[hit] = value
            out[column] = pd.Series(x_new, index=out.index, name=column)
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    changes[column] = hit
    n_obs = int(observed.sum())
    params: dict[str, Any] = {
        "column": column,
        "at": at,
        "percentile": percentile,
        "replacement": replacement,
        "threshold": threshold,
        "n_censored": n_hit,
        "share_censored": n_hit / n_obs if n_obs else 0.0,
    }
    confidential: tuple[str, ...] = ()
    if percentile is not None:
        confidential = ("threshold",)
    if replacement == "mean":
        params["replacement_value"] = value
        confidential = (*confidential, "replacement_value")
    return ProtectedData(
        data=out, changes=changes, method=method, params=params, confidential=confidential
    )
