"""The report's plain-language paragraph per release, and what "better" means for each measure.

A release board reads the top of the report, not the tables: for each release
:func:`release_story` says in a few sentences what the release is, which of the
board's thresholds it meets, which it fails and by how much, and what to try next
(the course's levers: risk-weighted synthesis, coarser or synthesized keys, a richer
model for the variables that drive discrimination, a larger privacy budget).

Every number in the sentences is a rounded measure of the release (3 significant
figures) or a count of records at risk; no value of the confidential data appears.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.evaluation.metrics import METRICS
from synthguard.evaluation.thresholds import SYNTHETIC_ONLY, pmse_ratio_words
from synthguard.report.safety import format_number

__all__ = ["IDEAL", "KIND_TEXT", "Story", "release_story", "verdict_line"]

KIND_TEXT: dict[str, str] = {
    "partial": "a partially synthetic release: the confidential records are kept and some of "
               "their values replaced by synthetic ones",
    "full": "a fully synthetic release: no released row stands for a confidential record",
    "protected": "the confidential records with statistical disclosure control applied "
                 "(top-coding, recoding, swapping or noise)",
    "dp": "a differentially private, fully synthetic release",
    "not-dp": "a fully synthetic release made by a DP synthesizer whose levels or bins were "
              "read from the confidential data: it is NOT differentially private, and no ε or "
              "δ bounds what it discloses",
}

# what the best value of each measure is, for the glossary's "better" column
IDEAL: dict[str, str] = {
    "pmse_ratio": "≈ 1 is ideal; well above 1 is worse",
    "specks": "lower (0 is ideal)",
    "auc": "0.5 is ideal; higher is worse",
    "correlation_mae": "lower (0 is ideal)",
    "kway_tv": "lower (0 is ideal)",
    "ecdf_umax": "lower (0 is ideal)",
    "ci_overlap": "higher (1 is ideal); below 0 the intervals do not overlap: −1 is a gap as "
                  "wide as the intervals",
    "mean_identification_risk": "lower",
    "max_identification_risk": "lower",
    "expected_match_risk": "lower (a number of records)",
    "true_match_rate": "lower",
    "attribute_excess": "≤ 0 is ideal; higher is worse",
    "membership_auc": "0.5 is ideal; higher is worse",
    "exact_copies": "lower",
    "replicated_uniques": "0 is ideal",
    "repu": "lower (compare UiO of the data)",
    "disco": "lower (compare Dorig of the data)",
    "closer_to_data": "≈ the training share of training + holdout records is ideal; higher "
                      "is worse",
}

_DISCRIMINATION = ("pmse_ratio", "specks", "auc", "kway_tv", "ecdf_umax", "correlation_mae")

_ADVICE: dict[str, str] = {
    "identification": "try pairwise risk weights (a risk-weighted synthesizer), synthesizing "
                      "the key variables too, or coarser keys (fewer levels)",
    "expected_match_risk": "coarsen the keys or synthesize them too, so fewer released records "
                           "match a confidential one uniquely",
    "true_match_rate": "coarsen the keys or synthesize them too, so fewer released records "
                       "match a confidential one uniquely",
    "attribute_excess": "the release teaches an intruder the target from the keys: synthesize "
                        "the target with a smoother model (fewer splits, larger leaves) or "
                        "coarsen the keys",
    "membership_auc": "records can be told to have been in the data: make the release fully "
                      "synthetic, lower the model's capacity, or use a DP synthesizer",
    "exact_copies": "released records copy confidential ones: synthesize more columns, make "
                    "the release fully synthetic, or add noise or swapping",
    "replicated_uniques": "real unique records come back whole: keep the synthesizer's default "
                          "replicated_uniques='redraw', or synthesize more columns",
    "repu": "records unique on the keys are unique in the release too: coarsen the keys or "
            "synthesize them with smoother models",
    "disco": "the keys disclose the target correctly: coarsen the keys, exclude levels known "
             "anyway (synthpop's check_1way), or synthesize the target with a smoother model",
    "closer_to_data": "released records sit closer to the training records than fresh records "
                      "do (memorization): lower the model's capacity (larger CART leaves) or "
                      "use a DP synthesizer",
    "discrimination": "model those variables with a richer method (CART) or with more "
                      "predictors; for a DP release, a larger ε or coarser public bins",
    "ci_overlap": "the regression estimates on the release disagree with the data's: "
                  "synthesize the formula's variables with each other as predictors (visit "
                  "order) or with a method that keeps their relation",
}


@dataclass(frozen=True)
class Story:
    """The paragraph of one release: ``verdict`` (``"pass"``, ``"FAIL"`` or ``"–"``) and its
    sentences."""

    name: str
    verdict: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def _op(bound: str, ok: bool) -> str:
    if bound == "max":
        return "≤" if ok else ">"
    return "≥" if ok else "<"


def _check_text(check: Any) -> str:
    """``"max IR 0.717 > 0.5"`` / ``"pMSE ratio 0.26 ≤ 10"`` (no pass/fail word)."""
    t = check.threshold
    label = METRICS[t.metric].label if t.metric in METRICS else t.metric
    if check.passed is None:
        why = getattr(check, "why", "") or "not applicable to this kind of release"
        return f"{label} (limit {t.limit:g}): not judged, {why}"
    if check.value is None:
        return f"{label} (limit {t.limit:g}): could not be computed"
    return f"{label} {format_number(check.value, 3)} {_op(t.bound, bool(check.passed))} {t.limit:g}"


def verdict_line(release: Any) -> tuple[str, str]:
    """``(word, text)`` of a release's verdict line: the word (``"FAIL"``, ``"pass"`` or
    ``"–"``) said once, then each check without a pass/fail word of its own, failures first."""
    checks = list(release.checks)
    if not checks:
        return "–", "no thresholds set"
    word = "pass" if release.passed else "FAIL"
    ordered = sorted(checks, key=lambda c: {False: 0, True: 1, None: 2}[c.passed])
    return word, "; ".join(_check_text(c) for c in ordered)


def _by_how_much(check: Any) -> str:
    t = check.threshold
    gap = abs(float(check.value) - t.limit)
    side = "above" if t.bound == "max" else "below"
    return f"{format_number(gap, 2)} {side} the limit"


def release_story(
    release: Any,
    *,
    importance: pd.Series | None = None,
    kind: str | None = None,
    count: Callable[[int], str] = lambda n: f"{n:,}",
    baseline: float | None = None,
) -> Story:
    """The plain-language paragraph of one release (a :class:`ReleaseEvaluation`).

    Parameters
    ----------
    release : the release's evaluation (name, kind, m, n_rows, checks, metrics, record_risk).
    importance : the discriminating model's variable importance (labels already redacted), to
        name the variables that drive a failed utility measure.
    kind : the kind to describe (e.g. ``"dp"``) when it differs from ``release.kind``.
    count : how the release's number of rows is printed (rounded in a DP report, where it
        may equal the number of confidential records).
    baseline : the closer-to-data share expected when nothing is memorized.
    """
    kind = kind or release.kind
    what = KIND_TEXT.get(kind, f"a release of kind '{kind}'")
    impl = "implicate" if release.m == 1 else "implicates"
    sentences = [f"{what[0].upper()}{what[1:]} ({release.m} {impl} of "
                 f"{count(release.n_rows)} rows)."]
    checks = list(release.checks)
    if not checks:
        sentences.append("No thresholds were set, so it is neither passed nor failed; read "
                         "its measures in the tables below.")
        return Story(release.name, "–", tuple(sentences))
    passed = [c for c in checks if c.passed is True]
    failed = [c for c in checks if c.passed is False and c.value is not None]
    missing = [c for c in checks if c.passed is False and c.value is None]
    na = [c for c in checks if c.passed is None]
    if passed:
        sentences.append("It meets " + "; ".join(_check_text(c) for c in passed) + ".")
    for c in failed:
        text = f"It fails {_check_text(c)} ({_by_how_much(c)})"
        metric = c.threshold.metric
        if metric in ("max_identification_risk", "mean_identification_risk"):
            rr = release.record_risk
            if rr is not None and len(rr):
                n_up = int(np.sum(np.asarray(rr, dtype=float) > c.threshold.limit))
                if metric == "max_identification_risk":
                    text += f": {n_up:,} record(s) have a risk above {c.threshold.limit:g}"
            text += f"; {_ADVICE['identification']}"
        elif metric in _DISCRIMINATION:
            top = _top_variables(importance)
            if top:
                text += f"; the variables that tell it apart most are {', '.join(top)}"
            text += f"; {_ADVICE['discrimination']}"
        elif metric == "closer_to_data" and baseline is not None:
            text += (f"; with nothing memorized it would be about {format_number(baseline, 3)}"
                     f"; {_ADVICE['closer_to_data']}")
        elif metric in _ADVICE:
            text += f"; {_ADVICE[metric]}"
        sentences.append(text + ".")
    for c in missing:
        sentences.append(f"{_check_text(c)}, which counts as a failure: see \"What could not "
                         f"be computed\" below.")
    if na:
        if all(getattr(c, "why", "") for c in na):
            sentences.append("Not judged: " + "; ".join(
                f"{METRICS[c.threshold.metric].label if c.threshold.metric in METRICS else c.threshold.metric}"
                f" ({c.why})" for c in na) + ".")
        else:
            labels = ", ".join(METRICS[c.threshold.metric].label for c in na
                               if c.threshold.metric in METRICS)
            if kind == "protected" and all(c.threshold.metric in SYNTHETIC_ONLY for c in na):
                why = ("a measure of synthetic releases: a protected release publishes the "
                       "confidential records themselves and is judged by the other measures")
            else:
                why = ("its rows do not stand for confidential records, or no holdout was set "
                       "aside")
            sentences.append(f"Not judged: {labels} ({why}).")
    words = pmse_ratio_words((getattr(release, "metrics", None) or {}).get("pmse_ratio"))
    if words:
        sentences.append(words + ".")  # "pMSE ratio …": the measure's own spelling
    word = "pass" if release.passed else "FAIL"
    return Story(release.name, word, tuple(sentences))


def _top_variables(importance: pd.Series | None, top: int = 2) -> list[str]:
    if importance is None or not len(importance):
        return []
    s = pd.to_numeric(importance, errors="coerce").dropna().sort_values(ascending=False)
    return [str(i) for i in s.index[:top] if s[i] > 0]


def glossary(metrics: Mapping[str, Any] = METRICS) -> list[tuple[str, str, str]]:
    """``(label, better, description)`` of each measure for the report's glossary."""
    out = []
    for m in metrics.values():
        default = {"min": "lower", "max": "higher"}.get(m.goal) or f"≈ {m.target:g} is ideal"
        better = IDEAL.get(m.name, default)
        out.append((m.label, better, m.description))
    return out


def names_sentence(names: Sequence[str]) -> str:
    """``"a, b and c"``."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
