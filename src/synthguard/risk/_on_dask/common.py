"""What the risk measures on Dask share: global row numbers, the hash shuffle on the keys
(:mod:`synthguard._dask.partitions`) applied to the confidential data and to every implicate
alike, and the pattern codes rebuilt in the pandas encoder's order."""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask_implicates, shuffle_by_keys, with_row_numbers
from synthguard.errors import DataError
from synthguard.risk._patterns import check_columns

__all__ = ["pattern_codes", "prepare", "prepare_implicates"]


def pattern_codes(first: np.ndarray) -> np.ndarray:
    """Pattern codes in order of first appearance, as the pandas encoder numbers them."""
    return np.asarray(pd.factorize(first)[0], dtype=np.int64)


def prepare(
    conf: dd.DataFrame, columns: list[str], keys: list[str], npartitions: int | None
) -> tuple[dd.DataFrame, int, int]:
    framed, n = with_row_numbers(conf[columns])
    parts = npartitions or conf.npartitions
    return shuffle_by_keys(framed, keys, parts), n, parts


def prepare_implicates(
    synthetic: Any, columns: list[str], keys: list[str], n: int, parts: int
) -> list[dd.DataFrame]:
    out = []
    bad = []
    for li, frame in enumerate(as_dask_implicates(synthetic)):
        check_columns(frame._meta, columns, name=f"synthetic implicate {li}", role="key/target")
        framed, n_l = with_row_numbers(frame[columns])
        if n_l != n:
            bad.append(li)
        out.append(shuffle_by_keys(framed, keys, parts))
    if bad:
        raise DataError(
            f"synthetic: implicate(s) {bad} do not have as many rows as the confidential data; "
            f"partially synthetic implicates must keep the confidential rows in order"
        )
    return out

