"""Nearest-neighbour kernels of the distance to closest record on blocks of records: the two
nearest records of a reference block for every record of a query block, and the merge of
several reference blocks' answers (the two smallest distances over all of them are the
global two nearest)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard.risk._encoding import encode_frames
from synthguard.risk._neighbours import nearest

__all__ = ["merge_two", "nearest_two"]


def nearest_two(
    scale: pd.DataFrame, ref: pd.DataFrame, query: pd.DataFrame, metric: str, overrides: Any
) -> np.ndarray:
    """Distances from ``query``'s rows to their two nearest rows of ``ref`` (inf-padded), by
    the room's encoder and exact blocked KD-tree search. ``scale``: rows that carry the whole
    confidential data's scales (min, median, max of every numeric column), encoded with the
    blocks so that every block is encoded as the whole data would be."""
    out = np.full((len(query), 2), np.inf)
    if len(ref) == 0 or len(query) == 0:
        return out
    cols = list(scale.columns)
    enc = encode_frames([scale, ref[cols], query[cols]], metric=metric, schema=overrides)
    d = nearest(enc, 1, [2], k=2)
    out[:, : d.shape[1]] = d
    return out


def merge_two(*blocks: np.ndarray) -> np.ndarray:
    """The two smallest distances per row over several blocks' ``nearest_two`` answers."""
    return np.sort(np.hstack(blocks), axis=1)[:, :2]
