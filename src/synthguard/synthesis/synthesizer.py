"""The sequential synthesizer: one model per column, visited in order.

Sequential (conditional) synthesis as in synthpop (Nowok, Raab & Dibben 2016) and the
course's chapter on synthetic data: with a visit sequence ``x_1, ..., x_p``,

    f(x_1, ..., x_p) = f(x_1) f(x_2 | x_1) ... f(x_p | x_1, ..., x_{p-1}),

each factor is a per-variable model (``sample``, ``norm``, ``cart``, ...) **fit on the
confidential data** and **drawn from the already synthesized values** (course exercise 3).
The predictor matrix may restrict the conditioning set. Columns given in ``keep=`` are
copied unchanged and act as fixed predictors (partial synthesis, Little 1993; Reiter 2003);
without ``keep`` every record is new (full synthesis, Rubin 1993; Raghunathan, Reiter &
Rubin 2003), and ``n`` may differ from the confidential size.

Missing values are synthesized as synthpop does: a missing category is one more level of a
categorical target; a numeric target with missing values gets a missingness indicator
synthesized first (same predictors), then its value where the indicator says present, from
a model fit on the confidential rows where it is present.

With ``strata=`` the data are split by the strata columns and each stratum is synthesized
on its own (synthpop's ``syn.strata``; the course's geocode case study). Strata are
independent blocks fit and drawn by the block engine (:mod:`synthguard.synthesis.engine`:
:func:`~synthguard.synthesis.engine.fit_block`, :func:`~synthguard.synthesis.engine.draw_block`),
which a distributed backend maps over partitions in the same way; the parameters are resolved
by :mod:`synthguard.synthesis.params`.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast, overload

import numpy as np
import pandas as pd

from synthguard._compat import reordered
from synthguard._params import Interval, Options, ParamsRepr
from synthguard._random import RandomState, fit_generator, resolve_seed, spawn
from synthguard.data._backend import is_dask_collection
from synthguard.data.schema import Schema
from synthguard.errors import NotFittedError, ParameterError
from synthguard.synthesis.diagnostics import ConfidentialFingerprint, leaf_summary
from synthguard.synthesis.encoding import from_working, to_working
from synthguard.synthesis.enforce import (
    DEFAULT_MAX_REDRAWS,
    ConstraintEnforcer,
    ConstraintReport,
)
from synthguard.synthesis.engine import (
    BlockModel,
    ColumnRedraw,
    ColumnSpec,
    allocate,
    assemble_blocks,
    fit_block,
    stratum_rows,
    thread_map,
)
from synthguard.synthesis.noise import without_ledgers
from synthguard.synthesis.params import (
    FitPlan,
    as_list,
    check_count,
    check_stratum_sizes,
    method_label,
    resolve_plan,
)
from synthguard.synthesis.partial_guard import (
    MAX_KEPT_COLUMNS,
    PARTIAL_UNIQUES,
    KeptModels,
    check_partial_uniques,
    rank_kept_columns,
    unique_rows,
)
from synthguard.synthesis.rare_values import RareGuard, declared_levels
from synthguard.synthesis.release_safeguards import ReleaseSafeguards, row_groups
from synthguard.synthesis.result import SyntheticData
from synthguard.synthesis.safeguards import (
    SafeguardReport,
    UniqueGuard,
    snap_to_values,
    tail_thresholds,
)
from synthguard.synthesis.start import resolve_start

__all__ = ["Synthesizer", "synthesize"]

if TYPE_CHECKING:
    import dask.dataframe as dd

    from synthguard.synthesis._on_dask.synthesis import DaskSynthesis


class Synthesizer(ParamsRepr):
    """Sequential synthesizer (synthpop-style), partial or full, with strata and weights.

    Parameters
    ----------
    methods : dict, optional
        Column -> method: a registered name (``"sample"``, ``"norm"``, ``"normrank"``,
        ``"logreg"``, ``"polyreg"``, ``"cart"``, or your own), a method class, or an instance.
        Columns not listed get ``"sample"`` if they are visited first with no predictors (as
        synthpop does), else ``default_method``.
    visit_sequence : list of str, optional
        Order in which columns are synthesized. Default: every column not kept and not a
        stratum, in the data's order. Columns neither visited, kept nor strata are left out
        of the release (as in synthpop).
    predictor_matrix : dict or DataFrame, optional
        Which columns predict each target. A dict ``target -> [predictors]`` (targets not
        listed get the default), or a 0/1 DataFrame with targets as rows and predictors as
        columns (synthpop's ``predictor.matrix``). Default: every column visited earlier plus
        the kept columns. A predictor must be kept or visited earlier.
    keep : str or list of str, optional
        Columns copied unchanged (partial synthesis); they act as predictors. When an
        implicate as drawn replicates confidential uniques, the riskiest kept value of the
        records unique on the kept columns is changed (``partial_uniques``).
    m : int, default 1
        Number of implicates.
    n : int, optional
        Rows per implicate in full synthesis (default: as many as the confidential data). Not
        allowed with ``keep``: partial synthesis keeps the confidential rows.
    strata : str or list of str, optional
        Synthesize separately within each stratum (each combination of these columns' values).
        Stratum sizes are kept; with ``n`` they are rescaled proportionally.
    min_stratum_size : int, optional
        Smallest stratum allowed. Default, as synthpop's ``minstratumsize``: 10 + 10 x the
        number of synthesized columns. Models fit on a handful of records copy them (a
        continuous column given as strata makes every stratum one record and the release a
        copy of the data), so smaller strata raise :class:`~synthguard.errors.ParameterError`;
        pass 0 to allow them knowingly.
    weights : array or str, optional
        Likelihood weights, one per record (or the name of a column holding them), passed to
        every synthesized column's method (``fit(X, y, weights)``). Methods that cannot use
        weights raise :class:`~synthguard.errors.MethodError`. A column named here is
        otherwise treated like any other (synthesized unless kept or left out of
        ``visit_sequence``).
    schema : mapping or Schema, optional
        Column kind overrides, passed to :func:`synthguard.data.infer_schema`
        (e.g. ``{"Race": "categorical", "Income": {"kind": "numeric", "lower": 0}}``).
    method_params : dict, optional
        Column -> dict of keyword arguments for that column's method (e.g.
        ``{"income": {"min_samples_leaf": 10}}``).
    default_method : str, default "cart"
        Method for columns not listed in ``methods`` (except a first column with no
        predictors, which gets ``"sample"``).
    n_jobs : int, default 1
        Threads fitting the models (one per column and stratum) at once: each is fit on
        confidential data only, so they are independent. More threads are faster on several
        cores and hold one design matrix each in memory. :meth:`sample` draws strata in as
        many threads. Results do not depend on ``n_jobs``.
    replicated_uniques : {"redraw", "remove", "keep"}, default "redraw"
        What to do with a synthetic record identical, on every released column, to a record
        unique in the confidential data (a real person released): draw its synthesized
        columns again (rows still replicating a unique after
        :data:`~synthguard.synthesis.safeguards.MAX_REDRAW_ROUNDS` redraws are removed; in
        partial synthesis their synthesized values are suppressed instead, so the release
        keeps every confidential row; see ``partial_uniques``),
        remove it (synthpop's ``sdc(rm.replicated.uniques = TRUE)``), or keep it, only by
        saying so. See :mod:`synthguard.synthesis.safeguards`.
    partial_uniques : {"synthesize", "coarsen", "suppress"}, default "synthesize"
        Partial synthesis only: what protects the records unique on the kept columns, whose
        synthesized values, drawn as their own, make them replicated uniques.
        ``"synthesize"`` draws the riskiest kept value (the kept column that isolates most
        records, e.g. Adult's ``fnlwgt``) of every such record anew from a model of that
        column; ``"coarsen"`` rounds it (numeric kept columns); either way what still
        replicates a unique is redrawn, then suppressed. ``"suppress"`` changes no kept value:
        the rows that still replicate after the redraws have their synthesized values set
        missing (on Adult with 12 kept columns: 35 % of the rows, pMSE ratio 381). See
        :mod:`synthguard.synthesis.partial_guard` and ``docs/synthesis.md``.
    extremes : int, default 5
        Records per tail whose values are never released: each numeric synthesized column is
        bottom/top coded at round thresholds beyond which at most ``extremes`` confidential
        records lie (synthpop's ``bottom.top.coding``, with thresholds set from the data's
        tails). 0 releases the extremes.
    rare_values : int, default 5
        No value held by fewer than ``rare_values`` confidential records is released exactly:
        such numeric values are redrawn from a kernel density around the drawn value (the
        leaf's, for CART), inside the bounds and at the column's precision, never landing on a
        rare value; such categorical levels are redrawn from the common levels unless declared
        public (schema ``levels`` or ``public_levels``). Values held by more records (point
        masses, top codes) stay exact. 0 switches it off. See
        :mod:`synthguard.synthesis.rare_values`.
    public_levels : mapping, optional
        Column -> levels that are public knowledge (released even when fewer than
        ``rare_values`` records hold them), besides the levels a schema override declares.
    min_rows : int, optional
        Fewest confidential records allowed. Default, as synthpop's ``minstratumsize``: 10 +
        10 x the number of synthesized columns; models fit on fewer records copy them (a
        one-record file "synthesized" is that record). Smaller data raise
        :class:`~synthguard.errors.DataError`; pass a lower number (0 allows any) knowingly.
    drop : str or list of str, optional
        Columns removed from the data before anything else: never read, synthesized,
        released or used as predictors. The way to get rid of identifiers (record numbers,
        household ids, names), which the synthesizer refuses (see below).
    constraints : str, list of str, or table, optional
        Rules every released record keeps: texts ``"<requirement>"`` or ``"<condition> ->
        <requirement>"`` in :func:`pandas.eval`'s language (``"relationship == 'Husband' ->
        sex == 'Male'"``, ``"income >= 0"``, ``"expenditure <= income"``), or table rows
        (``variable``, ``minimum``, ``maximum``, ``allowed``, ``condition``); see
        :mod:`synthguard.data.constraints`. When the column that completes a constraint
        (its last in the visit sequence) is drawn, records breaking it are drawn again from
        that column's model up to ``max_redraws`` times, then forced inside
        (:mod:`synthguard.synthesis.enforce`); the counts are in ``result.constraints``.
        Constraints the confidential data break are refused (see ``allow_violations``).
    transforms : dict, optional
        Numeric column -> ``"log"``, ``"log1p"``, ``"sqrt"``, ``"boxcox"`` or
        ``"yeojohnson"``: fitted on the confidential column, applied to the target of the
        column's model before fit and inverted after each draw, so ``norm`` on a skewed,
        positive income gives a positive, skewed income
        (:mod:`synthguard.synthesis.transforms`).
    noise : dict, optional
        Numeric column -> ``"kernel"`` or ``{"kind": "kernel", "ntiles": 10, "bandwidth":
        1.0}``: Gaussian kernel noise added to each draw with a Silverman bandwidth set within
        n-tiles of the drawn values (:mod:`synthguard.synthesis.noise`); recorded in the
        provenance. Or OpenDP noise at a stated budget, ``{"kind": "laplace", "epsilon": 1,
        "lower": 0, "upper": 1e5, "ledger": ledger}`` (``"gaussian"`` with ``"rho"``), charged
        to the :class:`~synthguard.dp.PrivacyLedger` at each draw; this protects the column's
        values only and does not make the release differentially private.
    max_redraws : int, default 10
        Redraws of a record breaking a constraint before it is forced inside
        (:data:`~synthguard.synthesis.enforce.DEFAULT_MAX_REDRAWS`).
    allow_violations : bool, default False
        Accept constraints the confidential data break. By default :meth:`fit` refuses them
        with a :class:`~synthguard.errors.DataError` naming each and how many records break
        it: a rule the data break is not a rule.
    household : str, optional
        The household id column of a household–person file: households are synthesized
        first (their household-level columns and size), then their members in order, each
        conditional on the household and the members already drawn; the release holds new
        households with new ids (:mod:`synthguard.synthesis.households`). Strata must then
        be household-level; constraints may be rules within a household (``count(...)``,
        ``head.<column>``; :mod:`synthguard.data.household_rules`).
    household_columns : str or list of str, optional
        Columns with one value per household (with ``household``). Default: detected, every
        column constant within every household. A declared column that varies within a
        household is refused with a :class:`~synthguard.errors.DataError`.
    member_order : str, optional
        Person-level column ordering the members within a household, ascending (a
        relationship-to-head code: 1 head, 2 partner, 3 child, ...). Default: a column named
        like ``relat``/``relationship`` when there is one, else ``age`` descending, else the
        file's order.
    random_state : None, int or Generator
        Seed of :meth:`sample` when it is not given one there.

    Notes
    -----
    **Identifiers.** A column the schema flags as an identifier
    (:func:`synthguard.data.schema.identifier_reason`: an id-like name with many distinct
    values, distinct text, a sequence of distinct integers) is refused with a
    :class:`~synthguard.errors.DataError` when it would be synthesized, kept or used as
    strata: synthesizing an identifier releases real ids (CART and ``sample`` draw observed
    values) and makes it a predictor of every later column. Drop it (``drop=["ID"]``), leave
    it out of ``visit_sequence``, or declare it in ``schema`` if it is not one
    (``schema={"ID": "count"}``). A column declared an identifier (``schema={"ID":
    "identifier"}``) is left out of the default visit sequence, as if dropped.

    Attributes
    ----------
    schema_ : Schema
        The schema used (inferred plus overrides).
    visit_sequence_, predictors_, methods_, kept_, strata_ :
        The resolved plan.
    blocks_ : list of BlockModel
        Fitted models, one block per stratum.

    Examples
    --------
    >>> from synthguard import Synthesizer, load_dataset
    >>> df = load_dataset("penguins")
    >>> syn = Synthesizer(visit_sequence=["sex", "bill_length_mm"],
    ...                   methods={"sex": "sample", "bill_length_mm": "cart"},
    ...                   m=2, random_state=1)
    >>> result = syn.fit(df).sample()
    >>> [d.shape for d in result.implicates]
    [(344, 2), (344, 2)]
    """

    # single parameters, checked first in fit (synthguard._params); relations between
    # parameters and the data are checked in synthesis.params.resolve_plan
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "m": [Interval(int, 1, None)],
        "n": [None, Interval(int, 1, None)],
        "n_jobs": [Interval(int, 1, None)],
        "default_method": [str],
        "min_stratum_size": [None, Interval(int, 0, None)],
        "min_rows": [None, Interval(int, 0, None)],
        "max_redraws": [Interval(int, 0, None)],
        "allow_violations": [bool],
        "partial_uniques": [Options(PARTIAL_UNIQUES)],
    }

    def __init__(
        self,
        *,
        methods: Mapping[str, Any] | None = None,
        visit_sequence: Sequence[str] | None = None,
        predictor_matrix: Mapping[str, Sequence[str]] | pd.DataFrame | None = None,
        keep: str | Sequence[str] | None = None,
        m: int = 1,
        n: int | None = None,
        strata: str | Sequence[str] | None = None,
        weights: np.ndarray | Sequence[float] | str | None = None,
        schema: Mapping[str, Any] | Schema | None = None,
        method_params: Mapping[str, Mapping[str, Any]] | None = None,
        default_method: str = "cart",
        n_jobs: int = 1,
        min_stratum_size: int | None = None,
        drop: str | Sequence[str] | None = None,
        replicated_uniques: str = "redraw",
        uniques_on: str | Sequence[str] | None = None,
        partial_uniques: str = "synthesize",
        extremes: int | None = 5,
        rare_values: int | None = 5,
        public_levels: Mapping[str, Sequence[Any]] | None = None,
        min_rows: int | None = None,
        constraints: Any = None,
        transforms: Mapping[str, str] | None = None,
        noise: Mapping[str, Any] | None = None,
        max_redraws: int = DEFAULT_MAX_REDRAWS,
        allow_violations: bool = False,
        household: str | None = None,
        household_columns: str | Sequence[str] | None = None,
        member_order: str | None = None,
        random_state: RandomState = None,
    ) -> None:
        self.methods = methods
        self.visit_sequence = visit_sequence
        self.predictor_matrix = predictor_matrix
        self.keep = keep
        self.m = m
        self.n = n
        self.strata = strata
        self.weights = weights
        self.schema = schema
        self.method_params = method_params
        self.default_method = default_method
        self.n_jobs = n_jobs
        self.min_stratum_size = min_stratum_size
        self.drop = drop
        self.replicated_uniques = replicated_uniques
        self.uniques_on = uniques_on
        self.partial_uniques = partial_uniques
        self.extremes = extremes
        self.rare_values = rare_values
        self.public_levels = public_levels
        self.min_rows = min_rows
        self.constraints = constraints
        self.transforms = transforms
        self.noise = noise
        self.max_redraws = max_redraws
        self.allow_violations = allow_violations
        self.household = household
        self.household_columns = household_columns
        self.member_order = member_order
        self.random_state = random_state

    # ----------------------------------------------------------------- fit

    def fit(self, data: pd.DataFrame) -> Synthesizer:
        """Validate ``data`` and the parameters, and fit every column's model on ``data``.

        The parameters are resolved into a plan (:func:`synthguard.synthesis.params.
        resolve_plan`); each stratum is one block fit by
        :func:`synthguard.synthesis.engine.fit_block`, column ``j`` of block ``b`` with the
        ``(b x columns + j)``-th child of the fit seed, so the fit does not depend on
        ``n_jobs``.

        A Dask DataFrame is not read here: :meth:`sample` then returns a lazy
        :class:`~synthguard.synthesis._on_dask.synthesis.DaskSynthesis` (with ``strata`` each
        stratum fitted and drawn on a worker, equal stratum by stratum to the pandas release
        of that stratum; without, the models fitted on a reproducible sample and drawn per
        partition). See :mod:`synthguard.synthesis._on_dask.synthesis`.

        Raises
        ------
        DataError
            Empty data, an all-missing column, numbers stored as text with stray strings,
            infinite values, duplicate column names, a synthesized single-level categorical.
        SchemaError
            A schema override the data contradict.
        ParameterError
            Unknown columns in ``visit_sequence``, ``keep``, ``strata``, ``predictor_matrix``,
            ``methods`` or ``weights``; a column both kept and synthesized; ``n`` with ``keep``.
        MethodError
            An unknown method name, a method that cannot synthesize the column's kind, or one
            that cannot take weights.
        """
        if is_dask_collection(data):  # lazy: the Dask plan fits when its release is made
            self._dask_data: Any = data
            self.fitted_on_dask_ = True
            return self
        self._dask_data = None
        self.fitted_on_dask_ = False
        if getattr(self, "household", None) is not None:
            return self._fit_households(data)
        if self.household_columns is not None or self.member_order is not None:
            raise ParameterError("parameters 'household_columns' and 'member_order' apply to "
                                 "household synthesis; give household=<id column> too")
        self.households_: Any = None
        plan = resolve_plan(self, data)
        data, schema, specs = plan.data, plan.schema, plan.specs
        arrays = {c: to_working(data[c], schema[c]) for c in plan.needed}
        row_blocks = stratum_rows(arrays, plan.strata)
        if plan.strata:
            check_stratum_sizes(self.min_stratum_size, row_blocks, plan.strata, len(plan.visit))
        fit_rng, fit_seed = fit_generator(self.random_state)
        rngs = spawn(fit_rng, len(row_blocks) * len(specs))
        inner_jobs = plan.n_jobs if len(row_blocks) == 1 else 1

        def fit_stratum(b: int) -> BlockModel:
            rows = row_blocks[b]
            return fit_block(
                arrays, rows if plan.strata else None, specs, schema.columns, plan.weights,
                {c: arrays[c][rows[0]] for c in plan.strata},
                n_jobs=inner_jobs, rngs=rngs[b * len(specs):(b + 1) * len(specs)],
            )

        self.blocks_ = thread_map(fit_stratum, range(len(row_blocks)), plan.n_jobs)
        self.fit_seed_ = fit_seed
        self._set_plan(plan, arrays)
        return self

    def _fit_households(self, data: pd.DataFrame) -> Synthesizer:
        """Household synthesis (``household=``): :class:`~synthguard.synthesis.households.
        HouseholdModel` fits the household table and the members' models."""
        from synthguard._params import validate_params
        from synthguard.synthesis.households import HouseholdModel

        validate_params(self)
        if self.n is not None and self.keep:
            raise ParameterError("parameter 'n': not allowed with 'keep' (partial synthesis "
                                 "keeps the confidential rows); drop 'n'")
        self.households_ = HouseholdModel(self).fit(data)
        self.blocks_ = []  # fitted: the household model holds the parts
        self.kind_ = self.households_.kind_
        return self

    def _set_plan(self, plan: FitPlan, arrays: dict[str, np.ndarray]) -> None:
        """Record the resolved plan and the release safeguards' state (``*_`` attributes)."""
        data, schema, specs, visit = plan.data, plan.schema, plan.specs, plan.visit
        keep, strata, columns = plan.keep, plan.strata, list(data.columns)
        self.visit_order_ = plan.visit_order
        if plan.constraint_check is not None:
            self.constraint_check_ = plan.constraint_check
        self.schema_ = schema
        self.visit_sequence_ = visit
        self.predictors_ = plan.predictors
        self.kept_ = keep
        self.strata_ = strata
        self.methods_ = {s.target: method_label(s.method) for s in specs}
        self.missingness_methods_ = {
            s.target: method_label(s.indicator)
            for s in specs
            if s.indicator is not None and schema[s.target].has_missing
        }
        self.weights_ = plan.weights
        self.n_ = plan.n_out
        self.n_rows_ = len(data)
        self.columns_ = [c for c in columns if c in set(visit) | set(keep) | set(strata)]
        self.left_out_ = [c for c in columns if c not in self.columns_]
        self.dropped_ = as_list(self.drop, "drop")
        self.dtypes_ = {c: data[c].dtype for c in self.columns_}
        self.index_ = data.index
        self.kind_ = "partial" if keep else "full"
        self.fixed_arrays_ = {c: arrays[c] for c in dict.fromkeys(keep + strata)}
        # The replication diagnostics need hashes of the confidential records. They are built
        # on the first sample() that asks for diagnostics, from a copy-on-write reference to
        # the confidential columns (no copy is made unless the caller modifies `data`), so a
        # synthesizer sampled without diagnostics never holds them (about the data's size).
        self._confidential: pd.DataFrame | None = data[self.columns_].copy(deep=False)
        self._fingerprint: ConfidentialFingerprint | None = None
        self.method_params_ = {k: dict(v) for k, v in dict(self.method_params or {}).items()}
        self.replicated_uniques_ = plan.policy
        self.uniques_on_ = plan.uniques_on or list(self.columns_)
        self.partial_uniques_ = check_partial_uniques(self.partial_uniques)
        self._kept_models: KeptModels | None = None
        keys = [c for c in self.uniques_on_ if c in keep]
        # the kept columns, riskiest first (column names only: nothing of the data is kept)
        self.kept_ranking_ = rank_kept_columns(
            arrays, keep, keys if set(keys) != set(keep) else ())
        # the records unique on the kept (and strata) columns, whose riskiest kept value
        # partial_uniques changes: derived from the data, kept inside the fitted synthesizer
        self.kept_unique_: np.ndarray | None = None
        if keep and plan.policy != "keep" and self.partial_uniques_ != "suppress":
            self.kept_unique_ = unique_rows(arrays, list(dict.fromkeys(keep + strata)))
        self.extremes_ = plan.k_tail
        self.tail_thresholds_: dict[str, tuple[float | None, float | None]] = {}
        if plan.k_tail:
            derived = {s.target for s in specs if getattr(s.method, "derived", False)}
            exact = {s.target for s in specs if s.exact}  # a lookup reads them: data values
            for c in visit:
                if schema[c].is_numeric and c not in derived:  # passive: follows its sources
                    lo, hi = tail_thresholds(arrays[c], plan.k_tail)
                    if c in exact:
                        lo, hi = snap_to_values(arrays[c], lo, hi)
                    if lo is not None or hi is not None:
                        self.tail_thresholds_[c] = (lo, hi)
        self.rare_values_ = plan.rare_values
        public: dict[str, set[object]] = {
            c: set(v) for c, v in dict(self.public_levels or {}).items()
        }
        for c in visit:
            levels_declared = declared_levels(plan.overrides, c)
            if levels_declared is not None:
                public[c] = public.get(c, set()) | levels_declared
        # derived columns, and the columns a lookup derives them from (passive 'of' looks
        # their values up in the data), keep their drawn values: smoothing such a source would
        # leave the derived column without a value. Only those sources: every other predictor
        # keeps the guard (excluding all of them released Adult's near-unique fnlwgt values
        # whenever education_num was passive)
        derived = {c for block in self.blocks_ for cm in block.models
                   if cm.value is not None and getattr(cm.value.method, "derived", False)
                   for c in (cm.target,
                             *getattr(cm.value.method, "sources_", cm.predictors))}
        self.rare_guard_ = RareGuard(arrays, schema, [c for c in visit if c not in derived],
                                     self.rare_values_, public, self.tail_thresholds_)
        self._unique_guard: UniqueGuard | None = None
        self.enforcer_ = plan.enforcer
        self.transforms_ = {sp.target: sp.transform for sp in specs if sp.transform is not None}
        self.noise_ = {sp.target: sp.noise for sp in specs if sp.noise is not None}


    @property
    def fingerprint_(self) -> ConfidentialFingerprint:
        """Sorted hashes of the confidential records for the replication diagnostics (built on
        first use)."""
        self._check_fitted()
        if self._fingerprint is None:
            conf = self._confidential
            if conf is None:  # pragma: no cover - state always has one or the other
                raise NotFittedError("this Synthesizer has no confidential data; refit it")
            schema = self.schema_.columns
            arrays = {c: to_working(conf[c], schema[c]) for c in self.columns_}
            fixed = list(dict.fromkeys(self.kept_ + self.strata_))
            self._fingerprint = ConfidentialFingerprint(
                arrays, fixed, self.visit_sequence_, self.methods_, partial=bool(self.kept_)
            )
        return self._fingerprint

    @property
    def unique_guard_(self) -> UniqueGuard:
        """Sorted hashes of the confidential records unique on the released columns (built on
        first use)."""
        self._check_fitted()
        guard = getattr(self, "_unique_guard", None)
        if guard is None:
            conf = self._confidential
            if conf is None:  # pragma: no cover - state always has one or the other
                raise NotFittedError("this Synthesizer has no confidential data; refit it")
            schema = self.schema_.columns
            keys = list(getattr(self, "uniques_on_", self.columns_))
            arrays = {c: to_working(conf[c], schema[c]) for c in self.columns_}
            guard = UniqueGuard(arrays, self.columns_, keys)
            self._unique_guard = guard
        return guard

    def _needs_kept_models(self) -> bool:
        return (getattr(self, "kind_", None) == "partial" and self._policy() != "keep"
                and getattr(self, "partial_uniques_", "suppress") == "synthesize")

    @property
    def kept_models_(self) -> KeptModels:
        """Models of the riskiest kept columns, for ``partial_uniques="synthesize"`` (fitted
        on first use, on the confidential data)."""
        self._check_fitted()
        models = getattr(self, "_kept_models", None)
        if models is None:
            conf = self._confidential
            if conf is None:  # pragma: no cover - state always has one or the other
                raise NotFittedError("this Synthesizer has no confidential data; refit it")
            schema = self.schema_.columns
            fixed = list(dict.fromkeys(self.kept_ + self.strata_))
            arrays = {c: to_working(conf[c], schema[c]) for c in fixed}
            ranked = list(getattr(self, "kept_ranking_", self.kept_))[:MAX_KEPT_COLUMNS]
            seed = getattr(self, "fit_seed_", None)

            def fit_one(c: str) -> Any:
                from synthguard.synthesis.params import indicator_method
                from synthguard.synthesis.registry import make_method

                col = schema[c]
                method = make_method("cart")
                indicator = (indicator_method(method, c)
                             if col.is_numeric and col.has_missing else None)
                spec = ColumnSpec(c, [p for p in fixed if p != c], method, indicator)
                rng = np.random.default_rng(
                    None if seed is None else [int(seed), fixed.index(c), 0x6B657074])
                block = fit_block(arrays, None, [spec], schema, None, rng=rng)
                return block.models[0]

            models = KeptModels(ranked, fit_one)
            self._kept_models = models
        return models

    def __getstate__(self) -> dict[str, Any]:
        # a saved synthesizer carries the diagnostics' hashes, not the confidential frame
        state = dict(self.__dict__)
        state["noise"] = without_ledgers(state.get("noise"))  # a ledger is never pickled
        if "blocks_" in state and getattr(self, "households_", None) is None:
            state["_fingerprint"] = self.fingerprint_
            if hasattr(self, "replicated_uniques_"):  # 'keep' still counts them at sample
                state["_unique_guard"] = self.unique_guard_
            if self._needs_kept_models():
                state["_kept_models"] = self.kept_models_
            state["_confidential"] = None
        return state

    def _check_fitted(self) -> None:
        if not hasattr(self, "blocks_"):
            raise NotFittedError("this Synthesizer is not fitted; call fit(data) first")

    @reordered(("self", "m", "random_state"))
    def sample(
        self,
        *,
        m: int | None = None,
        n: int | None = None,
        random_state: RandomState = None,
        start: Any = None,
        start_origin: Any = None,
        diagnostics: bool = True,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyntheticData:
        """Draw ``m`` synthetic implicates.

        Parameters
        ----------
        m : int, optional
            Number of implicates (default: the ``m`` given at construction).
        n : int, optional
            Rows of each implicate in full synthesis (default: the ``n`` given at
            construction, else the confidential row count); strata keep their shares.
        random_state : None, int or Generator, optional
            Seed of this draw (default: the synthesizer's ``random_state``). Implicate ``i``
            uses the ``i``-th child of the seed (``numpy`` ``spawn``), so implicates differ,
            the same seed gives the same implicates, and implicate ``i`` does not depend on
            ``m``.
        start : DataFrame or release, optional
            Start data (full synthesis; with strata it holds the strata columns too, and each
            record is completed within its stratum): the first columns of the visit
            sequence, given instead of drawn; the other columns are drawn conditional on
            them, and its row count sets ``n``. A release (e.g. a DP synthesizer's) with
            ``m`` implicates starts implicate ``i`` from its ``i``-th, otherwise from its
            first. See :mod:`synthguard.synthesis.start`.
        start_origin : str or dict, optional
            Where the start came from, recorded in the provenance (a DP release records its
            method and budget by itself).
        diagnostics : bool, default True
            Compute the disclosure diagnostics of the synthesizer (``result.diagnostics``).
        progress : callable, optional
            Called as ``progress(i, m)`` after implicate ``i`` (1-based) is drawn.

        Returns
        -------
        SyntheticData

        Notes
        -----
        Keyword-only, as every synthesizer's ``sample(m=..., n=..., random_state=...)``; the
        old positional ``sample(m, random_state)`` works one release with a RenamedWarning.

        After a fit on a Dask DataFrame the release is a lazy ``DaskSynthesis`` made by
        :func:`synthguard.synthesis._on_dask.synthesis.synthesize` with this synthesizer's
        parameters and ``random_state`` (default: the one given at construction); ``start``
        and ``progress`` are not available there.
        """
        if getattr(self, "fitted_on_dask_", False):
            return self._sample_dask(m, n, random_state, start)  # type: ignore[return-value]
        self._check_fitted()
        n_out = check_count(n, "n", allow_none=True)
        if getattr(self, "households_", None) is not None:
            if start is not None:
                raise ParameterError("parameter 'start': not available with household=")
            m_h = check_count(self.m if m is None else m, "m")
            rng_h, seed_h = resolve_seed(self.random_state if random_state is None
                                         else random_state)
            return self.households_.sample(
                m=m_h, n=self.n if n_out is None else n_out, random_state=random_state,
                diagnostics=diagnostics, progress=progress, seed=seed_h, rng=rng_h)
        if n_out is not None and (self.kind_ == "partial" or start is not None):
            raise ParameterError(
                "parameter 'n': applies to full synthesis without a start only (partial "
                "synthesis keeps the confidential rows, a start sets the rows); drop 'n'")
        m_ = check_count(self.m if m is None else m, "m")
        assert m_ is not None
        rs = self.random_state if random_state is None else random_state
        rng, seed = resolve_seed(rs)
        schema = self.schema_.columns
        sizes = np.array([len(b.rows) for b in self.blocks_], dtype=np.int64)
        partial = self.kind_ == "partial"
        begin = None
        if start is not None:
            begin = resolve_start(start, start_origin, schema, self.visit_sequence_, m_,
                                  partial=partial, strata=self.strata_, blocks=self.blocks_)
            block_n = begin.block_sizes(0)
        else:
            total = self.n_ if n_out is None else n_out
            block_n = sizes if partial or total is None else allocate(sizes, total)
        self._start_columns = () if begin is None else begin.columns
        enforcer: ConstraintEnforcer | None = getattr(self, "enforcer_", None)
        creport: ConstraintReport | None = None if enforcer is None else enforcer.report()
        frames: list[pd.DataFrame] = []
        measured: list[dict[str, Any]] = []
        counts: dict[str, list[Any]] = {
            "found": [], "redrawn": [], "removed": [], "remaining": [], "coded": []
        }
        for i, child in enumerate(spawn(rng, m_)):
            start_i = None if begin is None else begin.for_implicate(i)
            frame, _, out_measured = self._implicate(
                child, block_n if begin is None else begin.block_sizes(i), start_i, enforcer,
                creport, counts, diagnostics
            )
            if out_measured is not None:
                measured.append(out_measured)
            frames.append(frame)
            if progress is not None:
                progress(i + 1, m_)
        safeguards = ReleaseSafeguards(self).report(counts)
        diag = self._diagnostics(measured, safeguards) if diagnostics else None
        return SyntheticData(
            implicates=frames,
            kind=self.kind_,
            m=m_,
            seed=seed,
            synthesized=list(self.visit_sequence_),
            kept=list(self.kept_),
            methods=dict(self.methods_),
            weights=self.weights_,
            diagnostics=diag,
            provenance=self._provenance(seed, safeguards, creport, begin),
            safeguards=safeguards,
            constraints=creport,
        )

    def _sample_dask(self, m: int | None, n: int | None, random_state: RandomState,
                     start: Any) -> Any:
        """The lazy Dask release of a synthesizer fitted on a Dask frame."""
        from synthguard.synthesis._on_dask.synthesis import synthesize as on_dask

        if start is not None:
            raise ParameterError("parameter 'start': not available after a fit on Dask")
        params = {}
        for name, p in inspect.signature(type(self).__init__).parameters.items():
            if name in ("self", "m", "n", "strata", "random_state") or p.kind is p.VAR_KEYWORD:
                continue
            value = getattr(self, name)
            if value is not p.default:
                params[name] = value
        return on_dask(self._dask_data, strata=self.strata,
                       m=self.m if m is None else m, n=self.n if n is None else n,
                       random_state=cast(Any, self.random_state if random_state is None
                                         else random_state), **params)

    def _fixed_for(
        self, start: Sequence[Mapping[str, np.ndarray]] | None
    ) -> Callable[[BlockModel, int], dict[str, np.ndarray]]:
        """``fixed_for(block, n)`` for :func:`~synthguard.synthesis.engine.assemble_blocks`:
        the block's kept columns (partial synthesis) or strata values (full), and the start
        columns (copied: the safeguards and constraints work in place)."""
        partial = self.kind_ == "partial"
        whole = len(self.blocks_) == 1

        def fixed_for(block: BlockModel, nb: int) -> dict[str, np.ndarray]:
            if partial and whole:
                fixed = dict(self.fixed_arrays_)
            elif partial:
                fixed = {c: a[block.rows] for c, a in self.fixed_arrays_.items()}
            else:
                fixed = {
                    c: np.full(nb, v, dtype=self.fixed_arrays_[c].dtype)
                    for c, v in block.stratum.items()
                }
            if start is not None:  # the start's records of this block (stratum)
                j = next(k for k, b in enumerate(self.blocks_) if b is block)
                fixed.update({c: a.copy() for c, a in start[j].items()})
            return fixed

        return fixed_for

    def _implicate(
        self,
        child: np.random.Generator,
        block_n: np.ndarray,
        start: Sequence[Mapping[str, np.ndarray]] | None,
        enforcer: ConstraintEnforcer | None,
        creport: ConstraintReport | None,
        counts: dict[str, list[Any]],
        diagnostics: bool,
    ) -> tuple[pd.DataFrame, np.ndarray | None, dict[str, Any] | None]:
        """Draw one implicate from its Generator ``child``: every stratum from its own child
        of ``child`` (the block engine), then the safeguards and the constraints' final check.
        Returns the frame, the mask of released rows (None: all) and its diagnostics."""
        schema = self.schema_.columns
        partial = self.kind_ == "partial"
        # each stratum draws from its own child Generator: strata are independent tasks
        tasks = [
            (block, int(nb), brng)
            for block, nb, brng in zip(self.blocks_, block_n, spawn(child, len(self.blocks_)))
        ]
        tallies: list[dict[str, np.ndarray]] = []
        out, row_block = assemble_blocks(
            tasks, self._fixed_for(start), schema, partial=partial,
            n_jobs=int(getattr(self, "n_jobs", 1) or 1), enforcer=enforcer, tallies=tallies,
        )
        keep_rows = ReleaseSafeguards(self).apply(out, tasks, row_block, child, counts)
        if enforcer is not None and creport is not None:
            # the safeguards (tail coding, redrawn uniques) may move values: check again
            tally = enforcer.new_tally()
            tallies.append(tally)
            self._enforce_release(enforcer, out, tasks, row_block, child, tally)
            total_tally = {k: np.sum([t[k] for t in tallies], axis=0) for k in tally}
            creport.redrawn.append(tuple(int(v) for v in total_tally["redrawn"]))
            creport.forced.append(tuple(int(v) for v in total_tally["forced"]))
            creport.remaining.append(tuple(int(v) for v in total_tally["remaining"]))
        total = int(block_n.sum())
        index = self.index_ if partial else pd.RangeIndex(total)
        if keep_rows is not None:
            out = {c: a[keep_rows] for c, a in out.items()}
            index = index[keep_rows] if partial else pd.RangeIndex(int(keep_rows.sum()))
        measured = None
        if diagnostics:
            measured = self.fingerprint_.measure(out, keep_rows if partial else None)
        # Each working array is released as its column is converted, and the frame wraps
        # the converted columns (copy=False: no second copy of the implicate while it is
        # built). Kept and strata arrays may be the synthesizer's own, shared by every
        # implicate: those columns are copied.
        fixed_columns = set(self.kept_) | set(self.strata_)
        frame = pd.DataFrame(
            {
                c: from_working(
                    out.pop(c).copy() if c in fixed_columns else out.pop(c),
                    schema[c], self.dtypes_[c], index,
                )
                for c in self.columns_
            },
            index=index,
            copy=False,
        )
        return frame, keep_rows, measured

    def _diagnostics(self, measured: list[dict[str, Any]], safeguards: SafeguardReport) -> Any:
        """The disclosure diagnostics of the implicates, with the trees' leaf summaries."""
        trees: dict[str, dict[str, float]] = {}
        for block in self.blocks_:
            for cm in block.models:
                if cm.value is None:
                    continue
                s = leaf_summary(cm.value.method)
                if s is None:
                    continue
                acc = trees.setdefault(cm.target, dict.fromkeys(s, 0.0))
                for k, v in s.items():
                    acc[k] = acc.get(k, 0.0) + (0.0 if np.isnan(v) else v)
        diag = self.fingerprint_.combine(measured, trees)
        return None if diag is None else dataclasses.replace(diag, safeguards=safeguards)

    def _provenance(
        self, seed: int | None, safeguards: SafeguardReport, creport: ConstraintReport | None,
        begin: Any,
    ) -> dict[str, Any]:
        import synthguard

        return {
            "visit_sequence": list(self.visit_sequence_),
            "predictor_matrix": {k: list(v) for k, v in self.predictors_.items()},
            "strata": list(self.strata_),
            "left_out": list(self.left_out_),
            "dropped": list(getattr(self, "dropped_", [])),
            "n_strata": len(self.blocks_),
            "method_params": self.method_params_,
            "transforms": {
                c: t.to_dict() for c, t in getattr(self, "transforms_", {}).items()
            },
            "noise": {c: z.to_dict() for c, z in getattr(self, "noise_", {}).items()},
            "missingness_methods": dict(self.missingness_methods_),
            "random_state": seed,
            "fit_random_state": getattr(self, "fit_seed_", None),
            "replicated_uniques": safeguards.replicated_uniques,
            "extremes": safeguards.extremes,
            "rare_values": safeguards.rare_values,
            "safeguards": safeguards.to_record()["counts"],
            "n_confidential": self.n_rows_,
            "constraints": None if creport is None else creport.to_dict(),
            "start": None if begin is None else {
                "columns": list(begin.columns), "n": begin.n, "origin": begin.origin,
            },
            "schema": _public_schema(self.schema_, self.schema),
            "versions": {
                "synthguard": synthguard.__version__,
                "numpy": np.__version__,
                "pandas": pd.__version__,
            },
        }

    def _enforce_release(
        self,
        enforcer: ConstraintEnforcer,
        out: dict[str, np.ndarray],
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        child: np.random.Generator,
        tally: dict[str, np.ndarray],
    ) -> None:
        """Check every constraint on the implicate once more and redraw, then force, the
        records breaking one (after the safeguards moved values), column by column in visit
        order, each from its own block's model."""
        schema = self.schema_.columns
        rng: np.random.Generator | None = None
        for target in self.visit_sequence_:
            if target not in enforcer.by_target or target in self._start_columns:
                continue
            everyone = np.arange(len(out[target]))
            bad = np.flatnonzero(enforcer.broken(target, out, everyone).any(axis=1))
            if not len(bad):
                continue
            if rng is None:
                (rng,) = spawn(child, 1)
            for b, rows in row_groups(bad, row_block):
                cm = next(c for c in tasks[b][0].models if c.target == target)
                enforcer.enforce(target, out, ColumnRedraw(cm, out, schema), rng, tally,
                                 idx=rows)

    def _policy(self) -> str:
        # synthesizers saved before the safeguards existed keep every record
        return str(getattr(self, "replicated_uniques_", "keep"))

    @reordered(("self", "data", "m"))
    def fit_sample(self, data: pd.DataFrame, *, m: int | None = None, n: int | None = None,
                   random_state: RandomState = None) -> SyntheticData:
        """``fit(data).sample(m=m, n=n, random_state=random_state)``."""
        return self.fit(data).sample(m=m, n=n, random_state=random_state)

    # ----------------------------------------------------------------- persistence

    def save_confidential(self, path: str | os.PathLike[str]) -> None:
        """Save the fitted synthesizer to ``path`` (must end in ``.confidential.pkl``).

        The file holds confidential information (kept columns, the confidential values in
        CART leaves, fitted coefficients): store it like the confidential data. See
        :func:`synthguard.synthesis.persistence.save_synthesizer`.
        """
        from synthguard.synthesis.persistence import save_synthesizer

        save_synthesizer(self, path)

    save = save_confidential

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Synthesizer:
        """Load a synthesizer saved by :meth:`save`. Only load files you made yourself:
        loading unpickles Python objects, which can run code (see
        :func:`synthguard.synthesis.persistence.load_synthesizer`)."""
        from synthguard.synthesis.persistence import load_synthesizer

        return load_synthesizer(path)



@overload
def synthesize(
    data: pd.DataFrame, m: int = 1, random_state: RandomState = None, **kwargs: Any
) -> SyntheticData: ...


@overload
def synthesize(
    data: dd.DataFrame, m: int = 1, random_state: RandomState = None, **kwargs: Any
) -> DaskSynthesis: ...


def synthesize(
    data: Any, m: int = 1, random_state: RandomState = None, **kwargs: Any
) -> SyntheticData | DaskSynthesis:
    """Synthesize ``data`` with sensible defaults: ``Synthesizer(m=m, random_state=random_state,
    **kwargs).fit(data).sample()``.

    By default every column is synthesized in the data's order (full synthesis), the first
    with ``sample`` and the rest with ``cart``, as synthpop does.

    ``data`` may be a Dask DataFrame: the release is then a lazy ``DaskSynthesis``
    (:func:`synthguard.synthesis._on_dask.synthesis.synthesize`, which also takes ``strata``,
    ``n`` and ``fit_rows``).

    Examples
    --------
    >>> from synthguard import load_dataset, synthesize
    >>> result = synthesize(load_dataset("penguins"), m=2, random_state=1)
    >>> result.m, result.kind
    (2, 'full')
    """
    if is_dask_collection(data):  # strata on workers, or a fit sample and per-partition draws
        from synthguard.synthesis._on_dask.synthesis import synthesize as on_dask

        return on_dask(data, m=m, random_state=cast(Any, random_state), **kwargs)
    return Synthesizer(m=m, random_state=random_state, **kwargs).fit(data).sample()


def _public_schema(schema: Schema, declared: Any) -> dict[str, dict[str, Any]]:
    """The schema for the provenance, with category levels only where the user declared them
    (``schema={col: {"levels": [...]}}``): inferred levels are read from the confidential data
    and would list a one-record level next to the release."""
    out = schema.to_dict()
    for name, spec in out.items():
        given = declared.get(name) if isinstance(declared, Mapping) else None
        if "levels" in spec and not (isinstance(given, Mapping) and given.get("levels") is not None):
            spec.pop("levels")
    return out
