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
independent blocks: :func:`fit_block` and :func:`draw_block` work on one block's arrays, so
an engine can map them over strata in parallel.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, fit_generator, resolve_seed, spawn
from synthguard.data.constraints import check_constraints, parse_constraints, rounded_count
from synthguard.data.schema import (
    ColumnSchema,
    Kind,
    Schema,
    identifier_reason,
    infer_schema,
    validate_frame,
)
from synthguard.errors import (
    DataError,
    MethodError,
    NotFittedError,
    ParameterError,
    SynthguardError,
)
from synthguard.synthesis.diagnostics import ConfidentialFingerprint, leaf_summary
from synthguard.synthesis.encoding import (
    codes_from_target,
    design_kinds,
    design_matrix,
    from_working,
    n_target_levels,
    postprocess_numeric,
    target_codes,
    to_working,
)
from synthguard.synthesis.enforce import (
    DEFAULT_MAX_REDRAWS,
    ConstraintEnforcer,
    ConstraintReport,
    level_weights,
)
from synthguard.synthesis.methods.base import SynthesisMethod, fit_method
from synthguard.synthesis.methods.columns import predictor_frame, reads_columns
from synthguard.synthesis.methods.loglinear import link_blocks
from synthguard.synthesis.noise import KernelNoise, resolve_noise
from synthguard.synthesis.rare_values import RareGuard, declared_levels
from synthguard.synthesis.registry import get_method, make_method
from synthguard.synthesis.result import SyntheticData
from synthguard.synthesis.safeguards import (
    MAX_REDRAW_ROUNDS,
    SafeguardReport,
    UniqueGuard,
    apply_tail_coding,
    check_rare_values,
    check_safeguard_params,
    tail_thresholds,
)
from synthguard.synthesis.start import resolve_start
from synthguard.synthesis.transforms import ColumnTransform, fit_transform, resolve_transforms
from synthguard.synthesis.visit_order import method_sources, propose_visit_sequence

__all__ = ["Synthesizer", "draw_block", "fit_block", "synthesize"]


# --------------------------------------------------------------------------- per-block models


class _Constant(SynthesisMethod):
    """A target that takes one value in the fitting data (e.g. within a stratum): draw it."""

    name = "constant"
    supports_weights = True

    def __init__(self, *, value: float = 0.0) -> None:
        self.value = value

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> _Constant:
        self.value = y[0]
        self.fitted_ = True
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.full(len(X), self.value)


@dataclass
class _Part:
    """One fitted model: the method and the design columns it uses (constant columns dropped)."""

    method: SynthesisMethod
    mask: np.ndarray | None

    def draw(self, X: Any, rng: np.random.Generator) -> np.ndarray:
        Xf = X if self.mask is None else X[:, self.mask]
        return np.asarray(self.method.draw(Xf, rng))


@dataclass
class _ColumnModel:
    target: str
    predictors: list[str]
    value: _Part | None
    indicator: _Part | None = None  # numeric targets with missing values
    transform: ColumnTransform | None = None  # applied to the target before fit
    noise: KernelNoise | None = None  # added to every draw


@dataclass
class BlockModel:
    """The fitted models of one block (stratum) of records."""

    rows: np.ndarray
    stratum: dict[str, Any]
    models: list[_ColumnModel] = field(default_factory=list)


@dataclass
class _ColumnSpec:
    """What the synthesizer does with one visited column."""

    target: str
    predictors: list[str]
    method: SynthesisMethod
    indicator: SynthesisMethod | None
    transform: ColumnTransform | None = None
    noise: KernelNoise | None = None


def _design_dtype(*methods: SynthesisMethod | None) -> Any:
    """float32 when every method of the column declares ``design_dtype = float32``."""
    kinds = {np.dtype(getattr(type(m), "design_dtype", np.float64)) for m in methods if m is not None}
    return np.float32 if kinds == {np.dtype(np.float32)} else np.float64


def _layout(*methods: SynthesisMethod | None, fitted: bool = False) -> str:
    """``"codes"`` when every method of the column takes a design of level codes.

    Before fitting, each method's class says (``design_layout``); a fitted method says which
    design it was fitted on (``layout_``; a method fitted before codes existed, e.g. loaded
    from an older file, has none: dummies). A constant part ignores its design.
    """
    kinds = set()
    for m in methods:
        if m is None or isinstance(m, _Constant):
            continue
        if fitted:
            kinds.add(getattr(m, "layout_", "dummies"))
        else:
            kinds.add(getattr(type(m), "design_layout", "dummies"))
    return "codes" if kinds == {"codes"} else "dummies"


def _design(
    arrays: Mapping[str, np.ndarray],
    columns: Sequence[str],
    schema: Mapping[str, ColumnSchema],
    n: int,
    rows: np.ndarray | None = None,
    dtype: Any = np.float64,
    layout: str = "dummies",
) -> np.ndarray:
    if not columns:
        return np.empty((n, 0), dtype=dtype)
    return design_matrix(arrays, columns, schema, rows, dtype=dtype, layout=layout)


def _fit_part(
    proto: SynthesisMethod,
    X: Any,
    y: np.ndarray,
    weights: np.ndarray | None,
    column: str,
    rng: np.random.Generator | None = None,
    kinds: list[str] | None = None,
) -> _Part | None:
    if len(y) == 0:
        return None
    if np.all(y == y[0]):
        return _Part(_Constant().fit(X, y), None)
    mask: np.ndarray | None = None
    if X.shape[1] and not reads_columns(proto):
        varies = np.ptp(X, axis=0) > 0
        if not varies.all():
            mask = varies
            X = X[:, mask]
            if kinds is not None:
                kinds = [k for k, v in zip(kinds, varies, strict=True) if v]
    method = copy.deepcopy(proto)
    try:
        if kinds is not None:
            fit_method(method, X, y, weights, rng=rng, kinds=kinds)
        else:
            fit_method(method, X, y, weights, rng=rng)
    except SynthguardError:
        raise
    except Exception as e:  # a model that cannot be fit: say where, not what the data hold
        raise MethodError(
            f"column '{column}': method '{method.name or type(method).__name__}' failed to fit "
            f"({type(e).__name__}); try another method for this column, e.g. 'cart' or 'sample'"
        ) from e
    return _Part(method, mask)


