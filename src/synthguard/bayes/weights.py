"""Likelihood weights for the pseudo posterior: risk weights and survey weights.

Risk weights (Hu, Savitsky & Williams):

* marginal, eq. (3): ``alpha_i^m = 1 - IR_i^c`` with IR_i^c of eq. (2), the share of record
  i's pattern (records sharing its key values) whose target lies outside the ball B(y_i, r);
* pairwise, eqs. (6)-(9): ``alpha~_i = 1 - sum_{j != i in M_{p,i}} IR_ij^c / (|M_{p,i}| - 1)``,
  IR_ij^c the share of the pattern outside both balls B(y_i, r) and B(y_j, r).

Both come from :mod:`synthguard.risk` (exact, O(n log n)). Eq. (8) is 0/0 for a record
alone in its pattern; such a record gets ``singleton_weight``: by default its marginal weight
(eq. 2 gives a singleton risk 0, so weight 1), or a number you choose (0 removes it from the
likelihood, treating its keys alone as identifying), with a DisclosureWarning either way.

Trading utility back (the paper's supplement adjusts the weights linearly and by truncation):
``rescale=(c, g)`` maps ``alpha -> c * alpha + g`` and ``floor=f`` then raises every weight to
at least ``f``; the result is clipped to [0, 1]. ``floor=1`` is the unweighted synthesizer.

Survey weights (Savitsky & Toth 2016): sampling weights normalised to sum to the sample size n
give a pseudo likelihood whose posterior is design consistent; :func:`normalize_survey_weights`
does the normalisation and :func:`combine_weights` multiplies survey and risk weights.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from synthguard._compat import renamed, renamed_fields
from synthguard._display import Summarized
from synthguard.errors import DataError, DisclosureWarning, ParameterError
from synthguard.risk import identification_risk, pairwise_identification_risk

__all__ = ["RiskWeights", "combine_weights", "normalize_survey_weights", "risk_weights"]


@renamed_fields(target="targets")
@dataclass(frozen=True, eq=False)
class RiskWeights(Summarized):
    """Record-level likelihood weights alpha_i in [0, 1] and how they were made.

    Attributes
    ----------
    weights : the final alpha_i, aligned with the confidential rows (never missing).
    raw : the weights before ``rescale`` / ``floor`` (eq. 3 or eq. 9).
    risk : the confidential risk behind them: IR_i^c (marginal) or
        ``1 - alpha~_i`` (pairwise).
    singleton : True for records alone in their pattern.
    kind, keys, targets, radius, relative, floor, rescale, singleton_weight : the settings
        (``target``, the old name of ``targets``, works one release with a RenamedWarning).
    """

    weights: np.ndarray
    raw: np.ndarray
    risk: np.ndarray
    singleton: np.ndarray
    pattern_size: np.ndarray
    kind: str
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    radius: float
    relative: bool
    floor: float
    rescale: tuple[float, float] | None
    singleton_weight: str | float
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.weights.size)

    @property
    def mean(self) -> float:
        """Mean weight (1 means no downweighting)."""
        return float(self.weights.mean())

    @property
    def min(self) -> float:
        """Smallest weight."""
        return float(self.weights.min())

    @property
    def n_downweighted(self) -> int:
        """Records with a weight below one."""
        return int((self.weights < 1.0).sum())

    @property
    def n_singletons(self) -> int:
        """Records alone in their pattern."""
        return int(self.singleton.sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per record: pattern size, risk, raw and final weight, downweighting 1 - alpha."""
        return pd.DataFrame(
            {
                "pattern_size": self.pattern_size,
                "singleton": self.singleton,
                "risk": self.risk,
                "raw_weight": self.raw,
                "weight": self.weights,
                "downweighting": 1.0 - self.weights,
            },
            index=self.index,
        )

    def summary(self) -> str:
        """A short text summary (no data values, only weight statistics)."""
        q = np.quantile(self.weights, [0.25, 0.5, 0.75])
        return (
            f"{self.kind} risk weights for {self.n} records (keys {list(self.keys)}, target "
            f"{list(self.targets)}, radius {self.radius}{' relative' if self.relative else ''}): "
            f"mean {self.mean:.3f}, min {self.min:.3f}, quartiles {q[0]:.3f}/{q[1]:.3f}/{q[2]:.3f}; "
            f"{self.n_downweighted} downweighted, {self.n_singletons} singletons"
        )


