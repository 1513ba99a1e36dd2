"""Parameter resolution of the sequential synthesizer: the user's parameters and the data
become a :class:`FitPlan` (columns' roles, visit sequence, predictor matrix, methods,
weights, constraints), checked before any model is fit.

Roles follow synthpop (Nowok, Raab & Dibben 2016): visited columns are synthesized in the
visit sequence, ``keep`` columns are copied and act as fixed predictors (partial synthesis,
Little 1993; Reiter 2003), ``strata`` split the records into independent blocks. Every
problem found is raised as a :mod:`synthguard.errors` type naming the parameter or column
and what to do, never a data value.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._params import column_list, validate_params
from synthguard.data.constraints import check_constraints, parse_constraints, rounded_count
from synthguard.data.schema import (
    ColumnSchema,
    Kind,
    Schema,
    identifier_reason,
    infer_schema,
    validate_frame,
)
from synthguard.errors import DataError, MethodError, ParameterError
from synthguard.synthesis.encoding import to_working
from synthguard.synthesis.enforce import ConstraintEnforcer
from synthguard.synthesis.engine import ColumnSpec
from synthguard.synthesis.level_bounds import (
    bound_predictors,
    check_wide_targets,
    warn_left_out,
    wide_columns,
)
from synthguard.synthesis.methods.base import SynthesisMethod
from synthguard.synthesis.methods.columns import reads_columns, split_names
from synthguard.synthesis.methods.loglinear import link_blocks
from synthguard.synthesis.noise import resolve_noise
from synthguard.synthesis.registry import get_method, make_method
from synthguard.synthesis.safeguards import check_rare_values, check_safeguard_params
from synthguard.synthesis.transforms import fit_transform, resolve_transforms
from synthguard.synthesis.visit_order import VisitOrder, method_sources, propose_visit_sequence

__all__ = ["FitPlan", "resolve_plan"]


@dataclass
class FitPlan:
    """What :meth:`Synthesizer.fit <synthguard.synthesis.synthesizer.Synthesizer.fit>` does,
    resolved from its parameters and the data (``data`` without the dropped columns)."""

    data: pd.DataFrame
    overrides: Any
    schema: Schema
    keep: list[str]
    strata: list[str]
    visit: list[str]
    visit_order: VisitOrder | None
    n_out: int | None
    n_jobs: int
    policy: str
    k_tail: int
    rare_values: int
    uniques_on: list[str]
    enforcer: ConstraintEnforcer | None
    constraint_check: pd.DataFrame | None
    predictors: dict[str, list[str]]
    specs: list[ColumnSpec]
    weights: np.ndarray | None

    @property
    def needed(self) -> list[str]:
        """Columns read by the fit: kept, strata, visited and their predictors."""
        return list(dict.fromkeys(
            self.keep + self.strata + self.visit
            + [p for ps in self.predictors.values() for p in ps]
        ))


def resolve_plan(est: Any, data: pd.DataFrame) -> FitPlan:
    """Check ``data`` and the parameters of the synthesizer ``est`` and resolve them into a
    :class:`FitPlan`; the checks run in the order of the ``Raises`` section of ``fit``."""
    data, overrides = drop_columns(data, est.drop, est.schema,
                                   {"keep": est.keep, "strata": est.strata,
                                    "visit_sequence": est.visit_sequence})
    validate_frame(data, name="data", text_overrides=_text_overrides(overrides))
    validate_params(est)  # the single parameters the estimator declares
    n_out = None if est.n is None else int(est.n)
    policy, k_tail = check_safeguard_params(est.replicated_uniques, est.extremes)
    schema = infer_schema(data, overrides)
    schema.validate(data)
    keep = as_list(est.keep, "keep")
    strata = as_list(est.strata, "strata")
    for param, names in (("keep", keep), ("strata", strata)):
        _check_known(names, schema, param)
    visit, visit_order = resolve_visit(est.visit_sequence, est.methods, data, schema, overrides,
                                       keep, strata)
    check_roles(visit, keep, strata, n_out)
    refuse_identifiers(data, schema, keep + strata + visit)
    check_min_rows(est.min_rows, len(data), len(visit))
    uniques_on = as_list(est.uniques_on, "uniques_on")
    unknown = [c for c in uniques_on if c not in keep + strata + visit]
    if unknown:
        raise ParameterError(
            f"parameter 'uniques_on' names columns that are not released: "
            f"{', '.join(unknown)}; name synthesized, kept or strata columns"
        )
    check_levels(data, schema, visit)
    enforcer, check = resolve_constraints(
        est.constraints, est.allow_violations, est.max_redraws, data, schema, visit,
        keep + strata,
    )
    predictors = resolve_predictors(est.predictor_matrix, visit, keep, strata)
    # bounded work: columns with more levels than a model takes, before anything is fitted
    wide = wide_columns(data, schema, keep + strata + visit)
    predictors, left_out = bound_predictors(predictors, wide, est.predictor_matrix)
    specs = resolve_methods(est.methods, est.method_params, est.default_method, visit,
                            predictors, schema)
    check_wide_targets(specs, wide)
    warn_left_out(left_out, wide)
    attach_transforms(specs, est.transforms, est.noise, data, schema)
    weights = resolve_weights(est.weights, data, specs)
    n_jobs = int(est.n_jobs)
    return FitPlan(
        data=data, overrides=overrides, schema=schema, keep=keep, strata=strata, visit=visit,
        visit_order=visit_order, n_out=n_out, n_jobs=n_jobs, policy=policy, k_tail=k_tail,
        rare_values=check_rare_values(est.rare_values), uniques_on=uniques_on,
        enforcer=enforcer, constraint_check=check, predictors=predictors, specs=specs,
        weights=weights,
    )


# --------------------------------------------------------------------------- small checks


def as_list(value: Any, param: str) -> list[str]:
    """A column name or a list of names as a list; None as ``[]`` (see
    :func:`synthguard._params.column_list`)."""
    return column_list(value, param)


def check_count(value: Any, param: str, allow_none: bool = False) -> int | None:
    """``value`` as a positive int (or None when ``allow_none``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < 1:
        raise ParameterError(f"parameter '{param}': expected a positive integer")
    return int(value)


def _check_known(names: list[str], schema: Schema, param: str) -> None:
    unknown = [c for c in names if c not in schema]
    if unknown:
        raise ParameterError(
            f"parameter '{param}' names columns that are not in the data: "
            f"{', '.join(unknown)}; check the spelling"
        )


_ORDER_RULES = {"auto": "nmi", "importance": "importance"}


def _order_rule(value: Any, schema: Schema) -> str | None:
    """``visit_sequence="auto"`` or ``"importance"`` (or ``["auto"]`` from the command line's
    ``--visit auto``): the rule choosing the order, unless the data have a column of that
    name; None for a given sequence."""
    given = [value] if isinstance(value, str) else value
    if (isinstance(given, list | tuple) and len(given) == 1 and given[0] in _ORDER_RULES
            and given[0] not in schema):
        return _ORDER_RULES[given[0]]
    return None


def _is_auto(value: Any, schema: Schema) -> bool:
    """Whether the visit sequence is chosen by a rule (``"auto"``, ``"importance"``)."""
    return _order_rule(value, schema) is not None


def _override_kind(spec: Any) -> Kind | None:
    if isinstance(spec, ColumnSchema):
        return spec.kind
    if isinstance(spec, Mapping):
        spec = spec.get("kind")
    try:
        return Kind(str(spec).lower()) if spec is not None else None
    except ValueError:
        return None


def _text_overrides(overrides: Any) -> list[str]:
    """Columns the schema overrides declare categorical (text allowed in them)."""
    if isinstance(overrides, Schema):
        return [c for c in overrides if overrides[c].is_categorical]
    return [
        c for c, spec in dict(overrides or {}).items()
        if (k := _override_kind(spec)) is not None and k.is_categorical
    ]


def _declared_identifiers(overrides: Any, schema: Schema) -> set[str]:
    """Columns the user's schema overrides declare to be identifiers."""
    if overrides is None:
        return set()
    names = overrides if isinstance(overrides, Schema) else dict(overrides)
    return {c for c in names if c in schema and schema[c].identifier}


def method_label(method: SynthesisMethod) -> str:
    """A method's registered name, or its class name."""
    return method.name or type(method).__name__


# --------------------------------------------------------------------------- columns' roles


def drop_columns(
    data: pd.DataFrame, drop: Any, overrides: Any, used: Mapping[str, Any]
) -> tuple[pd.DataFrame, Any]:
    """``data`` without the ``drop`` columns, and the schema overrides of the others;
    ``used`` maps the parameters that must not name a dropped column to their values."""
    names = as_list(drop, "drop")
    if not names:
        return data, overrides
    if not isinstance(data, pd.DataFrame):
        return data, overrides  # validate_frame says what is wrong
    unknown = [c for c in names if c not in data.columns]
    if unknown:
        raise ParameterError(
            f"parameter 'drop' names columns that are not in the data: "
            f"{', '.join(unknown)}; check the spelling"
        )
    for param, value in used.items():
        both = [c for c in as_list(value, param) if c in names]
        if both:
            raise ParameterError(
                f"columns both dropped and in '{param}': {', '.join(both)}; "
                f"remove them from one of the two"
            )
    if isinstance(overrides, Schema):
        overrides = overrides.subset([c for c in overrides if c not in names])
    elif overrides is not None:
        overrides = {c: v for c, v in dict(overrides).items() if c not in names}
    return data.drop(columns=names), overrides


def resolve_visit(
    visit_sequence: Any,
    methods: Mapping[str, Any] | None,
    data: pd.DataFrame,
    schema: Schema,
    overrides: Any,
    keep: list[str],
    strata: list[str],
) -> tuple[list[str], VisitOrder | None]:
    """The visit sequence: given, or every column not kept, a stratum or declared an
    identifier, in the data's order or (``"auto"``) in the order proposed for utility
    (:func:`~synthguard.synthesis.visit_order.propose_visit_sequence`, also returned)."""
    auto = _is_auto(visit_sequence, schema)
    if visit_sequence is not None and not auto:
        visit = as_list(visit_sequence, "visit_sequence")
        _check_known(visit, schema, "visit_sequence")
        dup = sorted({c for c in visit if visit.count(c) > 1})
        if dup:
            raise ParameterError(
                f"parameter 'visit_sequence' lists columns more than once: {', '.join(dup)}"
            )
        return visit, None
    declared = _declared_identifiers(overrides, schema)
    visit = [
        c for c in data.columns if c not in keep and c not in strata and c not in declared
    ]
    if not auto:
        return visit, None
    after = {}
    for c, spec in dict(methods or {}).items():
        try:
            after[c] = method_sources(make_method(spec))
        except (MethodError, TypeError):
            after[c] = []  # resolve_methods reports a bad method
    order = propose_visit_sequence(data, visit, fixed=keep + strata, after=after,
                                   rule=_order_rule(visit_sequence, schema) or "nmi")
    return list(order.order), order


def check_roles(visit: list[str], keep: list[str], strata: list[str], n_out: int | None) -> None:
    """A column is visited, kept or a stratum, not two of these; something is visited; ``n``
    only in full synthesis."""
    both = [c for c in visit if c in keep]
    if both:
        raise ParameterError(
            f"columns both kept and synthesized: {', '.join(both)}; remove them from "
            f"'keep' or from 'visit_sequence'"
        )
    both = [c for c in visit if c in strata]
    if both:
        raise ParameterError(
            f"columns both strata and synthesized: {', '.join(both)}; a stratum column "
            f"is not synthesized, remove it from 'visit_sequence'"
        )
    if not visit:
        raise ParameterError(
            "nothing to synthesize: every column is kept or a stratum; "
            "shorten 'keep' or give a 'visit_sequence'"
        )
    if n_out is not None and keep:
        raise ParameterError(
            "parameter 'n' applies to full synthesis only; partial synthesis (keep=...) "
            "keeps the confidential rows, so drop 'n' or 'keep'"
        )


def refuse_identifiers(data: pd.DataFrame, schema: Schema, used: list[str]) -> None:
    """Raise one :class:`DataError` naming every identifier that would be released."""
    problems = []
    for c in dict.fromkeys(used):
        if not schema[c].identifier:
            continue
        reason = identifier_reason(c, data[c]) or "it is declared an identifier"
        kind = schema[c].kind.value
        problems.append(
            f"column '{c}' looks like an identifier ({reason}); identifiers must not be "
            f"synthesized, released or used as predictors. Drop it with drop=['{c}'] "
            f"(command line: --drop {c}); if it is a household id, synthesize households "
            f"with household='{c}' (command line: --household {c}); if it is not an "
            f"identifier, declare its "
            f"kind in the schema (schema={{'{c}': '{kind}'}}; command line: "
            f"--schema {c}={kind})"
        )
    if problems:
        raise DataError("the data hold identifiers", problems)


def check_levels(data: pd.DataFrame, schema: Schema, visit: list[str]) -> None:
    """Single-level categoricals cannot be synthesized."""
    problems = []
    for c in visit:
        if schema[c].is_categorical:
            s = data[c]
            n_obs = s.nunique(dropna=True) + (1 if s.isna().any() else 0)
            if n_obs < 2:
                problems.append(
                    f"column '{c}' takes a single level, so there is nothing to synthesize; "
                    f"keep it with keep=[...] or drop it"
                )
    if problems:
        raise DataError("data cannot be synthesized as asked", problems)


# --------------------------------------------------------------------------- record counts


def _minimum(value: Any, param: str, n_synthesized: int) -> int:
    """``value``, or synthpop's ``minstratumsize`` default 10 + 10 x synthesized columns."""
    if value is None:
        return 10 + 10 * n_synthesized
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ParameterError(f"parameter '{param}': expected a non-negative integer or None")
    return int(value)


def check_min_rows(min_rows: Any, n_rows: int, n_synthesized: int) -> None:
    """Refuse data smaller than ``min_rows`` (synthpop's ``minstratumsize`` rule)."""
    minimum = _minimum(min_rows, "min_rows", n_synthesized)
    if n_rows < minimum:
        raise DataError(
            f"the data hold fewer records than the {minimum} needed to synthesize "
            f"{n_synthesized} columns (10 + 10 x synthesized columns, as synthpop's "
            f"minstratumsize); models fit on so few records copy them. Synthesize fewer "
            f"columns, use more records, or pass min_rows=0 (command line: --min-rows 0) "
            f"to allow it knowingly"
        )


def check_stratum_sizes(
    min_stratum_size: Any, row_blocks: list[np.ndarray], strata: list[str], n_synthesized: int
) -> None:
    """Refuse strata smaller than ``min_stratum_size`` (synthpop's ``minstratumsize``)."""
    minimum = _minimum(min_stratum_size, "min_stratum_size", n_synthesized)
    sizes = np.array([len(r) for r in row_blocks])
    small = int(np.sum(sizes < minimum))
    if small:
        raise ParameterError(
            f"strata {', '.join(repr(c) for c in strata)}: {small} of {len(sizes)} strata "
            f"hold fewer than {minimum} records (10 + 10 x {n_synthesized} synthesized "
            f"columns, as synthpop's minstratumsize); models fit on so few records copy "
            f"them. Use coarser strata, or pass min_stratum_size=0 to allow them"
        )


# --------------------------------------------------------------------------- constraints


def resolve_constraints(
    constraints: Any,
    allow_violations: Any,
    max_redraws: int,
    data: pd.DataFrame,
    schema: Schema,
    visit: list[str],
    fixed: list[str],
) -> tuple[ConstraintEnforcer | None, pd.DataFrame | None]:
    """Parse the constraints, refuse those the confidential data break (unless
    ``allow_violations``) and group them by the column that completes them. Returns the
    enforcer and the confidential data's check (None without constraints)."""
    parsed = parse_constraints(constraints, list(data.columns))
    if not isinstance(allow_violations, bool | np.bool_):
        raise ParameterError("parameter 'allow_violations': expected True or False")
    if not parsed:
        return None, None
    enforcer = ConstraintEnforcer(parsed, schema.columns, visit, fixed, max_redraws=max_redraws)
    check = check_constraints(data, parsed)
    broken = check[check["violations"] > 0]
    if len(broken) and not allow_violations:
        raise DataError(
            "the confidential data break constraints; a rule the data break is not a rule",
            [
                f"constraint '{text}': {rounded_count(int(v))} records break it; fix "
                f"the data or the constraint, or pass allow_violations=True (command "
                f"line: --allow-violations) to accept it knowingly"
                for text, v in broken["violations"].items()
            ],
        )
    return enforcer, check


# --------------------------------------------------------------------------- models


def resolve_predictors(
    pm: Any, visit: list[str], keep: list[str], strata: list[str]
) -> dict[str, list[str]]:
    """The predictor matrix as ``target -> predictors``: given (a dict or synthpop's 0/1
    ``predictor.matrix``) or, by default, every column kept or visited earlier."""
    given: dict[str, list[str]] = {}
    if isinstance(pm, pd.DataFrame):
        for t in pm.index:
            if t not in visit:
                raise ParameterError(
                    f"parameter 'predictor_matrix': row '{t}' is not a synthesized column"
                )
            row = pm.loc[t]
            given[str(t)] = [str(c) for c in pm.columns if c != t and bool(row[c])]
    elif pm is not None:
        if not isinstance(pm, Mapping):
            raise ParameterError(
                "parameter 'predictor_matrix': expected a dict target -> list of predictors "
                "or a 0/1 DataFrame with targets as rows"
            )
        for t, preds in pm.items():
            if t not in visit:
                raise ParameterError(
                    f"parameter 'predictor_matrix': target '{t}' is not a synthesized column"
                )
            given[t] = as_list(preds, f"predictor_matrix['{t}']")
    out: dict[str, list[str]] = {}
    for i, t in enumerate(visit):
        allowed = keep + visit[:i]
        if t in given:
            bad = [p for p in given[t] if p not in allowed and p not in strata]
            if bad:
                raise ParameterError(
                    f"parameter 'predictor_matrix': predictors of '{t}' must be kept or "
                    f"visited before it; not so for: {', '.join(bad)}"
                )
            out[t] = list(dict.fromkeys(given[t]))
        else:
            out[t] = list(allowed)
    return out

def resolve_methods(
    methods: Mapping[str, Any] | None,
    method_params: Mapping[str, Mapping[str, Any]] | None,
    default_method: str,
    visit: list[str],
    predictors: dict[str, list[str]],
    schema: Schema,
) -> list[ColumnSpec]:
    """Each visited column's method (a name, class or instance; ``"sample"`` for a first
    column without predictors, as synthpop does, else ``default_method``) and, for a numeric
    column with missing values, its missingness model."""
    given = dict(methods or {})
    params = dict(method_params or {})
    for param, d in (("methods", given), ("method_params", params)):
        bad = [c for c in d if c not in visit]
        if bad:
            raise ParameterError(
                f"parameter '{param}' names columns that are not synthesized: "
                f"{', '.join(map(str, bad))}; methods apply to visited columns only"
            )
    specs = []
    for i, c in enumerate(visit):
        spec = given.get(c)
        if spec is None:
            spec = "sample" if i == 0 and not predictors[c] else default_method
        kw = dict(params.get(c, {}))
        if isinstance(spec, SynthesisMethod) and kw:
            raise ParameterError(
                f"parameter 'method_params' for column '{c}': the method is given as an "
                f"instance; set its parameters on the instance instead"
            )
        try:
            method = make_method(spec, **kw)
        except MethodError as e:
            raise MethodError(f"column '{c}': {e}") from None
        except TypeError:
            raise ParameterError(
                f"parameter 'method_params' for column '{c}': the method does not accept "
                f"these parameters: {', '.join(sorted(kw))}"
            ) from None
        col = schema[c]
        need = "categorical" if col.is_categorical else "numeric"
        if need not in type(method).target_kinds:
            raise MethodError(
                f"column '{c}' is {col.kind.value} but method '{method_label(method)}' "
                f"synthesizes {', '.join(sorted(type(method).target_kinds))} targets only; "
                f"choose another method for it"
            )
        indicator = None
        if col.is_numeric and col.has_missing and not reads_columns(method):
            indicator = indicator_method(method, c)
        specs.append(ColumnSpec(c, predictors[c], method, indicator))
    link_blocks({s.target: s.method for s in specs})  # catall/ipf: one block per method
    return keep_lookup_sources(specs)


def lookup_sources(method: SynthesisMethod) -> list[str]:
    """The columns a method looks its values up by in the data (``passive:of=`` without
    ``breaks``; known before fit), or ``[]``."""
    if not getattr(type(method), "derived", False):
        return []
    of = getattr(method, "of", None)
    if of is None or getattr(method, "breaks", None) is not None:
        return []
    return split_names(of, "of", "passive")


def keep_lookup_sources(specs: list[ColumnSpec]) -> list[ColumnSpec]:
    """A column that a ``passive:of=`` lookup reads must be drawn at values the data hold,
    or the derived column has no value for it: CART's default ``adjust="auto"`` (which moves
    donors off the data's values) is turned off for such a column (on a copy of its method),
    an adjustment or smoothing the user asked for on it is refused, and the column is marked
    ``exact`` so that no safeguard smooths its draws either."""
    readers: dict[str, str] = {}
    for s in specs:
        for c in lookup_sources(s.method):
            readers.setdefault(c, s.target)
    out = []
    for s in specs:
        reader = readers.get(s.target)
        method = s.method
        if reader is not None:
            adjust = getattr(method, "adjust", None)
            smoothing = getattr(method, "smoothing", None)
            if adjust not in (None, False, "", "none", "false", "auto") or \
                    smoothing in (True, "density"):
                option = "smoothing" if smoothing in (True, "density") else "adjust"
                raise MethodError(
                    f"column '{s.target}': option '{option}' draws values the data do not "
                    f"hold, but passive column '{reader}' looks '{s.target}' up in the data "
                    f"(of={s.target}); drop '{option}' for '{s.target}', or give '{reader}' a "
                    f"formula (passive:formula=...) instead of a lookup"
                )
            if adjust == "auto":
                method = copy.copy(method)
                method.adjust = False  # type: ignore[attr-defined]
            s = dataclasses.replace(s, method=method, exact=True)
        out.append(s)
    return out

def indicator_method(method: SynthesisMethod, column: str) -> SynthesisMethod:
    """Model of the missingness indicator: the column's method if it handles categorical
    targets (cart, sample), else logistic regression (synthpop's choice)."""
    cls = type(method)
    if "categorical" in cls.target_kinds:
        try:
            return cls()
        except TypeError:
            return copy.deepcopy(method)
    try:
        return get_method("logreg")()
    except MethodError:
        try:
            return get_method("cart")()
        except MethodError:
            raise MethodError(
                f"column '{column}' has missing values and its method cannot model them; "
                f"register 'logreg' or 'cart', or choose a method such as 'cart'"
            ) from None

def resolve_weights(w: Any, data: pd.DataFrame, specs: list[ColumnSpec]) -> np.ndarray | None:
    """Likelihood weights, one per record (given or read from a column), checked finite and
    non-negative; every method of a weighted fit must take weights."""
    if w is None:
        return None
    if isinstance(w, str):
        if w not in data.columns:
            raise ParameterError(
                f"parameter 'weights': column '{w}' is not in the data"
            )
        values = pd.to_numeric(data[w], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            values = np.asarray(w, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(
                "parameter 'weights': expected numbers, one per record"
            ) from None
    if values.shape != (len(data),):
        raise ParameterError(
            f"parameter 'weights': expected one weight per record ({len(data)}), "
            f"got shape {values.shape}"
        )
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ParameterError(
            "parameter 'weights': weights must be finite and non-negative"
        )
    if np.allclose(values, 1.0):
        return values
    for s in specs:
        for meth in (s.method, s.indicator):
            if meth is not None and not type(meth).supports_weights:
                raise MethodError(
                    f"column '{s.target}': method '{method_label(meth)}' cannot use "
                    f"likelihood weights; choose a weighted method (e.g. 'bayes_norm') "
                    f"for it, or drop the weights"
                )
    return values

# ----------------------------------------------------------------- sample


def attach_transforms(
    specs: list[ColumnSpec],
    transforms: Mapping[str, str] | None,
    noise: Mapping[str, Any] | None,
    data: pd.DataFrame,
    schema: Schema,
) -> None:
    """Fit each column's chosen transform on the confidential column and set its kernel
    noise, on the specs in place (:mod:`~synthguard.synthesis.transforms`,
    :mod:`~synthguard.synthesis.noise`)."""
    visit = [sp.target for sp in specs]
    numeric = {c: schema[c].is_numeric for c in visit}
    chosen = resolve_transforms(transforms, numeric, visit)
    noises = resolve_noise(noise, numeric, visit)
    for sp in specs:
        if sp.target in chosen:
            sp.transform = fit_transform(
                sp.target, chosen[sp.target], to_working(data[sp.target], schema[sp.target])
            )
        step = noises.get(sp.target)
        if step is not None and hasattr(step, "fit"):  # reads the confidential column
            step = step.fit(to_working(data[sp.target], schema[sp.target]))
        sp.noise = step

