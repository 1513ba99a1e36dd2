"""Constraints: rules every record of a release must keep, and how often data break them.

A constraint is a text ``"<requirement>"`` or ``"<condition> -> <requirement>"`` over column
names, in the expression language of :func:`pandas.eval` (comparisons ``== != < <= > >=``,
``in`` / ``not in`` lists, arithmetic, ``& | ~`` and ``and or not``; a name with spaces is
written in backticks)::

    "relationship == 'Husband' -> sex == 'Male'"
    "age < 16 -> marital == 'single'"
    "income >= 0"
    "expenditure <= income"
    "capital_gain > 0 -> capital_loss == 0"

A record is **subject to** a constraint when none of the columns it names is missing there
and its condition holds (no condition: always); it **breaks** it when it is subject to it and
the requirement does not hold. A constraint says nothing about missing values: a record with
a missing value in one of its columns is not subject to it.

Many simple rules can be given at once as a **table** (a DataFrame or a list of mappings) with
the columns ``variable``, ``minimum``, ``maximum``, ``allowed`` (a list of values or a text
``"a; b; c"``) and ``condition`` (optional), as the Urban Institute's tidysynthesis
constraints are (Bowen, Snoke, et al.): each row becomes the constraint
``"<condition> -> <minimum> <= variable <= <maximum>"`` (or ``variable in [allowed]``).

The same rules are synthpop's ``rules``/``rvalues`` (Nowok, Raab & Dibben 2016: a variable
held at a value when a condition holds) and SDV's inequality, range and fixed-combination
constraints, in one notation. How the synthesizer keeps them is in
:mod:`synthguard.synthesis.enforce`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.household_rules import MemberTerms, member_frame, rewrite_members
from synthguard.errors import DataError, FileFormatError, ParameterError

__all__ = [
    "Constraint",
    "check_constraints",
    "load_constraints",
    "parse_constraints",
    "rounded_count",
]

#: Column names of a constraint table.
TABLE_COLUMNS = ("variable", "minimum", "maximum", "allowed", "condition")

#: Functions :func:`pandas.eval` knows; any other call is refused.
_FUNCTIONS = frozenset({
    "abs", "sqrt", "log", "log1p", "exp", "expm1", "sin", "cos", "tan", "floor", "ceil",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
})

_BACKTICK = re.compile(r"`([^`]*)`")


@dataclass(frozen=True)
class Constraint:
    """One parsed constraint.

    Attributes
    ----------
    text : the constraint as given (or as built from a table row).
    condition : the expression before ``->`` (None: the rule always applies).
    requirement : the expression after ``->`` (or the whole text).
    columns : the columns it names, in order of first appearance.
    members : the member terms (``count(...)``, ``head.<column>``) of a rule within a
        household (:mod:`synthguard.data.household_rules`); empty for a plain constraint.
    """

    text: str
    condition: str | None
    requirement: str
    columns: tuple[str, ...]
    members: MemberTerms = field(default_factory=MemberTerms)

    def _names(self) -> dict[str, str]:
        """Column -> identifier used in the parsed (backtick-free) expressions."""
        return {c: _identifier(c, i) for i, c in enumerate(self.columns)}

    def expressions(self) -> tuple[str | None, str]:
        """Condition and requirement with backticked names replaced by identifiers (the
        frame given to :meth:`holds` and :meth:`applies` uses the same identifiers)."""
        names = self._names()
        cond = None if self.condition is None else _rename(self.condition, names)
        return cond, _rename(self.requirement, names)

    def frame(self, data: Mapping[str, Any] | pd.DataFrame) -> pd.DataFrame:
        """A frame of this constraint's columns, named by their identifiers."""
        names = self._names()
        return pd.DataFrame({names[c]: data[c] for c in self.columns}, copy=False)

    def evaluate(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """``(applies, breaks)``: boolean arrays over the rows of ``frame`` (built by
        :meth:`frame`)."""
        n = len(frame)
        cond, req = self.expressions()
        applies = np.asarray(~frame.isna().to_numpy().any(axis=1), dtype=bool)
        if not frame.shape[1]:  # pragma: no cover - a constraint names a column
            applies = np.ones(n, dtype=bool)
        if cond is not None:
            applies &= _eval(cond, frame, self.text)
        breaks: np.ndarray = applies & ~_eval(req, frame, self.text)
        return applies, breaks

    def evaluate_in(
        self, data: pd.DataFrame, household: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(applies, breaks)`` over the records of ``data``; a rule with member terms reads
        the households of the ``household`` id column (required for it)."""
        frame = self.frame(data)
        if self.members:
            if household is None:
                raise ParameterError(
                    f"constraint '{self.text}' counts or reads household members: give the "
                    f"household id (household=...)")
            for name, values in member_frame(data, household, self.members, self.text).items():
                frame[name] = values
        return self.evaluate(frame)


def _identifier(column: str, i: int) -> str:
    return column if column.isidentifier() and not column.startswith("_") else f"_sg_col{i}_"


def _rename(expr: str, names: Mapping[str, str]) -> str:
    return _BACKTICK.sub(lambda m: names.get(m.group(1), m.group(0)), expr)


def _eval(expr: str, frame: pd.DataFrame, text: str) -> np.ndarray:
    """Evaluate ``expr`` on ``frame`` with pandas.eval's semantics (python engine): a boolean
    array over the rows. Names resolve to the frame's columns only."""
    n = len(frame)
    try:
        out = pd.eval(
            expr, engine="python", parser="pandas", resolvers=[_columns(frame)],
            local_dict={}, global_dict={},
        )
    except Exception as e:  # pandas raises many types; name the constraint, not the data
        raise ParameterError(
            f"constraint '{text}' cannot be evaluated ({type(e).__name__}); check its "
            f"operators and that values are compared with columns of the same kind"
        ) from None
    arr = np.asarray(out)
    if arr.ndim == 0:
        arr = np.full(n, arr.item())
    if arr.dtype != bool:
        if arr.dtype == object and all(isinstance(v, bool | np.bool_) for v in arr):
            arr = arr.astype(bool)
        else:
            raise ParameterError(
                f"constraint '{text}': an expression does not give true or false for each "
                f"record; write comparisons such as 'income >= 0'"
            )
    return arr


def _columns(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """The frame's columns as a mapping, for pandas.eval's resolvers."""
    return {str(c): frame[c] for c in frame.columns}


def _split_arrow(text: str) -> tuple[str | None, str]:
    """Split at the ``->`` outside quotes; None when there is none."""
    quote: str | None = None
    found = -1
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif text.startswith("->", i):
            if found >= 0:
                raise ParameterError(
                    f"constraint '{text}': more than one '->'; write one "
                    f"'<condition> -> <requirement>' (join conditions with '&')"
                )
            found = i
            i += 1
        i += 1
    if found < 0:
        return None, text.strip()
    return text[:found].strip(), text[found + 2:].strip()


def _names_in(expr: str, text: str) -> list[str]:
    """Column names in ``expr`` (backticked or plain identifiers), in order."""
    backticked = _BACKTICK.findall(expr)
    placeholder = {b: f"_sg_bt{i}_" for i, b in enumerate(dict.fromkeys(backticked))}
    plain = _BACKTICK.sub(lambda m: placeholder[m.group(1)], expr)
    if "@" in plain:
        raise ParameterError(
            f"constraint '{text}': '@' (local variables) is not allowed; write the value"
        )
    try:
        tree = ast.parse(plain.replace("\n", " "), mode="eval")
    except SyntaxError:
        raise ParameterError(
            f"constraint '{text}' does not parse; write '<requirement>' or "
            f"'<condition> -> <requirement>' with pandas.eval operators, e.g. "
            f"\"age < 16 -> marital == 'single'\""
        ) from None
    back = {v: k for k, v in placeholder.items()}
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS):
                raise ParameterError(
                    f"constraint '{text}': only the functions {', '.join(sorted(_FUNCTIONS))} "
                    f"may be called"
                )
        elif isinstance(node, ast.Name) and id(node) not in calls:
            out.append(back.get(node.id, node.id))
    # ast.walk is breadth-first: order by position in the text instead
    return sorted(dict.fromkeys(out), key=lambda c: _position(expr, c))


def _position(expr: str, column: str) -> int:
    i = expr.find(f"`{column}`")
    if i < 0:
        m = re.search(rf"(?<![\w`]){re.escape(column)}(?![\w`])", expr)
        i = m.start() if m else len(expr)
    return i


def _from_text(text: str, columns: Sequence[str] | None) -> Constraint:
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(
            "parameter 'constraints': expected texts such as \"income >= 0\" or "
            "\"<condition> -> <requirement>\", or a table of rules"
        )
    text = " ".join(text.split())
    written, terms = rewrite_members(text)
    cond, req = _split_arrow(written)
    if cond == "" or req == "":
        raise ParameterError(
            f"constraint '{text}': a side of '->' is empty; write "
            f"'<condition> -> <requirement>'"
        )
    names: list[str] = []
    for part in (cond, req):
        if part is not None:
            names += _names_in(part, text)
    derived = set(terms.derived)
    inner = [n for _, e in terms.counts for n in _names_in(e, text)]
    names = list(dict.fromkeys([n for n in names if n not in derived] + inner
                               + [c for _, c in terms.heads]))
    if columns is not None:
        unknown = [c for c in names if c not in set(columns)]
        if unknown:
            raise ParameterError(
                f"constraint '{text}' names columns that are not in the data: "
                f"{', '.join(unknown)}; check the spelling (names with spaces go in backticks)"
            )
    if not names:
        raise ParameterError(f"constraint '{text}' names no column")
    return Constraint(text=text, condition=cond, requirement=req, columns=tuple(names),
                      members=terms)


def _quote(name: str) -> str:
    return name if name.isidentifier() else f"`{name}`"


def _literal(v: Any) -> str:
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, int | np.integer):
        return str(int(v))
    if isinstance(v, float | np.floating):
        return str(int(v)) if float(v).is_integer() else repr(float(v))
    raise ParameterError(
        "constraint table: values must be numbers or text"
    )


def _blank(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and np.isnan(v):
        return True
    return isinstance(v, str) and not v.strip()


def _from_row(row: Mapping[str, Any], i: int) -> str:
    unknown = [k for k in row if k not in TABLE_COLUMNS]
    if unknown:
        raise ParameterError(
            f"constraint table row {i + 1}: unknown fields {', '.join(map(str, unknown))}; "
            f"use {', '.join(TABLE_COLUMNS)}"
        )
    var = row.get("variable")
    if _blank(var) or not isinstance(var, str):
        raise ParameterError(f"constraint table row {i + 1}: 'variable' must name a column")
    name = _quote(var)
    parts = []
    lo, hi, allowed = row.get("minimum"), row.get("maximum"), row.get("allowed")
    if not _blank(lo):
        parts.append(f"{name} >= {_literal(lo)}")
    if not _blank(hi):
        parts.append(f"{name} <= {_literal(hi)}")
    if isinstance(allowed, np.ndarray):
        allowed = allowed.tolist()
    if not _blank(allowed) if not isinstance(allowed, list | tuple) else bool(allowed):
        values = (
            [a.strip() for a in allowed.split(";") if a.strip()]
            if isinstance(allowed, str) else list(allowed or ())
        )
        parts.append(f"{name} in [{', '.join(_literal(v) for v in values)}]")
    if not parts:
        raise ParameterError(
            f"constraint table row {i + 1}: give a minimum, a maximum or allowed values"
        )
    req = " & ".join(f"({p})" if len(parts) > 1 else p for p in parts)
    cond = row.get("condition")
    if _blank(cond):
        return req
    if not isinstance(cond, str):
        raise ParameterError(f"constraint table row {i + 1}: 'condition' must be a text")
    return f"{cond} -> {req}"


def parse_constraints(spec: Any, columns: Sequence[str] | None = None) -> list[Constraint]:
    """Parse constraints given as a text, a list of texts, a table or parsed constraints.

    Parameters
    ----------
    spec : str, Constraint, sequence of them, DataFrame or sequence of mappings
        Texts ``"<requirement>"`` / ``"<condition> -> <requirement>"``, or table rows with
        the fields ``variable``, ``minimum``, ``maximum``, ``allowed``, ``condition`` (see
        the module docstring). None gives no constraints.
    columns : sequence of str, optional
        The data's columns: a constraint naming another column is refused.

    Raises
    ------
    ParameterError
        A constraint that does not parse, names unknown columns, calls another function than
        pandas.eval's, or a table row without a bound. The message quotes the constraint as
        the user wrote it, never data.

    Examples
    --------
    >>> [c.columns for c in parse_constraints(["age < 16 -> marital == 'single'"])]
    [('age', 'marital')]
    """
    if spec is None:
        return []
    if isinstance(spec, str | Constraint):
        spec = [spec]
    if isinstance(spec, pd.DataFrame):
        spec = spec.to_dict(orient="records")
    if isinstance(spec, Mapping):
        raise ParameterError(
            "parameter 'constraints': expected a list of texts or table rows, not one mapping"
        )
    if not isinstance(spec, Iterable):
        raise ParameterError(
            "parameter 'constraints': expected texts such as \"income >= 0\" or a table of rules"
        )
    out: list[Constraint] = []
    for i, item in enumerate(spec):
        if isinstance(item, Constraint):
            c = _from_text(item.text, columns)
        elif isinstance(item, Mapping):
            c = _from_text(_from_row(item, i), columns)
        else:
            c = _from_text(item, columns)
        if c.text not in {o.text for o in out}:
            out.append(c)
    return out


def check_constraints(
    data: pd.DataFrame, constraints: Any, *, household: str | None = None
) -> pd.DataFrame:
    """How many records of ``data`` each constraint applies to, and how many break it.

    Parameters
    ----------
    data : DataFrame
        Confidential data or one implicate of a release.
    constraints : see :func:`parse_constraints`
    household : str, optional
        The household id column: needed by rules within a household (``count(...)``,
        ``head.<column>``; :mod:`synthguard.data.household_rules`).

    Returns
    -------
    DataFrame
        One row per constraint (index: the constraint's text) with ``applies_to`` (records
        subject to it: condition true, none of its columns missing), ``violations`` (records
        subject to it whose requirement is false) and ``share`` (violations / applies_to; NaN
        when it applies to none).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [10, 30, 12], "marital": ["single", "married", "married"]})
    >>> check_constraints(df, "age < 16 -> marital == 'single'").iloc[0].tolist()
    [2.0, 1.0, 0.5]
    """
    if not isinstance(data, pd.DataFrame):
        raise DataError("check_constraints: expected a pandas DataFrame")
    parsed = parse_constraints(constraints, list(data.columns))
    rows = []
    for c in parsed:
        applies, breaks = c.evaluate_in(data, household)
        a, b = int(applies.sum()), int(breaks.sum())
        rows.append((c.text, a, b, b / a if a else np.nan))
    out = pd.DataFrame(rows, columns=["constraint", "applies_to", "violations", "share"])
    return out.set_index("constraint").astype(
        {"applies_to": np.int64, "violations": np.int64, "share": float}
    )


def rounded_count(n: int, min_cell: int = 10) -> str:
    """A count of confidential records for a message, as the report prints counts of
    confidential cells: exact at ``min_cell`` or more, else ``"fewer than min_cell"``."""
    if 0 < n < min_cell:
        return f"fewer than {min_cell}"
    return f"{int(n):,}"


def load_constraints(path: Any) -> list[Constraint]:
    """Read constraints from a YAML file (a list of texts and/or table rows, or a mapping
    with a ``constraints:`` list) or a table file (CSV, Parquet, ...: the columns
    ``variable``, ``minimum``, ``maximum``, ``allowed``, ``condition``).

    Raises
    ------
    FileFormatError
        A file that cannot be read or holds something else.
    ParameterError
        A constraint that does not parse (see :func:`parse_constraints`).
    """
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise FileFormatError(f"constraints file '{p.name}' does not exist; check the path")
    if p.suffix.lower() in (".yaml", ".yml"):
        from synthguard.data.safe_load import read_yaml

        spec = read_yaml(p, source=f"constraints file '{p.name}'", what="a constraints file",
                         hint="write a list of constraints, one "
                              "'- \"<condition> -> <requirement>\"' per line")
        if isinstance(spec, Mapping):
            if set(spec) != {"constraints"}:
                raise FileFormatError(
                    f"constraints file '{p.name}': expected a list, or one key "
                    f"'constraints:' holding the list"
                )
            spec = spec["constraints"]
        if not isinstance(spec, list):
            raise FileFormatError(
                f"constraints file '{p.name}': expected a list of constraints"
            )
        return parse_constraints(spec)
    from synthguard.data.io import read_table

    return parse_constraints(read_table(p))
