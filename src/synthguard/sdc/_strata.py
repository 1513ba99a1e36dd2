"""Random SDC steps applied stratum by stratum, each stratum with its own generator (private).

The release of a random step run within strata (``add_noise(..., strata=...)``, and every
random step on Dask) must depend on the seed and the data only, not on how the records are
partitioned or how many workers draw them. So every stratum draws from its own generator,
``numpy.random.SeedSequence(seed, spawn_key=(h,))`` with ``h`` the 64-bit hash of the
stratum's values (:func:`synthguard._dask.hashing.pattern_hash`), and within a stratum the
records keep the input's order: the same stratum meets the same draws on pandas and on any
partitioning of a Dask frame. Without strata a Dask partition is drawn with
``spawn_key=(partition number,)`` (records are independent given the step's statistics).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from synthguard._dask.hashing import pattern_hash
from synthguard._random import RandomState
from synthguard.errors import ParameterError
from synthguard.risk._patterns import PatternEncoder

__all__ = ["CHANGED", "release_seed", "split_changes", "stratum_generator", "within_strata"]

#: prefix of the change flags a kernel returns next to the protected columns
CHANGED = "__synthguard_changed__"


def release_seed(random_state: RandomState) -> int:
    """One integer seed for the whole release (a Generator gives one draw, None one from OS
    entropy): the root of every stratum's and partition's generator."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise ParameterError("parameter 'random_state': expected a non-negative integer")
        return int(random_state)
    raise ParameterError(
        "parameter 'random_state': expected None, a non-negative integer or a numpy Generator"
    )


def stratum_generator(seed: int, key: int) -> np.random.Generator:
    """The generator of one stratum (``key``: its hash) or partition (``key``: its number)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(key),)))


def with_changes(data: pd.DataFrame, changes: pd.DataFrame) -> pd.DataFrame:
    """One frame holding the protected columns and, prefixed with :data:`CHANGED`, their
    change flags (what a partition kernel returns)."""
    return pd.concat([data, changes.add_prefix(CHANGED)], axis=1)


def split_changes(frame: Any, columns: list[str]) -> tuple[Any, Any]:
    """The protected columns and the change flags of a :func:`with_changes` frame (pandas or
    Dask), the flags under their own column names."""
    changes = frame[[CHANGED + c for c in columns]]
    return frame[columns], changes.rename(columns=lambda c: c[len(CHANGED):])


def within_strata(
    part: pd.DataFrame,
    strata: list[str],
    method: Callable[..., Any],
    seed: int,
    kwargs: dict[str, Any],
) -> pd.DataFrame:
    """``method`` (a :mod:`synthguard.sdc` step, without strata) applied to every stratum of
    ``part`` with the stratum's generator; the protected rows and their change flags
    (:func:`with_changes`), in ``part``'s row order."""
    if len(part) == 0:  # an empty partition: nothing to protect
        return with_changes(part, pd.DataFrame(False, index=part.index, columns=part.columns))
    h = pattern_hash(part, strata)
    groups = PatternEncoder.fit(part, strata).codes
    pieces = []
    positions = []
    for g in range(int(groups.max()) + 1):
        rows = np.flatnonzero(groups == g)
        res = method(part.iloc[rows], random_state=stratum_generator(seed, int(h[rows[0]])),
                     **kwargs)
        pieces.append(with_changes(res.data, res.changes))
        positions.append(rows)
    out = pd.concat(pieces)
    order = np.empty(len(part), dtype=np.int64)
    order[np.concatenate(positions)] = np.arange(len(part))
    return out.iloc[order]
