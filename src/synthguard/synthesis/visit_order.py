"""A visit sequence chosen for utility when the user gives none (``visit_sequence="auto"``).

The order of a sequential synthesis matters: each column is drawn from a model of the
columns visited before it, so a column visited early with nothing to predict it is drawn
from its marginal, and a column whose good predictors come after it loses their relation.
Bowen, Liu & Su (2021) choose the order from the data; the course presents the idea. The
rule here is a documented greedy score on the normalized mutual information between columns:

* every column is discretised (numbers in at most ``bins`` quantile bins, categories as they
  are, a missing value as one more level), and for each pair the normalized mutual information
  ``NMI(a, b) = I(a; b) / sqrt(H(a) H(b))`` is computed from their cross-table (0: independent,
  1: each determines the other);
* the **first** column is the one with the largest total NMI with all the others (the one
  the rest depend on most: drawn from its marginal, exactly as ``sample`` does, it anchors
  the others' models);
* each **next** column is the remaining one with the largest total NMI with the columns
  already visited (and the kept columns): the one its predictors explain best. Ties go to
  the data's order. A ``passive`` or ``nested`` column waits for its sources (a passive
  column defined by a formula or function goes last).

:func:`propose_visit_sequence` returns the order and the scores, so the choice can be shown
(``Synthesizer(visit_sequence="auto")`` records it as ``visit_order_`` and in the release's
provenance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError

__all__ = [
    "VisitOrder", "method_sources", "normalized_mutual_information", "propose_visit_sequence",
]


def method_sources(method: object) -> list[str] | None:
    """The columns a method must follow: a ``passive`` lookup's ``of``, a ``nested``
    column's ``parent``, a ``catall``/``ipf`` block's earlier columns are free; ``None`` for
    a passive formula or function (unknown sources); ``[]`` for every other method."""
    from synthguard.synthesis.methods.columns import split_names

    name = getattr(method, "name", "")
    if name == "passive":
        of = getattr(method, "of", None)
        return None if of is None else split_names(of, "of", name)
    if name == "nested":
        parent = getattr(method, "parent", None)
        return [] if parent is None else split_names(parent, "parent", name)
    return []


@dataclass(frozen=True)
class VisitOrder(Summarized):
    """A proposed visit sequence and its scores.

    ``order``: the columns in the proposed order. ``scores``: one row per column in that
    order, with ``score`` (the total NMI with the columns visited or kept before it; for the
    first column, with all others) and ``rule``.
    """

    order: tuple[str, ...]
    scores: pd.DataFrame = field(repr=False)

    def summary(self) -> str:
        """The order with each column's score, one line each."""
        lines = ["visit sequence chosen by normalized mutual information (greedy):"]
        for i, row in enumerate(self.scores.itertuples(index=False), start=1):
            lines.append(f"  {i:>2}. {row.column}: {row.score:.4f} ({row.rule})")
        return "\n".join(lines)


def _discretise(s: pd.Series, bins: int) -> np.ndarray:
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype) \
            and s.nunique(dropna=True) > bins:
        codes = pd.qcut(s.rank(method="first"), q=bins, labels=False)
        out = np.asarray(codes.fillna(-1), dtype=np.int64)
    else:
        out = np.asarray(pd.factorize(s, use_na_sentinel=True)[0], dtype=np.int64)
    return out + 1  # missing (-1) becomes level 0


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def normalized_mutual_information(a: np.ndarray, b: np.ndarray) -> float:
    """``I(a; b) / sqrt(H(a) H(b))`` of two integer-coded columns (0 if either is constant)."""
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    table = np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb).astype(float)
    ha, hb = _entropy(table.sum(axis=1)), _entropy(table.sum(axis=0))
    if ha <= 0 or hb <= 0:
        return 0.0
    mi = ha + hb - _entropy(table.ravel())
    return float(max(mi, 0.0) / np.sqrt(ha * hb))


def propose_visit_sequence(
    data: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    fixed: Sequence[str] = (),
    bins: int = 10,
    after: Mapping[str, Sequence[str] | None] | None = None,
) -> VisitOrder:
    """Order ``columns`` (default: all of ``data``'s) by the greedy NMI rule of the module
    docstring; ``fixed`` columns (kept, strata) count as visited before all of them.

    ``after`` maps a column to the columns it must follow (a ``passive`` column's sources, a
    ``nested`` column's parent), or to None when they are unknown (a formula): such a column
    is eligible only once they are visited, and a None one goes last.
    """
    cols = list(data.columns) if columns is None else list(columns)
    fixed = [c for c in fixed if c not in cols]
    unknown = [c for c in cols + fixed if c not in data.columns]
    if unknown:
        raise ParameterError(
            f"visit order: columns not in the data: {', '.join(unknown)}; check the spelling"
        )
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
        raise ParameterError("visit order: 'bins' must be an integer >= 2")
    every = cols + fixed
    codes = {c: _discretise(data[c], bins) for c in every}
    k = len(every)
    nmi = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            nmi[i, j] = nmi[j, i] = normalized_mutual_information(codes[every[i]], codes[every[j]])
    index = {c: i for i, c in enumerate(every)}
    chosen: list[str] = []
    rows: list[dict[str, object]] = []
    remaining = list(cols)
    done = [index[c] for c in fixed]
    after = dict(after or {})
    while remaining:
        ready = [c for c in remaining if after.get(c, ()) is not None
                 and all(p in chosen or p in fixed or p not in cols for p in after.get(c) or ())]
        eligible = ready or [c for c in remaining if after.get(c, ()) is None] or remaining
        if not done:
            totals = [nmi[index[c]].sum() for c in eligible]
            rule = "largest total NMI with all other columns"
        else:
            totals = [nmi[index[c], done].sum() for c in eligible]
            rule = "largest total NMI with the columns before it"
        best = int(np.argmax(totals))  # first maximum: ties go to the data's order
        c = eligible[best]
        remaining.remove(c)
        chosen.append(c)
        rows.append({"column": c, "score": float(totals[best]), "rule": rule})
        done.append(index[c])
    return VisitOrder(tuple(chosen), pd.DataFrame(rows, columns=["column", "score", "rule"]))
