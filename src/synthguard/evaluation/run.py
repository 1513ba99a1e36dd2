"""The one call behind the report and ``synthguard run``: :func:`evaluate` measures every
release against the confidential data (:mod:`~synthguard.evaluation.release`) and
gathers the results in an :class:`~synthguard.evaluation.results.Evaluation`."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from synthguard._random import RandomState, resolve_seed, spawn
from synthguard.data._backend import any_dask, dask_backend
from synthguard.data.implicates import as_implicates
from synthguard.data.schema import Schema
from synthguard.errors import DataError, ParameterError, safe_error
from synthguard.evaluation.constraints import evaluate_constraints
from synthguard.evaluation.households import evaluate_households
from synthguard.evaluation.kinds import from_disk
from synthguard.evaluation.notes import Notes
from synthguard.evaluation.options import Setting, as_tuple, check_setting
from synthguard.evaluation.record_risk import data_record_risk
from synthguard.evaluation.release import measure_release
from synthguard.evaluation.results import Evaluation, Progress, ReleaseEvaluation

__all__ = ["evaluate"]


@dask_backend
def evaluate(
    conf: pd.DataFrame,
    releases: Mapping[str, Any],
    *,
    # who the intruder is: the risk measures
    keys: str | Sequence[str],
    targets: str | Sequence[str],
    radius: float = 0.2,
    holdout: pd.DataFrame | None = None,
    max_distance_records: int | None = 10_000,
    attacks: bool = False,
    n_attacks: int = 500,
    # what the release must keep: the utility measures
    formulas: str | Sequence[str] | None = None,
    constraints: Any = None,
    # the survey design: weights, domains, strata and clusters
    weights: str | None = None,
    by: str | Sequence[str] | None = None,
    strata: str | None = None,
    clusters: str | None = None,
    # persons within households
    household: str | None = None,
    household_roles: Mapping[str, Any] | None = None,
    # the verdict: the board's rules and each release's kind
    thresholds: Mapping[str, Any] | None = None,
    default_thresholds: bool = True,
    kinds: Mapping[str, str] | None = None,
    # how it runs
    schema: Schema | Mapping[str, Any] | None = None,
    random_state: RandomState = None,
    progress: Progress | None = None,
    sample_size: int = 100_000,
) -> Evaluation:
    """Evaluate the utility and disclosure risk of several releases of ``conf``.

    ``conf`` and ``releases`` are positional; every option is a keyword, grouped below as in
    the signature: the intruder (risk), the utility, the survey design, households, the
    verdict and the run. Given Dask frames (``conf`` or a release's implicates), the same
    measures run on the Dask backend (:func:`synthguard.evaluation.on_dask.evaluate`) and
    give the same :class:`Evaluation`; the options it does not compute yet (``holdout``,
    ``formulas``, ``constraints``, the survey design, ``household``, ``attacks``) are refused
    there with a :class:`~synthguard.errors.ParameterError` naming them.

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
    targets : the sensitive variable(s) the intruder seeks; ``[]`` leaves out the measures
        about a target (``NEEDS_TARGET``) and their default thresholds, and says so in notes.
    holdout : confidential records not used to make any release; enables the membership
        attack and the DCR-against-holdout comparison.
    formulas : statsmodels formulas for the regression-coefficient comparison.
    thresholds : the board's rules, e.g. ``{"max_identification_risk": 0.5, "pmse_ratio": 3}``
        (:mod:`synthguard.evaluation.thresholds`). They are added to the documented
        :data:`~synthguard.evaluation.thresholds.DEFAULT_THRESHOLDS` (no replicated unique in a
        synthetic release, DiSCO <= 15%); a rule named here replaces the default for its
        metric.
    constraints : rules every record should keep (texts or a table, as
        :func:`synthguard.synthesis.check_constraints`): checked on the data and on every
        implicate; each release gets ``constraint_violations`` and, by default, a threshold
        of 0 (:mod:`synthguard.evaluation.constraints`).
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
        evaluate`` applies the same rule (see :func:`~synthguard.evaluation.kinds.kind_of` for why).
    attacks : also run anonymeter's singling-out, linkability and inference attacks on each
        release (:func:`synthguard.risk.release_attacks`, about 20 s per release on 30,000
        records), with ``holdout`` as the control set: it must hold confidential records the
        releases were not made from. Without a holdout the attacks are reported as not
        computed (no honest control, no risk). The default thresholds then include
        :data:`~synthguard.evaluation.thresholds.ATTACK_THRESHOLDS`.
    n_attacks : queries or attacked records per attack (anonymeter's default 500).
    household : the household-id column (persons within households). Adds the household
        measures (:mod:`synthguard.evaluation.households`, ``Evaluation.households``):
        the data's household risk on the keys (sdcMicro's ``hier_risk``, weighted by
        ``weights``), replicated households per release (default threshold 0 for synthetic
        releases) and the household-level utility measures; the person-level measures run
        without the id column. Every release must carry the column (new ids are fine).
    household_roles : the person columns the household utility measures read:
        ``{"relationship": "relat", "age": "age", "sex": "sex", "income": "income"}``
        (also ``totals``, ``head_code``, ``partner_code``, ``child_code``); without them only
        the household-size distribution is compared.
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
        the targets; :mod:`synthguard.evaluation.survey_blocks`).
    sample_size : Dask frames only: about this many records of each data set for the pMSE and
        the report's figures (every other number is computed on all records).

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
    if any_dask(conf, *(releases.values() if isinstance(releases, Mapping) else ())):
        return _on_dask(
            conf, releases, keys=keys, targets=targets, radius=radius,
            max_distance_records=max_distance_records, thresholds=thresholds,
            default_thresholds=default_thresholds, kinds=kinds, schema=schema,
            random_state=random_state, progress=progress, sample_size=sample_size,
            pandas_only={"holdout": holdout is not None, "formulas": formulas is not None,
                         "constraints": constraints is not None, "weights": weights is not None,
                         "by": by is not None, "strata": strata is not None,
                         "clusters": clusters is not None, "household": household is not None,
                         "household_roles": household_roles is not None, "attacks": attacks},
        )
    t_all = time.perf_counter()
    s = check_setting(
        conf, releases, keys, targets, holdout=holdout, formulas=formulas,
        thresholds=thresholds, radius=radius, schema=schema, kinds=kinds,
        max_distance_records=max_distance_records, default_thresholds=default_thresholds,
        weights=weights, attacks=attacks, n_attacks=n_attacks, constraints=constraints,
        household=household, household_roles=household_roles,
    )
    rng, seed = resolve_seed(random_state)
    child_rngs = spawn(rng, len(releases))
    releases = {name: from_disk(name, rel) for name, rel in releases.items()}
    impl_map = _implicates(conf, releases)
    checked = evaluate_constraints(conf, impl_map, constraints) if s.constrained else None
    households = None
    if s.household is not None:  # measured with the ids; the person-level measures without
        households = evaluate_households(conf, impl_map, s.household, s.keys,
                                         weights=s.weights, roles=s.household_roles)
        person_cols = [c for c in conf.columns if c != s.household]
        s = dataclasses.replace(
            s, conf=conf[person_cols], schema=s.schema.subset(person_cols),
            holdout=None if s.holdout is None else s.holdout.drop(columns=s.household,
                                                                  errors="ignore"))
        impl_map = {n: [df.drop(columns=s.household, errors="ignore") for df in impl]
                    for n, impl in impl_map.items()}
    total = len(releases) + 1
    data_notes = Notes()
    data_risk, data_risk_error = data_record_risk(s, data_notes)
    if progress is not None:
        progress("risk of the data", 1, total)
    results: dict[str, ReleaseEvaluation] = {}
    for i, (name, rel) in enumerate(releases.items()):
        name = str(name)
        results[name] = measure_release(s, name, rel, impl_map[name], child_rngs[i], checked,
                                        households)
        if progress is not None:
            progress(f"release '{name}'", i + 2, total)
    survey = _survey(s, impl_map, results, data_notes, by, strata, clusters)
    return Evaluation(
        releases=results, keys=s.keys, targets=s.targets, radius=s.radius,
        thresholds=s.thresholds, formulas=s.formulas, schema=s.schema,
        n_records=len(conf), n_holdout=0 if holdout is None else len(holdout),
        data_risk=data_risk, data_risk_error=data_risk_error,
        data_notes=tuple(data_notes.messages), seed=seed,
        seconds=time.perf_counter() - t_all, conf=s.conf, holdout=s.holdout,
        implicates=impl_map, survey=survey, constraints=checked, households=households,
    )