@renamed(target="targets")
def risk_weights(
    conf: pd.DataFrame,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float = 0.2,
    kind: str = "marginal",
    *,
    relative: bool = True,
    floor: float = 0.0,
    rescale: tuple[float, float] | None = None,
    singleton_weight: Literal["marginal"] | float = "marginal",
) -> RiskWeights:
    """Risk weights alpha_i in [0, 1] for the risk-weighted pseudo posterior.

    ``kind="marginal"``: alpha_i = 1 - IR_i^c (Hu, Savitsky & Williams, eqs. 2-3).
    ``kind="pairwise"``: alpha_i = alpha~_i = 1 - sum_{j != i} IR_ij^c / (|M_{p,i}| - 1)
    (eqs. 6-9). Then ``alpha -> clip(max(c * alpha + g, floor), 0, 1)`` with
    ``rescale=(c, g)`` (default identity) and ``floor`` (default 0).

    Parameters
    ----------
    conf : confidential data.
    keys : key variables known to the intruder (they form the patterns).
    targets : the sensitive numeric target (a name) or targets (a list) being synthesized.
    radius : r of the ball B(y_i, r) (relative to |y_i| by default).
    kind : ``"marginal"`` or ``"pairwise"``.
    relative : relative (r |y_i|) or absolute radius.
    floor : lowest allowed weight, in [0, 1] (utility knob; 1 gives the unweighted model).
    rescale : ``(c, g)``, the linear adjustment ``c * alpha + g`` (utility knob).
    singleton_weight : weight of records alone in their pattern: ``"marginal"`` (their
        marginal weight, 1 by eq. 2) or a number in [0, 1]. A DisclosureWarning reports
        singletons whenever there are any.

    Returns
    -------
    RiskWeights

    Examples
    --------
    >>> conf = pd.DataFrame({"k": [1, 1, 1, 1], "y": [10.0, 11.0, 30.0, 60.0]})
    >>> risk_weights(conf, ["k"], "y", 0.2).weights
    array([0.5 , 0.5 , 0.25, 0.25])
    """
    if kind not in ("marginal", "pairwise"):
        raise ParameterError("parameter 'kind': expected 'marginal' or 'pairwise'")
    if not (0.0 <= floor <= 1.0):
        raise ParameterError("parameter 'floor': expected a number in [0, 1]")
    if rescale is not None:
        if len(rescale) != 2 or not all(np.isfinite(v) for v in rescale) or rescale[0] < 0:
            raise ParameterError(
                "parameter 'rescale': expected (c, g) with c >= 0 and finite g, giving c*alpha + g"
            )
    if not isinstance(singleton_weight, str):
        if not (0.0 <= float(singleton_weight) <= 1.0):
            raise ParameterError("parameter 'singleton_weight': expected 'marginal' or a number in [0, 1]")
    elif singleton_weight != "marginal":
        raise ParameterError("parameter 'singleton_weight': expected 'marginal' or a number in [0, 1]")
    keys_t = tuple(keys)
    targets = (targets,) if isinstance(targets, str) else tuple(targets)
    marg = identification_risk(
        conf, keys=keys_t, targets=list(targets), radius=radius, relative=relative, singletons="zero"
    )
    single = np.asarray(marg.pattern_size) == 1
    if kind == "marginal":
        risk = np.asarray(marg.per_record, dtype=float)
        raw = 1.0 - risk
    else:
        pw = pairwise_identification_risk(
            conf, keys=keys_t, targets=list(targets), radius=radius, relative=relative,
            singletons="zero",
        )
        raw = np.asarray(pw.weights, dtype=float).copy()
        risk = 1.0 - raw
        raw[single] = 1.0 - np.asarray(marg.per_record, dtype=float)[single]
    if single.any():
        fill = raw[single] if singleton_weight == "marginal" else float(singleton_weight)
        raw = raw.copy()
        raw[single] = fill
        warnings.warn(
            f"risk_weights: {int(single.sum())} of {single.size} records are alone in their "
            f"pattern of keys {list(keys_t)}; they get weight "
            f"{'their marginal weight (1)' if singleton_weight == 'marginal' else singleton_weight}. "
            "Their keys alone may identify them: consider coarser keys or singleton_weight=0.",
            DisclosureWarning,
            stacklevel=2,
        )
    if np.any(~np.isfinite(raw)):
        raise DataError("risk_weights: some weights could not be computed; check the target has no missing values")
    w = raw if rescale is None else rescale[0] * raw + rescale[1]
    w = np.clip(np.maximum(w, floor), 0.0, 1.0)
    return RiskWeights(
        weights=w,
        raw=np.clip(raw, 0.0, 1.0),
        risk=risk,
        singleton=single,
        pattern_size=np.asarray(marg.pattern_size),
        kind=kind,
        keys=keys_t,
        targets=targets,
        radius=float(radius),
        relative=relative,
        floor=float(floor),
        rescale=None if rescale is None else (float(rescale[0]), float(rescale[1])),
        singleton_weight=singleton_weight,
        index=conf.index,
    )


def normalize_survey_weights(weights: np.ndarray | Sequence[float] | pd.Series) -> np.ndarray:
    """Sampling weights scaled to sum to the sample size n (Savitsky & Toth 2016).

    ``w_i -> n * w_i / sum_j w_j``: the pseudo likelihood ``prod p(y_i|theta)^{w_i}`` then
    carries the information of n records, so the pseudo posterior has the right spread while
    its centre is design consistent.

    Examples
    --------
    >>> normalize_survey_weights([1.0, 3.0])
    array([0.5, 1.5])
    """
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise DataError("survey weights: expected a non-empty 1-D array, one weight per record")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        raise DataError(
            "survey weights: expected finite, non-negative weights with a positive sum; "
            "drop or impute records with missing weights"
        )
    return w * (w.size / w.sum())


def combine_weights(
    risk: RiskWeights | np.ndarray | None = None,
    survey: np.ndarray | Sequence[float] | pd.Series | None = None,
) -> np.ndarray:
    """Likelihood weights from risk weights and/or survey weights: their product.

    Survey weights are normalised to sum to n first (:func:`normalize_survey_weights`);
    ``w_i = alpha_i * n s_i / sum_j s_j``. With one of them missing the other is returned.
    """
    parts: list[np.ndarray] = []
    if risk is not None:
        parts.append(np.asarray(risk.weights if isinstance(risk, RiskWeights) else risk, float))
    if survey is not None:
        parts.append(normalize_survey_weights(survey))
    if not parts:
        raise ParameterError("combine_weights: pass risk weights, survey weights or both")
    if len(parts) == 2 and parts[0].shape != parts[1].shape:
        raise DataError("combine_weights: risk and survey weights must have one entry per record each")
    out = parts[0]
    for p in parts[1:]:
        out = out * p
    return out
