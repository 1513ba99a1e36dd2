"""Relative mutual information of categorical pairs, and its fit between data and release.

The course (chapter 3, after the correlation fit) names "relative mutual information" as the
measure of the relationship between categorical variables, where :func:`correlation_fit` uses
Cramér's V. For a two-way table with cell shares p_ab and margins p_a, p_b::

    I(A; B) = Σ_ab p_ab log(p_ab / (p_a p_b))          (mutual information, nats)
    H(A)    = −Σ_a p_a log p_a                          (entropy)
    RMI     = I(A; B) / √(H(A) H(B))                    (Strehl & Ghosh 2002)

RMI is 0 for independent variables and 1 when either determines the other one-to-one; unlike
Cramér's V it does not rest on the χ² approximation. The fit is the course's correlation fit
over RMI matrices: the lower triangle of ``RMI_syn − RMI_conf``, its MAE, RMSE and total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import Schema, as_implicates
from synthguard.errors import DataError
from synthguard.utility._inputs import category_codes, check_conf, resolve
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["MutualInformationFit", "mutual_information_fit", "relative_mutual_information"]


def relative_mutual_information(counts: np.ndarray) -> float:
    """``I(A; B) / √(H(A) H(B))`` of a two-way table of counts (module docstring); NaN when a
    margin has a single occupied level (zero entropy).

    Examples
    --------
    >>> relative_mutual_information(np.array([[10, 0], [0, 30]]))
    1.0
    >>> relative_mutual_information(np.array([[10, 10], [30, 30]]))
    0.0
    """
    tab = np.asarray(counts, dtype=np.float64)
    n = tab.sum()
    if not n > 0:
        return float("nan")
    p = tab / n
    pa, pb = p.sum(axis=1), p.sum(axis=0)

    def entropy(q: np.ndarray) -> float:
        q = q[q > 0]
        return float(-(q * np.log(q)).sum())

    ha, hb = entropy(pa), entropy(pb)
    if ha <= 0 or hb <= 0:
        return float("nan")
    nz = p > 0
    mi = float((p[nz] * np.log(p[nz] / np.outer(pa, pb)[nz])).sum())
    return float(min(max(mi / np.sqrt(ha * hb), 0.0), 1.0))


def _rmi_matrix(codes: list[np.ndarray], n_levels: list[int]) -> np.ndarray:
    k = len(codes)
    out = np.eye(k)
    for a in range(k):
        for b in range(a):
            tab = np.bincount(codes[a] * n_levels[b] + codes[b],
                              minlength=n_levels[a] * n_levels[b])
            out[a, b] = out[b, a] = relative_mutual_information(
                tab.reshape(n_levels[a], n_levels[b]))
    return out


@dataclass(frozen=True)
class MutualInformationFit(ResultDisplay, Summarized):
    """Differences of relative-mutual-information matrices, release minus data.

    Attributes
    ----------
    difference : lower triangle of the mean over implicates of ``RMI_syn − RMI_conf``.
    mae, rmse, total : of the lower-triangle differences, averaged over implicates.
    conf_rmi : the data's RMI matrix.
    implicates : per implicate ``mae``, ``rmse``, ``total``.
    """

    difference: pd.DataFrame
    mae: float
    rmse: float
    total: float
    conf_rmi: pd.DataFrame
    implicates: pd.DataFrame

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "mae": MetricInfo("mae", "minimize", 0.0, 1.0,
                          description="MAE of relative mutual information differences"),
    }

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: the two variables, the data's RMI and the mean difference."""
        names = list(self.difference.columns)
        d, c = self.difference.to_numpy(), self.conf_rmi.to_numpy()
        rows = [(names[i], names[j], float(c[i, j]), float(d[i, j]))
                for i in range(len(names)) for j in range(i)]
        return pd.DataFrame(rows, columns=["variable_1", "variable_2", "conf_rmi", "difference"])

    def summary(self) -> str:
        return (f"Relative mutual information fit over {len(self.difference)} categorical "
                f"columns: MAE {self.mae:.4g}, RMSE {self.rmse:.4g}, total |difference| "
                f"{self.total:.4g} (lower is better)")


def mutual_information_fit(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
) -> MutualInformationFit:
    """The course's correlation fit for categorical pairs by relative mutual information.

    Categorical, ordinal and binary columns (missing values as a level) are compared pair by
    pair; numeric columns are left out (:func:`correlation_fit` compares them by Pearson).

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"a": list("xxyy") * 5, "b": list("uuvv") * 5})
    >>> mutual_information_fit(conf, conf).mae
    0.0
    """
    conf = check_conf(conf)
    conf, imps, schema, cols = resolve(conf, as_implicates(synthetic), schema, columns)
    cat = [c for c in cols if schema[c].is_categorical]
    if len(cat) < 2:
        raise DataError("mutual_information_fit: needs at least two categorical columns; name "
                        "them in 'columns' or declare them categorical in the schema")
    levels = {c: schema[c].levels for c in cat}

    def matrix(df: pd.DataFrame) -> np.ndarray:
        coded = [category_codes([df[c]], levels[c])[:2] for c in cat]
        return _rmi_matrix([k[0][0] for k in coded], [k[1] for k in coded])

    m_conf = matrix(conf)
    low = np.tri(len(cat), k=-1, dtype=bool)
    diffs, rows = [], []
    for df in imps:
        d = matrix(df) - m_conf
        diffs.append(d)
        v = d[low]
        v = v[~np.isnan(v)]
        rows.append({"mae": float(np.abs(v).mean()) if v.size else np.nan,
                     "rmse": float(np.sqrt((v ** 2).mean())) if v.size else np.nan,
                     "total": float(np.abs(v).sum())})
    per = pd.DataFrame(rows).rename_axis("implicate")
    mean_d = np.mean(diffs, axis=0)
    return MutualInformationFit(
        difference=pd.DataFrame(np.where(low, mean_d, np.nan), index=cat, columns=cat),
        mae=float(per["mae"].mean()),
        rmse=float(per["rmse"].mean()),
        total=float(per["total"].mean()),
        conf_rmi=pd.DataFrame(m_conf, index=cat, columns=cat),
        implicates=per,
    )
