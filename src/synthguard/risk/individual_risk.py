"""Individual re-identification risk from sample and weighted key frequencies, as sdcMicro's
``measure_risk`` computes it (Benedetti & Franconi 1998; Franconi & Polettini 2004;
Templ, Kowarik & Meindl 2015)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.errors import DataError, ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import check_columns
from synthguard.risk.blocks.frequencies import key_codes, wildcard_frequencies
from synthguard.risk.household_risk import HouseholdRisk, household_ids, household_risk

__all__ = [
    "IndividualRisk",
    "IndividualRiskSummary",
    "individual_risk",
    "key_codes",
    "wildcard_frequencies",
]


@dataclass(frozen=True, eq=False)
class IndividualRisk(Summarized):
    """Per-record risk of re-identification from the key variables.

    Attributes
    ----------
    fk : sample frequency of every record's key combination (sdcMicro's ``fk``).
    Fk : weighted frequency, the estimated population frequency (sdcMicro's ``Fk``); equals
        fk without weights.
    risk : individual risk of every record (sdcMicro's ``risk``, column 1 of ``Res``).
    global_risk : mean individual risk (sdcMicro's ``global_risk``).
    expected_reidentifications : sum of the individual risks (sdcMicro's ``global_risk_ER``).
    weighted : whether sampling weights were used.
    household : with ``household=``, the household risk of every record and its global
        figures (sdcMicro's ``hier_risk``, ``hier_risk_ER``, ``hier_risk_pct``), a
        :class:`~synthguard.risk.household_risk.HouseholdRisk`; None otherwise.
    """

    fk: np.ndarray
    Fk: np.ndarray
    risk: np.ndarray
    global_risk: float
    expected_reidentifications: float
    weighted: bool
    keys: tuple[str, ...]
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))
    household: HouseholdRisk | None = None

    goal = "minimize"

    @property
    def global_risk_pct(self) -> float:
        """Global risk in percent (sdcMicro's ``global_risk_pct``): the share of records
        expected to be re-identified."""
        return 100.0 * self.global_risk

    @property
    def n(self) -> int:
        return int(self.fk.shape[0])

    def n_above(self, threshold: float) -> int:
        """Number of records whose individual risk exceeds ``threshold``."""
        return int(np.sum(self.risk > threshold))

    def to_frame(self) -> pd.DataFrame:
        """One row per record in the data's order: ``risk``, ``fk``, ``Fk`` (and
        ``hier_risk`` with a household id)."""
        cols = {"fk": self.fk, "Fk": self.Fk, "risk": self.risk}
        if self.household is not None:
            cols["hier_risk"] = self.household.risk
        return pd.DataFrame(cols, index=self.index)

    def summary(self) -> str:
        kind = "weighted (Benedetti-Franconi)" if self.weighted else "unweighted (1/fk)"
        lines = [
            f"Individual risk of keys {', '.join(self.keys)} ({self.n} records, {kind})",
            f"  expected re-identifications: {self.expected_reidentifications:.2f} "
            f"({self.global_risk_pct:.2f}%)",
            f"  records with risk > 0.1: {self.n_above(0.1)}",
            f"  highest individual risk: {float(self.risk.max()) if self.n else 0.0:.4f}",
        ]
        if self.household is not None:
            lines.extend(self.household.summary().splitlines())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


@dataclass(frozen=True, eq=False)
class IndividualRiskSummary(Summarized):
    """sdcMicro's individual risk per distinct key combination: :func:`individual_risk` with
    ``gather=False`` (on Dask nothing per record reaches the client).

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


def _benedetti_franconi(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """sdcMicro's ``indivRisk(method="approx")`` risk from fk and Fk, vectorized."""
    fkf = fk.astype(np.float64)
    pk = fkf / Fk
    risk = np.empty_like(pk)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = pk / (1.0 - pk)
        log_inv = np.log(1.0 / pk)
        one = fk == 1
        two = fk == 2
        more = fk > 2
        risk[one] = (odds * log_inv)[one]
        risk[two] = (odds - odds**2 * log_inv)[two]
        risk[more] = (pk / (fkf - (1.0 - pk)))[more]
    same = fkf == Fk
    risk[same] = 1.0 / fkf[same]
    return risk


@overload
def individual_risk(
    data: Any,
    keys: Sequence[str],
    weights: str | np.ndarray | Sequence[float] | pd.Series | None = None,
    household: str | None = None,
    *,
    gather: Literal[True] = True,
) -> IndividualRisk: ...


@overload
def individual_risk(
    data: Any,
    keys: Sequence[str],
    weights: str | np.ndarray | Sequence[float] | pd.Series | None = None,
    household: str | None = None,
    *,
    gather: bool,
) -> IndividualRisk | IndividualRiskSummary: ...


@dask_backend
def individual_risk(
    data: Any,
    keys: Sequence[str],
    weights: str | np.ndarray | Sequence[float] | pd.Series | None = None,
    household: str | None = None,
    *,
    gather: bool = True,
) -> IndividualRisk | IndividualRiskSummary:
    """Individual re-identification risk of every record, global risk and expected
    re-identifications, as sdcMicro 5.8's ``measure_risk`` (``freqCalc`` + ``indivRisk``,
    ``method="approx"``) computes them.

    With sampling weights w, fk is the sample frequency of a record's key combination and
    Fk = sum of w over those records, the estimated population frequency. With p_k = fk / Fk
    the risk of Benedetti & Franconi (1998), in the approximation of Franconi & Polettini (2004)
    that sdcMicro uses, is

    * fk = 1:  r = p/(1-p) * log(1/p)
    * fk = 2:  r = p/(1-p) - (p/(1-p))^2 * log(1/p)
    * fk > 2:  r = p / (fk - (1-p))

    and r = 1/fk when fk = Fk (the whole population is in the sample). Without weights the data
    are treated as the population and r = 1/fk (sdcMicro's ``survey = FALSE``).
    global_risk = mean(r); expected_reidentifications = sum(r) (sdcMicro's ``global_risk_ER``);
    ``global_risk_pct`` = 100 * global_risk.

    With ``household=`` (the household-id column, sdcMicro's ``hid``) the result's
    ``household`` holds every record's household risk r_h = 1 - prod_{i in h} (1 - r_i) and
    its sums over records, ``hier_risk_ER`` and ``hier_risk`` = hier_risk_ER / n
    (:func:`synthguard.risk.household_risk.household_risk`).

    Missing key values follow sdcMicro's freqCalc (alpha = 1): a missing value matches any
    value, so fk and Fk count and sum over all records whose keys agree or are missing (see
    :func:`k_anonymity`). One deviation: sdcMicro 5.8 with two or more keys does not add records
    whose keys are *all* missing to the counts of complete records (its ``addAllNAtoKeys``
    switch is off); here agreement is symmetric and they are added, as in :func:`k_anonymity`.

    Parameters
    ----------
    data : the data (confidential or released).
    keys : key variables (quasi-identifiers), matched exactly.
    weights : sampling weights: a column of ``data`` or one positive value per record; None
        for unweighted data.
    household : household-id column of ``data`` (persons within households); adds the
        household risk (pandas only).
    gather : True returns the per-record :class:`IndividualRisk`; False its figures per
        distinct key combination (:class:`IndividualRiskSummary`).

    Notes
    -----
    ``data`` may be a pandas or a Dask DataFrame (weights then a column name). On Dask the
    workers count each partition's key combinations with their weight sums
    (:func:`synthguard.risk.blocks.frequencies.combination_table`), the tables are merged in
    a tree, and :func:`wildcard_frequencies` runs on the combinations weighted by their
    counts; with ``gather=True`` every partition then looks its records' combinations up. fk
    and the records above a risk are exact; without weights every figure equals pandas bit
    for bit, with weights Fk, the risk and the sums equal it up to floating-point rounding.

    Returns
    -------
    IndividualRisk, or IndividualRiskSummary with ``gather=False``

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f", "f", "m"], "w": [10.0, 30.0, 5.0]})
    >>> r = individual_risk(df, ["sex"], weights="w")
    >>> r.Fk
    array([40., 40.,  5.])
    >>> round(float(r.risk[2]), 4)  # fk = 1, p = 0.2: 0.25 * log(5)
    0.4024
    """
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    check_columns(meta_of(data), keys_l, name="data", role="key")
    if household is not None and not isinstance(household, str):
        raise ParameterError("parameter 'household': expected the name of the household-id "
                             "column")
    if household is not None and household in keys_l:
        raise ParameterError(f"parameter 'household': '{household}' is also a key "
                             f"variable; an id is not something an intruder matches on")
    if any_dask(data):
        from synthguard.risk._on_dask.individual import individual_parts

        if weights is not None:
            _weight_column(meta_of(data), weights, keys_l, dask=True)
        if household is not None:
            raise ParameterError("parameter 'household': the household risk is not computed "
                                 "on Dask; compute it on a pandas frame of the key and "
                                 "household columns")
        parts = individual_parts(data, keys_l, weights if isinstance(weights, str) else None,
                                 gather=gather)
        if not gather:
            return _summary_of(parts["combinations"], keys_l, weights is not None)
        fk, Fk, risk = parts["fk"], parts["Fk"], parts["risk"]
        index = parts["index"]
    else:
        w = _weights(data, weights, keys_l)
        codes = key_codes(data, keys_l)
        if not gather:
            table = _pandas_combinations(codes, w)
            return _summary_of(combination_risk(table, keys_l, w is not None), keys_l,
                               w is not None)
        fk, Fk = wildcard_frequencies(codes, w)
        risk = _risk(fk, Fk, w is not None)
        index = data.index
    n = len(fk)
    er = float(risk.sum())
    hh = None
    if household is not None:
        hh = household_risk(risk, household_ids(data, household), household=household,
                            index=data.index)
    return IndividualRisk(
        fk=fk,
        Fk=Fk,
        risk=risk,
        global_risk=er / n if n else 0.0,
        expected_reidentifications=er,
        weighted=weights is not None,
        keys=tuple(keys_l),
        index=index,
        household=hh,
    )


def _risk(fk: np.ndarray, Fk: np.ndarray, weighted: bool) -> np.ndarray:
    if weighted:
        return _benedetti_franconi(fk, Fk)
    return 1.0 / fk.astype(np.float64) if len(fk) else np.zeros(0)


def combination_risk(table: pd.DataFrame, keys: list[str], weighted: bool) -> pd.DataFrame:
    """fk, Fk and the risk of every distinct key combination of a table with columns
    ``0..len(keys)-1`` (integer codes, -1 missing), ``count`` (records) and ``w`` (their
    weight sum): :func:`wildcard_frequencies` weighted by the counts and the weight sums, so
    fk is the records' exact fk. Returns the codes under the key names with ``count``,
    ``fk``, ``Fk`` and ``risk``."""
    nk = len(keys)
    codes = table[list(range(nk))].to_numpy(dtype=np.int64)
    count = table["count"].to_numpy(dtype=np.int64)
    fk = np.rint(wildcard_frequencies(codes, count.astype(np.float64))[1]).astype(np.int64)
    if weighted:
        Fk = wildcard_frequencies(codes, table["w"].to_numpy(dtype=np.float64))[1]
    else:
        Fk = fk.astype(np.float64)
    return pd.DataFrame(codes, columns=keys).assign(count=count, fk=fk, Fk=Fk,
                                                    risk=_risk(fk, Fk, weighted))


def _pandas_combinations(codes: np.ndarray, w: np.ndarray | None) -> pd.DataFrame:
    frame = pd.DataFrame(codes, columns=range(codes.shape[1]))
    frame["count"] = 1
    frame["w"] = 1.0 if w is None else w
    return frame.groupby(list(range(codes.shape[1])), sort=True)[["count", "w"]].sum(
    ).reset_index()


def _summary_of(combos: pd.DataFrame, keys: list[str], weighted: bool) -> IndividualRiskSummary:
    count = combos["count"].to_numpy(dtype=np.int64)
    n = int(count.sum())
    er = float(np.sum(combos["risk"].to_numpy() * count))
    return IndividualRiskSummary(combinations=combos, global_risk=er / n if n else 0.0,
                                 expected_reidentifications=er, n=n, weighted=weighted,
                                 keys=tuple(keys))


def _weight_column(meta: Any, weights: object, keys: list[str], dask: bool = False) -> None:
    if not isinstance(weights, str):
        if dask:
            raise ParameterError("parameter 'weights': on a Dask frame name the weight column")
        return
    check_columns(meta, [weights], name="data", role="weight")
    if weights in keys:
        raise ParameterError(
            f"parameter 'weights': '{weights}' is also a key variable; name a separate column"
        )


def _weights(data: pd.DataFrame, weights: object, keys: list[str]) -> np.ndarray | None:
    if weights is None:
        return None
    _weight_column(data, weights, keys)
    if isinstance(weights, str):
        raw: object = data[weights]
        label = f"weight column '{weights}'"
    else:
        raw = weights
        label = "parameter 'weights'"
    try:
        w = np.asarray(raw, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise DataError(f"{label}: expected numbers; convert the weights to numeric") from None
    if w.shape[0] != len(data):
        raise DataError(f"{label}: expected one weight per record of the data")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise DataError(
            f"{label}: expected finite positive weights without missing values; "
            "impute or drop the records without a weight"
        )
    return w
