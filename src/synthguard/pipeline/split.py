"""The training part and holdout of a ``synthguard run``, found again from its releases.

``run`` makes every release from a training part of the data and keeps a random share
(``holdout:``) aside. It writes neither part (they are confidential records); each release's
manifest records the plan's seed and holdout share instead (``details``: ``plan seed``,
``plan holdout``). The split depends only on the number of records and the seed: the first
Generator spawned from the seed draws which records are held out
(:func:`synthguard.pipeline.pipeline.split_holdout`). So ``synthguard evaluate`` given the
same full data file cuts it again exactly, and measures the releases against the records
they were made from, with the same holdout, as the run did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import spawn
from synthguard.pipeline.pipeline import split_holdout

__all__ = ["SEED_KEY", "SHARE_KEY", "RunSplit", "find_run_split", "split_rng"]

SEED_KEY = "plan seed"
SHARE_KEY = "plan holdout"


def split_rng(seed: int) -> np.random.Generator:
    """The split's stream: the first child spawned from the plan's seed, as
    :func:`~synthguard.pipeline.run_plan` spawns it (children do not depend on how many)."""
    return spawn(np.random.default_rng(seed), 1)[0]


@dataclass(frozen=True)
class RunSplit:
    """The holdout share and seed a run's releases record, and what cutting a file gives."""

    share: float
    seed: int

    def apply(self, data: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(training part, holdout) of ``data``, as the run cut them."""
        train, hold = split_holdout(data, self.share, split_rng(self.seed))
        assert hold is not None  # share > 0
        return train, hold

    def n_train(self, n: int) -> int:
        """Records of the training part of a file of ``n`` records."""
        return n - round(self.share * n)

    def describe(self) -> str:
        return f"holdout share {self.share:g}, plan seed {self.seed}"


def find_run_split(manifests: Mapping[str, Any], n_records: int,
                   row_counts: Mapping[str, list[int]], kinds: Mapping[str, str]
                   ) -> RunSplit | None:
    """The split every release records, when they were all made by one run with a holdout
    and ``n_records`` is the size of the file it was cut from; None otherwise.

    Parameters
    ----------
    manifests : release name -> its :class:`~synthguard.data.manifest.ReleaseManifest` (or None).
    n_records : records of the data file given.
    row_counts : release name -> rows of each implicate.
    kinds : release name -> the kind it is measured as; a partial or protected release
        (rows are the training records) must have as many rows as the training part.
    """
    found = set()
    for m in manifests.values():
        details = getattr(m, "details", None) or {}
        share, seed = details.get(SHARE_KEY), details.get(SEED_KEY)
        if (not isinstance(share, int | float) or isinstance(share, bool) or not 0 < share < 1
                or not isinstance(seed, int) or isinstance(seed, bool)):
            return None
        found.add((float(share), int(seed)))
    if len(found) != 1:
        return None
    split = RunSplit(*found.pop())
    n_train = split.n_train(n_records)
    if n_train < 2 or n_train == n_records:
        return None
    for name, kind in kinds.items():
        if kind in ("partial", "protected") and any(
                n != n_train for n in row_counts.get(name, [])):
            return None  # not the file the run cut (or a subsample): leave the data whole
    return split
