"""The block engine: fit and draw the per-column models of one block of records.

A *block* is the set of records synthesized together: the whole data, one stratum
(synthpop's ``syn.strata``), or a partition of a distributed backend. Sequential synthesis
(Nowok, Raab & Dibben 2016) factors the joint distribution in visit order,

    f(x_1, ..., x_p) = f(x_1) f(x_2 | x_1) ... f(x_p | x_1, ..., x_{p-1}),

and within a block each factor is a per-variable model **fit on the confidential values**
(:func:`fit_block`) and **drawn from the already synthesized values** (:func:`draw_block`).
Blocks are independent: :func:`fit_block` and :func:`draw_block` work on one block's numpy
arrays, and :func:`thread_map` is the one place that runs independent tasks in threads, so
the :class:`~synthguard.synthesis.synthesizer.Synthesizer` and a distributed engine map the
same two functions over blocks without re-implementing the loop.

Seeds: column ``j`` of a block is fit with its own Generator (a child of the fit seed), and a
block is drawn from its own Generator, so results depend neither on ``n_jobs`` nor on the
order in which blocks are run.
"""

from __future__ import annotations

import copy
import inspect
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from synthguard._random import spawn
from synthguard.data.schema import ColumnSchema
from synthguard.errors import MethodError, ParameterError, SynthguardError
from synthguard.synthesis.encoding import (
    codes_from_target,
    design_kinds,
    design_matrix,
    n_target_levels,
    postprocess_numeric,
    target_codes,
)
from synthguard.synthesis.enforce import ConstraintEnforcer, level_weights
from synthguard.synthesis.methods.base import SynthesisMethod, fit_method
from synthguard.synthesis.methods.columns import predictor_frame, reads_columns
from synthguard.synthesis.noise import NoiseStep
from synthguard.synthesis.transforms import ColumnTransform

__all__ = [
    "BlockModel",
    "ColumnRedraw",
    "ColumnSpec",
    "allocate",
    "assemble_blocks",
    "draw_block",
    "fit_block",
    "leaf_smoothable",
    "leaves",
    "rederive",
    "single_threaded_blas",
    "stratum_rows",
    "thread_map",
]

_T = TypeVar("_T")
_R = TypeVar("_R")


