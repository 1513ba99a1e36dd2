"""Parameters declared once per class: their validation, their repr, and column lists.

* **Constraints** (scikit-learn's ``_parameter_constraints``, checked by ``_fit_context``): a
  class lists, per parameter, the kinds of value it accepts, and :func:`validate_params`
  checks the stored values against them before any work (``fit``), so no class writes the
  same ``if ... raise ParameterError`` lines by hand::

      class MSTSynthesizer(DPSynthesizer):
          _parameter_constraints = {
              "iters": [Interval(int, 1, None)],
              "conversion": [Options(CONVERSIONS)],
          }

  A value is valid when it meets any constraint of its list; otherwise a
  :class:`~synthguard.errors.ParameterError` names the class, the parameter, what it
  expected and the value given (a parameter, never a data value). Constraints of a class
  and of its bases add up (a subclass may tighten one parameter's list).

* :class:`ParamsRepr` - ``repr(obj)`` from the ``__init__`` signature: every parameter
  whose value differs from its default, in signature order, as scikit-learn's estimators
  print (``MSTSynthesizer(epsilon=1.0, iters=100)``).

* :func:`column_list` and :func:`require_columns` - a column name or a list of names as a
  list (types and duplicates checked), and the check that a frame has them, with one
  message everywhere.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from synthguard.errors import ParameterError

__all__ = [
    "Interval",
    "Options",
    "ParamsRepr",
    "column_list",
    "require_columns",
    "validate_params",
]


@dataclass(frozen=True)
class Interval:
    """A number of ``kind`` (``int`` or ``float``; bools are refused) in [low, high].

    ``low``/``high`` None leave that side open to infinity; ``closed`` says which ends belong
    to the interval: ``"both"`` (default), ``"left"``, ``"right"`` or ``"neither"``.
    A float interval refuses NaN and infinities.
    """

    kind: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        base = numbers.Integral if self.kind is int else numbers.Real
        if not isinstance(value, base):
            return False
        v = float(value)
        if not math.isfinite(v):
            return False
        if self.low is not None:
            if v < self.low or (v == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if v > self.high or (v == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def describe(self) -> str:
        what = "an integer" if self.kind is int else "a number"
        lo_op = ">=" if self.closed in ("both", "left") else ">"
        hi_op = "<=" if self.closed in ("both", "right") else "<"
        if self.low is not None and self.high is not None:
            lb = "[" if self.closed in ("both", "left") else "("
            rb = "]" if self.closed in ("both", "right") else ")"
            return f"{what} in {lb}{self.low:g}, {self.high:g}{rb}"
        if self.low is not None:
            return f"{what} {lo_op} {self.low:g}"
        if self.high is not None:
            return f"{what} {hi_op} {self.high:g}"
        return what


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (e.g. ``Options(("laplace", "discrete_laplace"))``)."""

    values: tuple[Any, ...]

    def __init__(self, values: Iterable[Any]) -> None:
        object.__setattr__(self, "values", tuple(values))

    def accepts(self, value: Any) -> bool:
        try:
            return any(value == v and type(value) is type(v) for v in self.values)
        except (TypeError, ValueError):
            return False

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


def _accepts(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, type):
        return isinstance(value, constraint) and not (
            constraint in (int, float) and isinstance(value, bool))
    if hasattr(constraint, "accepts"):
        return bool(constraint.accepts(value))
    if callable(constraint):  # a predicate, described by its docstring's first line
        return bool(constraint(value))
    raise TypeError(f"unknown parameter constraint {constraint!r}")


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return {bool: "True or False", str: "a string", int: "an integer", float: "a number",
                dict: "a mapping", list: "a list", tuple: "a tuple"}.get(
                    constraint, f"a {constraint.__name__}")
    if hasattr(constraint, "describe"):
        return str(constraint.describe())
    doc = (getattr(constraint, "__doc__", None) or "").strip().splitlines()
    return doc[0] if doc else getattr(constraint, "__name__", "a valid value")


_SHOWN_WIDTH = 60


def _shown(value: Any, width: int = _SHOWN_WIDTH) -> str:
    """``value`` for a repr or a message, about ``width`` characters at most.

    Shortened by whole items, never inside a word: a mapping or a sequence shows its first
    items and ``...`` for the rest (``{'a': 'cart', 'b': 'norm', ...}``); a string is shown
    whole; any other repr longer than ``width`` is cut at its last space or comma. Arrays
    and frames show their type only.
    """
    if hasattr(value, "shape"):
        return type(value).__name__
    if isinstance(value, Mapping):
        items = [f"{_shown(k, width)}: {_shown(v, width)}" for k, v in value.items()]
        return _joined("{", items, "}", width)
    if isinstance(value, list | tuple):
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        if isinstance(value, tuple) and len(value) == 1:
            close = ",)"
        return _joined(open_, [_shown(v, width) for v in value], close, width)
    text = repr(value)
    if isinstance(value, str) or len(text) <= width:
        return text
    cut = max(text.rfind(" ", 0, width), text.rfind(",", 0, width))
    return (text[:cut] if cut > 0 else text[:width]) + "..."