def _on_dask(conf: Any, releases: Mapping[str, Any], *, pandas_only: Mapping[str, bool],
             **options: Any) -> Evaluation:
    """The evaluation of Dask frames; an option it does not compute yet is refused by name
    rather than silently left out."""
    given = [name for name, used in pandas_only.items() if used]
    if given:
        raise ParameterError(
            f"evaluate on Dask frames does not compute {', '.join(given)} yet; evaluate a "
            f"sample that fits in memory as pandas frames for them, or leave them out"
        )
    from synthguard.evaluation import on_dask  # imports Dask: only for Dask frames

    return on_dask.evaluate(conf, releases, **options)


def _implicates(conf: pd.DataFrame, releases: Mapping[str, Any]) -> dict[str, list[pd.DataFrame]]:
    """Each release as its list of implicates; one sharing no column with the data is refused."""
    impl_map: dict[str, list[pd.DataFrame]] = {}
    for name, rel in releases.items():
        impl = as_implicates(rel, name=f"release '{name}'")
        if not any(c in conf.columns for c in impl[0].columns):
            raise DataError(f"release '{name}' shares no column with the confidential data")
        impl_map[str(name)] = impl
    return impl_map


def _survey(
    s: Setting, impl_map: dict[str, list[pd.DataFrame]], results: dict[str, ReleaseEvaluation],
    data_notes: Notes, by: Any, strata: str | None, clusters: str | None,
) -> Any:
    """sdcMicro's risk block and the domain estimates (:mod:`synthguard.evaluation.survey_blocks`)."""
    survey = None
    try:
        from synthguard.evaluation.survey_blocks import survey_measures

        survey = data_notes.run(
            survey_measures, s.conf, impl_map, {n: r.kind for n, r in results.items()}, s.keys,
            s.targets, s.schema, by=as_tuple(by, "by"), weights=s.weights, strata=strata,
            clusters=clusters,
        )
    except Exception as e:  # pragma: no cover - survey_measures records its own failures
        data_notes.messages.append(f"sdcMicro and domain blocks not computed: {safe_error(e)}")
    if survey is not None:
        data_notes.messages.extend(n for n in survey.notes if n not in data_notes.messages)
    return survey
