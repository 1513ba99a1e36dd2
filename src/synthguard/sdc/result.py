"""``ProtectedData``: what every traditional SDC method returns.

A protected release is the protected DataFrame plus a record of what the
method did to it: which cells changed (a boolean mask aligned with the
released rows and columns), which records were removed (sampling), the
method's name and parameters, and the seed that reproduces a random method.
The utility and risk modules accept it directly (``as_implicates`` reads
``.data``).

Parameters recorded in ``params`` can themselves be confidential statistics
(a top-coding threshold derived from a percentile is a quantile of the
confidential data). ``summary()`` therefore does not print such values; the
report layer rounds or ranges them before publication.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized

__all__ = ["ProtectedData"]

@dataclass(frozen=True)
class ProtectedData(Summarized):
    """A release made by a statistical disclosure control method.

    Attributes
    ----------
    data : the protected DataFrame (the release).
    changes : boolean DataFrame aligned with ``data`` (same index and columns); True where
        the method changed the cell (censored, swapped to a different value, suppressed,
        recoded, perturbed). For cell suppression of a table it marks the suppressed cells.
    method : name of the method (``"topcode"``, ``"suppress"``, ``"swap"``, ...).
    params : the parameters used, plus derived quantities (thresholds, counts per stratum).
        Some are confidential statistics (see the module docstring); publish them rounded.
    seed : the integer seed that reproduces a random method (None for deterministic
        methods, or when a Generator was passed).
    removed : index labels of input records that are not in the release (sampling).
    confidential : names of ``params`` entries that are statistics of the confidential data
        (a threshold derived from a percentile); :meth:`summary` does not print them.
    """

    data: pd.DataFrame
    changes: pd.DataFrame
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    removed: pd.Index = field(default_factory=lambda: pd.Index([]))
    confidential: tuple[str, ...] = ()

    @property
    def n_records(self) -> int:
        """Number of records in the release."""
        return int(self.data.shape[0])

    @property
    def n_changed_cells(self) -> int:
        """Number of cells the method changed."""
        return int(self.changes.to_numpy(dtype=bool).sum())

    @property
    def changed_records(self) -> pd.Index:
        """Index labels of released records with at least one changed cell."""
        mask = np.asarray(self.changes.to_numpy(dtype=bool).any(axis=1), dtype=bool)
        return self.data.index[np.flatnonzero(mask)]

    @property
    def n_changed_records(self) -> int:
        """Number of released records with at least one changed cell."""
        return int(self.changes.to_numpy(dtype=bool).any(axis=1).sum())

    def to_frame(self) -> pd.DataFrame:
        """Per-column detail: number and share of changed cells, one row per released column."""
        counts = self.changes.to_numpy(dtype=bool).sum(axis=0)
        n = max(self.n_records, 1)
        return pd.DataFrame(
            {
                "column": list(self.changes.columns),
                "n_changed": counts.astype(np.int64),
                "share_changed": counts / n,
            }
        ).set_index("column")

    def summary(self) -> str:
        """A short text description; confidential derived statistics are not printed."""
        lines = [f"{self.method}: {self.n_records} records released"]
        if len(self.removed):
            lines.append(f"  records removed: {len(self.removed)}")
        lines.append(
            f"  changed: {self.n_changed_records} records, {self.n_changed_cells} cells"
        )
        per_col = self.to_frame()
        for col, row in per_col[per_col["n_changed"] > 0].iterrows():
            lines.append(f"    {col}: {int(row['n_changed'])} cells ({row['share_changed']:.1%})")
        shown = {k: v for k, v in self.params.items() if k not in self.confidential}
        hidden = [k for k in self.params if k in self.confidential]
        if shown:
            lines.append("  parameters: " + ", ".join(f"{k}={_short(v)}" for k, v in shown.items()))
        if hidden:
            lines.append(
                "  derived from the confidential data (in params; round before publishing): "
                + ", ".join(hidden)
            )
        if self.seed is not None:
            lines.append(f"  seed: {self.seed}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Notebook display: the summary and the per-column table."""
        from html import escape

        return f"<pre>{escape(self.summary())}</pre>" + str(self.to_frame().to_html())

    def __repr__(self) -> str:
        return (
            f"ProtectedData(method={self.method!r}, n_records={self.n_records}, "
            f"n_changed_records={self.n_changed_records}, seed={self.seed})"
        )


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."
