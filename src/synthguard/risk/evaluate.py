"""One call that runs every disclosure-risk measure that applies to a release."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from synthguard._display import Summarized
from synthguard._random import check_random_state
from synthguard.data import Schema, as_implicates, infer_schema
from synthguard.errors import DisclosureWarning, ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._sampling import (
    check_max_records,
    needs_sampling,
    sampled_distance_and_membership,
)
from synthguard.risk.attribute import AttributeDisclosure, attribute_disclosure
from synthguard.risk.distance import DistanceToClosestRecord, distance_to_closest_record
from synthguard.risk.identification import IdentificationRisk, identification_risk
from synthguard.risk.individual_risk import IndividualRisk, individual_risk
from synthguard.risk.matching import MatchRates, match_rates
from synthguard.risk.membership import MembershipInference, membership_inference
from synthguard.risk.release_disclosure import ReleaseDisclosure, release_disclosure
from synthguard.risk.suda2 import Suda2, suda2
from synthguard.risk.uniqueness import KAnonymity, KAnonymitySummary, k_anonymity

__all__ = ["RiskEvaluation", "evaluate_risk"]


@dataclass(frozen=True, eq=False)
class RiskEvaluation(Summarized):
    """The disclosure-risk measures of one release; None where a measure does not apply.

    ``notes`` says why a measure was skipped (e.g. identification risk and match rates need a
    partially synthetic release whose rows align with the confidential data; membership
    inference needs a holdout)."""

    identification: IdentificationRisk | None
    confidential_identification: IdentificationRisk | None
    match: MatchRates | None
    attribute: AttributeDisclosure | None
    distance: DistanceToClosestRecord | None
    membership: MembershipInference | None
    k_anonymity: KAnonymity | KAnonymitySummary | None  # the summary: data too big to gather
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: sdcMicro's individual risk and SUDA2 of the keys, on the confidential data and on each
    #: implicate of the release read as microdata
    individual: IndividualRisk | None = None
    release_individual: tuple[IndividualRisk, ...] = ()
    suda: Suda2 | None = None
    release_suda: tuple[Suda2, ...] = ()
    disclosure: ReleaseDisclosure | None = None  # synthpop's repU and DiSCO

    def to_frame(self) -> pd.DataFrame:
        """One row per headline number: measure, value, goal (lower or higher is safer)."""
        rows: list[tuple[str, str, float, str]] = []

        def add(family: str, name: str, value: float | None, goal: str) -> None:
            if value is not None:
                rows.append((family, name, float(value), goal))

        if self.confidential_identification is not None:
            c = self.confidential_identification
            add("identification", "confidential mean IR", c.mean, "reference")
            add("identification", "confidential max IR", c.max, "reference")
        if self.identification is not None:
            r = self.identification
            add("identification", "mean IR", r.mean, "minimize")
            add("identification", "max IR", r.max, "minimize")
            add("identification", "share IR > 0.5", r.share_above(0.5), "minimize")
            add("identification", "singleton share", r.singleton_share, "minimize")
        if self.match is not None:
            m = self.match
            add("matching", "expected match risk", m.expected_match_risk, "minimize")
            add("matching", "true match rate", m.true_match_rate, "minimize")
            add("matching", "false match rate", m.false_match_rate, "maximize")
        if self.attribute is not None:
            for _, row in self.attribute.table.iterrows():
                add(
                    "attribute",
                    f"{row['target']} {row['measure']} excess",
                    row["excess"],
                    "minimize",
                )
        if self.distance is not None:
            d = self.distance
            add("distance", "exact copy share", d.exact_copy_share, "minimize")
            add("distance", "median DCR", d.median_dcr, "maximize")
            if d.share_closer_to_conf is not None:
                add("distance", "share closer to confidential", d.share_closer_to_conf, "minimize")
                add("distance", "no-memorization baseline", d.baseline_share, "reference")
        if self.membership is not None:
            add("membership", "AUC", self.membership.auc, "minimize")
            add("membership", "best accuracy", self.membership.best_accuracy, "minimize")
        if self.disclosure is not None:
            rd = self.disclosure
            add("disclosure", "replicated uniques (all columns)", rd.replicated_uniques, "minimize")
            add("disclosure", "repU", rd.repu, "minimize")
            add("disclosure", "DiSCO (largest)", rd.disco, "minimize")
        if self.k_anonymity is not None:
            k = self.k_anonymity
            add("uniqueness", "sample uniques", k.n_sample_uniques, "minimize")
            add("uniqueness", f"records below k={k.k}", k.n_below_k, "minimize")
        if self.individual is not None:
            i = self.individual
            add("sdcMicro", "confidential global risk", i.global_risk, "reference")
            add(
                "sdcMicro",
                "confidential expected re-identifications",
                i.expected_reidentifications,
                "reference",
            )
        if self.release_individual:
            rel = self.release_individual
            add("sdcMicro", "global risk", _mean([r.global_risk for r in rel]), "minimize")
            add(
                "sdcMicro",
                "expected re-identifications",
                _mean([r.expected_reidentifications for r in rel]),
                "minimize",
            )
        if self.suda is not None:
            add("sdcMicro", "confidential records with an MSU", self.suda.n_with_msu, "reference")
        if self.release_suda:
            rs = self.release_suda
            add("sdcMicro", "records with an MSU", _mean([r.n_with_msu for r in rs]), "minimize")
            add(
                "sdcMicro",
                "max DIS-SUDA score",
                _mean([float(r.dis_score.max()) for r in rs]),
                "minimize",
            )
        return pd.DataFrame(rows, columns=["family", "measure", "value", "goal"])

    def summary(self) -> str:
        parts = [
            r.summary()
            for r in (
                self.confidential_identification,
                self.identification,
                self.match,
                self.attribute,
                self.distance,
                self.membership,
                self.disclosure,
                self.k_anonymity,
                self.individual,
                self.release_individual[0] if self.release_individual else None,
                self.suda,
                self.release_suda[0] if self.release_suda else None,
            )
            if r is not None
        ]
        if self.notes:
            parts.append("Notes:\n" + "\n".join(f"  - {n}" for n in self.notes))
        return "\n\n".join(parts)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


NO_TARGET_NOTE = (
    "no target given: identification risk, match rates, attribute disclosure, repU, DiSCO and "
    "replicated uniques not computed (each measures what an intruder learns about a target "
    "variable; name one to measure them)")


def evaluate_risk(
    conf: pd.DataFrame,
    synthetic: Any,
    keys: Sequence[str],
    targets: str | Sequence[str],
    holdout: pd.DataFrame | None = None,
    radius: float | Mapping[str, float] = 0.2,
    *,
    k: int = 3,
    metric: str = "gower",
    schema: Schema | Mapping[str, Any] | None = None,
    singletons: str = "zero",
    random_state: Any = None,
    weights: str | None = None,
    max_records: int | None = None,
    aligned: bool | None = None,
) -> RiskEvaluation:
    """Run every disclosure-risk measure that applies to ``synthetic``.

    * identification risk (Hu, Savitsky & Williams eqs. 1-2) of the release and of the
      confidential data, on the numeric ``targets``, with relative ``radius`` — when the
      release's rows align with ``conf`` (partial synthesis);
    * match rates (Reiter & Mitra 2009) with the same keys, targets and radius — same condition;
    * attribute disclosure of every target from the keys (with the holdout baseline if given);
    * distance to closest record (``metric``) with the holdout comparison;
    * membership inference (needs ``holdout``);
    * k-anonymity of the keys in the confidential data (threshold ``k``);
    * sdcMicro's individual re-identification risk (:func:`individual_risk`, with the sampling
      ``weights`` column where the data have it) and SUDA2 (:func:`suda2`, up to
      ``SUDA2_MAX_KEYS`` keys) of the keys, on the confidential data and on every implicate of
      the release read as microdata;
    * synthpop's repU and DiSCO of the keys and targets, and the replicated uniques on all
      released columns (:func:`~synthguard.risk.release_disclosure.release_disclosure`).

    ``max_records``: when the stacked release or the data hold more records, the distance
    to closest record and the membership attack (nearest-neighbour searches) run on random
    samples of that size (:mod:`synthguard.risk._sampling`; the notes say so); the other
    measures stay exact. None (the default) uses every record. ``aligned`` says whether the
    release's rows stand for the confidential records (default: when every implicate has as
    many rows as ``conf``); a fully synthetic release of the same size is not aligned.

    With no ``targets`` (an empty list) the measures of what an intruder learns about a
    target (identification risk, match rates, attribute disclosure, repU, DiSCO and the
    replicated uniques, computed with them) are left out and ``notes`` says so.

    Singleton patterns are scored per ``singletons`` (see :func:`identification_risk`); their
    count and share are reported, without a warning. Warnings of the parts are collected in
    ``notes`` instead of being emitted one by one.

    Returns
    -------
    RiskEvaluation
    """
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    frames = as_implicates(synthetic)
    notes: list[str] = []
    max_records = check_max_records(max_records)
    aligned = all(len(f) == len(conf) for f in frames) if aligned is None else bool(aligned)
    overrides = None
    if schema is not None:
        src = schema.columns if isinstance(schema, Schema) else schema
        overrides = {c: v for c, v in src.items() if c in targets_l}
    sch = infer_schema(conf[targets_l], overrides=overrides)
    numeric_targets = [t for t in targets_l if sch[t].is_numeric]
    ident = conf_ident = match = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DisclosureWarning)
        if aligned and numeric_targets:
            kw: dict[str, Any] = dict(
                keys=keys_l, targets=numeric_targets, radius=radius, singletons=singletons
            )
            ident = identification_risk(conf, frames, **kw)
            conf_ident = identification_risk(conf, **kw)
        elif not targets_l:
            notes.append(NO_TARGET_NOTE)
        elif not numeric_targets:
            notes.append("identification risk skipped: no numeric target to cast a ball around")
        if aligned and targets_l:
            match = match_rates(
                conf, frames, keys=keys_l, targets=targets_l, radius=radius, schema=schema
            )
        elif not aligned:
            notes.append(
                "identification risk and match rates skipped: the release's rows do not align "
                "with the confidential records (fully synthetic data); see membership inference "
                "and distance to closest record"
            )
        attribute = attribute_disclosure(conf, frames, keys_l, targets_l, holdout,
                                         schema=schema) if targets_l else None
        if needs_sampling(conf, frames, max_records):
            assert max_records is not None
            distance, membership = sampled_distance_and_membership(
                conf, frames, holdout, max_records, metric=metric, schema=schema,
                rng=check_random_state(random_state), notes=notes,
            )
        else:
            distance = distance_to_closest_record(
                conf, frames, holdout, metric=metric, schema=schema
            )
            membership = None
            if holdout is not None:
                membership = membership_inference(
                    conf, frames, holdout=holdout, metric=metric, schema=schema,
                    random_state=random_state,
                )
            else:
                notes.append("membership inference skipped: pass a holdout")
        kanon = k_anonymity(conf, keys_l, k=k) if keys_l else None
        sdc = _sdcmicro(conf, frames, keys_l, weights, notes)
        disc = release_disclosure(conf, frames, keys_l, targets_l) if keys_l and targets_l else None
    notes.extend(str(w.message) for w in caught if issubclass(w.category, DisclosureWarning))
    for w in caught:
        if not issubclass(w.category, DisclosureWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return RiskEvaluation(
        identification=ident,
        confidential_identification=conf_ident,
        match=match,
        attribute=attribute,
        distance=distance,
        membership=membership,
        k_anonymity=kanon,
        notes=tuple(notes),
        **sdc,
        disclosure=disc,
    )


SUDA2_MAX_KEYS = 12


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values))


def _sdcmicro(
    conf: pd.DataFrame,
    frames: Sequence[pd.DataFrame],
    keys: list[str],
    weights: str | None,
    notes: list[str],
) -> dict[str, Any]:
    """sdcMicro's individual risk and SUDA2 of the keys on the confidential data and the
    release's implicates (those that have every key); notes say what was left out."""
    if not keys:
        return {}
    if weights is not None and weights not in conf.columns:
        raise ParameterError(
            f"parameter 'weights': column '{weights}' is not in the confidential data; "
            "name its sampling-weight column"
        )
    out: dict[str, Any] = {"individual": individual_risk(conf, keys, weights=weights)}
    usable = [f for f in frames if all(c in f.columns for c in keys)]
    if len(usable) < len(frames):
        notes.append("sdcMicro risk of the release skipped: it lacks a key variable")
    weighted = {id(f) for f in usable if weights is not None and weights in f.columns}
    if weights is not None and usable and len(weighted) < len(usable):
        notes.append(
            f"sdcMicro individual risk of the release is unweighted: it has no '{weights}' column"
        )
    out["release_individual"] = tuple(
        individual_risk(f, keys, weights=weights if id(f) in weighted else None) for f in usable
    )
    if len(keys) <= SUDA2_MAX_KEYS:
        out["suda"] = suda2(conf, keys)
        out["release_suda"] = tuple(suda2(f, keys) for f in usable)
    else:
        notes.append(f"SUDA2 skipped: more than {SUDA2_MAX_KEYS} key variables")
    return out
