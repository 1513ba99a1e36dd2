"""The evaluation of :func:`synthguard.evaluate` on Dask data: the measures of
:mod:`synthguard.scale`, gathered in the same :class:`~synthguard.report.evaluate.Evaluation`,
so the same comparison table, verdict, thresholds and HTML report follow.

What is measured on all records, exactly as the pandas evaluation measures it:

* risk: identification risk of the release and of the data and match rates (Hu, Savitsky &
  Williams eq. 1; Reiter & Mitra 2009), for releases whose rows align with the confidential
  records; k-anonymity of the keys (sdcMicro); distance to closest record (gower) of every
  released record against every confidential record, or of a seeded sample of
  ``max_distance_records`` released records when the release is larger (as the pandas path
  samples);
* utility: univariate comparison, ECDF distances (Woo et al. 2009), correlation fit, from
  exact value counts, Pearson matrices and two-way counts (Cramér's V); k-way marginal score and workload error (NIST
  2018; McKenna et al. 2022) from exact cell counts, bins at exact quantiles
  (:mod:`synthguard.utility._on_dask.marginals`); the comparison of means with t intervals from
  per-partition sums (:mod:`synthguard.utility._on_dask.means`, to rounding); pMSE (Snoke et al. 2018)
  on a seeded sample of about ``sample_size`` records of each data set, with the null of the
  sample sizes used;
* disclosure: synthpop's repU and DiSCO of the keys and targets, the replicated uniques on
  all released columns, and the key-variable attribute attack
  (:mod:`synthguard.risk._on_dask.disclosure`), from cell counts made on the workers;
* sdcMicro's block (:mod:`synthguard.scale.individual`): the individual risk of the data and
  of each release from key-combination counts; SUDA2 and l-diversity up to the pandas
  evaluation's own limit of records per data set, skipped above it as there.

A measure that fails (or a Dask version that a future pandas measure lacks, listed in
:data:`NOT_ON_DASK`) is recorded in each release's ``errors`` as *not computed*: the terminal
lists it, the report shows it, and the command line exits 3 (never silently left out). The
report's figures (per-variable distributions, correlation maps, utility tables) are drawn
from a seeded sample of about ``sample_size`` records of the data and of each implicate
(``Evaluation.conf`` and ``Evaluation.implicates`` hold those samples; a
category held by fewer than ``min_cell`` sampled records is withheld, which withholds at
least what the whole data would); every number of the tables is computed on all records.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, cast

import dask
import numpy as np
import pandas as pd

from synthguard._dask import counts as _counts
from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard._random import RandomState, resolve_seed, spawn
from synthguard.data.schema import Schema
from synthguard.errors import DataError, ParameterError
from synthguard.report.evaluation.kinds import aligned as _aligned
from synthguard.report.evaluation.kinds import why_undefined
from synthguard.report.evaluation.notes import Notes
from synthguard.report.evaluation.options import NEEDS_TARGET, check_setting
from synthguard.report.evaluation.release import _combining_rule
from synthguard.report.evaluation.results import Evaluation, ReleaseEvaluation
from synthguard.report.metrics import METRICS, extract_metric
from synthguard.report.safety import safe_error
from synthguard.report.thresholds import check_thresholds, full_only_lower
from synthguard.risk._on_dask import disclosure as _disclosure
from synthguard.risk.evaluate import NO_TARGET_NOTE, RiskEvaluation
from synthguard.scale import individual as _individual
from synthguard.scale import risk as _risk
from synthguard.scale import utility as _utility
from synthguard.utility._on_dask import marginals as _marginals
from synthguard.utility._on_dask import means as _means
from synthguard.utility.evaluate import UtilityEvaluation

__all__ = ["NOT_ON_DASK", "evaluate"]

_WHY = "no Dask version yet; evaluate a sample without --dask for it"

#: The measures of the pandas evaluation that the Dask evaluation does not compute: part of
#: the report -> the metrics it would give. Each is recorded as not computed.
NOT_ON_DASK: dict[str, tuple[str, ...]] = {}

Progress = Callable[[str, int, int], None]


def _schema(conf: Any, overrides: Mapping[str, Any] | None) -> Schema:
    """Each column's kind inferred from the column's whole multiset of values
    (:func:`synthguard.scale.utility.exact_schema`: exact value counts, one entry per distinct
    value on the client), as :func:`synthguard.data.infer_schema` infers it on the pandas
    frame."""
    return _counts.exact_schema(conf, overrides)


def _sample(frame: Any, n: int, size: int, seed: int) -> pd.DataFrame:
    """A Bernoulli sample of about ``size`` of the ``n`` records (all when there are no more),
    reproducible for the same seed and partitioning."""
    if n <= size:
        return cast(pd.DataFrame, frame.compute())
    return cast(pd.DataFrame, frame.sample(frac=size / n, random_state=seed).compute())


#: The measures of one release, in the order the evaluation runs them (the progress steps).
_STEPS = {
    "marginal_scores": "k-way marginals", "compare_means": "means",
    "univariate": "univariate", "ecdf_utility": "ECDF", "correlation_fit": "correlations",
    "pmse": "pMSE", "identification_risk": "identification risk",
    "match_rates": "match rates", "distance_to_closest_record": "distance to closest record",
    "k_anonymity": "k-anonymity", "disclosure_measures": "repU, DiSCO",
}


class _Ticks:
    """Progress within one release: each measure run moves the bar one step (a measure run
    more than once, ECDF per column, or skipped, does not move it past the release's end)."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total = progress, total
        self.done, self.release, self.stop = 0, "", 0
        self.seen: set[str] = set()

    def start(self, release: str, i: int) -> None:
        self.release, self.done, self.stop = release, i * len(_STEPS), (i + 1) * len(_STEPS)
        self.seen = set()

    def tick(self, fn: Callable[..., Any]) -> None:
        if self.progress is None:
            return
        label = _STEPS.get(getattr(fn, "__name__", ""), "measures")
        if label not in self.seen:  # ECDF runs per column: one step
            self.seen.add(label)
            self.done = min(self.done + 1, self.stop - 1)
        self.progress(f"'{self.release}': {label}", self.done, self.total)

    def finish(self, stage: str) -> None:
        self.done = self.stop
        if self.progress is not None:
            self.progress(stage, self.done, self.total)


_TICKS: ContextVar[_Ticks | None] = ContextVar("synthguard_scale_ticks", default=None)


def _run(notes: Notes, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``notes.run(fn, ...)`` without numpy's and pandas' RuntimeWarnings (an empty slice in
    one partition's partial sums: the combined result accounts for it); then one progress
    step."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return notes.run(fn, *args, **kwargs)
        finally:
            ticks = _TICKS.get()
            if ticks is not None:
                ticks.tick(fn)


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))  # leaves room for seed + i below 2**32


@_counts.shared_value_counts()  # each column of each data set is counted once
def evaluate(
    conf: Any,
    releases: Mapping[str, Any],
    keys: str | Sequence[str],
    targets: str | Sequence[str],
    *,
    kinds: Mapping[str, str] | None = None,
    thresholds: Mapping[str, Any] | None = None,
    radius: float = 0.2,
    schema: Schema | Mapping[str, Any] | None = None,
    random_state: RandomState = None,
    max_distance_records: int | None = 10_000,
    sample_size: int = 100_000,
    default_thresholds: bool = True,
    progress: Progress | None = None,
) -> Evaluation:
    """:func:`synthguard.evaluate` of Dask data: utility and disclosure risk of several
    releases of ``conf``, measured by :mod:`synthguard.scale`, in the pandas
    :class:`~synthguard.report.evaluate.Evaluation` (table, verdicts, thresholds, report).

    Parameters
    ----------
    conf : the confidential data (a ``dask.dataframe.DataFrame``; pandas is accepted).
    releases : name -> the release's implicates (a Dask DataFrame or a list of them).
    keys, targets, thresholds, radius, schema, default_thresholds
        As in :func:`synthguard.evaluate`.
    kinds : name -> ``"partial"``, ``"full"`` or ``"protected"`` (default ``"full"``: rows of
        a release stand for no confidential record unless declared).
    random_state : seed of the samples (pMSE, figures, distance sample).
    max_distance_records : above this many released records (stacked implicates), the
        distance to closest record is computed for a seeded sample of this many of them,
        against every confidential record (None: every released record).
    sample_size : about this many records of each data set for the pMSE and the figures.
    progress : ``progress(stage, done, total)`` after each measure (a fixed number of steps
        per release, one for the sdcMicro block).

    Returns
    -------
    Evaluation
        ``n_records`` counts every confidential record; ``conf`` and ``implicates`` are the
        samples the figures are drawn from. What is not computed on Dask is listed in each
        release's ``errors`` (:data:`NOT_ON_DASK`), so ``status`` is ``"incomplete"`` unless
        a threshold failed.

    Raises
    ------
    ParameterError
        Bad keys, targets, thresholds, radius, kinds or sizes.
    DataError
        A release sharing no column with ``conf``.
    """
    t_all = time.perf_counter()
    if isinstance(sample_size, bool) or not isinstance(sample_size, int) or sample_size < 100:
        raise ParameterError("parameter 'sample_size': expected an integer >= 100")
    conf = as_dask(conf, name="conf")
    rel = {str(k): as_dask_implicates(v, name=f"release '{k}'") for k, v in releases.items()}
    for name, imps in rel.items():
        if not any(c in conf.columns for c in imps[0].columns):
            raise DataError(f"release '{name}' shares no column with the confidential data")
    _counts.value_counts([(f, c) for f in (conf, *[f for imps in rel.values() for f in imps])
                           for c in f.columns if c in conf.columns])  # all in one pass
    rng, seed = resolve_seed(random_state)
    child = spawn(rng, len(rel) + 1)
    sizes = dask.compute(conf.shape[0], *[f.shape[0] for imps in rel.values() for f in imps])
    n_conf = int(sizes[0])
    sample_seed = _seed(child[-1])
    conf_sample = _sample(conf, n_conf, sample_size, sample_seed)
    exact_schema = schema if isinstance(schema, Schema) else _schema(conf, schema)
    s = check_setting(
        conf_sample, rel, keys, targets, holdout=None, formulas=None, thresholds=thresholds,
        radius=radius, schema=exact_schema, kinds=kinds, attacks=False, n_attacks=500,
        max_distance_records=max_distance_records, default_thresholds=default_thresholds,
        weights=None, constraints=None,
    )
    ticks = _Ticks(progress, len(rel) * len(_STEPS) + 1)
    token = _TICKS.set(ticks)
    results: dict[str, ReleaseEvaluation] = {}
    samples: dict[str, list[pd.DataFrame]] = {}
    pos = 1
    lengths: dict[str, list[int]] = {}
    try:
        for i, (name, imps) in enumerate(rel.items()):
            lens = lengths[name] = [int(x) for x in sizes[pos:pos + len(imps)]]
            pos += len(imps)
            ticks.start(name, i)
            results[name], samples[name] = _measure(
                s, name, conf, n_conf, imps, lens, child[i], sample_size, max_distance_records)
            ticks.finish(f"'{name}' measured")
    finally:
        _TICKS.reset(token)
    notes = [
        f"figures drawn from a seeded sample of {len(conf_sample):,} records of the data and "
        f"about as many of each implicate (Dask evaluation); every number of the tables uses "
        f"all records",
        "record-level risk figures (violins, riskiest records, whack-a-mole) are not drawn on "
        "Dask: the identification risk's summaries are in the tables",
    ]
    survey = None
    if s.keys:  # sdcMicro's block, as the pandas evaluation's survey_measures
        try:
            survey = _individual.sdc_block(conf, n_conf, rel, lengths, s.keys, s.targets)
            notes.extend(n for n in survey.notes if n not in notes)
        except Exception as e:
            notes.append(f"sdcMicro block not computed: {safe_error(e)}")
    if progress is not None:
        progress("sdcMicro measures", ticks.total, ticks.total)
    return Evaluation(
        releases=results, keys=s.keys, targets=s.targets, radius=s.radius,
        thresholds=s.thresholds, formulas=(), schema=s.schema, n_records=n_conf, n_holdout=0,
        data_risk=None, data_risk_error=None, data_notes=tuple(notes), seed=seed,
        seconds=time.perf_counter() - t_all, conf=conf_sample, holdout=None,
        implicates=samples, survey=survey, constraints=None,
    )


def _measure(
    s: Any, name: str, conf: Any, n_conf: int, imps: list[Any], lens: list[int],
    rng: np.random.Generator, sample_size: int, max_distance_records: int | None,
) -> tuple[ReleaseEvaluation, list[pd.DataFrame]]:
    """Utility, risk, metrics and threshold checks of one release held in Dask."""
    t0 = time.perf_counter()
    notes = Notes()
    errors: dict[str, str] = {}
    inapplicable: set[str] = set()
    kind = s.kinds.get(name, "full")
    rows = cast(list[pd.DataFrame], [range(k) for k in lens])  # lengths are all kinds need
    is_aligned = _aligned(kind, rows, cast(pd.DataFrame, range(n_conf)))
    common = [c for c in conf.columns if all(c in f.columns for f in imps)]
    if len(common) < len(conf.columns):
        inapplicable.add("columns")
        errors["columns"] = (
            f"the release lacks {len(conf.columns) - len(common)} column(s) of the data "
            f"({', '.join(c for c in conf.columns if c not in common)}); utility is measured "
            f"on the others")
    conf_u = conf[common]
    imps_u = [f[common] for f in imps]
    seeds = [_seed(g) for g in spawn(rng, 5)]
    utility, workload = _utility_of(s, conf_u, imps_u, common, seeds, sample_size, notes,
                                    errors, _combining_rule(kind, len(imps)))
    lacking = [c for c in (*s.keys, *s.targets) if c not in common]
    risk = None
    if lacking:
        errors["risk"] = (f"the release lacks the key or target column(s) {', '.join(lacking)};"
                          f" the disclosure-risk measures need them")
    else:
        risk = _risk_of(s, conf, imps, is_aligned, sum(lens), seeds[1], max_distance_records,
                        notes, errors)
    if not is_aligned:
        inapplicable.add("identification risk")
        errors["identification risk"] = (
            "not defined: the release's records do not correspond to confidential records "
            "(fully synthetic); see distance to closest record and membership inference")
    elif s.no_ball:
        inapplicable.add("identification risk")
        errors["identification risk"] = s.no_ball.removeprefix("identification risk: ")
    for part, measures in NOT_ON_DASK.items():
        if s.targets or not measures or not NEEDS_TARGET.issuperset(measures):
            errors[part] = _WHY  # (without a target, as on pandas, not asked for)
    bundles = {"utility": utility, "risk": risk, "attacks": None}
    metrics: dict[str, float | None] = {}
    for m in METRICS.values():
        try:
            metrics[m.name] = extract_metric(bundles.get(m.section), m)
        except Exception as e:
            metrics[m.name] = None
            errors[m.name] = f"could not be read from the {m.section} result: {safe_error(e)}"
    metrics.update({f"tv_{k}way": v for k, v in workload.items()})
    why = why_undefined(kind, rows, cast(pd.DataFrame, range(n_conf)), None)
    not_applicable = frozenset(why)
    if kind == "protected":
        not_applicable = not_applicable | s.synthetic_only
        why.update(dict.fromkeys(s.synthetic_only, "a measure of synthetic releases: a "
                                 "protected release publishes the confidential records "
                                 "themselves"))
    n_sample = max(1, sample_size // max(1, len(imps)))
    samples = [_sample(f[common], k, n_sample, seeds[2] + li)
               for li, (f, k) in enumerate(zip(imps, lens, strict=True))]
    ev = ReleaseEvaluation(
        name=name, kind=kind, m=len(imps), n_rows=lens[0], utility=utility, risk=risk,
        metrics=metrics, record_risk=None, errors=errors,
        checks=full_only_lower(check_thresholds(s.thresholds, metrics, not_applicable, why),
                               kind, s.defaulted),
        seconds=time.perf_counter() - t0, notes=tuple(notes.messages),
        inapplicable=frozenset(inapplicable),
    )
    return ev, samples


def _utility_of(s: Any, conf: Any, imps: list[Any], common: list[str], seeds: list[int],
                sample_size: int, notes: Notes, errors: dict[str, str],
                rule: str) -> tuple[Any, dict]:
    """Univariate, ECDF, correlation fit, k-way marginals and workload error (exact), the
    comparison of means (combined by ``rule``) and pMSE (on samples) by synthguard.scale; the
    workload error as ``{order: TV}``."""
    schema = s.schema.subset(common)
    seed = seeds[0]
    kway, workload = None, {}
    try:
        kway, workload = _run(notes, _marginals.marginal_scores, conf, imps, schema=schema,
                              columns=common, kway_random_state=seeds[3],
                              workload_random_state=seeds[4])
    except Exception as exc:
        errors["k-way marginals and workload error"] = safe_error(exc)
    stats = None
    if schema.numeric():
        try:
            stats = _run(notes, _means.compare_means, conf, imps, schema=schema, method=rule)
        except Exception as exc:
            errors["comparison of means"] = safe_error(exc)
    try:
        uni = _run(notes, _utility.univariate, conf, imps, schema=schema, columns=common)
        ecdf = {}
        for c in common:
            if schema[c].is_numeric and pd.api.types.is_numeric_dtype(conf._meta[c].dtype):
                e = _run(notes, _utility.ecdf_utility, conf[c], [f[c] for f in imps])
                if np.isfinite(e.u_max):
                    ecdf[c] = e
        try:
            corr = _run(notes, _utility.correlation_fit, conf, imps, schema=schema,
                        columns=common)
        except DataError:
            corr = None
        pm = _run(notes, _utility.pmse, conf, imps if len(imps) > 1 else imps[0],
                       sample_size=sample_size, random_state=seed, schema=schema,
                       columns=common)
    except Exception as e:
        errors["utility"] = safe_error(e)
        return None, workload
    return UtilityEvaluation(uni, ecdf, corr, pm, kway, {}, stats, seed), workload


def _risk_of(s: Any, conf: Any, imps: list[Any], is_aligned: bool, n_released: int,
             seed: int, max_records: int | None, notes: Notes,
             errors: dict[str, str]) -> RiskEvaluation | None:
    """Identification risk and match rates (aligned releases), k-anonymity and distance to
    closest record, by synthguard.scale: exact, the distance on a sample of released records
    above ``max_records``."""
    keys, targets = list(s.keys), list(s.targets)
    msgs: list[str] = []
    try:
        ident = conf_ident = match = None
        numeric = list(s.ir_targets)
        if is_aligned and numeric:
            kw: dict[str, Any] = dict(keys=keys, targets=numeric, radius=s.radius,
                                      singletons="zero")
            ident = _run(notes, _risk.identification_risk, conf, imps, **kw)
            conf_ident = _run(notes, _risk.identification_risk, conf, **kw)
        elif not targets:  # as the pandas evaluation: one line, and nothing about a target
            msgs.append(NO_TARGET_NOTE)
        elif is_aligned:
            msgs.append("identification risk skipped: no numeric target to cast a ball around")
        if is_aligned and targets:
            match = _run(notes, _risk.match_rates, conf, imps, keys=keys, targets=targets,
                              radius=s.radius, schema=s.schema)
        elif not is_aligned:
            msgs.append(
                "identification risk and match rates skipped: the release's rows do not align "
                "with the confidential records (fully synthetic data); see distance to closest "
                "record")
        query: Any = imps
        if max_records is not None and n_released > max_records:
            stacked = [f.sample(frac=max_records / n_released, random_state=seed + i).compute()
                       for i, f in enumerate(imps)]
            query = pd.concat(stacked, ignore_index=True)
            msgs.append(f"distance to closest record on a random sample of {len(query):,} of "
                        f"the {n_released:,} released records (against every confidential "
                        f"record)")
        distance = _run(notes, _risk.distance_to_closest_record, conf, query, schema=s.schema)
        kanon = (_run(notes, _risk.k_anonymity, conf, keys, k=3, gather=False)  # summaries
                 if keys else None)
    except Exception as e:
        errors["risk"] = safe_error(e)
        return None
    disc = attr = None
    if keys and targets:
        try:
            disc, attr = _run(notes, _disclosure.disclosure_measures, conf, imps, keys,
                              targets, schema=s.schema)
        except Exception as e:
            errors["repU, DiSCO, replicated uniques and attribute disclosure"] = safe_error(e)
    msgs.append("membership inference skipped: pass a holdout (not available with --dask)")
    notes.messages.extend(m for m in msgs if m not in notes.messages)
    return RiskEvaluation(identification=ident, confidential_identification=conf_ident,
                          match=match, attribute=attr, distance=distance, membership=None,
                          k_anonymity=kanon, notes=tuple(msgs), disclosure=disc)