def _select_rows(X: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``X[keep]`` for a boolean ``keep``; a float32 (tree) design stays in Fortran order.

    ``X[keep]`` is C-ordered, and a tree learner would then make a second, Fortran-ordered
    copy; copying column by column keeps the order with one column's temporary. (Float64
    designs keep ``X[keep]``, so other methods see exactly the arrays they always did.)
    """
    if X.dtype != np.float32 or not X.flags.f_contiguous:
        return X[keep]
    out = np.empty((int(np.count_nonzero(keep)), X.shape[1]), dtype=X.dtype, order="F")
    for j in range(X.shape[1]):
        out[:, j] = X[:, j][keep]
    return out


def _fit_column(
    arrays: Mapping[str, np.ndarray],
    rows: np.ndarray | None,
    n: int,
    spec: _ColumnSpec,
    schema: Mapping[str, ColumnSchema],
    w_block: np.ndarray | None,
    rng: np.random.Generator | None = None,
) -> _ColumnModel:
    """Fit one column's model(s) on the confidential records ``rows`` (None: all); the
    value and missingness models get their own children of ``rng`` (None: fresh randomness)."""
    r_value, r_missing = (None, None) if rng is None else spawn(rng, 2)
    col = schema[spec.target]
    a = arrays[spec.target] if rows is None else arrays[spec.target][rows]
    if reads_columns(spec.method):  # passive, nested: predictors by name, missing values kept
        extra = [c for c in getattr(spec.method, "fit_columns", ())  # catall/ipf: the block
                 if c not in spec.predictors and c != spec.target]
        frame = predictor_frame(arrays, spec.predictors + extra, schema, n, rows)
        y = target_codes(a, col) if col.is_categorical else a
        return _ColumnModel(
            spec.target, spec.predictors,
            _fit_part(spec.method, frame, y, w_block, spec.target, r_value),
        )
    dtype = _design_dtype(spec.method, spec.indicator)
    layout = _layout(spec.method, spec.indicator)
    X = _design(arrays, spec.predictors, schema, n, rows, dtype, layout)
    kinds = design_kinds(spec.predictors, schema) if layout == "codes" else None
    if col.is_categorical:
        part = _fit_part(
            spec.method, X, target_codes(a, col), w_block, spec.target, r_value, kinds
        )
        return _ColumnModel(spec.target, spec.predictors, part)
    miss = np.isnan(a)
    indicator = None
    if miss.any():
        if spec.indicator is not None:
            indicator = _fit_part(
                spec.indicator, X, miss.astype(np.int64), w_block, spec.target, r_missing,
                kinds,
            )
        present = ~miss
        X = _select_rows(X, present)
        a = a[present]
        w_block = None if w_block is None else w_block[present]
    if spec.transform is not None:  # the model sees the transformed values only
        a = spec.transform.transform(a)
    value = _fit_part(spec.method, X, a, w_block, spec.target, r_value, kinds)
    return _ColumnModel(spec.target, spec.predictors, value, indicator, spec.transform,
                        spec.noise)


def fit_block(
    arrays: Mapping[str, np.ndarray],
    rows: np.ndarray | None,
    specs: Sequence[_ColumnSpec],
    schema: Mapping[str, ColumnSchema],
    weights: np.ndarray | None,
    stratum: dict[str, Any] | None = None,
    *,
    n_jobs: int = 1,
    rng: np.random.Generator | None = None,
) -> BlockModel:
    """Fit every column's model on the confidential records ``rows`` (one block; None: all).

    Every model is fit on confidential values only, so the columns' models are independent of
    each other: with ``n_jobs > 1`` they are fit in that many threads (tree building in
    scikit-learn releases the GIL), at the cost of one design matrix per thread in memory.
    Column ``j``'s model gets the ``j``-th child of ``rng`` (None: fresh randomness), so the
    fit does not depend on ``n_jobs``.
    """
    rngs: list[np.random.Generator | None] = (
        [None] * len(specs) if rng is None else list(spawn(rng, len(specs)))
    )
    n = len(next(iter(arrays.values()))) if rows is None else len(rows)
    all_rows = np.arange(n) if rows is None else rows
    block = BlockModel(rows=all_rows, stratum=dict(stratum or {}))
    w_block = weights if weights is None or rows is None else weights[rows]
    if n_jobs > 1 and len(specs) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            block.models = list(
                pool.map(
                    lambda sr: _fit_column(arrays, rows, n, sr[0], schema, w_block, sr[1]),
                    zip(specs, rngs),
                )
            )
    else:
        block.models = [
            _fit_column(arrays, rows, n, sp, schema, w_block, r) for sp, r in zip(specs, rngs)
        ]
    return block


#: Rows per chunk when the design of a leaf-drawing method is built piecewise (see draw_block).
_CHUNK_ROWS = 1 << 16


def _draws_from_leaves(method: SynthesisMethod) -> bool:
    """Whether ``method.draw(X, rng)`` is ``method.draw_from_leaves(method.leaf_index(X), rng)``
    with a row-by-row ``leaf_index`` (``cart``).

    A subclass that overrides ``draw`` but not ``draw_from_leaves`` may draw otherwise, so it
    is drawn through its ``draw``.
    """
    if not (
        callable(getattr(method, "leaf_index", None))
        and callable(getattr(method, "draw_from_leaves", None))
    ):
        return False
    mro = type(method).__mro__
    draw_owner = next(k for k in mro if "draw" in vars(k))
    leaves_owner = next(k for k in mro if "draw_from_leaves" in vars(k))
    return issubclass(leaves_owner, draw_owner)


def _draw_part(
    part: _Part,
    syn: Mapping[str, np.ndarray],
    predictors: Sequence[str],
    schema: Mapping[str, ColumnSchema],
    n: int,
    form: tuple[Any, str],
    rng: np.random.Generator,
    rows: np.ndarray | None,
    full: dict[str, np.ndarray],
    smooth: bool = False,
) -> np.ndarray:
    """Draw ``part`` for the records ``rows`` (None: all ``n``) from the predictors in ``syn``.

    A leaf-drawing method (:func:`_draws_from_leaves`) gets its design in chunks of
    ``_CHUNK_ROWS`` rows, each dropped down the tree and freed, and then one draw from the
    leaves: the same values and random numbers as one ``draw`` on the whole design, without
    holding that design. Other methods get the whole design, built once per column and kept
    in ``full`` for the column's other part.
    """
    method = part.method
    if reads_columns(method):
        m = n if rows is None else len(rows)
        return part.draw(predictor_frame(syn, predictors, schema, m, rows), rng)
    if _draws_from_leaves(method):
        m = n if rows is None else len(rows)
        leaf = np.empty(m, dtype=np.int64)
        for lo in range(0, m, _CHUNK_ROWS):
            hi = min(lo + _CHUNK_ROWS, m)
            r = np.arange(lo, hi) if rows is None else rows[lo:hi]
            Xc = _design(syn, predictors, schema, hi - lo, r, *form)
            if part.mask is not None:
                Xc = Xc[:, part.mask]
            leaf[lo:hi] = method.leaf_index(Xc)  # type: ignore[attr-defined]
        if smooth and callable(getattr(method, "smooth_values", None)) and not getattr(
            method, "categorical_", True
        ):
            return np.asarray(method.draw_from_leaves(leaf, rng, smooth=True))  # type: ignore[attr-defined]
        return np.asarray(method.draw_from_leaves(leaf, rng))  # type: ignore[attr-defined]
    if "X" not in full:
        full["X"] = _design(syn, predictors, schema, n, None, *form)
    X = full["X"]
    return part.draw(X if rows is None else X[rows], rng)


def draw_block(
    block: BlockModel,
    n: int,
    fixed: Mapping[str, np.ndarray],
    schema: Mapping[str, ColumnSchema],
    rng: np.random.Generator,
    *,
    smooth: bool = False,
    enforcer: ConstraintEnforcer | None = None,
    enforcer_tally: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Draw ``n`` synthetic records of one block in working form.

    With ``enforcer``, each drawn column is checked against the constraints it completes
    and records breaking one are redrawn, then forced (:mod:`synthguard.synthesis.enforce`);
    ``enforcer_tally`` accumulates the counts.

    ``smooth=True`` kernel-smooths the numeric draws of leaf methods that can
    (``cart``'s ``smooth_values``), whatever their ``smoothing`` setting.

    ``fixed`` holds the arrays that are not synthesized (kept columns of these records, strata
    values); every other column is drawn in visit order from models fit on confidential data,
    with predictors taken from the values synthesized so far. Designs of leaf-drawing methods
    (``cart``) are built in row chunks, so drawing never holds a whole design for them.
    """
    syn: dict[str, np.ndarray] = dict(fixed)
    crng: np.random.Generator | None = None
    for cm in block.models:
        if cm.target in fixed:  # a start column: given, not drawn
            continue
        syn[cm.target] = _draw_column(cm, syn, schema, n, rng, smooth)
        if enforcer is not None and cm.target in enforcer.by_target:
            if crng is None:  # redraws have their own stream: the first draw is unchanged
                (crng,) = spawn(rng, 1)
            enforcer.enforce(
                cm.target, syn, _ColumnRedraw(cm, syn, schema, smooth), crng,
                enforcer_tally if enforcer_tally is not None else enforcer.new_tally(),
            )
    return syn


