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

``rule="importance"`` (``visit_sequence="importance"``) is the course's own suggestion: Bowen,
Liu & Su (2021) rank the variables by their importance for statistical utility and synthesize
the most important first ("the earlier in the order a variable is synthesized, the better the
original information is preserved", course §2.4). Importance is measured here as the mean,
over every column as a target, of each other column's impurity importance in a random forest
predicting that target from the others (Breiman 2001), on the discretised columns above; the
columns are visited from the most important down. The forest is seeded (``random_state``), so
the order is reproducible.
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
    "variable_importance",
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
        how = ("variable importance" if self.scores["rule"].str.startswith("variable").any()
               else "normalized mutual information (greedy)")
        lines = [f"visit sequence chosen by {how}:"]
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
    rule: str = "nmi",
    random_state: int = 0,
    max_rows: int = 5000,
) -> VisitOrder:
    """Order ``columns`` (default: all of ``data``'s) by the greedy NMI rule of the module
    docstring; ``fixed`` columns (kept, strata) count as visited before all of them.

    ``after`` maps a column to the columns it must follow (a ``passive`` column's sources, a
    ``nested`` column's parent), or to None when they are unknown (a formula): such a column
    is eligible only once they are visited, and a None one goes last.

    ``rule``: ``"nmi"`` (the greedy rule) or ``"importance"`` (Bowen, Liu & Su 2021: most
    important first, module docstring; forests on at most ``max_rows`` rows drawn with
    ``random_state``).
    """
    if rule not in ("nmi", "importance"):
        raise ParameterError("visit order: 'rule' must be 'nmi' or 'importance'")
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
    if rule == "importance":
        return _by_importance(codes, cols, fixed, dict(after or {}), random_state, max_rows)
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


def variable_importance(codes: Mapping[str, np.ndarray], *, random_state: int = 0,
                        max_rows: int = 5000) -> pd.Series:
    """Each column's mean impurity importance, over every other column as the target of a
    random forest on the integer-coded columns (module docstring); sums to 1 when every
    target has a predictor."""
    from sklearn.ensemble import RandomForestClassifier

    names = list(codes)
    x = np.column_stack([codes[c] for c in names])
    rng = np.random.default_rng(random_state)
    if len(x) > max_rows:
        x = x[rng.choice(len(x), size=max_rows, replace=False)]
    total = np.zeros(len(names))
    targets = 0
    for j in range(len(names)):
        y = x[:, j]
        if np.unique(y).size < 2 or len(names) < 2:
            continue
        others = np.delete(np.arange(len(names)), j)
        forest = RandomForestClassifier(n_estimators=30, max_depth=8, min_samples_leaf=5,
                                        random_state=random_state, n_jobs=1)
        forest.fit(x[:, others], y)
        total[others] += forest.feature_importances_
        targets += 1
    return pd.Series(total / max(targets, 1), index=names)


def _by_importance(codes: Mapping[str, np.ndarray], cols: list[str], fixed: list[str],
                   after: Mapping[str, Sequence[str] | None], random_state: int,
                   max_rows: int) -> VisitOrder:
    imp = variable_importance(codes, random_state=random_state, max_rows=max_rows)
    remaining = sorted(cols, key=lambda c: (-imp[c], cols.index(c)))
    chosen: list[str] = []
    rows: list[dict[str, object]] = []
    while remaining:
        ready = [c for c in remaining if after.get(c, ()) is not None
                 and all(p in chosen or p in fixed or p not in cols for p in after.get(c) or ())]
        eligible = ready or [c for c in remaining if after.get(c, ()) is None] or remaining
        c = eligible[0]
        remaining.remove(c)
        chosen.append(c)
        rows.append({"column": c, "score": float(imp[c]),
                     "rule": "variable importance (Bowen, Liu & Su 2021)"})
    return VisitOrder(tuple(chosen), pd.DataFrame(rows, columns=["column", "score", "rule"]))
