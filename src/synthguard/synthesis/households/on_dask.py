"""Household synthesis of a Dask DataFrame (a Parquet folder): households kept whole within a
partition, then the pandas household synthesis per partition.

1. The frame is hash-shuffled on the household id
   (:func:`synthguard._dask.partitions.shuffle_by_keys`): every household's members land in
   one partition, whatever partitions they were read in.
2. Partition ``p`` (a block of whole households) is synthesized by the pandas
   :class:`~synthguard.synthesis.Synthesizer` with ``household=``
   (:class:`~synthguard.synthesis.households.HouseholdModel`: households first, then members)
   with the ``p``-th child of ``numpy.random.SeedSequence(random_state)``, ``m`` implicates.
3. The synthetic households are numbered 1..H over the partitions, in partition order.

So the same seed and partitioning give the same release, and partition ``p``'s households
are the pandas release of its households with its seed. The safeguards are applied per
partition, which protects at least what the whole-file ones protect (as for strata,
:mod:`synthguard.scale.synthesis`): a household or person unique in the file is unique in its
partition, the ``k`` most extreme values of the file are among the ``k`` most extreme of their
partition, and a value held by fewer than ``k`` persons of the file is held by fewer than
``k`` in each partition. Each partition needs enough households for its models: choose
``npartitions`` so a partition holds thousands of households.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask import HASH
from synthguard._dask.partitions import as_dask, shuffle_by_keys
from synthguard.errors import ParameterError

__all__ = ["synthesize_households"]


def _seed(seed: tuple[int, tuple[int, ...]]) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed[0], spawn_key=seed[1])


def _synthesize_block(part: pd.DataFrame, household: str, m: int,
                      seed: tuple[int, tuple[int, ...]], params: dict[str, Any]
                      ) -> list[pd.DataFrame]:
    """The ``m`` implicates of one block of whole households (worker-side)."""
    from synthguard.synthesis.synthesizer import Synthesizer

    part = part.drop(columns=[HASH], errors="ignore").reset_index(drop=True)
    if not len(part):
        return [part.iloc[:0].copy() for _ in range(m)]
    syn = Synthesizer(household=household, random_state=_seed(seed), **params)
    return list(syn.fit(part).sample(m=m, diagnostics=False).implicates)


def _offset(frame: pd.DataFrame, household: str, start: int) -> pd.DataFrame:
    out = frame.copy()
    out[household] = out[household].astype(np.int64) + int(start)
    return out


def synthesize_households(data: Any, household: str, *, m: int = 1,
                          random_state: int | None = 0, npartitions: int | None = None,
                          **params: Any) -> list[dd.DataFrame]:
    """Synthesize a household–person Dask frame (see the module docstring); returns the ``m``
    implicates as Dask frames with new household ids 1..H.

    ``params`` are the :class:`~synthguard.synthesis.Synthesizer`'s (``household_columns``,
    ``member_order``, ``constraints``, ...), applied per partition.
    """
    frame = as_dask(data, name="data")
    if not isinstance(household, str) or household not in frame.columns:
        raise ParameterError(f"parameter 'household': '{household}' is not a column of the "
                             f"data; name the household-id column")
    for bad in ("household", "random_state", "m", "n"):
        if bad in params:
            raise ParameterError(f"parameter '{bad}': given to synthesize_households itself "
                                 f"(n is not taken on Dask: each partition draws as many "
                                 f"households as it holds)")
    if not isinstance(m, int) or m < 1:
        raise ParameterError("parameter 'm': expected a positive integer")
    nparts = int(npartitions or frame.npartitions)
    whole = shuffle_by_keys(frame, [household], nparts)
    root = np.random.SeedSequence(None if random_state is None else int(random_state))
    seeds = [(int(s.entropy), tuple(int(k) for k in s.spawn_key))  # type: ignore[arg-type]
             for s in root.spawn(nparts)]
    blocks = [dask.delayed(_synthesize_block)(p, household, m, seeds[i], dict(params))
              for i, p in enumerate(whole.to_delayed())]
    blocks = list(dask.persist(*blocks))
    counts = dask.compute(*[dask.delayed(lambda b: [int(f[household].max()) if len(f) else 0
                                                    for f in b])(b) for b in blocks])
    meta = frame._meta.drop(columns=[HASH], errors="ignore").copy()
    meta[household] = meta[household].astype(np.int64)
    out: list[dd.DataFrame] = []
    for i in range(m):
        starts = np.concatenate([[0], np.cumsum([c[i] for c in counts])])[:-1]
        parts = [dask.delayed(_offset)(dask.delayed(lambda b, j=i: b[j])(b), household,
                                       int(starts[p])) for p, b in enumerate(blocks)]
        out.append(dd.from_delayed(parts, meta=meta, verify_meta=False))
    return out


def household_blocks(data: Any, household: str, npartitions: int) -> Sequence[pd.DataFrame]:
    """The blocks of whole households the synthesis runs on (computed; for tests and
    inspection of a small file)."""
    frame = as_dask(data, name="data")
    whole = shuffle_by_keys(frame, [household], int(npartitions))
    return [p.drop(columns=[HASH]).reset_index(drop=True)
            for p in dask.compute(*whole.to_delayed())]
