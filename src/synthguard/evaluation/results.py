"""The results of :func:`~synthguard.evaluation`: one :class:`ReleaseEvaluation` per
release, gathered in an :class:`Evaluation` (the comparison table, pass/fail, status)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data.schema import Schema
from synthguard.evaluation.metrics import METRICS
from synthguard.evaluation.thresholds import Threshold, ThresholdCheck, pmse_ratio_words

__all__ = ["KINDS", "Evaluation", "Progress", "ReleaseEvaluation", "Verdict"]

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: called after each step (the CLI draws a bar from it)."""

KINDS = ("partial", "full", "protected")


class Verdict(str):
    """A release's verdict line. A string; calling it returns itself, so ``r.verdict()``
    written when ``verdict`` was a method still works."""

    __slots__ = ()

    def __call__(self) -> str:
        return str(self)


@dataclass(frozen=True, repr=False)
class ReleaseEvaluation(Summarized):
    """Utility and risk of one release.

    Attributes
    ----------
    name : the release's name.
    kind : ``"partial"`` / ``"full"`` synthetic, or ``"protected"`` (SDC; rows align with the data).
    m : number of implicates.
    n_rows : rows per implicate (of the first).
    utility, risk : the results of ``evaluate_utility`` and ``evaluate_risk`` (None when they failed).
    metrics : headline numbers (:data:`~synthguard.evaluation.metrics.METRICS`); None when not computed.
    record_risk : record-level identification risk IR_i of each confidential record under this
        release, averaged over implicates (None when the release's rows do not align with the data).
    errors : what could not be computed, by part, with a message that quotes no data value.
    checks : the threshold checks.
    seconds : time spent evaluating the release.
    notes : synthguard warnings raised while measuring the release (shown in the report
        instead of being re-emitted; their messages never quote data values).
    attacks : anonymeter's attacks on the release (:class:`~synthguard.risk.ReleaseAttacks`),
        when requested (``attacks=True``) and a holdout was given; None otherwise.
    safeguards : what the synthesizer's default safeguards did to the release
        (:class:`~synthguard.synthesis.safeguards.SafeguardReport`), when the release is a
        ``SyntheticData`` that carries one.
    """

    name: str
    kind: str
    m: int
    n_rows: int
    utility: Any = field(repr=False)
    risk: Any = field(repr=False)
    metrics: Mapping[str, float | None]
    record_risk: np.ndarray | None = field(repr=False)
    errors: Mapping[str, str]
    checks: tuple[ThresholdCheck, ...]
    seconds: float
    notes: tuple[str, ...] = ()
    inapplicable: frozenset[str] = frozenset()
    attacks: Any = field(default=None, repr=False)
    safeguards: Any = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        """True unless a threshold check failed (not-applicable checks do not fail)."""
        return not any(c.passed is False for c in self.checks)

    @property
    def not_computed(self) -> dict[str, str]:
        """Measure → why it could not be computed: ``errors`` without the measures that do not
        apply to this kind of release (listed in ``inapplicable``, e.g. record-level
        identification risk of a fully synthetic release)."""
        return {k: v for k, v in self.errors.items() if k not in self.inapplicable}

    @property
    def failures(self) -> list[ThresholdCheck]:
        return [c for c in self.checks if c.passed is False]

    @property
    def verdict(self) -> Verdict:
        """One line: pass/fail and the reasons (an attribute, like ``Evaluation.failed``;
        calling it, ``verdict()``, still works for code written before)."""
        if not self.checks:
            return Verdict(f"{self.name}: no thresholds set")
        word = "PASS" if self.passed else "FAIL"
        judged = [c.describe() for c in self.checks if c.passed is not None]
        text = f"{self.name}: {word} — " + ("; ".join(judged) or "no threshold applies")
        if self.not_judged:
            text += "; not judged: " + "; ".join(self.not_judged)
        return Verdict(text)

    @property
    def not_judged(self) -> list[str]:
        """The thresholds that did not judge this release, each with why, e.g. ``"membership
        AUC ≤ 0.75 (no holdout given)"``: a pass says nothing about them."""
        return [f"{c.threshold.describe()} ({c.why or 'not applicable'})"
                for c in self.checks if c.passed is None]

    @property
    def pmse_words(self) -> str | None:
        """The pMSE ratio in words when it is far from 1 on either side (None otherwise)."""
        return pmse_ratio_words(self.metrics.get("pmse_ratio"))

    def summary(self) -> str:
        """The release's headline numbers and its verdict."""
        shown = {METRICS[k].label if k in METRICS else k: v for k, v in self.metrics.items()
                 if v is not None}
        lines = [f"{self.name}: {self.kind} release, {self.m} implicate(s) of {self.n_rows:,} rows"]
        lines += [f"  {k}: {v:.3g}" if isinstance(v, float) else f"  {k}: {v}"
                  for k, v in shown.items()]
        lines += [f"  not computed: {k} ({v})" for k, v in self.not_computed.items()]
        if self.pmse_words:
            lines.append(f"  {self.pmse_words}")
        lines.append(str(self.verdict))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ReleaseEvaluation {self.name!r}: {self.kind}, m={self.m}, " \
               f"{'passed' if self.passed else 'FAILED'}>"