_blas_lock = threading.Lock()
_blas_depth = 0
_blas_limits: Any = None


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with the BLAS libraries (numpy's and SciPy's OpenBLAS) in one thread.

    The setting is the process's, so nested and concurrent blocks share it: the first block
    to enter sets it (``threadpoolctl``) and the last to leave restores the libraries'
    own, under a lock, so no block's computation runs while another restores the threads.
    """
    global _blas_depth, _blas_limits
    from threadpoolctl import threadpool_limits

    with _blas_lock:
        if _blas_depth == 0:
            _blas_limits = threadpool_limits(limits=1, user_api="blas")
        _blas_depth += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_depth -= 1
            if _blas_depth == 0:
                _blas_limits.restore_original_limits()
                _blas_limits = None


def thread_map(fn: Callable[[_T], _R], items: Iterable[_T], n_jobs: int = 1) -> list[_R]:
    """``[fn(x) for x in items]``, run in ``n_jobs`` threads when there is more than one item.

    The tasks the engine runs this way (one column's model, one block's draw) are independent
    and each has its own Generator, so the result is the same for every ``n_jobs``; tree
    building in scikit-learn and numpy's kernels release the GIL, so threads overlap.

    BLAS runs in one thread meanwhile (:func:`single_threaded_blas`), whatever ``n_jobs``:
    these threads are the parallelism, and a multi-threaded BLAS splits its sums by thread,
    so results would depend on the machine's cores (``cart``'s within-leaf slopes differed
    in their last bits between one and two threads) and, on a busy machine, two BLAS
    threads under each task spun for seconds (diamonds' four slope fits: 6.7 s of CPU with
    two threads, 0.07 s with one).

    Python's warning filters are one list for all threads, and ``warnings.catch_warnings``
    (which some methods use around a third-party fit) saves and restores that list: two
    tasks doing so at once could leave one task's filter (e.g. "ignore") in place after
    both end. The threads therefore run inside one ``catch_warnings`` of the caller, which
    restores the caller's filters when they are done.
    """
    items = list(items)
    with single_threaded_blas():
        if n_jobs > 1 and len(items) > 1:
            with warnings.catch_warnings(), ThreadPoolExecutor(max_workers=n_jobs) as pool:
                return list(pool.map(fn, items))
        return [fn(x) for x in items]



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
    noise: NoiseStep | None = None  # added to every draw
    exact: bool = False  # drawn values must be the data's: never smoothed (see ColumnSpec)


@dataclass
class BlockModel:
    """The fitted models of one block (stratum) of records."""

    rows: np.ndarray
    stratum: dict[str, Any]
    models: list[_ColumnModel] = field(default_factory=list)


@dataclass
class ColumnSpec:
    """What the synthesizer does with one visited column."""

    target: str
    predictors: list[str]
    method: SynthesisMethod
    indicator: SynthesisMethod | None
    transform: ColumnTransform | None = None
    noise: NoiseStep | None = None
    #: a ``passive:of=`` lookup reads this column: its draws must be values of the data, so
    #: no smoothing moves them (not even the unique guard's)
    exact: bool = False


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
        name = method.name or type(method).__name__
        others = " or ".join(f"'{m}'" for m in ("cart", "sample") if m != name)
        memory = (" (a categorical predictor with many levels can be left out with "
                  "predictor_matrix, or its levels grouped)" if isinstance(e, MemoryError)
                  else "")
        raise MethodError(
            f"column '{column}': method '{name}' failed to fit ({type(e).__name__}); try "
            f"another method for this column, e.g. {others}{memory}"
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
    spec: ColumnSpec,
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
                        spec.noise, spec.exact)


def fit_block(
    arrays: Mapping[str, np.ndarray],
    rows: np.ndarray | None,
    specs: Sequence[ColumnSpec],
    schema: Mapping[str, ColumnSchema],
    weights: np.ndarray | None,
    stratum: dict[str, Any] | None = None,
    *,
    n_jobs: int = 1,
    rng: np.random.Generator | None = None,
    rngs: Sequence[np.random.Generator | None] | None = None,
) -> BlockModel:
    """Fit every column's model on the confidential records ``rows`` (one block; None: all).

    Every model is fit on confidential values only, so the columns' models are independent of
    each other: with ``n_jobs > 1`` they are fit in that many threads (:func:`thread_map`),
    at the cost of one design matrix per thread in memory. Column ``j``'s model gets the
    ``j``-th of ``rngs`` or, without ``rngs``, the ``j``-th child of ``rng`` (None: fresh
    randomness), so the fit does not depend on ``n_jobs``.
    """
    if rngs is None:
        rngs = [None] * len(specs) if rng is None else list(spawn(rng, len(specs)))
    elif len(rngs) != len(specs):
        raise ParameterError("parameter 'rngs': expected one Generator per column spec")
    n = len(next(iter(arrays.values()))) if rows is None else len(rows)
    all_rows = np.arange(n) if rows is None else rows
    block = BlockModel(rows=all_rows, stratum=dict(stratum or {}))
    w_block = weights if weights is None or rows is None else weights[rows]
    # the columns with the most predictors (the last visited, the slowest to fit) first, so
    # the threads finish together instead of one fitting the last, largest model alone
    order = sorted(range(len(specs)), key=lambda j: -len(specs[j].predictors))
    fitted = thread_map(
        lambda j: _fit_column(arrays, rows, n, specs[j], schema, w_block, rngs[j]),
        order, n_jobs,
    )
    models: list[_ColumnModel] = [None] * len(specs)  # type: ignore[list-item]
    for j, model in zip(order, fitted, strict=True):
        models[j] = model
    block.models = models
    return block


def stratum_rows(arrays: Mapping[str, np.ndarray], strata: Sequence[str]) -> list[np.ndarray]:
    """The row numbers of each stratum (each combination of the ``strata`` columns' values,
    in sorted order of the values; a missing value is a value), or one block of all rows."""
    n = len(next(iter(arrays.values())))
    if not strata:
        return [np.arange(n)]
    keys = []
    for c in strata:
        codes, _ = pd.factorize(arrays[c], sort=True, use_na_sentinel=False)
        keys.append(np.asarray(codes, dtype=np.int64))
    _, inverse = np.unique(np.column_stack(keys), axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    order = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[order])) + 1
    return np.split(order, bounds)


def allocate(sizes: np.ndarray, n: int) -> np.ndarray:
    """Split ``n`` rows over strata proportionally to ``sizes`` (largest remainder, Hamilton)."""
    quota = n * sizes / sizes.sum()
    base = np.floor(quota).astype(np.int64)
    rest = n - int(base.sum())
    if rest:
        order = np.argsort(-(quota - base), kind="stable")
        base[order[:rest]] += 1
    return base


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


def _adjusts(method: SynthesisMethod) -> bool:
    """Whether a leaf method moves its donors along within-leaf slopes (``cart``'s
    ``adjust``) and its ``draw_from_leaves`` takes their ``linear`` predictor (a subclass
    overriding it without ``linear`` draws as it says)."""
    if not getattr(method, "adjusts_", False):
        return False
    return "linear" in inspect.signature(method.draw_from_leaves).parameters  # type: ignore[attr-defined]


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
        # cart's within-leaf adjustment: b_w' d(x) of each row, from the same chunks
        linear = np.empty(m) if _adjusts(method) else None
        for lo in range(0, m, _CHUNK_ROWS):
            hi = min(lo + _CHUNK_ROWS, m)
            r = np.arange(lo, hi) if rows is None else rows[lo:hi]
            Xc = _design(syn, predictors, schema, hi - lo, r, *form)
            if part.mask is not None:
                Xc = Xc[:, part.mask]
            leaf[lo:hi] = method.leaf_index(Xc)  # type: ignore[attr-defined]
            if linear is not None:
                linear[lo:hi] = method.linear_predictor(Xc)  # type: ignore[attr-defined]
        kw = {} if linear is None else {"linear": linear}
        if smooth and callable(getattr(method, "smooth_values", None)) and not getattr(
            method, "categorical_", True
        ):
            return np.asarray(method.draw_from_leaves(leaf, rng, smooth=True, **kw))  # type: ignore[attr-defined]
        return np.asarray(method.draw_from_leaves(leaf, rng, **kw))  # type: ignore[attr-defined]
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
                cm.target, syn, ColumnRedraw(cm, syn, schema, smooth), crng,
                enforcer_tally if enforcer_tally is not None else enforcer.new_tally(),
            )
    return syn


def assemble_blocks(
    tasks: Sequence[tuple[BlockModel, int, np.random.Generator]],
    fixed_for: Callable[[BlockModel, int], dict[str, np.ndarray]],
    schema: Mapping[str, ColumnSchema],
    *,
    partial: bool,
    n_jobs: int = 1,
    enforcer: ConstraintEnforcer | None = None,
    tallies: list[dict[str, np.ndarray]] | None = None,
) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Draw one implicate block by block and put its records together.

    ``tasks`` holds ``(block, n_records, rng)`` per block; ``fixed_for(block, n_records)``
    gives the block's arrays that are not drawn (see :func:`draw_block`). Blocks are drawn
    in ``n_jobs`` threads (:func:`thread_map`); each block's constraint tally is appended to
    ``tallies``. Records are placed at the block's confidential rows (partial synthesis) or
    block after block (full synthesis). Returns the columns and each record's block number
    (None when there is one block).
    """

    def draw(task: tuple[BlockModel, int, np.random.Generator]) -> dict[str, np.ndarray]:
        block, nb, brng = task
        tally = None if enforcer is None else enforcer.new_tally()
        if tally is not None and tallies is not None:
            tallies.append(tally)
        return draw_block(block, nb, fixed_for(block, nb), schema, brng, enforcer=enforcer,
                          enforcer_tally=tally)

    drawn_blocks = thread_map(draw, tasks, n_jobs)
    if len(tasks) == 1:
        return drawn_blocks[0], None
    total = sum(nb for _, nb, _ in tasks)
    out = {c: np.empty(total, dtype=a.dtype) for c, a in drawn_blocks[0].items()}
    row_block = np.empty(total, dtype=np.int64)
    offset = 0
    for b, ((block, nb, _), drawn) in enumerate(zip(tasks, drawn_blocks)):
        where = block.rows if partial else slice(offset, offset + nb)
        for c, a in drawn.items():
            out[c][where] = a
        row_block[where] = b
        offset += nb
    return out, row_block


def leaf_smoothable(part: _Part | None) -> bool:
    """Whether ``part`` draws from tree leaves and can kernel-smooth values within a leaf
    (``cart``'s ``smooth_values``)."""
    if part is None:
        return False
    method = part.method
    return _draws_from_leaves(method) and callable(getattr(method, "smooth_values", None))


def leaves(
    part: _Part,
    predictors: Sequence[str],
    syn: Mapping[str, np.ndarray],
    schema: Mapping[str, ColumnSchema],
    rows: np.ndarray,
) -> np.ndarray:
    """The leaf each of the records ``rows`` falls in, for a leaf-drawing ``part``, from the
    predictors in ``syn``."""
    method = part.method
    X = _design(syn, predictors, schema, len(rows), rows, _design_dtype(method),
                _layout(method, fitted=True))
    if part.mask is not None:
        X = X[:, part.mask]
    return np.asarray(method.leaf_index(X))  # type: ignore[attr-defined]


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
    smooth = smooth and not getattr(cm, "exact", False)
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


def rederive(
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


class ColumnRedraw:
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

