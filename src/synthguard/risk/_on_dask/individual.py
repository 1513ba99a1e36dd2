"""sdcMicro's individual re-identification risk on Dask, from the table of key combinations.

The individual risk of a record depends on the data only through the frequencies of its key
combination: fk (records whose keys agree with it, a missing value agreeing with any value,
sdcMicro's ``freqCalc`` with alpha = 1) and Fk (their summed sampling weights). Both follow
from the table of distinct key combinations with their record counts and weight sums: the
workers count each partition's combinations, the tables are merged in a tree, and the client
runs :func:`synthguard.risk.individual_risk.wildcard_frequencies` on the combinations, weighted
by their counts (so fk and the number of records above a risk are exact), then the risk
formula of :func:`synthguard.risk.individual_risk` (Benedetti & Franconi 1998; Franconi &
Polettini 2004) per combination. The global risk and expected re-identifications sum the
combinations' risks times their counts: equal to the pandas sums over records up to
floating-point rounding, as are weighted Fk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask
from synthguard._display import Summarized
from synthguard.errors import DataError, ParameterError
from synthguard.risk._common import as_list
from synthguard.risk.individual_risk import _benedetti_franconi, wildcard_frequencies

__all__ = ["MAX_COMBINATIONS", "IndividualRiskSummary", "individual_risk"]

MAX_COMBINATIONS = 5_000_000


@dataclass(frozen=True, eq=False)
class IndividualRiskSummary(Summarized):
    """sdcMicro's individual risk of a Dask frame, per distinct key combination.

    Attributes
    ----------
    combinations : one row per distinct key combination (integer codes, -1 missing), with
        ``count`` (its records), ``fk``, ``Fk`` and ``risk`` (the risk of each of its records).
    global_risk, expected_reidentifications : mean and sum of the records' risks.
    n : number of records; ``weighted``: whether sampling weights were used.
    """

    combinations: pd.DataFrame
    global_risk: float
    expected_reidentifications: float
    n: int
    weighted: bool
    keys: tuple[str, ...]

    goal = "minimize"

    @property
    def global_risk_pct(self) -> float:
        return 100.0 * self.global_risk

    def n_above(self, threshold: float) -> int:
        """Number of records whose individual risk exceeds ``threshold`` (exact)."""
        c = self.combinations
        return int(c["count"][c["risk"] > threshold].sum())

    def to_frame(self) -> pd.DataFrame:
        return self.combinations.copy()

    def summary(self) -> str:
        kind = "weighted (Benedetti-Franconi)" if self.weighted else "unweighted (1/fk)"
        top = float(self.combinations["risk"].max()) if self.n else 0.0
        return "\n".join([
            f"Individual risk of keys {', '.join(self.keys)} ({self.n} records, {kind})",
            f"  expected re-identifications: {self.expected_reidentifications:.2f} "
            f"({self.global_risk_pct:.2f}%)",
            f"  records with risk > 0.1: {self.n_above(0.1)}",
            f"  highest individual risk: {top:.4f}",
        ])


def _local(part: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, list[pd.Series]]:
    codes = np.empty((len(part), len(keys)), dtype=np.int64)
    uniques = []
    for j, c in enumerate(keys):
        k, u = pd.factorize(part[c])  # missing: -1, as key_codes
        codes[:, j] = k
        uniques.append(pd.Series(u))
    return codes, uniques


def _uniques(part: pd.DataFrame, keys: list[str]) -> list[pd.Series]:
    return _local(part, keys)[1]


def _l2g(parts: list[pd.Series]) -> list[np.ndarray]:
    """Per part, the global code of each local code (pd.factorize of the concatenation: the
    equality of ``key_codes`` on the whole column)."""
    kept = [p for p in parts if len(p)]
    if not kept:
        return [np.zeros(0, dtype=np.int64) for _ in parts]
    ser = pd.concat(kept, ignore_index=True)
    codes = np.asarray(pd.factorize(ser)[0], dtype=np.int64)
    out, start = [], 0
    for p in parts:
        out.append(codes[start:start + len(p)])
        start += len(p)
    return out


def _table(part: pd.DataFrame, keys: list[str], l2g: list[np.ndarray],
           weights: str | None) -> pd.DataFrame:
    local, _ = _local(part, keys)
    codes = np.empty_like(local)
    for j in range(len(keys)):
        m = np.append(l2g[j], -1)  # local -1 (missing) indexes the appended -1
        codes[:, j] = m[local[:, j]]
    frame = pd.DataFrame(codes, columns=range(len(keys)))
    frame["count"] = 1
    frame["w"] = _weights(part, weights) if weights else 1.0
    return _sum(frame, len(keys))


def _weights(part: pd.DataFrame, weights: str) -> np.ndarray:
    try:
        w = part[weights].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise DataError(f"weight column '{weights}': expected numbers; convert the weights to "
                        f"numeric") from None
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise DataError(f"weight column '{weights}': expected finite positive weights without "
                        f"missing values; impute or drop the records without a weight")
    return w


def _sum(frame: pd.DataFrame, nk: int) -> pd.DataFrame:
    return frame.groupby(list(range(nk)), sort=True)[["count", "w"]].sum().reset_index()


def _merge(*tables: pd.DataFrame) -> pd.DataFrame:
    if len(tables) == 1:
        return tables[0]
    nk = tables[0].shape[1] - 2
    return _sum(pd.concat(tables, ignore_index=True), nk)


def _rows(table: pd.DataFrame) -> int:
    return len(table)


def individual_risk(frame: Any, keys: Sequence[str], weights: str | None = None
                    ) -> IndividualRiskSummary:
    """:func:`synthguard.risk.individual_risk` of a Dask frame (sdcMicro 5.8's
    ``measure_risk``: ``freqCalc`` with alpha = 1 and ``indivRisk(method = "approx")``),
    from the key combinations' counts and weight sums made on the workers. fk and the records
    above a risk are exact; the global risk, expected re-identifications and weighted Fk equal
    the pandas figures up to floating-point rounding.

    Raises
    ------
    ParameterError : no keys, too many distinct key combinations, or a weight column that is a
        key.
    DataError : a key or weight column missing, or bad weights.
    """
    frame = as_dask(frame, name="data")
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    lacking = [c for c in [*keys_l, *([weights] if weights else [])] if c not in frame.columns]
    if lacking:
        raise DataError(f"data: column(s) {', '.join(lacking)} not found; check the names")
    if weights is not None and weights in keys_l:
        raise ParameterError(f"parameter 'weights': '{weights}' is also a key variable; name a "
                             f"separate column")
    parts = frame.to_delayed()  # whole partitions: see _columns
    uniq = dask.compute(*[dask.delayed(_uniques)(p, keys_l) for p in parts])
    maps = [_l2g([u[j] for u in uniq]) for j in range(len(keys_l))]
    tables = [dask.delayed(_table)(p, keys_l, [m[k] for m in maps], weights)
              for k, p in enumerate(parts)]
    while len(tables) > 1:
        tables = [dask.delayed(_merge)(*tables[i:i + 8]) for i in range(0, len(tables), 8)]
    (merged,) = dask.persist(tables[0])
    if dask.compute(dask.delayed(_rows)(merged))[0] > MAX_COMBINATIONS:
        raise ParameterError(
            "individual risk: the keys have too many distinct combinations for one machine's "
            "table; group a continuous key first or evaluate a sample without --dask")
    table = dask.compute(merged)[0]
    nk = len(keys_l)
    codes = table[list(range(nk))].to_numpy(dtype=np.int64)
    count = table["count"].to_numpy(dtype=np.int64)
    n = int(count.sum())
    fk_f = wildcard_frequencies(codes, count.astype(np.float64))[1]
    fk = np.rint(fk_f).astype(np.int64)
    if weights:
        Fk = wildcard_frequencies(codes, table["w"].to_numpy(dtype=np.float64))[1]
        risk = _benedetti_franconi(fk, Fk)
    else:
        Fk = fk.astype(np.float64)
        risk = 1.0 / fk.astype(np.float64) if len(fk) else np.zeros(0)
    er = float(np.sum(risk * count))
    combos = pd.DataFrame(codes, columns=keys_l).assign(count=count, fk=fk, Fk=Fk, risk=risk)
    return IndividualRiskSummary(combinations=combos, global_risk=er / n if n else 0.0,
                                 expected_reidentifications=er, n=n,
                                 weighted=weights is not None, keys=tuple(keys_l))