@dataclass(frozen=True, repr=False)
class Evaluation(Summarized):
    """Utility and risk of several releases against one confidential data set.

    Index it by release name; :meth:`to_frame` is the comparison table (one row per
    release, one column per headline metric); :attr:`passed` says whether every release
    met the thresholds.
    """

    releases: Mapping[str, ReleaseEvaluation]
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    radius: float
    thresholds: tuple[Threshold, ...]
    formulas: tuple[str, ...]
    schema: Schema = field(repr=False)
    n_records: int
    n_holdout: int
    data_risk: np.ndarray | None = field(repr=False)
    data_risk_error: str | None
    data_notes: tuple[str, ...]
    seed: int | None
    seconds: float
    conf: pd.DataFrame = field(repr=False, compare=False)
    holdout: pd.DataFrame | None = field(repr=False, compare=False)
    implicates: Mapping[str, list[pd.DataFrame]] = field(repr=False, compare=False)
    #: sdcMicro's risk block and the domain estimates (:mod:`synthguard.evaluation.survey_blocks`)
    survey: Any = field(default=None, repr=False, compare=False)
    constraints: Any = field(default=None, repr=False, compare=False)
    #: the household measures (:mod:`synthguard.evaluation.households`), with household=
    households: Any = field(default=None, repr=False, compare=False)

    def __getitem__(self, name: str) -> ReleaseEvaluation:
        try:
            return self.releases[name]
        except KeyError:
            raise KeyError(f"no release named '{name}'; releases: {', '.join(self.releases)}") from None

    def __iter__(self) -> Any:
        return iter(self.releases.values())

    def __len__(self) -> int:
        return len(self.releases)

    @property
    def names(self) -> list[str]:
        return list(self.releases)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.releases.values())

    @property
    def failed(self) -> list[str]:
        """Names of the releases that failed a threshold."""
        return [n for n, r in self.releases.items() if not r.passed]

    @property
    def not_computed(self) -> list[tuple[str, str, str]]:
        """Every requested measure that could not be computed, as (release, measure, why);
        release ``"data"`` for the confidential data's own identification risk. Measures that
        do not apply to a release (``ReleaseEvaluation.inapplicable``) are not listed."""
        out = []
        if self.data_risk_error is not None:
            out.append(("data", "identification risk of the data", self.data_risk_error))
        for name, r in self.releases.items():
            out.extend((name, part, why) for part, why in r.not_computed.items())
        if self.survey is not None:
            out.extend(("data", part, why) for part, why in self.survey.errors.items())
        if self.households is not None and self.households.data_risk_error is not None:
            out.append(("data", "household risk", self.households.data_risk_error))
        return out

    @property
    def status(self) -> str:
        """``"failed"`` when a threshold failed on a computed value; else ``"incomplete"`` when
        a requested measure could not be computed (including one a threshold needs); else
        ``"passed"``. The command line exits 1, 3 and 0 on these."""
        if any(c.passed is False and c.value is not None
               for r in self.releases.values() for c in r.checks):
            return "failed"
        if self.not_computed or not self.passed:
            return "incomplete"
        return "passed"

    def to_frame(self) -> pd.DataFrame:
        """The comparison table: one row per release (kind, m, headline metrics, pass/fail)."""
        rows = []
        for r in self.releases.values():
            row: dict[str, Any] = {"release": r.name, "kind": r.kind, "m": r.m}
            row.update({k: (np.nan if v is None else v) for k, v in r.metrics.items()})
            row["passed"] = r.passed if r.checks else None
            rows.append(row)
        cols = ["release", "kind", "m", *METRICS, "passed"]
        return pd.DataFrame(rows, columns=cols).set_index("release")

    def summary(self) -> str:
        """A short text summary: the table's non-empty columns and the verdict of each release."""
        table = self.to_frame().drop(columns=["passed"]).dropna(axis=1, how="all")
        shown = table.T.rename(index=lambda k: METRICS[k].label if k in METRICS else k)
        shown.columns.name = None
        text = shown.map(lambda v: f"{v:.3g}" if isinstance(v, float) else str(v))
        lines = [
            f"Evaluation of {len(self)} release(s) against {self.n_records:,} confidential records"
            + (f" (holdout {self.n_holdout:,})" if self.n_holdout else ""),
            text.to_string(),
        ]
        lines.extend(self._reading_notes(table.columns))
        lines.extend(f"{r.name}: {r.pmse_words}" for r in self.releases.values()
                     if r.pmse_words)
        lines.extend(r.verdict for r in self.releases.values())
        return "\n".join(lines)

    @property
    def baseline_share(self) -> float | None:
        """The closer-to-data share expected when nothing is memorized: the training records'
        share of training + holdout records (None without a holdout)."""
        for r in self.releases.values():  # the DCR's own, when it sampled the records
            d = getattr(r.risk, "distance", None) if r.risk is not None else None
            b = getattr(d, "baseline_share", None)
            if isinstance(b, int | float) and np.isfinite(b):
                return float(b)
        if not self.n_holdout:
            return None
        return self.n_records / (self.n_records + self.n_holdout)

    def _reading_notes(self, shown: Any) -> list[str]:
        """How to read the figures that mean nothing alone (the report says the same), and
        which holdout measures were not computed."""
        out = []
        base = self.baseline_share
        if "closer_to_data" in shown and base is not None:
            out.append(f"closer to data: share of released records nearer the training records "
                       f"than the holdout's; about {base:.3g} when nothing is memorized "
                       f"(training / (training + holdout) records); well above it, the "
                       f"release copies or memorizes records")
        if "membership_auc" in shown:
            out.append("membership AUC: 0.5 is guessing; above it, the release gives away "
                       "which records it was made from")
        if base is None:
            out.append("closer to data, membership AUC: not computed, they need a holdout "
                       "(records the releases were not made from)")
        return out

    def __repr__(self) -> str:
        verdict = f"failed: {', '.join(self.failed)}" if self.failed else self.status
        return (f"<Evaluation of {len(self)} release(s) ({', '.join(self.releases)}) against "
                f"{self.n_records:,} records; {verdict}; print() it for the summary>")

    def _repr_html_(self) -> str:
        import html

        verdicts = "".join(f"<li>{html.escape(r.verdict)}</li>" for r in self.releases.values())
        table = self.to_frame().to_html(float_format=lambda v: f"{v:.3g}")
        return (f"<p>Evaluation of {len(self)} release(s) against {self.n_records:,} "
                f"confidential records</p>{table}<ul>{verdicts}</ul>")
