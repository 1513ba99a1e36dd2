"""Start data: the first columns of the visit sequence given, the rest synthesized.

``Synthesizer.sample(start=frame)`` synthesizes the remaining columns conditional on a
**start** frame holding the first ``k`` columns of the visit sequence, as the Urban
Institute's tidysynthesis starts from a separate "start data" (another sample, a
noise-protected table, or a differentially private synthesis of the key variables, e.g.
MST on the keys and CART for the rest). The start's row count sets ``n``.

With strata (``Synthesizer(strata=...)``) the start also holds the strata columns: each start
record is completed by the models of its own stratum, and the release holds the records
stratum by stratum (in the order of the fitted strata), each stratum's in the start's order.
A start record whose stratum the confidential data do not have is refused (no model was fit
for it).

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
    """A checked start: per implicate, working-form arrays of each block (stratum; one
    block without strata); its visit columns, size and origin."""

    arrays: list[list[dict[str, np.ndarray]]]
    columns: tuple[str, ...]
    n: int
    origin: dict[str, Any]

    def for_implicate(self, i: int) -> list[dict[str, np.ndarray]]:
        """Start arrays of implicate ``i``, one dict per block (a start with one frame serves
        every implicate)."""
        return self.arrays[i if len(self.arrays) > 1 else 0]

    def block_sizes(self, i: int) -> np.ndarray:
        """Records of each block in implicate ``i``'s start."""
        return np.array([len(next(iter(b.values()))) for b in self.for_implicate(i)],
                        dtype=np.int64)


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
    blocks: Sequence[Any] = (),
) -> StartData:
    """Check ``start`` (a DataFrame or a release with ``implicates``) against the fitted
    synthesizer and turn it into working-form arrays.

    A release with ``m`` implicates gives implicate ``i`` its ``i``-th; otherwise its first
    serves every implicate.

    With ``strata``, the start holds the strata columns too, and its records are split
    over ``blocks`` (the fitted strata, each with its ``stratum`` values in working form).

    Raises
    ------
    ParameterError
        Partial synthesis, a start whose columns are not the first columns of the visit
        sequence (plus the strata columns), frames of different sizes, an empty start,
        levels the confidential data do not have, text in a numeric column, a record in a
        stratum the data do not have. Messages name columns, never values.
    """
    if partial:
        raise ParameterError(
            "parameter 'start': start data apply to full synthesis; drop 'keep', or the start"
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
    missing_strata = [c for c in strata if c not in columns]
    if missing_strata:
        raise ParameterError(
            f"parameter 'start': with strata the start must hold the strata column(s) "
            f"{', '.join(missing_strata)} as well, so each record is completed within its "
            f"stratum"
        )
    drawn = [c for c in columns if c not in strata]
    k = len(drawn)
    first = list(visit[:k])
    if not k or set(drawn) != set(first) or len(set(drawn)) != k:
        raise ParameterError(
            f"parameter 'start': the start must hold exactly the first columns of the visit "
            f"sequence ({', '.join(first) if first else 'none'})"
            f"{' and the strata columns' if strata else ''}, got "
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
        for c in [*first, *strata]:
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
        arrays.append(_split_blocks(out, first, strata, blocks))
    return StartData(arrays, tuple(first), n, _origin(start, origin))


def _same(a: np.ndarray, value: Any) -> np.ndarray:
    """``a == value`` elementwise, a missing value equal to a missing value (a stratum)."""
    if isinstance(value, float) and np.isnan(value):
        return np.isnan(a.astype(float))
    return np.asarray(a == value)


def _split_blocks(arrays: dict[str, np.ndarray], first: Sequence[str], strata: Sequence[str],
                  blocks: Sequence[Any]) -> list[dict[str, np.ndarray]]:
    """The start's visit-column arrays split over the fitted strata (one block without)."""
    if not strata:
        return [{c: arrays[c] for c in first}]
    n = len(arrays[first[0]])
    placed = np.zeros(n, dtype=bool)
    out = []
    for block in blocks:
        mask = np.ones(n, dtype=bool)
        for c in strata:
            mask &= _same(arrays[c], block.stratum[c])
        placed |= mask
        out.append({c: arrays[c][mask] for c in first})
    if not placed.all():
        raise ParameterError(
            f"parameter 'start': some records are in a stratum of {', '.join(strata)} that the "
            f"confidential data do not have (no model was fit for it); recode or drop them"
        )
    return out
