"""Individual re-identification risk from sample and weighted key frequencies, as sdcMicro's
``measure_risk`` computes it (Benedetti & Franconi 1998; Franconi & Polettini 2004;
Templ, Kowarik & Meindl 2015)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import DataError, ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import check_columns
from synthguard.risk.household_risk import HouseholdRisk, household_ids, household_risk
from synthguard.risk.uniqueness import _group_rows

__all__ = ["IndividualRisk", "individual_risk", "key_codes", "wildcard_frequencies"]


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


def key_codes(data: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Integer codes (n x len(keys)) of the key variables; a missing value is coded -1."""
    codes = np.empty((len(data), len(keys)), dtype=np.int64)
    for j, c in enumerate(keys):
        codes[:, j] = pd.factorize(data[c].reset_index(drop=True))[0]
    return codes


def wildcard_frequencies(
    codes: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Sample frequency fk and weighted frequency Fk of every row of ``codes`` (-1 = missing).

    Rows i and j agree when, for every key, their codes are equal or one of them is missing
    (sdcMicro's freqCalc with alpha = 1; the rule of :func:`k_anonymity`). fk_i counts the
    rows agreeing with i (including i), Fk_i sums their weights.

    Rows are grouped by missingness pattern; for each pair (A, B) of patterns the keys missing
    in neither are grouped and counted with ``np.bincount``: O(M^2 n) for M patterns.
    """
    n, p = codes.shape
    w = np.ones(n) if weights is None else weights
    miss = codes < 0
    if not miss.any():  # one pattern: a single grouping
        grp = _group_rows(codes)
        return np.bincount(grp)[grp], np.bincount(grp, weights=w)[grp]
    mpat = (miss * (1 << np.arange(p, dtype=np.int64))).sum(axis=1)
    patterns = np.unique(mpat)
    fk = np.zeros(n, dtype=np.int64)
    Fk = np.zeros(n, dtype=np.float64)
    members = {a: np.flatnonzero(mpat == a) for a in patterns} if len(patterns) > 1 else None
    for a in patterns:
        rows_a = np.arange(n) if members is None else members[a]
        for b in patterns:
            rows_b = rows_a if members is None or a == b else members[b]
            shared = [j for j in range(p) if not ((a | b) >> j) & 1]
            if not shared:
                fk[rows_a] += rows_b.size
                Fk[rows_a] += w[rows_b].sum()
                continue
            if a == b:
                grp = _group_rows(codes[rows_a][:, shared])
                ga, gb = grp, grp
            else:
                grp = _group_rows(
                    np.concatenate([codes[rows_a][:, shared], codes[rows_b][:, shared]])
                )
                ga, gb = grp[: rows_a.size], grp[rows_a.size :]
            m = int(grp.max()) + 1
            fk[rows_a] += np.bincount(gb, minlength=m)[ga]
            Fk[rows_a] += np.bincount(gb, weights=w[rows_b], minlength=m)[ga]
    return fk, Fk


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


def individual_risk(
    data: pd.DataFrame,
    keys: Sequence[str],
    weights: str | np.ndarray | Sequence[float] | pd.Series | None = None,
    household: str | None = None,
) -> IndividualRisk:
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
        household risk.

    Returns
    -------
    IndividualRisk

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
    check_columns(data, keys_l, name="data", role="key")
    n = len(data)
    w = _weights(data, weights, keys_l)
    codes = key_codes(data, keys_l)
    fk, Fk = wildcard_frequencies(codes, w)
    risk = _benedetti_franconi(fk, Fk) if w is not None else 1.0 / fk.astype(np.float64)
    er = float(risk.sum())
    hh = None
    if household is not None:
        if not isinstance(household, str):
            raise ParameterError("parameter 'household': expected the name of the household-id "
                                 "column")
        if household in keys_l:
            raise ParameterError(f"parameter 'household': '{household}' is also a key "
                                 f"variable; an id is not something an intruder matches on")
        hh = household_risk(risk, household_ids(data, household), household=household,
                            index=data.index)
    return IndividualRisk(
        fk=fk,
        Fk=Fk,
        risk=risk,
        global_risk=er / n if n else 0.0,
        expected_reidentifications=er,
        weighted=w is not None,
        keys=tuple(keys_l),
        index=data.index,
        household=hh,
    )


def _weights(data: pd.DataFrame, weights: object, keys: list[str]) -> np.ndarray | None:
    if weights is None:
        return None
    if isinstance(weights, str):
        check_columns(data, [weights], name="data", role="weight")
        if weights in keys:
            raise ParameterError(
                f"parameter 'weights': '{weights}' is also a key variable; name a separate column"
            )
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
