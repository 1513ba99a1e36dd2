"""Start data: the first columns of the visit sequence given, the rest synthesized.

``Synthesizer.sample(start=frame)`` synthesizes the remaining columns conditional on a
**start** frame holding the first ``k`` columns of the visit sequence, as the Urban
Institute's tidysynthesis starts from a separate "start data" (another sample, a
noise-protected table, or a differentially private synthesis of the key variables, e.g.
MST on the keys and CART for the rest). The start's row count sets ``n``.

Where the start came from is recorded in the release's provenance and manifest
(``origin``). When the start is a DP release (:class:`synthguard.dp.DPSyntheticData`), the
DP guarantee covers **the start columns only**: the other columns come from models fit on
the confidential data without noise, so the release as a whole is not differentially
private.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.schema import ColumnSchema
from synthguard.errors import ParameterError
from synthguard.synthesis.encoding import to_working

__all__ = ["StartData", "resolve_start"]


@dataclass(frozen=True)
class StartData:
    """A checked start: working-form arrays per implicate, its columns, size and origin."""

    arrays: list[dict[str, np.ndarray]]
    columns: tuple[str, ...]
    n: int
    origin: dict[str, Any]

    def for_implicate(self, i: int) -> dict[str, np.ndarray]:
        """Start arrays of implicate ``i`` (a start with one frame serves every implicate)."""
        return self.arrays[i if len(self.arrays) > 1 else 0]


def _origin(start: Any, given: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if hasattr(start, "epsilon") and hasattr(start, "method"):
        out = {
            "kind": "dp" if bool(getattr(start, "dp", True)) else "not-dp",
            "method": str(start.method),
            "epsilon": float(start.epsilon),
            "delta": float(getattr(start, "delta", 0.0)),
            "note": "the DP guarantee covers the start columns only",
        }
    elif hasattr(start, "implicates"):
        out = {"kind": str(getattr(start, "kind", "release"))}
    else:
        out = {"kind": "frame"}
    if given is not None:
        if isinstance(given, Mapping):
            out.update({str(k): v for k, v in given.items()})
        else:
            out["description"] = str(given)
    return out


def resolve_start(
    start: Any,
    origin: Any,
    schema: Mapping[str, ColumnSchema],
    visit: Sequence[str],
    m: int,
    *,
    partial: bool,
    strata: Sequence[str],
) -> StartData:
    """Check ``start`` (a DataFrame or a release with ``implicates``) against the fitted
    synthesizer and turn it into working-form arrays.

    A release with ``m`` implicates gives implicate ``i`` its ``i``-th; otherwise its first
    serves every implicate.

    Raises
    ------
    ParameterError
        Partial synthesis or strata, a start whose columns are not the first columns of the
        visit sequence, frames of different sizes, an empty start, levels the confidential
        data do not have, text in a numeric column. Messages name columns, never values.
    """
    if partial or strata:
        raise ParameterError(
            "parameter 'start': start data apply to full synthesis without strata; drop "
            "'keep' and 'strata', or the start"
        )
    if isinstance(start, pd.DataFrame):
        frames = [start]
    elif hasattr(start, "implicates"):
        frames = list(start.implicates)
        if len(frames) != m:
            frames = frames[:1]
    else:
        raise ParameterError(
            "parameter 'start': expected a DataFrame or a release (with implicates)"
        )
    if not frames or not all(isinstance(f, pd.DataFrame) for f in frames):
        raise ParameterError("parameter 'start': expected a DataFrame or a release")
    columns = [str(c) for c in frames[0].columns]
    k = len(columns)
    first = list(visit[:k])
    if not k or set(columns) != set(first) or len(set(columns)) != k:
        raise ParameterError(
            f"parameter 'start': the start must hold exactly the first columns of the visit "
            f"sequence ({', '.join(first) if first else 'none'}), got "
            f"{', '.join(columns) or 'none'}; reorder 'visit_sequence' or select the start's "
            f"columns"
        )
    if k == len(visit):
        raise ParameterError(
            "parameter 'start': the start holds every synthesized column; nothing is left to "
            "synthesize"
        )
    n = len(frames[0])
    if n < 1 or any(len(f) != n or [str(c) for c in f.columns] != columns for f in frames):
        raise ParameterError(
            "parameter 'start': the start's implicates must be non-empty, of one size and "
            "with the same columns"
        )
    arrays = []
    for f in frames:
        out: dict[str, np.ndarray] = {}
        for c in first:
            col = schema[c]
            s = f[c]
            if col.is_categorical:
                levels = list(col.levels or ())
                if (s.notna() & ~s.isin(levels)).any():
                    raise ParameterError(
                        f"parameter 'start': column '{c}' holds levels the confidential data "
                        f"do not have; recode the start to the data's levels"
                    )
                out[c] = to_working(s, col)
            else:
                num = pd.to_numeric(s, errors="coerce")
                if (num.isna() & s.notna()).any():
                    raise ParameterError(
                        f"parameter 'start': column '{c}' is numeric in the data but holds "
                        f"text in the start"
                    )
                out[c] = to_working(num, col)
        arrays.append(out)
    return StartData(arrays, tuple(first), n, _origin(start, origin))