def _draw_column(
    cm: _ColumnModel,
    syn: Mapping[str, np.ndarray],
    schema: Mapping[str, ColumnSchema],
    n: int,
    rng: np.random.Generator,
    smooth: bool = False,
) -> np.ndarray:
    """The working-form values of column ``cm.target`` drawn for ``n`` records from the
    predictors in ``syn``."""
    col = schema[cm.target]
    fitted = [p.method for p in (cm.value, cm.indicator) if p is not None]
    form = (_design_dtype(*fitted), _layout(*fitted, fitted=True))
    full: dict[str, np.ndarray] = {}  # the whole design, if a method needs it
    args = (syn, cm.predictors, schema, n, form, rng)

    if col.is_categorical:
        if cm.value is None:  # pragma: no cover - a block always has rows
            return np.full(n, -1, dtype=np.int64)
        y = _draw_part(cm.value, *args, None, full)
        k = n_target_levels(col)
        if y.shape != (n,) or (n and (np.min(y) < 0 or np.max(y) >= k)):
            raise MethodError(
                f"column '{cm.target}': method '{cm.value.method.name}' drew codes outside "
                f"0..{k - 1} or of the wrong length; a method must return one code per row"
            )
        return codes_from_target(y, col)
    if cm.indicator is not None:
        miss = _draw_part(cm.indicator, *args, None, full).astype(bool)
    elif cm.value is None:
        miss = np.ones(n, dtype=bool)
    else:
        miss = np.zeros(n, dtype=bool)
    present = ~miss
    drawn: np.ndarray | None = None
    if cm.value is not None:
        rows = None if present.all() else np.flatnonzero(present)
        drawn = _draw_part(cm.value, *args, rows, full, smooth)
        drawn = np.asarray(drawn, dtype=np.float64)
        if drawn.shape != (int(present.sum()),):
            raise MethodError(
                f"column '{cm.target}': method '{cm.value.method.name}' returned the wrong "
                f"number of values; a method must return one value per row"
            )
        transform = getattr(cm, "transform", None)
        if transform is not None:
            drawn = transform.inverse(drawn)
        noise = getattr(cm, "noise", None)
        if noise is not None:
            drawn = noise.apply(drawn, rng)
    full.clear()
    # allocated after the draw, so a large draw's temporaries and this array do not
    # coexist
    vals = np.full(n, np.nan)
    if drawn is not None:
        vals[present] = drawn
        del drawn
    return postprocess_numeric(vals, col)


def _rederive(
    out: dict[str, np.ndarray],
    idx: np.ndarray | None,
    tasks: list[tuple[BlockModel, int, np.random.Generator]],
    row_block: np.ndarray | None,
    schema: Mapping[str, ColumnSchema],
) -> None:
    """Recompute, in place, the derived (``passive``) columns of rows ``idx`` (None: all) from
    their sources, after tail coding or redraws changed the sources, so they stay exact."""
    for b, (block, _, _) in enumerate(tasks):
        derived = [cm for cm in block.models
                   if cm.value is not None and getattr(cm.value.method, "derived", False)]
        if not derived:
            continue
        if row_block is None:
            rows = idx
        else:
            where = row_block == b if idx is None else row_block[idx] == b
            rows = np.flatnonzero(where) if idx is None else idx[where]
        m = len(next(iter(out.values()))) if rows is None else len(rows)
        if m == 0:
            continue
        for cm in derived:
            col = schema[cm.target]
            assert cm.value is not None
            frame = predictor_frame(out, cm.predictors, schema, m, rows)
            y = np.asarray(cm.value.method.draw(frame, np.random.default_rng(0)))  # type: ignore[arg-type]
            y = codes_from_target(y, col) if col.is_categorical else postprocess_numeric(
                np.asarray(y, dtype=np.float64), col)
            if rows is None:
                out[cm.target][:] = y
            else:
                out[cm.target][rows] = y


