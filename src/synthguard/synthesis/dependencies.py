"""Exact functional dependencies between columns, and the methods they call for.

A column ``b`` is a *function* of a column ``a`` in the data when records that share ``a``'s
value always share ``b``'s (Adult's ``education_num`` of ``education``; ``country`` of
``region``). Modelling ``b`` then wastes a model and, worse, can release pairs that never
occur (a region in the wrong country). Instead:

* ``b`` visited after ``a``: ``b`` is ``passive:of=a`` (looked up from ``a``'s synthetic
  value, exactly consistent);
* ``b`` visited before ``a`` and ``a`` a function of ``b`` too (one-to-one): ``a`` is
  ``passive:of=b``;
* ``b`` visited before ``a`` (``a`` the finer, ``b`` the coarser parent): ``a`` is
  ``nested:parent=b`` (drawn within its synthesized parent).

:func:`functional_dependencies` finds the dependencies; :func:`propose_methods` turns them
into a ``methods`` mapping for :class:`~synthguard.synthesis.Synthesizer` (and ``synthguard
init`` writes it into the plan it drafts).

A determinant needs enough records per value for a dependency to be evidence rather than
chance: with one record per value every column is a "function" of it. Only columns with at
most ``max_levels`` distinct values and at least ``min_records_per_level`` records per value
on average are tried as determinants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema, infer_schema

__all__ = ["Dependency", "functional_dependencies", "propose_methods"]


@dataclass(frozen=True)
class Dependency:
    """``dependent`` is a function of ``determinant`` in the data.

    ``one_to_one`` is True when ``determinant`` is a function of ``dependent`` as well (two
    codings of the same thing, as Adult's ``education`` and ``education_num``).
    """

    determinant: str
    dependent: str
    one_to_one: bool


def _codes(s: pd.Series) -> tuple[np.ndarray, int]:
    codes, uniques = pd.factorize(s, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64), len(uniques)


def functional_dependencies(
    data: pd.DataFrame,
    schema: Schema | None = None,
    *,
    max_levels: int = 100,
    min_records_per_level: float = 10.0,
) -> list[Dependency]:
    """Every exact dependency ``dependent = f(determinant)`` between two columns of ``data``.

    ``b`` is a function of ``a`` exactly when the number of distinct ``(a, b)`` pairs equals
    the number of distinct ``a`` values (missing values count as a value). Identifiers (per
    the schema) and columns with one value are skipped; determinants must pass the
    ``max_levels`` and ``min_records_per_level`` rule of the module docstring. Pairs are
    listed in column order, each unordered pair once (its one-to-one flag says whether the
    other direction holds).
    """
    schema = infer_schema(data) if schema is None else schema
    n = len(data)
    cols = [c for c in data.columns if c in schema and not schema[c].identifier]
    codes: dict[str, tuple[np.ndarray, int]] = {c: _codes(data[c]) for c in cols}
    cols = [c for c in cols if codes[c][1] >= 2]
    det_ok = {
        c: codes[c][1] <= max_levels and n >= min_records_per_level * codes[c][1] for c in cols
    }

    def is_function(a: str, b: str) -> bool:
        ca, ka = codes[a]
        cb, kb = codes[b]
        if kb > ka:
            return False
        return len(np.unique(ca * kb + cb)) == ka

    out: list[Dependency] = []
    for i, a in enumerate(cols):
        for b in cols[i + 1:]:
            ab = det_ok[a] and is_function(a, b)
            ba = det_ok[b] and is_function(b, a)
            if ab and ba:
                out.append(Dependency(a, b, True))
            elif ab:
                out.append(Dependency(a, b, False))
            elif ba:
                out.append(Dependency(b, a, False))
    return out


def propose_methods(
    data: pd.DataFrame,
    schema: Schema | None = None,
    visit_sequence: Sequence[str] | None = None,
    **kwargs: float,
) -> dict[str, str]:
    """A ``methods`` mapping that declares each exact dependency instead of modelling it.

    Columns are taken in ``visit_sequence`` (default: the data's order). For each dependency
    whose columns are both visited, the later column gets ``passive:of=<earlier>`` when it
    is a function of the earlier one, else ``nested:parent=<earlier>`` (the earlier is then a
    function of it: its coarser parent). A column gets at most one proposal, from the first
    dependency found for it; a one-to-one pair's later column is always passive. ``kwargs``
    go to :func:`functional_dependencies`.
    """
    visit = list(data.columns) if visit_sequence is None else list(visit_sequence)
    order = {c: i for i, c in enumerate(visit)}
    proposals: dict[str, str] = {}
    deps = functional_dependencies(data, schema, **kwargs)  # type: ignore[arg-type]
    # one-to-one pairs and lookups first: passive is exact, nested only keeps the nesting
    for want_passive in (True, False):
        for d in deps:
            if d.determinant not in order or d.dependent not in order:
                continue
            a, b = d.determinant, d.dependent
            if d.one_to_one or order[a] < order[b]:
                early, late = (a, b) if order[a] < order[b] else (b, a)
                if want_passive and late not in proposals:
                    proposals[late] = f"passive:of={early}"
            elif not want_passive and a not in proposals:
                # b (coarser) is visited first; a is drawn within it
                proposals[a] = f"nested:parent={b}"
    return {c: proposals[c] for c in visit if c in proposals}