def _joined(open_: str, items: list[str], close: str, width: int) -> str:
    """``items`` between brackets; the items past ``width`` characters become ``...``
    (the first item is always shown)."""
    shown: list[str] = []
    length = len(open_) + len(close)
    for i, item in enumerate(items):
        if i and length + len(item) + 2 > width:
            shown.append("...")
            break
        shown.append(item)
        length += len(item) + 2
    return open_ + ", ".join(shown) + close


def constraints_of(cls: type) -> dict[str, list[Any]]:
    """The parameter constraints of ``cls`` and its bases (a subclass's entry wins)."""
    out: dict[str, list[Any]] = {}
    for klass in reversed(cls.__mro__):
        out.update(klass.__dict__.get("_parameter_constraints", {}))
    return out


def validate_params(obj: Any, constraints: Mapping[str, Sequence[Any]] | None = None, *,
                    owner: str | None = None) -> None:
    """Check ``obj``'s stored parameters against ``constraints`` (default: its class's
    ``_parameter_constraints`` and its bases'); raise one ParameterError naming every
    parameter out of range."""
    constraints = constraints_of(type(obj)) if constraints is None else constraints
    owner = owner or type(obj).__name__
    problems = []
    for name, allowed in constraints.items():
        value = getattr(obj, name)
        if not any(_accepts(c, value) for c in allowed):
            expected = " or ".join(_describe(c) for c in allowed)
            problems.append(f"parameter '{name}': expected {expected}; got {_shown(value)}")
    if len(problems) == 1:
        raise ParameterError(f"{owner}: {problems[0]}")
    if problems:
        raise ParameterError(f"{owner}: " + "; ".join(problems))


def _init_parameters(cls: type) -> list[inspect.Parameter]:
    """Keyword parameters of ``cls.__init__``, following ``**kwargs`` into the bases."""
    seen: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters.values()
        for p in params:
            if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                seen.setdefault(p.name, p)
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return list(seen.values())


def _equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        same = a == b
        return same if isinstance(same, bool) else False
    except Exception:  # arrays, frames: shown, not compared
        return False


class ParamsRepr:
    """``repr`` from the ``__init__`` signature: the parameters that differ from their
    defaults, in signature order (defaults are elided)."""

    _repr_hidden: ClassVar[tuple[str, ...]] = ()

    def __repr__(self) -> str:
        parts = []
        for p in _init_parameters(type(self)):
            if p.name in self._repr_hidden or not hasattr(self, p.name):
                continue
            value = getattr(self, p.name)
            if p.default is not p.empty and _equal(value, p.default):
                continue
            parts.append(f"{p.name}={_shown(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"


def column_list(value: str | Sequence[str] | None, param: str, *,
                required: bool = False) -> list[str]:
    """A column name or a sequence of names as a list (None: empty).

    Raises ParameterError naming ``param`` for a value that is not names, a name listed
    twice, and (``required=True``) no name at all.
    """
    if value is None:
        out: list[str] = []
    elif isinstance(value, str):
        out = [value]
    elif isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
        out = list(value)
        if not all(isinstance(v, str) for v in out):
            raise ParameterError(
                f"parameter '{param}': expected a column name or a list of column names "
                "(strings)")
    else:
        raise ParameterError(
            f"parameter '{param}': expected a column name or a list of column names, got "
            f"{type(value).__name__}")
    if len(set(out)) != len(out):
        raise ParameterError(f"parameter '{param}': a column is listed twice; list each once")
    if required and not out:
        raise ParameterError(f"parameter '{param}': name at least one column")
    return out


def require_columns(frame: Any, columns: Iterable[str], param: str | None = None, *,
                    role: str = "", where: str = "the data",
                    error: Callable[[str], Exception] = ParameterError) -> None:
    """Raise ``error`` naming every column of ``columns`` that ``frame`` lacks, the parameter
    (``param``) or the role the columns play (``role``: "key", "target"), and ``where``
    they were looked for ("the data", "synthetic implicate 2")."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        head = f"parameter '{param}': " if param else ""
        kind = f"{role} column(s)" if role else "column(s)"
        raise error(
            f"{head}{kind} {', '.join(map(repr, missing))} not in {where}; "
            f"pass names of columns present in {where}")
