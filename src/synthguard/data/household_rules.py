"""Rules that hold within a household: constraints written in terms of the members.

A constraint (:mod:`synthguard.data.constraints`) may name two **member terms** besides
columns, when the data hold persons within households (a household id column):

``count(<expression>)``
    the number of members of the record's household for whom ``<expression>`` holds (a
    plain expression over the persons' columns; a member with a missing value there is not
    counted);
``head.<column>``
    the value of ``<column>`` for the household's **head**: its first member as listed (a
    household release lists its members head first; sort the data so before checking it).

Each record is then checked as for any constraint, with these terms read for its household::

    "relat == 1 -> count(relat == 1) == 1"      # exactly one head
    "count(relat == 1) == 1"                    # the same, for every member
    "relat == 2 -> age >= 16"                   # a partner of the head is at least 16
    "relat == 3 -> age < head.age"              # a child of the head is younger than the head

A record **breaks** a rule as it breaks a constraint; :func:`household_violations` also counts
the households with at least one breaking member. The rules are rewritten into constraints
over derived columns (``_sg_count<i>_``, ``_sg_head<j>_``) that :func:`member_frame` computes
per household, so the person-level machinery (:class:`~synthguard.data.constraints.Constraint`)
evaluates them unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.errors import ParameterError

__all__ = ["MemberTerms", "household_violations", "member_frame", "rewrite_members"]

_HEAD = re.compile(r"(?<![\w`.])head\.(`[^`]+`|[A-Za-z_]\w*)")
_COUNT = re.compile(r"(?<![\w`.])count\s*\(")


@dataclass(frozen=True)
class MemberTerms:
    """The member terms of one rule, rewritten.

    Attributes
    ----------
    counts : (derived name, inner expression) per ``count(...)``.
    heads : (derived name, column) per ``head.<column>``.
    """

    counts: tuple[tuple[str, str], ...] = ()
    heads: tuple[tuple[str, str], ...] = ()

    @property
    def derived(self) -> tuple[str, ...]:
        """The derived column names the rewritten rule reads."""
        return tuple(n for n, _ in self.counts) + tuple(n for n, _ in self.heads)

    def __bool__(self) -> bool:
        return bool(self.counts or self.heads)


def _outside_quotes(text: str) -> list[bool]:
    """Per character: True when it lies outside a quoted text literal."""
    out, quote = [], None
    for ch in text:
        if quote:
            out.append(False)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            out.append(False)
        else:
            out.append(True)
    return out


def rewrite_members(text: str) -> tuple[str, MemberTerms]:
    """Replace the member terms of ``text`` by derived column names.

    Returns the rewritten text and its :class:`MemberTerms` (empty: a plain constraint).

    Examples
    --------
    >>> rewrite_members("relat == 3 -> age < head.age")
    ('relat == 3 -> age < _sg_head0_', MemberTerms(counts=(), heads=(('_sg_head0_', 'age'),)))
    """
    counts: list[tuple[str, str]] = []
    out = text
    while True:
        free = _outside_quotes(out)
        m = next((m for m in _COUNT.finditer(out) if free[m.start()]), None)
        if m is None:
            break
        depth, j = 1, m.end()
        while j < len(out) and depth:
            if free[j]:
                depth += {"(": 1, ")": -1}.get(out[j], 0)
            j += 1
        inner = out[m.end():j - 1].strip()
        if depth or not inner:
            raise ParameterError(
                f"constraint '{text}': write count(<expression>) with one expression over "
                f"the members' columns, e.g. count(relat == 1)")
        if _COUNT.search(inner) or _HEAD.search(inner):
            raise ParameterError(
                f"constraint '{text}': count(...) holds a plain expression over the members' "
                f"columns, without count or head. inside it")
        name = f"_sg_count{len(counts)}_"
        counts.append((name, inner))
        out = out[:m.start()] + name + out[j:]
    heads: dict[str, str] = {}

    def head(m: re.Match[str]) -> str:
        col = m.group(1).strip("`")
        heads.setdefault(col, f"_sg_head{len(heads)}_")
        return heads[col]

    free = _outside_quotes(out)
    pieces, last = [], 0
    for m in _HEAD.finditer(out):
        if free[m.start()]:
            pieces += [out[last:m.start()], head(m)]
            last = m.end()
    out = "".join(pieces) + out[last:]
    return out, MemberTerms(tuple(counts), tuple((n, c) for c, n in heads.items()))


def member_frame(
    data: pd.DataFrame, household: str, terms: MemberTerms, text: str
) -> dict[str, np.ndarray]:
    """The derived columns of ``terms`` for every record of ``data``: per household, the count
    of members meeting each ``count`` expression and the head's (first member's) values."""
    from synthguard.data.constraints import _eval, _from_text

    if household not in data.columns:
        raise ParameterError(
            f"constraint '{text}' counts or reads household members: give the household id "
            f"(household=...) whose column is in the data")
    hid = data[household].to_numpy()
    codes, first = pd.factorize(hid, sort=False)[0], None
    out: dict[str, np.ndarray] = {}
    for name, inner in terms.counts:
        c = _from_text(inner, list(data.columns))
        applies = np.asarray(~c.frame(data).isna().to_numpy().any(axis=1), dtype=bool)
        holds = applies & _eval(c.expressions()[1], c.frame(data), text)
        per = np.bincount(codes, weights=holds.astype(np.float64), minlength=codes.max() + 1
                          if len(codes) else 0)
        out[name] = per[codes].astype(np.int64)
    for name, col in terms.heads:
        if col not in data.columns:
            raise ParameterError(
                f"constraint '{text}' names columns that are not in the data: {col}; check "
                f"the spelling (names with spaces go in backticks)")
        if first is None:
            _, first = np.unique(codes, return_index=True)
        values = data[col].to_numpy()
        out[name] = values[first][codes]
    return out


def household_violations(
    data: pd.DataFrame, household: str, constraints: Sequence[object]
) -> pd.DataFrame:
    """Per constraint: records it applies to, records breaking it, and households with at
    least one breaking member (``applies_to``, ``violations``, ``households``)."""
    from synthguard.data.constraints import Constraint, parse_constraints

    parsed: list[Constraint] = parse_constraints(list(constraints), list(data.columns))
    codes = pd.factorize(data[household].to_numpy(), sort=False)[0]
    rows = []
    for c in parsed:
        applies, breaks = c.evaluate_in(data, household)
        a, b = int(applies.sum()), int(breaks.sum())
        rows.append((c.text, a, b, int(np.unique(codes[breaks]).size)))
    out = pd.DataFrame(rows, columns=["constraint", "applies_to", "violations", "households"])
    return out.set_index("constraint").astype(np.int64)
