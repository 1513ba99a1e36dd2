"""Measure several releases against the confidential data, side by side.

:func:`evaluate` is the one call behind the report and ``synthguard run``: for
each release it calls :func:`synthguard.utility.evaluate_utility` and
:func:`synthguard.risk.evaluate_risk` once, reads the headline numbers of the
comparison table from their results (:mod:`synthguard.report.metrics`), keeps the
record-level identification risks for the violin and whack-a-mole figures, and
checks the release against the board's thresholds.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard import risk as _risk
from synthguard import utility as _utility
from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed, spawn
from synthguard.data.implicates import as_implicates, release_kind
from synthguard.data.schema import Schema, infer_schema
from synthguard.errors import DataError, ParameterError, SynthguardWarning
from synthguard.report.attacks import run_attacks
from synthguard.report.constraints_check import DEFAULT_LIMIT as CONSTRAINT_LIMIT
from synthguard.report.constraints_check import METRIC as CONSTRAINT_METRIC
from synthguard.report.constraints_check import evaluate_constraints
from synthguard.report.metrics import METRICS, extract_metric
from synthguard.report.safety import safe_error
from synthguard.report.thresholds import (
    ATTACK_THRESHOLDS,
    DEFAULT_THRESHOLDS,
    SYNTHETIC_ONLY,
    Threshold,
    ThresholdCheck,
    check_thresholds,
    parse_thresholds,
)
from synthguard.report.workload_error import workload_metrics

__all__ = ["Evaluation", "ReleaseEvaluation", "evaluate"]

log = logging.getLogger(__name__)

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
    metrics : headline numbers (:data:`~synthguard.report.metrics.METRICS`); None when not computed.
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
        return Verdict(f"{self.name}: {word} — " + "; ".join(c.describe() for c in self.checks))

    def summary(self) -> str:
        """The release's headline numbers and its verdict."""
        shown = {METRICS[k].label if k in METRICS else k: v for k, v in self.metrics.items()
                 if v is not None}
        lines = [f"{self.name}: {self.kind} release, {self.m} implicate(s) of {self.n_rows:,} rows"]
        lines += [f"  {k}: {v:.3g}" if isinstance(v, float) else f"  {k}: {v}"
                  for k, v in shown.items()]
        lines += [f"  not computed: {k} ({v})" for k, v in self.not_computed.items()]
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
    #: sdcMicro's risk block and the domain estimates (:mod:`synthguard.report.survey_blocks`)
    survey: Any = field(default=None, repr=False, compare=False)
    constraints: Any = field(default=None, repr=False, compare=False)

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
        lines.extend(r.verdict for r in self.releases.values())
        return "\n".join(lines)

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


_NO_NUMERIC_TARGET = (
    "identification risk: not applicable: the ball of Hu, Savitsky & Williams eq. (1) needs a "
    "numeric target; for categorical targets see attribute disclosure and DiSCO"
)


class _Notes:
    """Collect synthguard warnings raised inside a block (other warnings pass through)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SynthguardWarning)
            out = fn(*args, **kwargs)
        for w in caught:
            if issubclass(w.category, SynthguardWarning):
                msg = f"{w.category.__name__}: {w.message}"
                if msg not in self.messages:
                    self.messages.append(msg)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out


def _kind_of(release: Any, implicates: list[pd.DataFrame], conf: pd.DataFrame, given: str | None) -> str:
    """The kind a release is measured as: ``given``, else what the release declares, else
    ``"full"``.

    Fully synthetic is the safe default. Partial (or protected) means each released row *is*
    the confidential record in the same position, and two things follow from it: record-level
    identification risk and match rates pair row i with confidential record i (Hu, Savitsky &
    Williams, eq. 1; Reiter & Mitra 2009), and inference uses the partial-synthesis combining
    rules, whose variance omits the between-imputation term that full synthesis adds (Reiter
    2003 vs. Raghunathan, Reiter & Rubin 2003). Assumed wrongly for a fully synthetic file
    that happens to have as many rows as the data, both give *wrong numbers* that look
    meaningful: risks computed from unrelated pairs of rows and confidence intervals too
    narrow. Assumed ``"full"`` wrongly for a partial release, the record-level measures are
    reported as *not defined* (a visible gap, with distance-based risks still computed) and the
    intervals are conservative. So a row correspondence is never guessed from the row count:
    it must be declared (``kinds``, ``SyntheticData.kind``, a manifest, ``--kind``).
    """
    if given is not None:
        return given
    kind = release_kind(release)
    if kind is not None:
        return kind
    if hasattr(release, "data") and isinstance(getattr(release, "data", None), pd.DataFrame):
        return "protected"
    return "full"


def _from_disk(name: Any, release: Any) -> Any:
    """A release given as a path: read it (:func:`synthguard.data.loading.load_releases`),
    with its manifest's kind."""
    if not isinstance(release, str | os.PathLike):
        return release
    from synthguard.data.loading import load_releases

    loaded = load_releases([release])
    if len(loaded) != 1:
        raise ParameterError(f"release '{name}': the folder holds {len(loaded)} releases; pass "
                             f"each release folder under its own name")
    return next(iter(loaded.values()))


