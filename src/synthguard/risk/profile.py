"""Record-level identification risk of a release, its profile and its whack-a-mole records,
as Hu, Savitsky & Williams report them.

* :func:`record_risk`: IR_i of each confidential record, eq. (2) for the data itself and
  eq. (1) averaged over the implicates for a release whose rows align with the data;
  singletons scored by the formula (0), as :func:`~synthguard.risk.evaluate_risk` does.
* :func:`risk_profile`: mean, quartiles, IQR, maximum and the number of records above a
  threshold (0.5, their section 2.3.2) -- their Figures 2, 5 and 8.
* :func:`whack_a_mole`: the records whose risk rises by at least ``increase`` (0.25) from
  one release to another -- their Figures 3, 5b and 9.

One definition for the report (:mod:`synthguard.report`) and the comparison of
risk-weighted releases (:func:`synthguard.bayes.compare_releases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import ParameterError
from synthguard.risk.identification import identification_risk

__all__ = ["RiskProfile", "record_risk", "risk_profile", "whack_a_mole"]


def record_risk(
    conf: pd.DataFrame,
    release: Any = None,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float = 0.2,
    relative: bool = True,
) -> np.ndarray:
    """IR_i of every confidential record (float array, one per row of ``conf``).

    ``release`` None gives the data's own risk (eq. 2); a release (implicates aligned with
    the rows of ``conf``) gives eq. (1) averaged over its implicates. Records alone in their
    pattern score 0 (``singletons="zero"``). See
    :func:`~synthguard.risk.identification_risk`.
    """
    target = targets if isinstance(targets, str) else (
        targets[0] if len(targets) == 1 else list(targets))
    res = identification_risk(conf, release, keys=list(keys), targets=target, radius=radius,
                              relative=relative, singletons="zero")
    return np.asarray(res.per_record, dtype=float)


@dataclass(frozen=True)
class RiskProfile:
    """Summary of record-level risks: ``mean``, ``q25``, ``median``, ``q75``, ``iqr``,
    ``max`` and ``n_above`` (records with IR_i > ``threshold``)."""

    mean: float
    q25: float
    median: float
    q75: float
    iqr: float
    max: float
    n_above: int
    threshold: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def risk_profile(per_record: np.ndarray | Sequence[float], threshold: float = 0.5) -> RiskProfile:
    """The risk profile of IR_i (Hu, Savitsky & Williams, Figures 2, 5, 8): mean, quartiles
    (numpy's default linear interpolation), IQR = q75 - q25, maximum and
    ``#{i : IR_i > threshold}``."""
    r = np.asarray(per_record, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ParameterError("parameter 'per_record': expected a non-empty list of record risks")
    q25, q50, q75 = (float(v) for v in np.quantile(r, [0.25, 0.5, 0.75]))
    return RiskProfile(mean=float(r.mean()), q25=q25, median=q50, q75=q75, iqr=q75 - q25,
                       max=float(r.max()), n_above=int((r > threshold).sum()),
                       threshold=float(threshold))


def whack_a_mole(
    baseline: np.ndarray | Sequence[float],
    other: np.ndarray | Sequence[float],
    increase: float = 0.25,
) -> np.ndarray:
    """Boolean mask of the whack-a-mole records: ``IR_i(other) - IR_i(baseline) >= increase``
    (Hu, Savitsky & Williams, Figure 3: protecting some records raises others' risk)."""
    x = np.asarray(baseline, dtype=float)
    y = np.asarray(other, dtype=float)
    if x.shape != y.shape:
        raise ParameterError(
            "whack_a_mole: 'baseline' and 'other' must hold one risk per record each"
        )
    return (y - x) >= increase
