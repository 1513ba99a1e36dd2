"""Known patterns: the combinations of key-variable values an intruder is assumed to know.

A pattern is one combination of values of the key variables (Hu, Savitsky & Williams: the
records sharing record i's pattern form M_{p,i}). Keys are matched exactly. A missing key
value is a value of its own: two records that both miss a key share that component of
the pattern, and a missing value never matches a present one. (k-anonymity follows
sdcMicro's different convention; see :mod:`synthguard.risk.uniqueness`.)

The encoder learns the patterns of the confidential data and maps the rows of any release
onto them, giving -1 to rows whose key combination does not occur in the confidential data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._params import require_columns
from synthguard.data._backend import refuse_dask
from synthguard.errors import DataError

__all__ = ["PatternEncoder", "check_columns"]

_MAX_RADIX = 2**62


def check_columns(frame: pd.DataFrame, columns: Sequence[str], *, name: str, role: str) -> None:
    """Raise DataError naming every column of ``columns`` that ``frame`` (called ``name``)
    lacks; see :func:`synthguard._params.require_columns`. A Dask frame raises
    ParameterError: the measures on Dask are in :mod:`synthguard.scale`."""
    refuse_dask(frame, name)
    require_columns(frame, columns, role=role, where=name, error=DataError)


def _uniques_index(uniques: Any) -> pd.Index:
    idx: pd.Index = pd.Index(uniques)
    if isinstance(idx, pd.CategoricalIndex):
        idx = pd.Index(np.asarray(idx, dtype=object), dtype=object)
    return idx


@dataclass(frozen=True, eq=False)
class PatternEncoder:
    """Pattern codes 0..n_patterns-1 of the confidential rows and a map for other frames."""

    keys: tuple[str, ...]
    codes: np.ndarray  # int64, one per confidential row
    n_patterns: int
    _levels: tuple[pd.Index, ...]
    _columns: tuple[pd.Series, ...]
    _pattern_index: pd.Index | None

    @classmethod
    def fit(cls, conf: pd.DataFrame, keys: Sequence[str]) -> PatternEncoder:
        keys = tuple(keys)
        n = len(conf)
        if not keys:
            return cls(keys, np.zeros(n, dtype=np.int64), 1 if n else 0, (), (), None)
        levels: list[pd.Index] = []
        col_codes: list[np.ndarray] = []
        columns: list[pd.Series] = []
        for k in keys:
            s = conf[k].reset_index(drop=True)
            c, u = pd.factorize(s, use_na_sentinel=False)
            levels.append(_uniques_index(u))
            col_codes.append(np.asarray(c, dtype=np.int64))
            columns.append(s)
        combined = _combine(col_codes, [len(u) for u in levels])
        codes, uniq = pd.factorize(combined)
        return cls(
            keys,
            np.asarray(codes, dtype=np.int64),
            len(uniq),
            tuple(levels),
            tuple(columns),
            pd.Index(uniq),
        )

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """Pattern code of every row of ``frame`` (-1 when its key combination is unseen)."""
        n = len(frame)
        if not self.keys:
            return np.zeros(n, dtype=np.int64)
        if n == len(self.codes) and all(
            frame[k].reset_index(drop=True).equals(s) for k, s in zip(self.keys, self._columns)
        ):
            return self.codes
        col_codes = []
        unseen = np.zeros(n, dtype=bool)
        for k, lev in zip(self.keys, self._levels):
            c = np.asarray(lev.get_indexer(pd.Index(frame[k])), dtype=np.int64)
            unseen |= c < 0
            col_codes.append(np.where(c < 0, 0, c))
        combined = _combine(col_codes, [len(u) for u in self._levels])
        assert self._pattern_index is not None
        out = np.asarray(self._pattern_index.get_indexer(pd.Index(combined)), dtype=np.int64)
        out[unseen] = -1
        return out

    def sizes(self) -> np.ndarray:
        """Number of confidential records in each pattern."""
        return np.bincount(self.codes, minlength=self.n_patterns)


def _combine(col_codes: list[np.ndarray], cards: list[int]) -> np.ndarray | pd.MultiIndex:
    """One value per row identifying its combination of column codes: an int64 in mixed radix,
    or (when the product of cardinalities would overflow int64) a MultiIndex of the codes."""
    card = 1
    for k in cards:
        card *= max(k, 1)
    if card >= _MAX_RADIX:
        return pd.MultiIndex.from_arrays(col_codes)
    combined = col_codes[0].copy()
    for c, k in zip(col_codes[1:], cards[1:]):
        combined = combined * max(k, 1) + c
    return combined
