"""Release thresholds: the board's rules a release must meet, and the check of one release.

A threshold names a headline metric (:data:`synthguard.evaluation.metrics.METRICS`) and
a limit. For a metric where lower is better (risk, pMSE ratio) the limit is an
upper bound, for one where higher is better (CI overlap) a lower bound::

    {"max_identification_risk": 0.5, "pmse_ratio": 3, "ci_overlap": 0.5}

An explicit direction is also accepted: ``{"auc": {"max": 0.7}}``,
``{"ci_overlap": {"min": 0.5}}``. A threshold whose metric is not defined for a
release (record-level identification risk is defined for partially synthetic and
protected releases whose rows align with the data, not for fully synthetic ones) is reported as *not applicable* and does not fail the release; a threshold whose
metric applies but could not be computed (e.g. a measure failed on missing values) fails it.

**Default thresholds** (:data:`DEFAULT_THRESHOLDS`) apply to every evaluation, in Python,
on the CLI and in plans, next to the thresholds the caller names; a threshold named for the
same metric replaces the default (``--threshold disco=0.2``), and ``default_thresholds=False``
(``--no-default-thresholds``, a plan's ``evaluation: {default_thresholds: false}``) switches
them off:

* ``replicated_uniques <= 0``: no confidential record that is unique on the released columns
  may come back exactly (synthpop's replicated uniques; Raab, Nowok & Dibben). It applies to
  synthetic releases (fully and partially synthetic), whose default safeguards remove them; a
  protected (SDC) release keeps most records by design and is judged by the other measures.
* ``disco <= 0.15``: for no target may the release disclose, from the keys, the correct value
  of more than 15% of the confidential records (DiSCO, Raab, Nowok & Dibben). synthpop's
  default CART release of Adult stays below (DiSCO 10-11% for income and capital_gain with keys
  age, sex, race, marital status), as do its SD2011 examples for most targets (about 9.5%);
  targets with 35-50% (the vignette's marital status and work abroad, known from the keys'
  one- and two-way relationships) and copies of the data with Dorig above 15% fail.

With a household id (``household=``, ``--household``), ``replicated_households <= 0`` joins
the defaults: no released household may equal, member for member on every released column, a
household that is unique in the data (:mod:`synthguard.evaluation.households`). Like
replicated uniques it judges synthetic releases.

These judge risk only. The defaults below judge usefulness too, and the risks a holdout or a
row-for-row release makes measurable; each limit was chosen from the releases that
``benchmarks/default_thresholds.py`` measures on Adult, CE and SD2011 (synthguard's default
release, synthpop's, an MST release at ε = 1, every column permuted, a fresh sample of the
population, a copy, a partially synthetic and a masked release; the table is in
``docs/report.md``, "Default thresholds"):

* ``0.01 <= pmse_ratio <= 5``: the general utility of every release, judged on both sides
  (the logistic pMSE over its expectation for a fresh sample from the same model, Snoke et
  al. 2018; about 1 is ideal). Fresh samples of the population measured 0.76-1.22,
  synthpop's default releases 0.95-1.25, synthguard's 0.07-0.20, MST releases 12.7-87 (the
  issue's MST and AIM releases of Adult 21 and 41): the upper limit 5 lies between them,
  about the geometric middle of the worst good (1.25) and the best bad (12.7). Below 1 the
  release is closer to the data than a fresh sample would be; synthguard's CART releases sit
  there because their draws are balanced within each leaf (they reproduce the marginals more
  closely than sampling does), which is not a defect, so a low ratio is said in words
  (:func:`pmse_ratio_words`) rather than failed, down to 0.01: a fully synthetic release
  below it hands back the data's own marginals exactly (a copy: 0; every column permuted
  independently: 1e-28 on CE, 3e-30 on Adult), 7 times below the lowest good release (CE,
  0.07). The lower limit judges fully synthetic releases only (:func:`full_only_lower`): a
  partially synthetic or protected release keeps most values and sits near 0 by
  construction. The main-effects model does not see relationships between columns: a
  release that draws every column independently with a fresh sample's marginals measures
  1.03-2.04 and passes; name ``formulas`` (CI overlap) or read the 2-way TV for them.
* ``max_identification_risk <= 0.5``: where the record-level risk is defined (a partially
  synthetic or protected release, whose rows are the records; Hu, Savitsky & Williams eq. 1,
  radius 0.2), no record may be re-identified with its target within 20% with better than
  even odds: the bound 2-anonymity on the keys and the target's neighbourhood gives. Every
  such release measured, a partial synthesis of one target and 10 % noise on it, scored
  0.8-0.999 (a record unique on its kept keys is found whatever is drawn for the target),
  so this fails them, as the issue asks of a release at 0.95.
* ``membership_auc <= 0.75`` and ``closer_to_data_excess <= 0.75``, where a holdout is given
  and the release is fully synthetic (:data:`FULL_ONLY`; the rows of the others are the records,
  so membership is no secret they keep): the distance attack's AUC (0.5 is
  guessing) and the share of released records closer to the training data than to the
  holdout, as a share of the largest excess possible (0 nothing memorized, 1 a copy). A copy
  scores 1.0 and 1.0; fresh samples 0.49-0.52 and about 0; synthguard's default releases
  0.55-0.70 and 0.26-0.57 (the highest on CE, whose two continuous columns make nearest
  neighbours informative), MST 0.50-0.52 and about 0. The limits sit between synthguard's
  highest and a copy; CE's 0.70 is close to it, a sign to read that release's DCR figure.

A threshold named for ``pmse_ratio`` replaces both of its default sides (``--threshold
pmse_ratio=10`` keeps an upper limit only). A default that does not apply to a release (no
holdout given, not defined for its kind) is *not judged*, and the verdict says so with the
reason ("not judged: membership AUC ≤ 0.75 (no holdout given)"): a pass says nothing about it.

When the anonymeter attacks are requested (``attacks=True``, ``--attacks``, a plan's
``evaluation: {attacks: true}``), :data:`ATTACK_THRESHOLDS` join the defaults:

* ``singling_out_risk <= 0.05``: one-column queries written from the release (``x == v`` for a
  value held by one released record, ``x >= max``, ``x <= min``) may isolate a person of the
  training data no more often than 5 points above how often they isolate one of the holdout
  (anonymeter's residual risk, Giomi et al. 2023). A release that hands back values held by
  one person (every CART release without the near-unique safeguard: risk 0.7-0.8 on Adult)
  fails; Gaussian-copula releases (0.01) pass. Like replicated uniques, it judges synthetic
  releases: a protected (SDC) release publishes the records themselves.
* ``singling_out_multivariate_risk <= 0.25``: queries on three columns written from the
  release (anonymeter's multivariate singling out) may isolate a person of the training data
  no more than 25 points more often than one of the holdout. Anonymeter sets no limit (its
  authors, and the CNIL's review of it, leave the acceptable residual risk to the data
  controller), so the limit is synthguard's, from measurements with 500 queries and a 20 %
  holdout as control: a release that copies the training records scores 0.69 on CE (2019 Q1,
  5,133 records); CART releases score 0.15-0.24 on CE (two continuous columns make most
  records isolable by three conditions, whatever the leaf size) and 0.04-0.07 on Adult. It
  is looser than the one-column limit because a conjunction of three conditions isolates
  someone by chance far more often than one value, in the training data and the holdout
  alike, and the estimate's 95 % interval is about ±0.04 wide: 0.25 fails copies and near
  copies without refusing every CART release of a small file. It is the limit the sweep's
  gate judges configurations by (:mod:`synthguard.pipeline.gate`), so a configuration the
  gate chose is judged by the same rule in its full evaluation. Tighten it per release
  (``--threshold singling_out_multivariate_risk=0.1``) where a board wants more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthguard.errors import ParameterError
from synthguard.evaluation.metrics import METRICS

__all__ = [
    "ATTACK_THRESHOLDS",
    "DEFAULT_THRESHOLDS",
    "FULL_ONLY",
    "PMSE_RATIO_HIGH",
    "PMSE_RATIO_LOW",
    "SYNTHETIC_ONLY",
    "Threshold",
    "ThresholdCheck",
    "check_thresholds",
    "full_only_lower",
    "parse_thresholds",
    "pmse_ratio_words",
]

#: The thresholds that apply when none are given (see the module docstring for why).
DEFAULT_THRESHOLDS: dict[str, float] = {
    "replicated_uniques": 0.0,
    "disco": 0.15,
    "pmse_ratio": {"max": 5.0, "min": 0.01},  # type: ignore[dict-item]
    "max_identification_risk": 0.5,
    "membership_auc": 0.75,
    "closer_to_data_excess": 0.75,
}

#: Default thresholds that judge fully synthetic releases only: the rows of a partially
#: synthetic or protected release are the confidential records, so that a record is in the
#: file is not something the release keeps secret (membership AUC 0.94-1.0 on SD2011).
FULL_ONLY: frozenset[str] = frozenset({"membership_auc", "closer_to_data_excess"})

#: Below this pMSE ratio the release is closer to the data than a fresh sample would be: not
#: a failure (module docstring), but said in words (:func:`pmse_ratio_words`).
PMSE_RATIO_LOW = 0.5
#: Above this pMSE ratio the release is easier to tell from the data than a fresh sample is,
#: said in words even below the threshold.
PMSE_RATIO_HIGH = 3.0

#: Default thresholds added when the anonymeter attacks run (see the module docstring).
ATTACK_THRESHOLDS: dict[str, float] = {"singling_out_risk": 0.05,
                                        "singling_out_multivariate_risk": 0.25}

#: Default thresholds that judge synthetic releases only (not applicable to protected ones).
SYNTHETIC_ONLY: frozenset[str] = frozenset({"replicated_uniques", "singling_out_risk",
                                            "singling_out_multivariate_risk",
                                            "replicated_households"})


@dataclass(frozen=True)
class Threshold:
    """``metric`` must be ``<= limit`` (bound ``"max"``) or ``>= limit`` (bound ``"min"``)."""

    metric: str
    bound: str
    limit: float

    def describe(self) -> str:
        op = "≤" if self.bound == "max" else "≥"
        return f"{METRICS[self.metric].label} {op} {self.limit:g}"


@dataclass(frozen=True)
class ThresholdCheck:
    """The outcome of one threshold on one release.

    ``passed`` is None when the measure does not apply to the release (it is undefined for
    its kind, e.g. record-level identification risk of fully synthetic data), and False when
    it applies but could not be computed (``value`` None): a release board cannot accept a
    release whose risk was not measured.
    """

    threshold: Threshold
    value: float | None
    passed: bool | None
    why: str = ""

    def describe(self) -> str:
        if self.passed is None:
            return f"{self.threshold.describe()}: not judged ({self.why or 'not applicable'})"
        if self.value is None:
            return f"{self.threshold.describe()}: FAIL (could not be computed)"
        word = "pass" if self.passed else "FAIL"
        return f"{self.threshold.describe()}: {word} ({self.value:.3g})"


def parse_thresholds(thresholds: Mapping[str, Any] | None) -> tuple[Threshold, ...]:
    """Validate a thresholds mapping; raise :class:`ParameterError` naming the bad entry."""
    if thresholds is None:
        return ()
    if not isinstance(thresholds, Mapping):
        raise ParameterError(
            "parameter 'thresholds': expected a mapping of metric name to limit, "
            'e.g. {"max_identification_risk": 0.5}'
        )
    out: list[Threshold] = []
    for name, spec in thresholds.items():
        if name not in METRICS:
            raise ParameterError(
                f"threshold '{name}': unknown metric; known metrics: {', '.join(METRICS)}"
            )
        default_bound = METRICS[name].default_bound
        if isinstance(spec, Mapping):
            bad = set(spec) - {"max", "min"}
            if bad or not spec:
                raise ParameterError(
                    f"threshold '{name}': expected a number or a mapping with 'max' and/or 'min'"
                )
            items = list(spec.items())
        else:
            items = [(default_bound, spec)]
        for bound, limit in items:
            if isinstance(limit, bool) or not isinstance(limit, int | float):
                raise ParameterError(
                    f"threshold '{name}': expected a number as the limit, got "
                    f"{type(limit).__name__}"
                )
            out.append(Threshold(str(name), str(bound), float(limit)))
    return tuple(out)


def check_thresholds(
    thresholds: tuple[Threshold, ...],
    metrics: Mapping[str, float | None],
    undefined: frozenset[str] | set[str] = frozenset(),
    why: Mapping[str, str] | None = None,
) -> tuple[ThresholdCheck, ...]:
    """Check one release's headline ``metrics`` against every threshold; metrics in
    ``undefined`` do not apply to the release (``why`` says why, by metric: the verdict names
    what it did not judge), other missing metrics fail."""
    checks = []
    why = why or {}
    for t in thresholds:
        v = metrics.get(t.metric)
        if t.metric in undefined:
            checks.append(ThresholdCheck(t, None, None, why.get(t.metric, "")))
        elif v is None:
            checks.append(ThresholdCheck(t, None, False))
        elif t.bound == "max":
            checks.append(ThresholdCheck(t, v, bool(v <= t.limit)))
        else:
            checks.append(ThresholdCheck(t, v, bool(v >= t.limit)))
    return tuple(checks)


def full_only_lower(checks: tuple[ThresholdCheck, ...], kind: str,
                    defaults_only: frozenset[str] | set[str]) -> tuple[ThresholdCheck, ...]:
    """The default lower limit of the pMSE ratio judges fully synthetic releases only.

    A partially synthetic or protected release keeps most of the confidential values, so its
    pMSE ratio is near 0 by construction (0.003 and 0.0002 on CE); the lower limit, which
    fails a fully synthetic release that hands back the data's own marginals exactly (a copy,
    a permutation of its columns), is not judged for them. ``defaults_only`` are the default
    thresholds in force that the caller did not name: a lower limit the caller names is always
    judged."""
    if kind == "full" or "pmse_ratio" not in defaults_only:
        return checks
    out = []
    for c in checks:
        if c.threshold.metric == "pmse_ratio" and c.threshold.bound == "min":
            c = ThresholdCheck(c.threshold, c.value, None,
                               "the lower limit judges fully synthetic releases; this one "
                               "keeps the confidential records")
        out.append(c)
    return tuple(out)


def pmse_ratio_words(ratio: float | None) -> str | None:
    """A pMSE ratio far from 1, on either side, in words (None near 1 or when absent).

    The ratio is the release's pMSE over its expectation when the release is a fresh sample
    from the same model as the data (Snoke et al. 2018): about 1 is ideal. Far above it, a
    classifier tells the release from the data more easily than it would a fresh sample: the
    release is less useful (:data:`DEFAULT_THRESHOLDS` fails it above 5). Far below it, the
    release is *closer* to the data than a fresh sample would be: it reproduces the data's
    own sampling noise (copied values, a partially synthetic or masked file that keeps most
    records), which is not better utility but a sign that records may be copied or kept.
    """
    if ratio is None or not np.isfinite(ratio):
        return None
    if ratio < PMSE_RATIO_LOW:
        return (f"pMSE ratio {ratio:.3g}, far below 1: the release is closer to the data than "
                f"a fresh sample from the same population would be; it follows the data's "
                f"own sampling noise (donors drawn evenly within leaves, values copied, records "
                f"kept or masked); that is not better utility, and the risk measures say "
                f"whether it discloses")
    if ratio > PMSE_RATIO_HIGH:
        return (f"pMSE ratio {ratio:.3g}, far above 1: a classifier tells the release from the "
                f"data much more easily than a fresh sample from the same population; its "
                f"relationships between columns are not those of the data")
    return None
