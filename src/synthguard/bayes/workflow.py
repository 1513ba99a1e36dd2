"""The risk-weighted synthesizer end to end (Hu, Savitsky & Williams, Algorithm 1 and its
pairwise twin).

1. Confidential risks within the key patterns: IR_i^c (eq. 2) or the pairwise alpha~_i
   (eqs. 6-9), from :mod:`synthguard.risk`.
2. Weights alpha_i (eq. 3 or eq. 9; optional floor / rescale), times normalised survey
   weights if given (Savitsky & Toth 2016).
3. The weighted pseudo posterior of the chosen model (eq. 4 / eq. 10) fitted through
   :class:`synthguard.synthesis.Synthesizer` (partial synthesis of the target, every other
   column kept and used as a predictor).
4. L implicates, each from its own posterior draw; their record-level risk (eq. 1) and the
   comparison of releases are in :func:`synthguard.bayes.compare_releases`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from synthguard._compat import renamed, reordered
from synthguard._params import (
    Interval,
    Options,
    ParamsRepr,
    column_list,
    require_columns,
    validate_params,
)
from synthguard._random import RandomState
from synthguard.bayes.weights import RiskWeights, combine_weights, risk_weights
from synthguard.data.schema import ColumnSchema, Kind, Schema
from synthguard.errors import DataError, NotFittedError, ParameterError
from synthguard.synthesis import Synthesizer, SyntheticData

__all__ = ["RiskWeightedSynthesizer", "likelihood_weights"]

_TRANSFORMS = (None, "log", "signed_log")


def _forward(x: np.ndarray, transform: str | None, column: str) -> np.ndarray:
    if transform is None:
        return x
    if transform == "log":
        if np.any(x <= 0):
            raise DataError(
                f"column '{column}': transform 'log' needs positive values; use "
                "transform='signed_log' (sign(x) log(1 + |x|)) for zero or negative values"
            )
        return np.log(x)
    return np.sign(x) * np.log1p(np.abs(x))


def _inverse(z: np.ndarray, transform: str | None) -> np.ndarray:
    if transform is None:
        return z
    if transform == "log":
        return np.exp(z)
    return np.sign(z) * np.expm1(np.abs(z))


def likelihood_weights(
    conf: pd.DataFrame,
    *,
    kind: Literal["marginal", "pairwise"] | None,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float = 0.2,
    relative: bool = True,
    floor: float = 0.0,
    rescale: tuple[float, float] | None = None,
    singleton_weight: Literal["marginal"] | float = "marginal",
    survey: np.ndarray | Sequence[float] | pd.Series | None = None,
) -> tuple[RiskWeights | None, np.ndarray | None]:
    """Steps 1 and 2 of the risk-weighted synthesizer: the risk weights alpha_i of ``conf``
    (eq. 3 for ``kind="marginal"``, eq. 9 for ``"pairwise"``, none for None;
    :func:`~synthguard.bayes.risk_weights`) times the normalised survey weights
    (:func:`~synthguard.bayes.combine_weights`, Savitsky & Toth 2016).

    Returns the risk weights (or None) and the likelihood weights (None when there are
    neither risk nor survey weights). The one place both :class:`RiskWeightedSynthesizer`
    and ``synthguard synthesize --risk-weights`` compute them.
    """
    rw = None
    if kind is not None:
        rw = risk_weights(conf, list(keys), targets, radius, kind, relative=relative,
                          floor=floor, rescale=rescale, singleton_weight=singleton_weight)
    if rw is None and survey is None:
        return None, None
    return rw, combine_weights(rw, survey)


class RiskWeightedSynthesizer(ParamsRepr):
    """Partially synthesize one sensitive target from a risk-weighted pseudo posterior.

    Parameters
    ----------
    model : a weighted method: ``"bayes_norm"``, ``"bayes_mixture"``, ``"bayes_negbin"``, or
        any registered method with ``supports_weights`` (name, class or instance).
    kind : ``"marginal"`` (eq. 3), ``"pairwise"`` (eq. 9), or None for the unweighted
        synthesizer (the paper's "Synthesizer").
    keys : key variables known to the intruder (form the patterns).
    targets : the sensitive numeric column to synthesize (a name, or a list of one; the
        intruder's target of the risk weights).
    radius, relative : the ball B(y_i, r) (default r = 0.2, relative to |y_i|).
    m : number of implicates L (default 20, as the paper).
    predictors : columns used as predictors (default: every other column). Every column but
        the target (and a survey-weight column) is kept unchanged in the release.
    transform : model the target on ``"log"`` or ``"signed_log"`` scale
        (sign(y) log(1 + |y|), which handles zero and negative values), or None. Risk weights
        and released values are on the original scale.
    floor, rescale, singleton_weight : passed to :func:`synthguard.bayes.risk_weights`.
    survey_weights : sampling weights (array aligned with the rows or a column name);
        normalised to sum to n and multiplied with the risk weights.
    model_params : keyword arguments of the model.
    schema : column kinds for the synthesizer (mapping or
        :class:`~synthguard.data.Schema`), e.g. to declare integer-coded keys categorical.
        With a ``transform`` the target is modelled as plain numeric on the transformed scale.
    random_state : seed of the synthesis (and of the MCMC chain).

    Attributes
    ----------
    risk_weights_ : RiskWeights or None; weights_ : the likelihood weights used (or None);
    synthesizer_ : the fitted :class:`~synthguard.synthesis.Synthesizer`.

    Examples
    --------
    >>> from synthguard import load_dataset
    >>> ce = load_dataset("ce")
    >>> rws = RiskWeightedSynthesizer(model="bayes_norm", kind="pairwise", keys=["UrbanRural"],
    ...                               targets="Income", transform="log", m=2, random_state=1)
    >>> release = rws.fit(ce).sample()
    >>> release.m, release.weights.shape
    (2, (5133,))
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "kind": [Options(("marginal", "pairwise")), None],
        "targets": [str, list, tuple],
        "radius": [Interval(float, 0.0, None)],
        "relative": [bool],
        "m": [Interval(int, 1, None)],
        "transform": [Options(tuple(t for t in _TRANSFORMS if t is not None)), None],
        "floor": [Interval(float, 0.0, 1.0)],
    }

    @renamed(target="targets")
    def __init__(
        self,
        *,
        model: Any = "bayes_norm",
        kind: Literal["marginal", "pairwise"] | None = "marginal",
        keys: Sequence[str] = (),
        targets: str | Sequence[str],
        radius: float = 0.2,
        relative: bool = True,
        m: int = 20,
        predictors: Sequence[str] | None = None,
        transform: Literal["log", "signed_log"] | None = None,
        floor: float = 0.0,
        rescale: tuple[float, float] | None = None,
        singleton_weight: Literal["marginal"] | float = "marginal",
        survey_weights: np.ndarray | Sequence[float] | str | None = None,
        model_params: Mapping[str, Any] | None = None,
        schema: Mapping[str, Any] | Schema | None = None,
        random_state: RandomState = None,
    ) -> None:
        self.model = model
        self.kind = kind
        self.keys = keys
        self.targets = targets
        self.radius = radius
        self.relative = relative
        self.m = m
        self.predictors = predictors
        self.transform = transform
        self.floor = floor
        self.rescale = rescale
        self.singleton_weight = singleton_weight
        self.survey_weights = survey_weights
        self.model_params = model_params
        self.schema = schema
        self.random_state = random_state

    def fit(self, conf: pd.DataFrame) -> RiskWeightedSynthesizer:
        """Compute the weights on ``conf`` and fit the weighted model; returns ``self``."""
        if not isinstance(conf, pd.DataFrame):
            raise DataError("conf: expected a pandas DataFrame of confidential records")
        validate_params(self)
        names = column_list(self.targets, "targets", required=True)
        if len(names) != 1:
            raise ParameterError(
                "parameter 'targets': RiskWeightedSynthesizer synthesizes one target column; "
                "pass one name")
        self.target_: str = names[0]
        require_columns(conf, [self.target_], "targets", error=DataError)
        require_columns(conf, column_list(self.keys, "keys"), "keys", error=DataError)
        survey = self.survey_weights
        drop: list[str] = []
        if isinstance(survey, str):
            if survey not in conf.columns:
                raise DataError(f"survey weight column '{survey}' is not in the data")
            drop = [survey]
            survey = conf[survey].to_numpy(dtype=float)
        self.risk_weights_: RiskWeights | None
        self.weights_: np.ndarray | None
        self.risk_weights_, self.weights_ = likelihood_weights(
            conf, kind=self.kind, keys=self.keys, targets=self.target_, radius=self.radius,
            relative=self.relative, floor=self.floor, rescale=self.rescale,
            singleton_weight=self.singleton_weight, survey=survey,
        )
        kept = [c for c in conf.columns if c != self.target_ and c not in drop]
        preds = kept if self.predictors is None else list(self.predictors)
        unknown = [c for c in preds if c not in kept]
        if unknown:
            raise DataError(
                f"predictor column(s) {unknown} are not in the data (or are the target or the "
                "survey weights)"
            )
        data = conf[[*kept, self.target_]].copy()
        data[self.target_] = _forward(
            data[self.target_].to_numpy(dtype=float), self.transform, self.target_
        )
        params = {self.target_: dict(self.model_params or {})}
        self.synthesizer_ = Synthesizer(
            methods={self.target_: self.model},
            visit_sequence=[self.target_],
            keep=kept or None,
            predictor_matrix={self.target_: preds} if kept else None,
            m=self.m,
            weights=self.weights_,
            schema=self._schema(list(data.columns)),
            method_params=params,
            random_state=self.random_state,
        ).fit(data)
        self.columns_ = list(conf.columns)
        self.dtype_ = conf[self.target_].dtype
        return self

    def _schema(self, columns: list[str]) -> Mapping[str, Any] | Schema | None:
        """The synthesizer's schema: the user's, restricted to ``columns``; a transformed
        target is plain numeric (its bounds and count rounding apply to the original scale)."""
        if isinstance(self.schema, Schema):
            sch = self.schema.subset([c for c in columns if c in self.schema])
            if self.transform is not None:
                sch = sch.with_column(ColumnSchema(name=self.target_, kind=Kind.NUMERIC))
            return sch
        out = {k: v for k, v in dict(self.schema or {}).items() if k in columns}
        if self.transform is not None:
            out[self.target_] = "numeric"
        return out or None

    @property
    def models_(self) -> list[Any]:
        """The fitted target models, one per block (stratum) of the synthesizer."""
        if not hasattr(self, "synthesizer_"):
            raise NotFittedError("RiskWeightedSynthesizer is not fitted; call fit(conf) first")
        out = []
        for block in getattr(self.synthesizer_, "blocks_", []):
            for cm in getattr(block, "models", []):
                part = getattr(cm, "value", None)
                if getattr(cm, "target", None) == self.target_ and part is not None:
                    out.append(part.method)
        return out

    def diagnostics(self) -> list[Any]:
        """MCMC diagnostics of each fitted model that runs a chain (it runs in :meth:`fit`)."""
        return [d for d in (getattr(mod, "diagnostics_", None) for mod in self.models_) if d is not None]

    @reordered(("self", "m", "random_state"))
    def sample(
        self, *, m: int | None = None, random_state: RandomState = None, diagnostics: bool = True
    ) -> SyntheticData:
        """Draw ``m`` implicates (default ``self.m``), target back on its original scale.

        The result's ``weights`` holds the likelihood weights used and its ``provenance``
        the risk-weight settings and summary. ``diagnostics=False`` skips the synthesizer's
        release diagnostics (replication shares), which dominate the time on large files.
        """
        if not hasattr(self, "synthesizer_"):
            raise NotFittedError("RiskWeightedSynthesizer is not fitted; call fit(conf) first")
        res = self.synthesizer_.sample(m=m, random_state=random_state, diagnostics=diagnostics)
        imps = []
        for df in res.implicates:
            out = df.copy()
            out[self.target_] = _inverse(out[self.target_].to_numpy(dtype=float), self.transform)
            if pd.api.types.is_integer_dtype(self.dtype_) and self.transform is None:
                out[self.target_] = pd.Series(np.round(out[self.target_]), index=out.index).astype(self.dtype_)
            imps.append(out[[c for c in self.columns_ if c in out.columns]])
        prov = dict(res.provenance)
        prov["risk_weights"] = {
            "kind": self.kind,
            "keys": list(self.keys),
            "target": self.target_,
            "radius": self.radius,
            "relative": self.relative,
            "transform": self.transform,
            "summary": None if self.risk_weights_ is None else self.risk_weights_.summary(),
        }
        return dataclasses.replace(res, implicates=imps, weights=self.weights_, provenance=prov)
