"""A codebook of a data set before synthesis (synthpop's ``codebook.syn``).

For the steward's own preparation: it reads the confidential data and prints ranges and
levels, so it belongs beside the data, never in a release or a report.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from synthguard.data.schema import infer_schema
from synthguard.errors import DataError, ParameterError

__all__ = ["Codebook", "codebook"]


@dataclass(frozen=True)
class Codebook:
    """``table``: one row per variable (``variable``, ``kind``, ``nmiss``, ``perctmiss``,
    ``ndistinct``, ``details``); ``labels``: for each categorical variable with more than
    ``max_levels`` levels, its levels (synthpop's ``labs``)."""

    table: pd.DataFrame
    labels: dict[str, list[str]]

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()


def codebook(data: pd.DataFrame, *, max_levels: int = 3) -> Codebook:
    """Describe every variable as synthesis sees it (synthpop's ``codebook.syn(data, maxlevs)``).

    Per variable: its kind (as :func:`infer_schema` reads it: the kind synthesis uses), the
    number and percentage (two decimals) of missing values, the number of distinct non-missing
    values, and ``details``: ``"Range: min - max"`` for numbers, the levels (``'a' 'b'``) of a
    categorical variable with at most ``max_levels`` levels, else ``"See table in labels"``
    with the levels in ``labels``; ``"Max length: k"`` for free text.

    The codebook holds confidential values (ranges, levels): it is for preparing the data.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [23, 41, None, 67], "sex": ["f", "m", "f", "f"]})
    >>> codebook(df).table[["variable", "nmiss", "ndistinct", "details"]].values.tolist()
    [['age', 1, 3, 'Range: 23 - 67'], ['sex', 0, 2, "'f' 'm'"]]
    """
    if not isinstance(data, pd.DataFrame) or data.shape[1] == 0:
        raise DataError("codebook: expected a pandas DataFrame with at least one column")
    if isinstance(max_levels, bool) or not isinstance(max_levels, int) or max_levels < 1:
        raise ParameterError("parameter 'max_levels': expected a whole number of at least 1")
    schema = infer_schema(data)
    n = len(data)
    rows, labels = [], {}
    for c in data.columns:
        col = data[c]
        kind = schema[c].kind.value if c in schema else "identifier"
        present = col.dropna()
        nmiss = int(n - present.size)
        distinct = pd.unique(present)
        if kind in ("numeric", "count") or (pd.api.types.is_numeric_dtype(col)
                                             and kind not in ("categorical", "binary",
                                                              "ordinal")):
            lo, hi = (present.min(), present.max()) if present.size else ("", "")
            details = f"Range: {_fmt(lo)} - {_fmt(hi)}"
        elif kind in ("categorical", "binary", "ordinal"):
            lv = [str(v) for v in sorted(distinct, key=str)]
            if len(lv) <= max_levels:
                details = " ".join(f"'{v}'" for v in lv)
            else:
                details = "See table in labels"
                labels[str(c)] = lv
        else:
            details = f"Max length: {int(present.astype(str).str.len().max() or 0)}"
        rows.append({"variable": str(c), "kind": kind, "nmiss": nmiss,
                     "perctmiss": round(100 * nmiss / n, 2) if n else 0.0,
                     "ndistinct": len(distinct), "details": details})
    return Codebook(table=pd.DataFrame(rows), labels=labels)


def _fmt(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
