"""Keeping constraints while drawing: check, redraw, then force.

A constraint (:mod:`synthguard.data.constraints`) is **completed** by the last of its
columns in the visit sequence. When the sequential synthesizer has drawn a column, every
constraint that column completes is checked on the drawn records; as in the Urban
Institute's tidysynthesis (constraints on each variable, conditional on earlier ones):

1. records that break one are drawn again from the column's own conditional model (same
   predictors, same fitted model), up to ``max_redraws`` times
   (:data:`DEFAULT_MAX_REDRAWS`), each time only the records still breaking one;
2. records still breaking one are **forced** inside:

   * a numeric column takes the allowed value nearest to its draw. The candidates are the
     bounds the constraints name for it (``x >= e`` gives ``e``, ``x > e`` the next
     representable number above ``e`` (``e + 1`` for counts), ``x == e`` gives ``e``,
     ``x in [...]`` the listed values), after rounding and clipping to the schema's public
     bounds; the nearest candidate keeping every constraint of the column wins;
   * a categorical column takes a level drawn among the levels that keep every constraint
     of the column, with the probabilities its model gives them for this record
     (:func:`level_weights`), or uniformly among them when the model gives them none.

   When no candidate keeps them all (the constraints contradict each other for the
   record), the candidate breaking the fewest is taken and the record is counted as
   ``remaining``.

Redraws use their own random stream (a child of the block's Generator), so a release in
which no record breaks a constraint is the release drawn without constraints, and the same
seed gives the same release.

For a numeric column to be forced, the column must stand alone on one side of each
comparison it appears in (``x <= income``, ``0 <= x <= 10``, ``x in [1, 2]``): a constraint
such as ``x + y <= 10`` completed by ``x`` is refused when the synthesizer is fit.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd

from synthguard._display import MIN_CELL, Summarized, cell_count, cell_value
from synthguard.data.constraints import Constraint, _columns
from synthguard.data.schema import ColumnSchema, Kind
from synthguard.errors import ParameterError
from synthguard.synthesis.encoding import postprocess_numeric

__all__ = [
    "DEFAULT_MAX_REDRAWS",
    "ConstraintEnforcer",
    "ConstraintReport",
    "level_weights",
]

#: Redraws of a record from its column's model before it is forced inside the constraints.
DEFAULT_MAX_REDRAWS = 10

#: Draws used to estimate a categorical model's level probabilities when the method exposes
#: neither ``predict_proba`` nor its leaves.
_MC_DRAWS = 64

_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE,
         ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


class ColumnDraw(Protocol):
    """What the enforcer needs from the synthesizer for one column of one block."""

    def draw(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Working-form values of the column drawn again for records ``idx``."""

    def level_weights(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The model's probabilities of each target code for records ``idx`` (categorical)."""


@dataclass
class _Atom:
    op: type[ast.cmpop]
    other: str  # expression (identifier form) the target is compared with
    values: tuple[Any, ...] | None = None  # literal list of ``in`` / ``not in``


@dataclass
class _Rule:
    index: int
    constraint: Constraint
    atoms: list[_Atom] = field(default_factory=list)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _atoms(c: Constraint, target: str) -> list[_Atom]:
    """The comparisons of ``target`` with an expression free of it; refuse other uses."""
    tid = c._names()[target]
    cond, req = c.expressions()
    atoms: list[_Atom] = []
    used: set[int] = set()
    total = 0
    for expr in (cond, req):
        if expr is None:
            continue
        tree = ast.parse(expr, mode="eval")
        total += sum(isinstance(n, ast.Name) and n.id == tid for n in ast.walk(tree))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            for a, op, b in zip(operands[:-1], node.ops, operands[1:]):
                if isinstance(a, ast.Name) and a.id == tid and tid not in _names(b):
                    other, kind = b, type(op)
                elif (isinstance(b, ast.Name) and b.id == tid and tid not in _names(a)
                      and type(op) in _FLIP):
                    other, kind = a, _FLIP[type(op)]
                else:
                    continue
                used.add(id(a) if other is b else id(b))
                values = None
                if kind in (ast.In, ast.NotIn):
                    try:
                        lit = ast.literal_eval(other)
                    except ValueError:
                        lit = None
                    if not isinstance(lit, list | tuple | set):
                        raise ParameterError(
                            f"constraint '{c.text}': '{target}' in ... needs a list of values "
                            f"to be forced"
                        )
                    values = tuple(lit)
                atoms.append(_Atom(kind, ast.unparse(other), values))
    if len(used) != total:
        raise ParameterError(
            f"constraint '{c.text}' is completed by numeric column '{target}', which can be "
            f"forced inside it only where it stands alone on one side of a comparison "
            f"('{target} <= ...', '... < {target} < ...', '{target} in [...]'); rewrite it "
            f"so, or synthesize '{target}' before another of its columns"
        )
    return atoms


@dataclass(frozen=True, eq=False)
class ConstraintReport(Summarized):
    """What keeping the constraints did, per constraint and implicate.

    Attributes
    ----------
    constraints : the constraints' texts.
    completed_by : constraint -> the column whose draw completes it (None: it names kept or
        strata columns only, so the synthesizer does not change whether it holds).
    redrawn, forced, remaining : one tuple per implicate, one count per constraint: records
        that broke it when drawn and were drawn again; records still breaking it after
        ``max_redraws`` redraws and forced inside; records breaking it in the release
        (constraints that contradict each other for a record).
    max_redraws : the redraw limit used.
    """

    constraints: tuple[str, ...]
    completed_by: dict[str, str | None]
    max_redraws: int
    redrawn: list[tuple[int, ...]] = field(default_factory=list)
    forced: list[tuple[int, ...]] = field(default_factory=list)
    remaining: list[tuple[int, ...]] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """One row per implicate and constraint: ``implicate`` (1..m), ``constraint``,
        ``redrawn``, ``forced``, ``remaining``."""
        rows = []
        for i, (r, f, s) in enumerate(zip(self.redrawn, self.forced, self.remaining), start=1):
            for j, text in enumerate(self.constraints):
                rows.append((i, text, r[j], f[j], s[j]))
        return pd.DataFrame(
            rows, columns=["implicate", "constraint", "redrawn", "forced", "remaining"]
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record for the provenance and the manifest. The counts are derived
        from the confidential data (a rule about a one-record level is redrawn for that
        record), so they pass the small-cell rule: a count below
        :data:`~synthguard._display.MIN_CELL` is written ``"< 10"``."""
        def ruled(rows: list[tuple[int, ...]]) -> list[list[int | str]]:
            return [[cell_value(v) for v in t] for t in rows]

        return {
            "constraints": list(self.constraints),
            "completed_by": dict(self.completed_by),
            "max_redraws": self.max_redraws,
            "redrawn": ruled(self.redrawn),
            "forced": ruled(self.forced),
            "remaining": ruled(self.remaining),
        }

    def summary(self) -> str:
        if not self.constraints:
            return "constraints: none"
        red = np.sum(self.redrawn, axis=0) if self.redrawn else np.zeros(len(self.constraints))
        frc = np.sum(self.forced, axis=0) if self.forced else np.zeros(len(self.constraints))
        lines = [f"constraints ({len(self.constraints)}; up to {self.max_redraws} redraws; "
                 f"counts below {MIN_CELL} shown as < {MIN_CELL}):"]
        for j, text in enumerate(self.constraints):
            n_red = int(red[j])
            # "records" always: 1 is below the small cell, and "record" would say it is 1
            lines.append(f"  {text}: {cell_count(n_red)} records redrawn, "
                         f"{cell_count(int(frc[j]))} forced")
        return "\n".join(lines)


class ConstraintEnforcer:
    """The constraints of a synthesizer, grouped by the column that completes them.

    Parameters
    ----------
    constraints : parsed constraints.
    schema : column -> ColumnSchema.
    visit : the visit sequence.
    fixed : kept, strata (and start) columns: given, not drawn.
    max_redraws : redraws before forcing (:data:`DEFAULT_MAX_REDRAWS`).
    """

    def __init__(
        self,
        constraints: Sequence[Constraint],
        schema: Mapping[str, ColumnSchema],
        visit: Sequence[str],
        fixed: Sequence[str],
        max_redraws: int = DEFAULT_MAX_REDRAWS,
    ) -> None:
        if isinstance(max_redraws, bool) or not isinstance(max_redraws, int | np.integer) \
                or max_redraws < 0:
            raise ParameterError("parameter 'max_redraws': expected a non-negative integer")
        self.constraints = list(constraints)
        self.schema = schema
        self.max_redraws = int(max_redraws)
        order = {c: i for i, c in enumerate(visit)}
        released = set(visit) | set(fixed)
        self.by_target: dict[str, list[_Rule]] = {}
        self.completed_by: dict[str, str | None] = {}
        for j, c in enumerate(self.constraints):
            missing = [k for k in c.columns if k not in released]
            if missing:
                raise ParameterError(
                    f"constraint '{c.text}' names columns that are not released: "
                    f"{', '.join(missing)}; synthesize or keep them, or drop the constraint"
                )
            drawn = [k for k in c.columns if k in order]
            if not drawn:
                self.completed_by[c.text] = None
                continue
            target = max(drawn, key=order.__getitem__)
            self.completed_by[c.text] = target
            rule = _Rule(j, c)
            if schema[target].is_numeric:
                rule.atoms = _atoms(c, target)
            self.by_target.setdefault(target, []).append(rule)

    def report(self) -> ConstraintReport:
        return ConstraintReport(
            constraints=tuple(c.text for c in self.constraints),
            completed_by=dict(self.completed_by),
            max_redraws=self.max_redraws,
        )

    def new_tally(self) -> dict[str, np.ndarray]:
        k = len(self.constraints)
        return {key: np.zeros(k, dtype=np.int64) for key in ("redrawn", "forced", "remaining")}

    # ------------------------------------------------------------- evaluation

    def _decoded(self, syn: Mapping[str, np.ndarray], idx: np.ndarray, column: str) -> Any:
        col = self.schema[column]
        a = syn[column][idx]
        if not col.is_categorical:
            return a
        levels = list(col.levels or ())
        lv = np.empty(len(levels) + 1, dtype=object)
        lv[: len(levels)] = levels
        lv[-1] = None
        return lv[np.asarray(a, dtype=np.int64)]

    def _frame(self, rule: _Rule, syn: Mapping[str, np.ndarray], idx: np.ndarray) -> pd.DataFrame:
        data = {c: self._decoded(syn, idx, c) for c in rule.constraint.columns}
        return rule.constraint.frame(data)

    def broken(self, target: str, syn: Mapping[str, np.ndarray], idx: np.ndarray) -> np.ndarray:
        """Records ``idx`` (rows) x constraints completed by ``target`` (columns): broken?"""
        rules = self.by_target.get(target, [])
        out = np.zeros((len(idx), len(rules)), dtype=bool)
        for k, rule in enumerate(rules):
            _, out[:, k] = rule.constraint.evaluate(self._frame(rule, syn, idx))
        return out

    # ------------------------------------------------------------- enforcement

    def enforce(
        self,
        target: str,
        syn: dict[str, np.ndarray],
        column: ColumnDraw,
        rng: np.random.Generator,
        tally: dict[str, np.ndarray],
        idx: np.ndarray | None = None,
    ) -> None:
        """Redraw, then force, the records (``idx``; None: all) breaking a constraint that
        ``target`` completes; ``syn[target]`` is changed in place and ``tally`` counts."""
        rules = self.by_target.get(target)
        if not rules:
            return
        if idx is None:
            idx = np.arange(len(syn[target]))
        bad = self.broken(target, syn, idx)
        rows = bad.any(axis=1)
        if not rows.any():
            return
        where = np.array([r.index for r in rules])
        if self.max_redraws:
            np.add.at(tally["redrawn"], where, bad.sum(axis=0))
        idx, bad = idx[rows], bad[rows]
        for _ in range(self.max_redraws):
            syn[target][idx] = column.draw(idx, rng)
            bad = self.broken(target, syn, idx)
            rows = bad.any(axis=1)
            idx, bad = idx[rows], bad[rows]
            if not len(idx):
                return
        np.add.at(tally["forced"], where, bad.sum(axis=0))
        if self.schema[target].is_categorical:
            self._force_levels(target, syn, idx, column, rng)
        else:
            self._force_numbers(target, rules, syn, idx)
        np.add.at(tally["remaining"], where, self.broken(target, syn, idx).sum(axis=0))

    def _count_broken(self, target: str, syn: dict[str, np.ndarray], idx: np.ndarray,
                      candidates: np.ndarray) -> np.ndarray:
        """Constraints of ``target`` broken by each candidate (records x candidates)."""
        out = np.zeros(candidates.shape, dtype=np.int64)
        for k in range(candidates.shape[1]):
            syn[target][idx] = candidates[:, k]
            out[:, k] = self.broken(target, syn, idx).sum(axis=1)
        return out

    def _force_levels(self, target: str, syn: dict[str, np.ndarray], idx: np.ndarray,
                      column: ColumnDraw, rng: np.random.Generator) -> None:
        col = self.schema[target]
        n_levels = len(col.levels or ())
        dtype = syn[target].dtype
        codes = np.broadcast_to(np.arange(n_levels, dtype=dtype), (len(idx), n_levels))
        broken = self._count_broken(target, syn, idx, codes)
        allowed = broken == broken.min(axis=1, keepdims=True)
        w = np.asarray(column.level_weights(idx, rng), dtype=float)[:, :n_levels] * allowed
        none = w.sum(axis=1) == 0
        w[none] = allowed[none]
        cum = np.cumsum(w, axis=1)
        u = rng.random(len(idx)) * cum[:, -1]
        pick = np.minimum((cum <= u[:, None]).sum(axis=1), n_levels - 1)
        syn[target][idx] = pick.astype(dtype)

    def _force_numbers(self, target: str, rules: list[_Rule], syn: dict[str, np.ndarray],
                       idx: np.ndarray) -> None:
        col = self.schema[target]
        drawn = syn[target][idx].copy()
        integer = col.kind is Kind.COUNT
        cands: list[np.ndarray] = []
        n = len(idx)

        def up(v: np.ndarray) -> np.ndarray:
            return np.floor(v) + 1 if integer else np.nextafter(v, np.inf)

        def down(v: np.ndarray) -> np.ndarray:
            return np.ceil(v) - 1 if integer else np.nextafter(v, -np.inf)

        for rule in rules:
            frame = self._frame(rule, syn, idx)
            for atom in rule.atoms:
                if atom.values is not None:
                    vals = [np.full(n, float(v)) for v in atom.values
                            if isinstance(v, int | float | np.number) and not isinstance(v, bool)]
                    cands += vals
                    if atom.op is ast.NotIn:
                        cands += [up(v) for v in vals] + [down(v) for v in vals]
                    continue
                v = _values(atom.other, frame, rule.constraint.text, n)
                if atom.op in (ast.Eq, ast.LtE, ast.GtE):
                    cands.append(np.ceil(v) if integer and atom.op is ast.GtE else
                                 np.floor(v) if integer and atom.op is ast.LtE else v)
                if atom.op in (ast.Gt, ast.NotEq):
                    cands.append(up(v))
                if atom.op in (ast.Lt, ast.NotEq):
                    cands.append(down(v))
        if not cands:  # pragma: no cover - a numeric target always has an atom
            return
        matrix = np.column_stack([*cands, drawn])
        for k in range(matrix.shape[1]):
            matrix[:, k] = postprocess_numeric(matrix[:, k].copy(), col)
        broken = self._count_broken(target, syn, idx, matrix)
        broken[np.isnan(matrix)] = np.iinfo(np.int64).max  # a missing value is not a fix
        best = broken == broken.min(axis=1, keepdims=True)
        dist = np.abs(matrix - drawn[:, None])
        dist[~best | np.isnan(dist)] = np.inf
        choice = np.argmin(dist, axis=1)
        syn[target][idx] = matrix[np.arange(n), choice]


def _values(expr: str, frame: pd.DataFrame, text: str, n: int) -> np.ndarray:
    try:
        out = pd.eval(expr, engine="python", parser="pandas", resolvers=[_columns(frame)],
                      local_dict={}, global_dict={})
        arr = np.asarray(out, dtype=float)
    except Exception:
        raise ParameterError(
            f"constraint '{text}': a bound does not evaluate to numbers; compare numeric "
            f"columns with numbers or numeric expressions"
        ) from None
    return np.full(n, arr.item()) if arr.ndim == 0 else arr


def level_weights(
    method: Any, X: np.ndarray, n_codes: int, rng: np.random.Generator
) -> np.ndarray:
    """A categorical model's probability of each target code for each row of ``X``.

    ``predict_proba`` when the method has one (``polyreg``, ``logreg``: columns follow its
    ``classes_``); the share of each code among the confidential donors of the row's leaf
    for leaf methods (``cart``, whose draw picks a donor of the leaf uniformly); otherwise
    the frequencies of :data:`_MC_DRAWS` draws from the method (a Monte Carlo estimate).
    """
    n = X.shape[0]
    out = np.zeros((n, n_codes))
    if n == 0:
        return out
    proba = getattr(method, "predict_proba", None)
    classes = getattr(method, "classes_", None)
    if callable(proba) and classes is not None:
        p = np.asarray(proba(X), dtype=float)
        cls = np.asarray(classes, dtype=np.int64)
        if p.shape == (n, len(cls)) and cls.max(initial=0) < n_codes:
            out[:, cls] = p
            return out
    if callable(getattr(method, "leaf_index", None)) and hasattr(method, "donors_") \
            and getattr(method, "categorical_", False):
        leaf = np.asarray(method.leaf_index(X), dtype=np.int64)
        for lf in np.unique(leaf):
            s, size = int(method.leaf_start_[lf]), int(method.leaf_size_[lf])
            counts = np.bincount(np.asarray(method.donors_[s:s + size], dtype=np.int64),
                                 minlength=n_codes)[:n_codes]
            out[leaf == lf] = counts / max(size, 1)
        return out
    for _ in range(_MC_DRAWS):
        y = np.asarray(method.draw(X, rng), dtype=np.int64)
        ok = (y >= 0) & (y < n_codes)
        np.add.at(out, (np.flatnonzero(ok), y[ok]), 1.0)
    return out / _MC_DRAWS

