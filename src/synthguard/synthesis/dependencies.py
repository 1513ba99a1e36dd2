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

**Interval binnings.** A categorical column may be a binning of a numeric one (SD2011's
``agegr``, an age group, of ``age``) without being an exact function of it in the data (a few
records with the group missing), or with a numeric column of too many values to be a
determinant. :func:`interval_binnings` finds them: over the records where both are known,
each level's range of the numeric column ``[min_j, max_j]`` is disjoint from the others', so
the levels are ordered by it with ``max_j < min_{j+1}``, and at most 1% of the records
(:data:`MAX_BIN_MISMATCH`) have the numeric value but not the level. The break points are
then chosen to look public, not to repeat the data: the midpoint of each gap, ``(max_j +
min_{j+1}) / 2``, rounded to the fewest significant digits that keep it strictly inside the
gap (ages 24 | 25 give 24.5; incomes 29,400 | 35,100 give 30,000). They are still derived
from the confidential data, so a steward checks them against the levels' public
definitions (the labels "16-24", "25-34" say the same) before a release: ``init`` marks
them "guess: check". :func:`propose_methods` proposes ``passive:of=<numeric>:breaks=...``
(:class:`~synthguard.synthesis.methods.PassiveMethod`) for such a column visited after its
numeric source, when no exact dependency has already given it a method.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema, infer_schema

__all__ = [
    "MAX_BIN_MISMATCH",
    "Binning",
    "Dependency",
    "functional_dependencies",
    "interval_binnings",
    "propose_methods",
]

#: Largest share of records with the numeric value known and the level missing.
MAX_BIN_MISMATCH = 0.01


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


@dataclass(frozen=True)
class Binning:
    """``binned`` (categorical) is an interval binning of ``source`` (numeric): its levels
    ``levels`` (in the order of the source) fall in the intervals between ``breaks``."""

    source: str
    binned: str
    breaks: tuple[float, ...]
    levels: tuple[str, ...]

    @property
    def method(self) -> str:
        """The ``passive`` method text that derives ``binned`` from ``source``."""
        return f"passive:of={self.source}:breaks={','.join(_fmt(b) for b in self.breaks)}"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def public_break(low: float, high: float) -> float:
    """The midpoint of the gap ``(low, high)``, rounded to the fewest significant digits that
    keep it strictly inside (see the module docstring)."""
    mid = (low + high) / 2.0
    top = int(np.floor(np.log10(max(abs(mid), abs(high), 1e-12))))
    for d in range(-top, 16):
        c = round(mid, d)
        if low < c < high:
            return float(c)
    return float(mid)


def interval_binnings(
    data: pd.DataFrame,
    schema: Schema | None = None,
    *,
    max_levels: int = 100,
    min_records_per_level: float = 10.0,
) -> list[Binning]:
    """Every categorical column of ``data`` that is an interval binning of a numeric column
    (see the module docstring), with public-looking break points.

    A categorical column qualifies with 2 to ``max_levels`` levels present and at least
    ``min_records_per_level`` records per level on average; identifiers are skipped. Each
    categorical column is listed once, with the first numeric column (in column order) it
    bins.
    """
    schema = infer_schema(data) if schema is None else schema
    n = len(data)
    cols = [c for c in data.columns if c in schema and not schema[c].identifier]
    numeric = {c: pd.to_numeric(data[c], errors="coerce").to_numpy(dtype=np.float64)
               for c in cols if schema[c].is_numeric}
    out: list[Binning] = []
    for b in cols:
        if not schema[b].is_categorical:
            continue
        codes, uniques = pd.factorize(data[b])  # missing: -1
        k = len(uniques)
        if k < 2 or k > max_levels or n < min_records_per_level * k:
            continue
        for a, x in numeric.items():
            known = ~np.isnan(x)
            if np.count_nonzero(known & (codes < 0)) > MAX_BIN_MISMATCH * n:
                continue
            both = known & (codes >= 0)
            if not both.any():
                continue
            lo = np.full(k, np.inf)
            hi = np.full(k, -np.inf)
            np.minimum.at(lo, codes[both], x[both])
            np.maximum.at(hi, codes[both], x[both])
            present = np.isfinite(lo)
            if present.sum() < 2:
                continue
            order = np.flatnonzero(present)[np.argsort(lo[present], kind="stable")]
            if not np.all(hi[order[:-1]] < lo[order[1:]]):
                continue
            breaks = tuple(public_break(hi[i], lo[j]) for i, j in itertools.pairwise(order))
            out.append(Binning(a, b, breaks, tuple(str(uniques[i]) for i in order)))
            break
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
    dependency found for it; a one-to-one pair's later column is always passive. A column
    with no such proposal that is an interval binning of a numeric column visited before it
    (:func:`interval_binnings`) gets ``passive:of=<numeric>:breaks=<b1,b2,...>``. ``kwargs``
    go to :func:`functional_dependencies` and :func:`interval_binnings`.
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
    for bin_ in interval_binnings(data, schema, **kwargs):  # type: ignore[arg-type]
        if (bin_.binned in order and bin_.source in order and bin_.binned not in proposals
                and order[bin_.source] < order[bin_.binned]):
            proposals[bin_.binned] = bin_.method
    return {c: proposals[c] for c in visit if c in proposals}