class _ColumnRedraw:
    """One column's model of one block, for :class:`ConstraintEnforcer`: draws the column
    again for some records (predictors as synthesized) and gives a categorical model's level
    probabilities."""

    def __init__(
        self,
        cm: _ColumnModel,
        syn: Mapping[str, np.ndarray],
        schema: Mapping[str, ColumnSchema],
        smooth: bool = False,
    ) -> None:
        self.cm, self.syn, self.schema, self.smooth = cm, syn, schema, smooth

    def draw(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        sub = {p: self.syn[p][idx] for p in self.cm.predictors}
        return _draw_column(self.cm, sub, self.schema, len(idx), rng, self.smooth)

    def level_weights(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        cm, col = self.cm, self.schema[self.cm.target]
        k = n_target_levels(col)
        if cm.value is None:  # pragma: no cover - a block always has rows
            return np.ones((len(idx), k))
        part = cm.value
        X: Any
        if reads_columns(part.method):
            X = predictor_frame(self.syn, cm.predictors, self.schema, len(idx), idx)
        else:
            X = _design(self.syn, cm.predictors, self.schema, len(idx), idx,
                        _design_dtype(part.method), _layout(part.method, fitted=True))
            if part.mask is not None:
                X = X[:, part.mask]
        if isinstance(part.method, _Constant):
            out = np.zeros((len(idx), k))
            out[:, int(part.method.value)] = 1.0
            return out
        return level_weights(part.method, X, k, rng)


# --------------------------------------------------------------------------- helpers


def _as_list(value: Any, param: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        out = list(value)
    except TypeError:
        raise ParameterError(
            f"parameter '{param}': expected a column name or a list of column names"
        ) from None
    if not all(isinstance(c, str) for c in out):
        raise ParameterError(f"parameter '{param}': expected column names (text)")
    return out


def _is_auto(value: Any, schema: Schema) -> bool:
    """``visit_sequence="auto"`` (or ``["auto"]`` from the command line's ``--visit auto``),
    unless the data have a column named ``auto``."""
    given = [value] if isinstance(value, str) else value
    return isinstance(given, list | tuple) and list(given) == ["auto"] and "auto" not in schema


def _check_count(value: Any, param: str, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < 1:
        raise ParameterError(f"parameter '{param}': expected a positive integer")
    return int(value)


def _allocate(sizes: np.ndarray, n: int) -> np.ndarray:
    """Split ``n`` rows over strata proportionally to ``sizes`` (largest remainder, Hamilton)."""
    quota = n * sizes / sizes.sum()
    base = np.floor(quota).astype(np.int64)
    rest = n - int(base.sum())
    if rest:
        order = np.argsort(-(quota - base), kind="stable")
        base[order[:rest]] += 1
    return base


def _override_kind(spec: Any) -> Kind | None:
    if isinstance(spec, ColumnSchema):
        return spec.kind
    if isinstance(spec, Mapping):
        spec = spec.get("kind")
    try:
        return Kind(str(spec).lower()) if spec is not None else None
    except ValueError:
        return None


def _declared_identifiers(overrides: Any, schema: Schema) -> set[str]:
    """Columns the user's schema overrides declare to be identifiers."""
    if overrides is None:
        return set()
    names = overrides if isinstance(overrides, Schema) else dict(overrides)
    return {c for c in names if c in schema and schema[c].identifier}


def _method_label(method: SynthesisMethod) -> str:
    return method.name or type(method).__name__


# --------------------------------------------------------------------------- the synthesizer


class Synthesizer:
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
        Columns copied unchanged (partial synthesis); they act as predictors.
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
        ``{"income": {"min_leaf": 10}}``).
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
        :data:`~synthguard.synthesis.safeguards.MAX_REDRAW_ROUNDS` redraws are removed),
        remove it (synthpop's ``sdc(rm.replicated.uniques = TRUE)``), or keep it, only by
        saying so. See :mod:`synthguard.synthesis.safeguards`.
    uniques_on : str or list of str, optional
        Columns on which a record is also judged unique and replicated (the intruder's keys,
        as synthpop's ``replicated.uniques(keys = ...)``): a synthetic record whose keys
        equal those of a record unique on them is fixed as well, which makes repU on these
        keys 0. Records replicating a unique on every released column are fixed either way.
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
        provenance.
    max_redraws : int, default 10
        Redraws of a record breaking a constraint before it is forced inside
        (:data:`~synthguard.synthesis.enforce.DEFAULT_MAX_REDRAWS`).
    allow_violations : bool, default False
        Accept constraints the confidential data break. By default :meth:`fit` refuses them
        with a :class:`~synthguard.errors.DataError` naming each and how many records break
        it: a rule the data break is not a rule.
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
        extremes: int | None = 5,
        rare_values: int | None = 5,
        public_levels: Mapping[str, Sequence[Any]] | None = None,
        min_rows: int | None = None,
        constraints: Any = None,
        transforms: Mapping[str, str] | None = None,
        noise: Mapping[str, Any] | None = None,
        max_redraws: int = DEFAULT_MAX_REDRAWS,
        allow_violations: bool = False,
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
        self.extremes = extremes
        self.rare_values = rare_values
        self.public_levels = public_levels
        self.min_rows = min_rows
        self.constraints = constraints
        self.transforms = transforms
        self.noise = noise
        self.max_redraws = max_redraws
        self.allow_violations = allow_violations
        self.random_state = random_state

    # ----------------------------------------------------------------- fit

    def fit(self, data: pd.DataFrame) -> Synthesizer:
        """Validate ``data`` and the parameters, and fit every column's model on ``data``.

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
        data, overrides = self._drop_columns(data)
        if isinstance(overrides, Schema):
            text_ok = [c for c in overrides if overrides[c].is_categorical]
        else:
            text_ok = [
                c for c, spec in dict(overrides or {}).items()
                if (k := _override_kind(spec)) is not None and k.is_categorical
            ]
        validate_frame(data, name="data", text_overrides=text_ok)
        _check_count(self.m, "m")
        n_out = _check_count(self.n, "n", allow_none=True)
        policy, k_tail = check_safeguard_params(self.replicated_uniques, self.extremes)
        schema = infer_schema(data, overrides)
        schema.validate(data)
        columns = list(data.columns)

        keep = _as_list(self.keep, "keep")
        strata = _as_list(self.strata, "strata")
        for param, names in (("keep", keep), ("strata", strata)):
            unknown = [c for c in names if c not in schema]
            if unknown:
                raise ParameterError(
                    f"parameter '{param}' names columns that are not in the data: "
                    f"{', '.join(unknown)}; check the spelling"
                )
        auto = _is_auto(self.visit_sequence, schema)
        self.visit_order_ = None  # the chosen order and its scores, with visit_sequence="auto"
        if self.visit_sequence is None or auto:
            declared = _declared_identifiers(overrides, schema)
            visit = [
                c for c in columns if c not in keep and c not in strata and c not in declared
            ]
            if auto:  # chosen for utility, shown in visit_order_ (synthesis/visit_order.py)
                after = {}
                for c, spec in dict(self.methods or {}).items():
                    try:
                        after[c] = method_sources(make_method(spec))
                    except (MethodError, TypeError):
                        after[c] = []  # _resolve_methods reports a bad method
                self.visit_order_ = propose_visit_sequence(
                    data, visit, fixed=keep + strata, after=after)
                visit = list(self.visit_order_.order)
        else:
            visit = _as_list(self.visit_sequence, "visit_sequence")
            unknown = [c for c in visit if c not in schema]
            if unknown:
                raise ParameterError(
                    f"parameter 'visit_sequence' names columns that are not in the data: "
                    f"{', '.join(unknown)}; check the spelling"
                )
            dup = sorted({c for c in visit if visit.count(c) > 1})
            if dup:
                raise ParameterError(
                    f"parameter 'visit_sequence' lists columns more than once: {', '.join(dup)}"
                )
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

        self._refuse_identifiers(data, schema, keep + strata + visit)
        self._check_min_rows(len(data), len(visit))
        uniques_on = _as_list(self.uniques_on, "uniques_on")
        unknown = [c for c in uniques_on if c not in keep + strata + visit]
        if unknown:
            raise ParameterError(
                f"parameter 'uniques_on' names columns that are not released: "
                f"{', '.join(unknown)}; name synthesized, kept or strata columns"
            )

        # single-level categoricals cannot be synthesized
        problems = []
        for c in visit:
            col = schema[c]
            if col.is_categorical:
                s = data[c]
                n_obs = s.nunique(dropna=True) + (1 if s.isna().any() else 0)
                if n_obs < 2:
                    problems.append(
                        f"column '{c}' takes a single level, so there is nothing to synthesize; "
                        f"keep it with keep=[...] or drop it"
                    )
        if problems:
            raise DataError("data cannot be synthesized as asked", problems)

        enforcer = self._resolve_constraints(data, schema, visit, keep + strata)
        predictors = self._resolve_predictors(visit, keep, strata)
        specs = self._resolve_methods(visit, predictors, schema)
        chosen = resolve_transforms(
            self.transforms, {c: schema[c].is_numeric for c in visit}, visit
        )
        noises = resolve_noise(self.noise, {c: schema[c].is_numeric for c in visit}, visit)
        for sp in specs:
            if sp.target in chosen:
                sp.transform = fit_transform(
                    sp.target, chosen[sp.target], to_working(data[sp.target], schema[sp.target])
                )
            sp.noise = noises.get(sp.target)
        weights = self._resolve_weights(data, specs)

        needed = list(dict.fromkeys(
            keep + strata + visit + [p for ps in predictors.values() for p in ps]
        ))
        arrays = {c: to_working(data[c], schema[c]) for c in needed}

        # strata -> blocks of rows
        if strata:
            keys = []
            for c in strata:
                codes, _ = pd.factorize(arrays[c], sort=True, use_na_sentinel=False)
                keys.append(np.asarray(codes, dtype=np.int64))
            stacked = np.column_stack(keys)
            _, inverse = np.unique(stacked, axis=0, return_inverse=True)
            inverse = np.asarray(inverse).ravel()
            order = np.argsort(inverse, kind="stable")
            bounds = np.flatnonzero(np.diff(inverse[order])) + 1
            row_blocks = np.split(order, bounds)
            self._check_stratum_sizes(row_blocks, strata, len(visit))
        else:
            row_blocks = [np.arange(len(data))]

        n_jobs = _check_count(self.n_jobs, "n_jobs")
        assert n_jobs is not None
        blocks = [
            BlockModel(rows=rows, stratum={c: arrays[c][rows[0]] for c in strata})
            for rows in row_blocks
        ]
        # every (stratum, column) model is fit on confidential data alone: independent tasks,
        # each with its own child of the fit generator (so the fit does not depend on n_jobs)
        tasks = [(b, sp) for b in blocks for sp in specs]
        fit_rng, fit_seed = fit_generator(self.random_state)
        task_rngs = spawn(fit_rng, len(tasks))

        def fit_task(i: int) -> _ColumnModel:
            b, sp = tasks[i]
            rows_b = b.rows if strata else None
            w_b = weights if weights is None or rows_b is None else weights[rows_b]
            return _fit_column(arrays, rows_b, len(b.rows), sp, schema.columns, w_b, task_rngs[i])

        if n_jobs > 1 and len(tasks) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=n_jobs) as pool:
                fitted = list(pool.map(fit_task, range(len(tasks))))
        else:
            fitted = [fit_task(i) for i in range(len(tasks))]
        for (b, _), cm in zip(tasks, fitted):
            b.models.append(cm)

        self.schema_ = schema
        self.fit_seed_ = fit_seed
        self.visit_sequence_ = visit
        self.predictors_ = predictors
        self.kept_ = keep
        self.strata_ = strata
        self.methods_ = {s.target: _method_label(s.method) for s in specs}
        self.missingness_methods_ = {
            s.target: _method_label(s.indicator)
            for s in specs
            if s.indicator is not None and schema[s.target].has_missing
        }
        self.blocks_ = blocks
        self.weights_ = weights
        self.n_ = n_out
        self.n_rows_ = len(data)
        self.columns_ = [c for c in columns if c in set(visit) | set(keep) | set(strata)]
        self.left_out_ = [c for c in columns if c not in self.columns_]
        self.dropped_ = _as_list(self.drop, "drop")
        self.dtypes_ = {c: data[c].dtype for c in self.columns_}
        self.index_ = data.index
        self.kind_ = "partial" if keep else "full"
        fixed = list(dict.fromkeys(keep + strata))
        self.fixed_arrays_ = {c: arrays[c] for c in fixed}
        # The replication diagnostics need hashes of the confidential records. They are built
        # on the first sample() that asks for diagnostics, from a copy-on-write reference to
        # the confidential columns (no copy is made unless the caller modifies `data`), so a
        # synthesizer sampled without diagnostics never holds them (about the data's size).
        self._confidential: pd.DataFrame | None = data[self.columns_].copy(deep=False)
        self._fingerprint: ConfidentialFingerprint | None = None
        self.method_params_ = {k: dict(v) for k, v in dict(self.method_params or {}).items()}
        self.replicated_uniques_ = policy
        self.uniques_on_ = uniques_on or list(self.columns_)
        self.extremes_ = k_tail
        self.tail_thresholds_: dict[str, tuple[float | None, float | None]] = {}
        if k_tail:
            derived = {s.target for s in specs if getattr(s.method, "derived", False)}
            for c in visit:
                if schema[c].is_numeric and c not in derived:  # passive: follows its sources
                    lo, hi = tail_thresholds(arrays[c], k_tail)
                    if lo is not None or hi is not None:
                        self.tail_thresholds_[c] = (lo, hi)
        self.rare_values_ = check_rare_values(self.rare_values)
        public: dict[str, set[object]] = {
            c: set(v) for c, v in dict(self.public_levels or {}).items()
        }
        for c in visit:
            levels_declared = declared_levels(overrides, c)
            if levels_declared is not None:
                public[c] = public.get(c, set()) | levels_declared
        # derived columns, and the columns they are derived from (a passive method looks their
        # values up in the data), keep their drawn values: smoothing a source would leave the
        # derived column without a value
        derived = {c for block in self.blocks_ for cm in block.models
                   if cm.value is not None and getattr(cm.value.method, "derived", False)
                   for c in (cm.target, *cm.predictors)}
        self.rare_guard_ = RareGuard(arrays, schema, [c for c in visit if c not in derived],
                                     self.rare_values_, public, self.tail_thresholds_)
        self._unique_guard: UniqueGuard | None = None
        self.enforcer_ = enforcer
        self.transforms_ = {sp.target: sp.transform for sp in specs if sp.transform is not None}
        self.noise_ = {sp.target: sp.noise for sp in specs if sp.noise is not None}
        return self

    def _resolve_constraints(
        self, data: pd.DataFrame, schema: Schema, visit: list[str], fixed: list[str]
    ) -> ConstraintEnforcer | None:
        """Parse the constraints, refuse those the confidential data break (unless
        ``allow_violations``) and group them by the column that completes them."""
        parsed = parse_constraints(self.constraints, list(data.columns))
        if not isinstance(self.allow_violations, bool | np.bool_):
            raise ParameterError("parameter 'allow_violations': expected True or False")
        if not parsed:
            return None
        enforcer = ConstraintEnforcer(
            parsed, schema.columns, visit, fixed, max_redraws=self.max_redraws
        )
        check = check_constraints(data, parsed)
        self.constraint_check_ = check
        broken = check[check["violations"] > 0]
        if len(broken) and not self.allow_violations:
            raise DataError(
                "the confidential data break constraints; a rule the data break is not a rule",
                [
                    f"constraint '{text}': {rounded_count(int(v))} records break it; fix "
                    f"the data or the constraint, or pass allow_violations=True (command "
                    f"line: --allow-violations) to accept it knowingly"
                    for text, v in broken["violations"].items()
                ],
            )
        return enforcer

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

    def __getstate__(self) -> dict[str, Any]:
        # a saved synthesizer carries the diagnostics' hashes, not the confidential frame
        state = dict(self.__dict__)
        if "blocks_" in state:
            state["_fingerprint"] = self.fingerprint_
            if getattr(self, "replicated_uniques_", "keep") != "keep":
                state["_unique_guard"] = self.unique_guard_
            state["_confidential"] = None
        return state

    def _check_min_rows(self, n_rows: int, n_synthesized: int) -> None:
        """Refuse data smaller than ``min_rows`` (synthpop's ``minstratumsize`` rule)."""
        minimum = self.min_rows
        if minimum is None:
            minimum = 10 + 10 * n_synthesized
        elif isinstance(minimum, bool) or not isinstance(minimum, int | np.integer) or minimum < 0:
            raise ParameterError("parameter 'min_rows': expected a non-negative integer or None")
        if n_rows < minimum:
            raise DataError(
                f"the data hold fewer records than the {minimum} needed to synthesize "
                f"{n_synthesized} columns (10 + 10 x synthesized columns, as synthpop's "
                f"minstratumsize); models fit on so few records copy them. Synthesize fewer "
                f"columns, use more records, or pass min_rows=0 (command line: --min-rows 0) "
                f"to allow it knowingly"
            )

    def _drop_columns(self, data: pd.DataFrame) -> tuple[pd.DataFrame, Any]:
        """``data`` without the ``drop`` columns, and the schema overrides of the others."""
        drop = _as_list(self.drop, "drop")
        overrides = self.schema
        if not drop:
            return data, overrides
        if not isinstance(data, pd.DataFrame):
            return data, overrides  # validate_frame says what is wrong
        unknown = [c for c in drop if c not in data.columns]
        if unknown:
            raise ParameterError(
                f"parameter 'drop' names columns that are not in the data: "
                f"{', '.join(unknown)}; check the spelling"
            )
        for param, value in (("keep", self.keep), ("strata", self.strata),
                             ("visit_sequence", self.visit_sequence)):
            both = [c for c in _as_list(value, param) if c in drop]
            if both:
                raise ParameterError(
                    f"columns both dropped and in '{param}': {', '.join(both)}; "
                    f"remove them from one of the two"
                )
        if isinstance(overrides, Schema):
            overrides = overrides.subset([c for c in overrides if c not in drop])
        elif overrides is not None:
            overrides = {c: v for c, v in dict(overrides).items() if c not in drop}
        return data.drop(columns=drop), overrides

    @staticmethod
    def _refuse_identifiers(data: pd.DataFrame, schema: Schema, used: list[str]) -> None:
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
                f"(command line: --drop {c}), or, if it is not an identifier, declare its "
                f"kind in the schema (schema={{'{c}': '{kind}'}}; command line: "
                f"--schema {c}={kind})"
            )
        if problems:
            raise DataError("the data hold identifiers", problems)

    def _check_stratum_sizes(
        self, row_blocks: list[np.ndarray], strata: list[str], n_synthesized: int
    ) -> None:
        """Refuse strata smaller than ``min_stratum_size`` (synthpop's ``minstratumsize``)."""
        minimum = self.min_stratum_size
        if minimum is None:
            minimum = 10 + 10 * n_synthesized
        elif isinstance(minimum, bool) or not isinstance(minimum, int | np.integer) or minimum < 0:
            raise ParameterError(
                "parameter 'min_stratum_size': expected a non-negative integer or None"
            )
        sizes = np.array([len(r) for r in row_blocks])
        small = int(np.sum(sizes < minimum))
        if small:
            raise ParameterError(
                f"strata {', '.join(repr(c) for c in strata)}: {small} of {len(sizes)} strata "
                f"hold fewer than {minimum} records (10 + 10 x {n_synthesized} synthesized "
                f"columns, as synthpop's minstratumsize); models fit on so few records copy "
                f"them. Use coarser strata, or pass min_stratum_size=0 to allow them"
            )

    def _resolve_predictors(
        self, visit: list[str], keep: list[str], strata: list[str]
    ) -> dict[str, list[str]]:
        pm = self.predictor_matrix
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
                given[t] = _as_list(preds, f"predictor_matrix['{t}']")
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

    def _resolve_methods(
        self, visit: list[str], predictors: dict[str, list[str]], schema: Schema
    ) -> list[_ColumnSpec]:
        given = dict(self.methods or {})
        params = dict(self.method_params or {})
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
                spec = "sample" if i == 0 and not predictors[c] else self.default_method
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
                    f"column '{c}' is {col.kind.value} but method '{_method_label(method)}' "
                    f"synthesizes {', '.join(sorted(type(method).target_kinds))} targets only; "
                    f"choose another method for it"
                )
            indicator = None
            if col.is_numeric and col.has_missing and not reads_columns(method):
                indicator = self._indicator_method(method, c)
            specs.append(_ColumnSpec(c, predictors[c], method, indicator))
        link_blocks({s.target: s.method for s in specs})  # catall/ipf: one block per method
        return specs

    @staticmethod
    def _indicator_method(method: SynthesisMethod, column: str) -> SynthesisMethod:
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

    def _resolve_weights(self, data: pd.DataFrame, specs: list[_ColumnSpec]) -> np.ndarray | None:
        w = self.weights
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
                        f"column '{s.target}': method '{_method_label(meth)}' cannot use "
                        f"likelihood weights; choose a weighted method (e.g. 'bayes_norm') "
                        f"for it, or drop the weights"
                    )
        return values

    # ----------------------------------------------------------------- sample

    def _check_fitted(self) -> None:
        if not hasattr(self, "blocks_"):
            raise NotFittedError("this Synthesizer is not fitted; call fit(data) first")

    def sample(
        self,
        m: int | None = None,
        random_state: RandomState = None,
        *,
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
        random_state : None, int or Generator, optional
            Seed of this draw (default: the synthesizer's ``random_state``). Implicate ``i``
            uses the ``i``-th child of the seed (``numpy`` ``spawn``), so implicates differ,
            the same seed gives the same implicates, and implicate ``i`` does not depend on
            ``m``.
        start : DataFrame or release, optional
            Start data (full synthesis without strata): the first columns of the visit
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
        """
        self._check_fitted()
        m_ = _check_count(self.m if m is None else m, "m")
        assert m_ is not None
        rs = self.random_state if random_state is None else random_state
        rng, seed = resolve_seed(rs)
        schema = self.schema_.columns
        sizes = np.array([len(b.rows) for b in self.blocks_], dtype=np.int64)
        partial = self.kind_ == "partial"
        begin = None
        if start is not None:
            begin = resolve_start(start, start_origin, schema, self.visit_sequence_, m_,
                                  partial=partial, strata=self.strata_)
            block_n = np.array([begin.n], dtype=np.int64)
        elif partial or self.n_ is None:
            block_n = sizes
        else:
            block_n = _allocate(sizes, self.n_)
        total = int(block_n.sum())
        self._start_columns = () if begin is None else begin.columns
        current: dict[str, Any] = {}

        frames: list[pd.DataFrame] = []
        measured: list[dict[str, Any]] = []
        whole = len(self.blocks_) == 1
        n_jobs = int(getattr(self, "n_jobs", 1) or 1)

        enforcer: ConstraintEnforcer | None = getattr(self, "enforcer_", None)
        creport: ConstraintReport | None = None if enforcer is None else enforcer.report()
        tallies: list[dict[str, np.ndarray]] = []

        def draw_one(task: tuple[BlockModel, int, np.random.Generator]) -> dict[str, np.ndarray]:
            block, nb, brng = task
            if partial and whole:
                fixed = dict(self.fixed_arrays_)
            elif partial:
                fixed = {c: a[block.rows] for c, a in self.fixed_arrays_.items()}
            else:
                fixed = {
                    c: np.full(nb, v, dtype=self.fixed_arrays_[c].dtype)
                    for c, v in block.stratum.items()
                }
            if begin is not None:  # copied: the safeguards and constraints work in place
                fixed.update({c: a.copy() for c, a in current["start"].items()})
            tally = None if enforcer is None else enforcer.new_tally()
            if tally is not None:
                tallies.append(tally)
            return draw_block(block, nb, fixed, schema, brng, enforcer=enforcer,
                              enforcer_tally=tally)

        fixed_columns = set(self.kept_) | set(self.strata_)
        counts: dict[str, list[Any]] = {
            "found": [], "redrawn": [], "removed": [], "remaining": [], "coded": []
        }
        for i, child in enumerate(spawn(rng, m_)):
            if begin is not None:
                current["start"] = begin.for_implicate(i)
            # each stratum draws from its own child Generator: strata are independent tasks
            tasks = [
                (block, int(nb), brng)
                for block, nb, brng in zip(self.blocks_, block_n, spawn(child, len(self.blocks_)))
            ]
            if n_jobs > 1 and len(tasks) > 1:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(max_workers=n_jobs) as pool:
                    drawn_blocks = list(pool.map(draw_one, tasks))
            else:
                drawn_blocks = [draw_one(t) for t in tasks]
            if whole:
                out = drawn_blocks[0]
            else:
                out = {c: np.empty(total, dtype=a.dtype) for c, a in drawn_blocks[0].items()}
                offset = 0
                for (block, nb, _), drawn in zip(tasks, drawn_blocks):
                    where = block.rows if partial else slice(offset, offset + nb)
                    for c, a in drawn.items():
                        out[c][where] = a
                    offset += nb
            del drawn_blocks
            row_block = None
            if not whole:
                row_block = np.empty(total, dtype=np.int64)
                offset = 0
                for b, (block, nb, _) in enumerate(tasks):
                    row_block[block.rows if partial else slice(offset, offset + nb)] = b
                    offset += nb
            keep_rows = self._safeguard(out, tasks, row_block, child, counts)
            if enforcer is not None and creport is not None:
                # the safeguards (tail coding, redrawn uniques) may move values: check again
                tally = enforcer.new_tally()
                tallies.append(tally)
                self._enforce_release(enforcer, out, tasks, row_block, child, tally)
                total_tally = {
                    k: np.sum([t[k] for t in tallies], axis=0) for k in tally
                }
                tallies.clear()
                creport.redrawn.append(tuple(int(v) for v in total_tally["redrawn"]))
                creport.forced.append(tuple(int(v) for v in total_tally["forced"]))
                creport.remaining.append(tuple(int(v) for v in total_tally["remaining"]))
            index = self.index_ if partial else pd.RangeIndex(total)
            if keep_rows is not None:
                out = {c: a[keep_rows] for c, a in out.items()}
                index = index[keep_rows] if partial else pd.RangeIndex(int(keep_rows.sum()))
            if diagnostics:
                measured.append(
                    self.fingerprint_.measure(out, keep_rows if partial else None)
                )
            # Each working array is released as its column is converted, and the frame wraps
            # the converted columns (copy=False: no second copy of the implicate while it is
            # built). Kept and strata arrays may be the synthesizer's own, shared by every
            # implicate: those columns are copied.
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
            del out
            frames.append(frame)
            if progress is not None:
                progress(i + 1, m_)

        diag = None
        if diagnostics:
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

        safeguards = SafeguardReport(
            replicated_uniques=self._policy(),
            extremes=int(getattr(self, "extremes_", 0)),
            thresholds=dict(getattr(self, "tail_thresholds_", {})),
            found=tuple(counts["found"]),
            redrawn=tuple(counts["redrawn"]),
            removed=tuple(counts["removed"]),
            remaining=tuple(counts["remaining"]),
            coded=tuple(counts["coded"]),
            rare_values=int(getattr(self, "rare_values_", 0)),
            rare=tuple(counts.get("rare", ())),
        )
        if diag is not None:
            diag = dataclasses.replace(diag, safeguards=safeguards)

        import synthguard

        provenance = {
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
            "safeguards": safeguards.totals(),
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
            provenance=provenance,
            safeguards=safeguards,
            constraints=creport,
        )

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
            for b, rows in self._row_groups(bad, row_block):
                cm = next(c for c in tasks[b][0].models if c.target == target)
                enforcer.enforce(target, out, _ColumnRedraw(cm, out, schema), rng, tally,
                                 idx=rows)

    def _policy(self) -> str:
        # synthesizers saved before the safeguards existed keep every record
        return str(getattr(self, "replicated_uniques_", "keep"))

    def _safeguard(
        self,
        out: dict[str, np.ndarray],
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        child: np.random.Generator,
        counts: dict[str, list[Any]],
    ) -> np.ndarray | None:
        """Code the tails and redraw or remove replicated uniques of one implicate, in place.

        Returns the boolean mask of rows to release, or None to release every row. Redraws use
        a Generator spawned from the implicate's after its strata's, so the first draw is the
        same as without safeguards and the same seed gives the same release.
        """
        thresholds = getattr(self, "tail_thresholds_", {})
        coded = {c: apply_tail_coding(out[c], lo, hi) for c, (lo, hi) in thresholds.items()}
        rare_guard: RareGuard | None = getattr(self, "rare_guard_", None)
        rare: dict[str, int] = {}
        if rare_guard is not None and rare_guard.active:
            (rrng,) = spawn(child, 1)
            smoother = self._leaf_smoother(out, tasks, row_block)
            rare = rare_guard.apply(out, rrng, smoother)
        _rederive(out, None, tasks, row_block, self.schema_.columns)
        policy = self._policy()
        found = redrawn = removed = remaining = 0
        keep_rows: np.ndarray | None = None
        if policy == "keep":
            if hasattr(self, "replicated_uniques_"):
                remaining = int(self.unique_guard_.replicated(out).sum())
        else:
            guard = self.unique_guard_
            bad = guard.replicated(out)
            found = int(bad.sum())
            if found and policy == "redraw":
                (srng,) = spawn(child, 1)
                ever = np.zeros(len(bad), dtype=bool)
                for r in range(2 * MAX_REDRAW_ROUNDS):
                    idx = np.flatnonzero(bad)
                    if len(idx) == 0:
                        break
                    ever[idx] = True
                    if r < MAX_REDRAW_ROUNDS:
                        self._jitter(out, idx, tasks, row_block, srng)
                    else:
                        self._redraw(out, idx, tasks, row_block, srng, smooth=True)
                    for c, (lo, hi) in thresholds.items():
                        vals = out[c][idx]
                        coded[c] += apply_tail_coding(vals, lo, hi)
                        out[c][idx] = vals
                    if rare_guard is not None and rare_guard.active:
                        smoother = self._leaf_smoother(out, tasks, row_block)
                        for c, v in rare_guard.apply(out, srng, smoother, idx).items():
                            rare[c] = rare.get(c, 0) + v
                    _rederive(out, idx, tasks, row_block, self.schema_.columns)
                    bad[idx] = guard.replicated(out, idx)
                redrawn = int(ever.sum())
            removed = int(bad.sum())
            if removed:
                keep_rows = ~bad
        counts["found"].append(found)
        counts["redrawn"].append(redrawn)
        counts["removed"].append(removed)
        counts["remaining"].append(remaining)
        counts["coded"].append(coded)
        counts.setdefault("rare", []).append(rare)
        return keep_rows

    def _leaf_smoother(
        self,
        out: dict[str, np.ndarray],
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
    ) -> Any:
        """``smoother(column, rows, values, rng)`` for :class:`RareGuard`: ``values`` of
        ``rows`` kernel-smoothed within the leaf each row falls in, when the column is drawn
        by a leaf method (:meth:`CartMethod.smooth_values`); None otherwise (the guard then
        uses the column's bandwidth)."""
        schema = self.schema_.columns

        def smooth(c: str, rows: np.ndarray, values: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray | None:
            new = np.full(len(rows), np.nan)
            done = np.zeros(len(rows), dtype=bool)
            pos = np.arange(len(rows))
            for b, sub in self._row_groups(rows, row_block):
                part = next((cm.value for cm in tasks[b][0].models if cm.target == c), None)
                if part is None:
                    continue
                method = part.method
                if not _draws_from_leaves(method) or not callable(
                    getattr(method, "smooth_values", None)
                ):
                    continue
                at = pos if row_block is None else pos[row_block[rows] == b]
                cm = next(cm for cm in tasks[b][0].models if cm.target == c)
                X = _design(out, cm.predictors, schema, len(sub), sub, _design_dtype(method),
                            _layout(method, fitted=True))
                if part.mask is not None:
                    X = X[:, part.mask]
                leaf = method.leaf_index(X)  # type: ignore[attr-defined]
                new[at] = method.smooth_values(values[at], leaf, rng)  # type: ignore[attr-defined]
                done[at] = True
            if not done.any():
                return None
            if not done.all():  # rows of strata drawn otherwise: column bandwidth (NaN marks)
                return np.where(done, new, np.nan)
            return new

        return smooth

    def _row_groups(
        self, idx: np.ndarray, row_block: np.ndarray | None
    ) -> list[tuple[int, np.ndarray]]:
        if row_block is None:
            return [(0, idx)]
        return [(int(b), idx[row_block[idx] == b]) for b in np.unique(row_block[idx])]

    def _jitter(
        self,
        out: dict[str, np.ndarray],
        idx: np.ndarray,
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        rng: np.random.Generator,
    ) -> None:
        """Kernel-smooth, in place, the numeric CART values of rows ``idx``: each value moves
        by Gaussian noise with the bandwidth of the leaf its row falls in (point masses stay,
        range and precision kept; :meth:`CartMethod.smooth_values`). Categorical values are
        not touched, so their distribution is exactly the first draw's."""
        schema = self.schema_.columns
        for b, rows in self._row_groups(idx, row_block):
            for cm in tasks[b][0].models:
                col = schema[cm.target]
                part = cm.value
                # leaf bandwidths are on a transformed column's model scale: not smoothed
                if not col.is_numeric or part is None or getattr(cm, "transform", None) \
                        or cm.target in self._start_columns:
                    continue
                method = part.method
                if not _draws_from_leaves(method) or not callable(
                    getattr(method, "smooth_values", None)
                ):
                    continue
                vals = out[cm.target][rows]
                present = ~np.isnan(vals)
                if not present.any():
                    continue
                r = rows[present]
                dtype = _design_dtype(method)
                X = _design(out, cm.predictors, schema, len(r), r, dtype,
                            _layout(method, fitted=True))
                if part.mask is not None:
                    X = X[:, part.mask]
                leaf = method.leaf_index(X)  # type: ignore[attr-defined]
                new = method.smooth_values(vals[present], leaf, rng)  # type: ignore[attr-defined]
                out[cm.target][r] = postprocess_numeric(np.asarray(new, dtype=float), col)

    def _redraw(
        self,
        out: dict[str, np.ndarray],
        idx: np.ndarray,
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        rng: np.random.Generator,
        smooth: bool = False,
    ) -> None:
        """Draw the synthesized columns of rows ``idx`` again, each from its block's models,
        with the rows' kept and strata values fixed."""
        schema = self.schema_.columns
        partial = self.kind_ == "partial"
        for b, rows in self._row_groups(idx, row_block):
            block = tasks[b][0]
            if partial:
                fixed = {c: a[rows] for c, a in self.fixed_arrays_.items()}
            else:
                fixed = {
                    c: np.full(len(rows), v, dtype=self.fixed_arrays_[c].dtype)
                    for c, v in block.stratum.items()
                }
            fixed.update({c: out[c][rows] for c in self._start_columns})
            drawn = draw_block(block, len(rows), fixed, schema, rng, smooth=smooth,
                               enforcer=getattr(self, "enforcer_", None))
            for c in self.visit_sequence_:
                out[c][rows] = drawn[c]

    def fit_sample(self, data: pd.DataFrame, m: int | None = None) -> SyntheticData:
        """``fit(data).sample(m)``."""
        return self.fit(data).sample(m)

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

    def __repr__(self) -> str:
        parts = []
        for k in ("methods", "visit_sequence", "keep", "drop", "m", "n", "strata",
                  "random_state"):
            v = getattr(self, k)
            if v is not None and not (k == "m" and v == 1):
                parts.append(f"{k}={v!r}")
        return f"Synthesizer({', '.join(parts)})"


def synthesize(
    data: pd.DataFrame, m: int = 1, random_state: RandomState = None, **kwargs: Any
) -> SyntheticData:
    """Synthesize ``data`` with sensible defaults: ``Synthesizer(m=m, random_state=random_state,
    **kwargs).fit(data).sample()``.

    By default every column is synthesized in the data's order (full synthesis), the first
    with ``sample`` and the rest with ``cart``, as synthpop does.

    Examples
    --------
    >>> from synthguard import load_dataset, synthesize
    >>> result = synthesize(load_dataset("penguins"), m=2, random_state=1)
    >>> result.m, result.kind
    (2, 'full')
    """
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