def _aligned(kind: str, implicates: list[pd.DataFrame], conf: pd.DataFrame) -> bool:
    """Rows of the release correspond one to one with the confidential rows."""
    if kind == "full":
        return False
    return all(len(df) == len(conf) for df in implicates)


_RECORD_LEVEL = frozenset({"mean_identification_risk", "max_identification_risk",
                           "expected_match_risk", "true_match_rate"})
_NEEDS_HOLDOUT = frozenset({"membership_auc", "closer_to_data"})


def _undefined(kind: str, implicates: list[pd.DataFrame], conf: pd.DataFrame,
               holdout: pd.DataFrame | None) -> frozenset[str]:
    """Metrics that do not apply to a release (rather than failed on it)."""
    out: set[str] = set()
    if not _aligned(kind, implicates, conf):
        out |= _RECORD_LEVEL
    if holdout is None:
        out |= _NEEDS_HOLDOUT
    return frozenset(out)


def _as_tuple(x: str | Iterable[str] | None, what: str) -> tuple[str, ...]:
    if x is None:
        return ()
    if isinstance(x, str):
        return (x,)
    out = tuple(x)
    if not all(isinstance(v, str) for v in out):
        raise ParameterError(f"parameter '{what}': expected column names (text)")
    return out


def _record_risk(
    risk_result: Any,
    conf: pd.DataFrame,
    release: Any,
    keys: tuple[str, ...],
    targets: tuple[str, ...],
    radius: float,
) -> np.ndarray:
    ident = getattr(risk_result, "identification", None) if risk_result is not None else None
    per = getattr(ident, "per_record", None)
    if per is not None and len(per) == len(conf):
        return np.asarray(per, dtype=float)
    target: str | list[str] = targets[0] if len(targets) == 1 else list(targets)
    # singletons scored by the formula (0), as evaluate_risk does; their share is reported
    res = _risk.identification_risk(conf, release, keys=list(keys), targets=target,
                                    radius=radius, singletons="zero")
    return np.asarray(res.per_record, dtype=float)


