"""Household risk (sdcMicro's ``hier_risk``) and replicated households on Dask, with every
household kept whole within a partition.

**Household risk.** A record's individual risk depends on the data only through its key
combination's fk and Fk (:mod:`synthguard.risk._on_dask.individual`): the workers count each
partition's key combinations with their weight sums, the client merges the table (at most
``MAX_COMBINATIONS`` rows) and computes each combination's risk with the pandas formulas
(:func:`~synthguard.risk.individual_risk.wildcard_frequencies` weighted by the counts, so fk
is exact; Benedetti & Franconi's risk). The frame is hash-shuffled on the household id
(:func:`synthguard._dask.partitions.shuffle_by_keys`), so each household lies whole in one
partition; there every record looks up its combination's risk and its household's
r_h = 1 - prod_{i in h} (1 - r_i) is formed. The client sums r_h over records
(``hier_risk_ER``). Equal to the pandas figures up to floating-point rounding (the product
runs over the members in partition order, not the file's).

**Replicated households.** After the same shuffle, each household's signature is its size
and two sums of 64-bit mixes of its members' row hashes (order-free; two different member
multisets share one with probability about 2^-128), made per partition; the client counts
the data's signatures and looks the release's up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard._dask import ROW
from synthguard._dask.partitions import as_dask, pattern_hash, shuffle_by_keys, with_row_numbers
from synthguard.errors import DataError, ParameterError
from synthguard.risk.individual_risk import _benedetti_franconi, wildcard_frequencies

__all__ = ["HOUSEHOLD_PARTITIONS", "household_risk_figures", "household_signature_table",
           "replicated_flags"]

#: partitions of the household shuffle (at least the frame's own)
HOUSEHOLD_PARTITIONS = 8
MAX_COMBINATIONS = 5_000_000
_W = "_synthguard_w"


def _combinations(part: pd.DataFrame, keys: list[str], weights: str | None) -> pd.DataFrame:
    frame = part[keys].copy()
    frame["count"] = 1
    frame[_W] = 1.0 if weights is None else part[weights].to_numpy(dtype=np.float64)
    return frame.groupby(keys, dropna=False, sort=False)[["count", _W]].sum().reset_index()


def _combination_risk(table: pd.DataFrame, keys: list[str], weighted: bool) -> pd.DataFrame:
    codes = np.column_stack([pd.factorize(table[k], use_na_sentinel=True)[0] for k in keys]
                            ).astype(np.int64)
    count = table["count"].to_numpy(dtype=np.float64)
    fk = np.rint(wildcard_frequencies(codes, count)[1]).astype(np.int64)
    if weighted:
        Fk = wildcard_frequencies(codes, table[_W].to_numpy(dtype=np.float64))[1]
        risk = _benedetti_franconi(fk, Fk)
    else:
        risk = 1.0 / fk.astype(np.float64)
    return table[keys].assign(_synthguard_risk=risk)


def _household_part(part: pd.DataFrame, table: pd.DataFrame, keys: list[str],
                    household: str) -> pd.DataFrame:
    """Per partition (households whole): records, households, sum of r_h over records and
    the highest r_h."""
    if part[household].isna().any():
        raise DataError(f"data: household-id column '{household}' has missing values; give "
                        f"every record a household id")
    merged = part[[household, *keys]].merge(table, on=keys, how="left", sort=False)
    r = merged["_synthguard_risk"].to_numpy(dtype=np.float64)
    codes = pd.factorize(merged[household])[0]
    if len(r) == 0:
        return pd.DataFrame({"n": [0], "h": [0], "er": [0.0], "top": [0.0]})
    order = np.argsort(codes, kind="stable")  # members in partition order, as R's prod
    starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
    keep = 1.0 - np.multiply.reduceat(1.0 - r[order], starts)
    per_record = keep[codes]
    return pd.DataFrame({"n": [len(r)], "h": [int(codes.max()) + 1],
                         "er": [float(per_record.sum())], "top": [float(keep.max())]})


def household_risk_figures(frame: Any, keys: Sequence[str], weights: str | None,
                           household: str, npartitions: int | None = None) -> dict[str, float]:
    """``n``, ``n_households``, ``expected_reidentifications`` (hier_risk_ER),
    ``global_risk`` (hier_risk) and ``highest`` of a Dask frame."""
    frame = as_dask(frame, name="data")
    keys_l = list(keys)
    lacking = [c for c in [*keys_l, household, *([weights] if weights else [])]
               if c not in frame.columns]
    if lacking:
        raise DataError(f"data: column(s) {', '.join(lacking)} not found; check the names")
    cols = list(dict.fromkeys([household, *keys_l, *([weights] if weights else [])]))
    frame = frame[cols]
    parts = frame.to_delayed()
    tables = dask.compute(*[dask.delayed(_combinations)(p, keys_l, weights) for p in parts])
    table = pd.concat(tables, ignore_index=True).groupby(
        keys_l, dropna=False, sort=True)[["count", _W]].sum().reset_index()
    if len(table) > MAX_COMBINATIONS:
        raise ParameterError("household risk: the keys have too many distinct combinations "
                             "for one machine's table; group a continuous key first")
    risk = _combination_risk(table, keys_l, weights is not None)
    nparts = max(frame.npartitions, npartitions or HOUSEHOLD_PARTITIONS)
    whole = shuffle_by_keys(frame, [household], nparts)
    (risk_d,) = dask.persist(dask.delayed(risk))
    per = dask.compute(*[dask.delayed(_household_part)(p, risk_d, keys_l, household)
                         for p in whole.to_delayed()])
    got = pd.concat(per, ignore_index=True)
    n = int(got["n"].sum())
    er = float(got["er"].sum())
    return {"n": n, "n_households": int(got["h"].sum()), "expected_reidentifications": er,
            "global_risk": er / n if n else 0.0,
            "highest": float(got["top"].max()) if n else 0.0}


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (Steele, Lea & Flood 2014), wrapping in uint64."""
    with np.errstate(over="ignore"):
        z = (h ^ (h >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def _signatures(part: pd.DataFrame, household: str, columns: list[str]) -> pd.DataFrame:
    if part[household].isna().any():
        raise DataError(f"household-id column '{household}' has missing values; give every "
                        f"record a household id")
    codes, _ = pd.factorize(part[household], sort=False)
    h = pattern_hash(part, columns)
    a, b = _mix(h), _mix(h ^ np.uint64(0x9E3779B97F4A7C15))
    k = int(codes.max()) + 1 if len(codes) else 0
    s1, s2 = np.zeros(k, np.uint64), np.zeros(k, np.uint64)
    first = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
    with np.errstate(over="ignore"):
        np.add.at(s1, codes, a)
        np.add.at(s2, codes, b)
    np.minimum.at(first, codes, part[ROW].to_numpy(dtype=np.int64))
    return pd.DataFrame({"n": np.bincount(codes, minlength=k).astype(np.uint64), "a": s1,
                         "b": s2, "first": first})


def household_signature_table(frame: Any, household: str, columns: Sequence[str],
                              npartitions: int | None = None) -> pd.DataFrame:
    """One row per household of a Dask frame, in order of first appearance: its signature
    (``n``, ``a``, ``b``)."""
    frame = as_dask(frame, name="data")
    cols = list(dict.fromkeys([household, *columns]))
    numbered, _ = with_row_numbers(frame[cols])
    nparts = max(frame.npartitions, npartitions or HOUSEHOLD_PARTITIONS)
    whole = shuffle_by_keys(numbered, [household], nparts)
    parts = dask.compute(*[dask.delayed(_signatures)(p, household, list(columns))
                           for p in whole.to_delayed()])
    table = pd.concat(parts, ignore_index=True).sort_values("first", kind="stable")
    return table.drop(columns="first").reset_index(drop=True)


def replicated_flags(conf: Any, release: Any, household: str, columns: Sequence[str]
                     ) -> tuple[np.ndarray, int]:
    """Per released household (in order of first appearance): whether its signature is that
    of a household unique in the data; and the number of such data households."""
    data_sig = household_signature_table(conf, household, columns)
    counts = data_sig.groupby(["n", "a", "b"]).size()
    unique = counts[counts == 1].reset_index()[["n", "a", "b"]].assign(_u=True)
    rel_sig = household_signature_table(release, household, columns)
    flags = rel_sig.merge(unique, on=["n", "a", "b"], how="left", sort=False)["_u"]
    return flags.notna().to_numpy(dtype=bool), len(unique)