def evaluate(
    conf: pd.DataFrame,
    releases: Mapping[str, Any],
    keys: str | Sequence[str],
    targets: str | Sequence[str],
    holdout: pd.DataFrame | None = None,
    formulas: str | Sequence[str] | None = None,
    thresholds: Mapping[str, Any] | None = None,
    radius: float = 0.2,
    schema: Schema | Mapping[str, Any] | None = None,
    random_state: RandomState = None,
    progress: Progress | None = None,
    kinds: Mapping[str, str] | None = None,
    max_distance_records: int | None = 10_000,
    default_thresholds: bool = True,
    by: str | Sequence[str] | None = None,
    weights: str | None = None,
    strata: str | None = None,
    clusters: str | None = None,
    attacks: bool = False,
    n_attacks: int = 500,
    constraints: Any = None,
) -> Evaluation:
    """Evaluate the utility and disclosure risk of several releases of ``conf``.

    Parameters
    ----------
    conf : the confidential data the releases were made from (the training part when a
        holdout was set aside).
    releases : name → release: a ``SyntheticData`` (its implicates), a ``ProtectedData``
        (its ``data``), a DataFrame or a list of DataFrames (implicates), normalised with
        :func:`synthguard.data.as_implicates`; or the path of a release file or folder, read
        with :func:`synthguard.data.loading.load_releases` (the kind its manifest records).
    keys : key variables an intruder knows (quasi-identifiers); they define the patterns of
        the identification risk (Hu, Savitsky & Williams, section 2.1).
    targets : the sensitive variable(s) the intruder seeks.
    holdout : confidential records not used to make any release; enables the membership
        attack and the DCR-against-holdout comparison.
    formulas : statsmodels formulas for the regression-coefficient comparison.
    thresholds : the board's rules, e.g. ``{"max_identification_risk": 0.5, "pmse_ratio": 3}``
        (:mod:`synthguard.report.thresholds`). They are added to the documented
        :data:`~synthguard.report.thresholds.DEFAULT_THRESHOLDS` (no replicated unique in a
        synthetic release, DiSCO <= 15%); a rule named here replaces the default for its
        metric.
    constraints : rules every record should keep (texts or a table, as
        :func:`synthguard.synthesis.check_constraints`): checked on the data and on every
        implicate; each release gets ``constraint_violations`` and, by default, a threshold
        of 0 (:mod:`synthguard.report.constraints_check`).
    default_thresholds : apply the documented default thresholds (True, the default). False
        judges the release by ``thresholds`` alone; say so to the board.
    radius : relative radius r of the identification ball y_i ± r·|y_i| (paper, eq. 1).
    schema : column kinds (a :class:`~synthguard.data.Schema` or overrides); inferred otherwise.
    random_state : seed for the randomised measures (pMSE cross-validation, k-way draws).
    progress : optional callback ``progress(stage, done, total)``.
    kinds : per-release kind (``"partial"``, ``"full"``, ``"protected"``). Without one, the
        kind the release declares is used (``SyntheticData.kind``, a release folder's
        manifest read by :func:`synthguard.data.loading.load_releases`, ``"protected"``
        for a ``ProtectedData``); a release that declares nothing (a DataFrame, a list of
        DataFrames) is **fully synthetic**, whatever its number of rows. ``synthguard
        evaluate`` applies the same rule (see :func:`_kind_of` for why).
    attacks : also run anonymeter's singling-out, linkability and inference attacks on each
        release (:func:`synthguard.risk.release_attacks`, about 20 s per release on 30,000
        records), with ``holdout`` as the control set: it must hold confidential records the
        releases were not made from. Without a holdout the attacks are reported as not
        computed (no honest control, no risk). The default thresholds then include
        :data:`~synthguard.report.thresholds.ATTACK_THRESHOLDS`.
    n_attacks : queries or attacked records per attack (anonymeter's default 500).
    max_distance_records : above this many released (stacked implicates) or confidential
        records, the distance to closest record and the membership attack run on random
        samples of this size (``max_records`` of :func:`synthguard.risk.evaluate_risk`; the
        other risk measures stay exact). None: every record (slow on large files: nearest neighbours among mixed
        columns).
    by, weights, strata, clusters : ``weights`` weights the univariate comparison, ECDF
        distances and pMSE of every release (:func:`synthguard.utility.evaluate_utility`);
        with ``by`` (or ``weights``), survey-weighted domain estimates of the targets by the
        ``by`` columns with the design columns of the data
        (:func:`synthguard.utility.domain_estimates`), in ``Evaluation.survey`` with
        sdcMicro's risk block (individual risk weighted by ``weights``, SUDA2, l-diversity of
        the targets; :mod:`synthguard.report.survey_blocks`).

    Returns
    -------
    Evaluation
        Per-release results, the comparison table (``to_frame()``) and pass/fail.

    Notes
    -----
    A measure that cannot be computed on a release (e.g. the record-level identification
    risk of eq. (1), defined only when the release's rows align with the confidential
    records, on a fully synthetic release) is recorded in ``errors`` and left empty in the
    table; it never stops the other measures or releases.

    Raises
    ------
    ParameterError
        Bad keys, targets, thresholds, radius or kinds.
    DataError
        A release that cannot be read as implicates or shares no column with ``conf`` (a
        release lacking some columns is measured on the others; lacking a key or target, its
        risk measures are recorded as not computed).
    """
    t_all = time.perf_counter()
    if not isinstance(conf, pd.DataFrame):
        raise DataError("conf: expected a pandas DataFrame of the confidential data")
    if not isinstance(releases, Mapping) or not releases:
        raise ParameterError(
            "parameter 'releases': expected a non-empty mapping of release name to release"
        )
    keys_t = _as_tuple(keys, "keys")
    targets_t = _as_tuple(targets, "targets")
    if not targets_t:
        raise ParameterError("parameter 'targets': name at least one target variable")
    unknown = [c for c in (*keys_t, *targets_t) if c not in conf.columns]
    if unknown:
        raise ParameterError(
            f"keys/targets name columns that are not in the data: {', '.join(unknown)}"
        )
    overlap = set(keys_t) & set(targets_t)
    if overlap:
        raise ParameterError(
            f"columns {', '.join(sorted(overlap))} are both keys and targets; a target is what the "
            f"intruder does not know"
        )
    if isinstance(radius, bool) or not isinstance(radius, int | float) or not radius >= 0:
        raise ParameterError("parameter 'radius': expected a number >= 0, e.g. 0.2 for 20%")
    formulas_t = _as_tuple(formulas, "formulas")
    # The documented defaults apply unless switched off; a threshold the caller names for the
    # same metric replaces the default one (so a board can relax or tighten it).
    user = dict(thresholds) if thresholds is not None else {}
    parse_thresholds(user)  # validate the caller's rules before merging
    if not isinstance(attacks, bool):
        raise ParameterError("parameter 'attacks': expected True or False")
    if isinstance(n_attacks, bool) or not isinstance(n_attacks, int) or n_attacks < 1:
        raise ParameterError("parameter 'n_attacks': expected a positive integer, e.g. 500")
    needs_attacks = [m for m in user if m in METRICS and METRICS[m].section == "attacks"]
    if needs_attacks and not attacks:
        raise ParameterError(
            f"threshold '{needs_attacks[0]}': an attack's risk is measured only when the attacks "
            f"run; pass attacks=True (--attacks, a plan's evaluation: {{attacks: true}}) with a "
            f"holdout"
        )
    defaults = {**DEFAULT_THRESHOLDS, **(ATTACK_THRESHOLDS if attacks else {})}
    merged = {**defaults, **user} if default_thresholds else user
    checked = evaluate_constraints(conf, {}, constraints)  # validates them before any work
    if checked is not None and default_thresholds and CONSTRAINT_METRIC not in user:
        merged = {**merged, CONSTRAINT_METRIC: CONSTRAINT_LIMIT}
    parsed = parse_thresholds(merged or None)
    # a default that judges synthetic releases only is not applicable to protected ones,
    # unless the caller named it
    synthetic_only = frozenset(m for m in SYNTHETIC_ONLY if m not in user) if default_thresholds else frozenset()
    kinds = dict(kinds or {})
    bad_kind = {k: v for k, v in kinds.items() if v not in KINDS}
    if bad_kind:
        raise ParameterError(
            f"parameter 'kinds': release(s) {', '.join(bad_kind)} have an unknown kind; "
            f"use one of {', '.join(KINDS)}"
        )
    if max_distance_records is not None and (
        isinstance(max_distance_records, bool) or not isinstance(max_distance_records, int)
        or max_distance_records < 100
    ):
        raise ParameterError(
            "parameter 'max_distance_records': expected None or an integer >= 100"
        )
    if holdout is not None and not isinstance(holdout, pd.DataFrame):
        raise DataError("holdout: expected a pandas DataFrame or None")
    if isinstance(schema, Schema):
        schema_ = schema
    else:
        schema_ = infer_schema(conf, schema)
    rng, seed = resolve_seed(random_state)
    child_rngs = spawn(rng, len(releases))
    releases = {name: _from_disk(name, rel) for name, rel in releases.items()}

    impl_map: dict[str, list[pd.DataFrame]] = {}
    for name, rel in releases.items():
        impl = as_implicates(rel, name=f"release '{name}'")
        if not any(c in conf.columns for c in impl[0].columns):
            raise DataError(f"release '{name}' shares no column with the confidential data")
        impl_map[str(name)] = impl

    if checked is not None:
        checked = evaluate_constraints(conf, impl_map, constraints)
    total = len(releases) + 1
    data_risk: np.ndarray | None = None
    data_risk_error: str | None = None
    data_notes = _Notes()
    # the ball of eq. (1) is cast around numeric targets (as evaluate_risk does)
    ir_targets = tuple(t for t in targets_t if t not in schema_ or schema_[t].is_numeric)
    # with categorical targets only, record-level identification risk does not apply (it is
    # not a measure that failed): said as a note, not counted as 'not computed'
    no_ball = _NO_NUMERIC_TARGET if not ir_targets else None
    if no_ball:
        data_notes.messages.append(no_ball)
    else:
        try:
            data_risk = data_notes.run(_record_risk, None, conf, None, keys_t, ir_targets,
                                       float(radius))
        except Exception as e:  # recorded, not fatal: the report says what is missing
            data_risk_error = safe_error(e)
            log.info("identification risk of the data failed: %s", data_risk_error)
    if progress is not None:
        progress("risk of the data", 1, total)

    # read at call time, so a replaced function (a plug-in, a test) is the one called; it is
    # called with the documented arguments, none dropped (a TypeError is recorded as an error)
    utility_fn: Callable[..., Any] | None = _utility.evaluate_utility
    risk_fn: Callable[..., Any] | None = _risk.evaluate_risk

    results: dict[str, ReleaseEvaluation] = {}
    for i, (name, rel) in enumerate(releases.items()):
        name = str(name)
        t0 = time.perf_counter()
        impl = impl_map[name]
        kind = _kind_of(rel, impl, conf, kinds.get(name))
        errors: dict[str, str] = {}
        rel_arg: Any = rel if not isinstance(rel, tuple) else list(rel)
        if kind == "protected" and not hasattr(rel, "implicates"):
            rel_arg = impl  # a single "implicate": the protected file itself
        utility = risk = None
        inapplicable: set[str] = set()
        notes = _Notes()
        common = [c for c in conf.columns if all(c in df.columns for df in impl)]
        conf_u = conf if len(common) == conf.shape[1] else conf[common]
        if len(common) < conf.shape[1]:  # a note: the measures run on the columns it has
            inapplicable.add("columns")
            errors["columns"] = (
                f"the release lacks {conf.shape[1] - len(common)} column(s) of the data "
                f"({', '.join(c for c in conf.columns if c not in common)}); utility is "
                f"measured on the others"
            )
            rel_arg = [df[common] for df in impl]
        if utility_fn is not None:
            u_kw = dict(schema=schema_.subset(common), random_state=child_rngs[i],
                        method="full" if kind == "full" else "partial")
            if weights is not None:  # survey-weighted univariate, ECDF and pMSE
                u_kw["weights"] = weights
            try:
                utility = notes.run(utility_fn, conf_u, rel_arg,
                                    formulas=list(formulas_t) or None, **u_kw)
            except Exception as e:
                errors["utility"] = safe_error(e)
                if formulas_t:  # the regressions may be what failed: keep the rest
                    try:
                        utility = notes.run(utility_fn, conf_u, rel_arg, formulas=None,
                                            **u_kw)
                        errors["regression"] = errors.pop("utility")
                    except Exception:
                        pass
        lacking = [c for c in (*keys_t, *targets_t) if c not in common]
        if lacking:
            errors["risk"] = (
                f"the release lacks the key or target column(s) {', '.join(lacking)}; the "
                f"disclosure-risk measures need them"
            )
        if risk_fn is not None and not lacking:
            try:
                # exact, with DCR and membership on samples when the release is large
                risk = notes.run(
                    risk_fn, conf, impl, list(keys_t), list(targets_t),
                    holdout=holdout, radius=float(radius), schema=schema_,
                    random_state=child_rngs[i], max_records=max_distance_records,
                    aligned=_aligned(kind, impl, conf),
                )
            except Exception as e:
                errors["risk"] = safe_error(e)
        if risk is not None and not _aligned(kind, impl, conf) and dataclasses.is_dataclass(risk):
            # rows of a fully synthetic release do not stand for confidential records, even
            # when their number is the same: record-level identification and matching do not
            # apply (Hu, Savitsky & Williams, eq. 1 needs each record's own released value)
            fields = {f.name for f in dataclasses.fields(risk)}
            drop = {k: None for k in ("identification", "confidential_identification", "match")
                    if k in fields}
            if drop:
                risk = dataclasses.replace(risk, **drop)  # type: ignore[type-var]
        for note in getattr(risk, "notes", ()) or ():
            if isinstance(note, str) and note not in notes.messages:
                notes.messages.append(note)
        record_risk = None
        if lacking:
            pass
        elif no_ball and _aligned(kind, impl, conf):
            inapplicable.add("identification risk")
            errors["identification risk"] = no_ball
        elif _aligned(kind, impl, conf):
            try:
                record_risk = notes.run(
                    _record_risk, risk, conf, impl, keys_t, ir_targets, float(radius)
                )
            except Exception as e:
                errors["identification risk"] = safe_error(e)
        elif kind == "partial":  # declared row for row, yet the rows do not line up
            errors["identification risk"] = (
                "the release is declared partially synthetic but its implicates do not have as "
                "many rows as the data; evaluate it against the confidential file it was made "
                "from (the training part when a holdout was set aside)"
            )
        else:
            inapplicable.add("identification risk")
            errors["identification risk"] = (
                "not defined: the release's records do not correspond to confidential records "
                "(fully synthetic); see distance to closest record and membership inference"
            )
        attack_result = None
        if attacks and not lacking:
            attack_result = run_attacks(conf_u, impl, holdout, keys_t, targets_t,
                                        child_rngs[i], errors, notes.run, n_attacks=n_attacks)
        bundles = {"utility": utility, "risk": risk, "attacks": attack_result}
        metrics: dict[str, float | None] = {}
        for m in METRICS.values():
            try:
                metrics[m.name] = extract_metric(bundles.get(m.section), m)
            except Exception as e:  # a bundle without a field the metric reads: say so
                metrics[m.name] = None
                errors[m.name] = f"could not be read from the {m.section} result: {safe_error(e)}"
        try:  # the true workload error by marginal order (report/workload_error.py)
            metrics.update(notes.run(workload_metrics, conf_u, [df[common] for df in impl],
                                     schema_.subset(common), child_rngs[i]))
        except Exception as e:
            errors["workload error"] = safe_error(e)
        if checked is not None:
            metrics[CONSTRAINT_METRIC] = checked.violations(name)
        if record_risk is not None:
            metrics["mean_identification_risk"] = float(np.mean(record_risk))
            metrics["max_identification_risk"] = float(np.max(record_risk))
        undefined = _undefined(kind, impl, conf, holdout)
        if kind == "protected":
            undefined = undefined | synthetic_only
        if checked is not None and metrics.get(CONSTRAINT_METRIC) is None:
            undefined = undefined | {CONSTRAINT_METRIC}  # it lacks every constrained column
        checks = check_thresholds(parsed, metrics, undefined)
        results[name] = ReleaseEvaluation(
            name=name,
            kind=kind,
            m=len(impl),
            n_rows=len(impl[0]),
            utility=utility,
            risk=risk,
            metrics=metrics,
            record_risk=record_risk,
            errors=errors,
            checks=checks,
            seconds=time.perf_counter() - t0,
            notes=tuple(notes.messages),
            inapplicable=frozenset(inapplicable),
            attacks=attack_result,
            safeguards=getattr(rel, "safeguards", None),
        )
        if progress is not None:
            progress(f"release '{name}'", i + 2, total)

    survey = None
    try:
        from synthguard.report.survey_blocks import survey_measures

        survey = data_notes.run(
            survey_measures, conf, impl_map, {n: r.kind for n, r in results.items()}, keys_t,
            targets_t, schema_, by=_as_tuple(by, "by"), weights=weights, strata=strata,
            clusters=clusters,
        )
    except Exception as e:  # pragma: no cover - survey_measures records its own failures
        data_notes.messages.append(f"sdcMicro and domain blocks not computed: {safe_error(e)}")
    if survey is not None:
        data_notes.messages.extend(n for n in survey.notes if n not in data_notes.messages)

    return Evaluation(
        releases=results,
        keys=keys_t,
        targets=targets_t,
        radius=float(radius),
        thresholds=parsed,
        formulas=formulas_t,
        schema=schema_,
        n_records=len(conf),
        n_holdout=0 if holdout is None else len(holdout),
        data_risk=data_risk,
        data_risk_error=data_risk_error,
        data_notes=tuple(data_notes.messages),
        seed=seed,
        seconds=time.perf_counter() - t_all,
        conf=conf,
        holdout=holdout,
        implicates=impl_map,
        survey=survey,
        constraints=checked,
    )
