"""Disclosure diagnostics of the synthesizer itself.

Two checks that the IRS non-filer synthesis (Bowen et al. 2020; the course's case study
5.1.1, "node heterogeneity in the CART model, rates of recreating observations") ran on its
own synthesizer:

* **homogeneous CART leaves**: a leaf whose confidential values are all identical makes every
  synthetic draw from it a copy of a real value. For every ``cart`` model we count such leaves
  and the confidential records that fall in them (from the method's ``leaf_diagnostics()``).
* **replication**: the share of synthetic records identical to some confidential record, for
  the whole release, per method (on the kept columns plus the columns that method
  synthesized), and cumulatively along the visit sequence (kept columns plus every column
  visited so far), and, in partial synthesis, the share of rows whose synthetic value equals
  the same row's confidential value.

Replication is computed by hashing rows (``pandas.util.hash_array`` per column, combined per
row), then ``searchsorted`` into the sorted confidential hashes: O(n log n), never pairwise.
A 64-bit hash collision could count a record as replicated that is not; the chance is about
n_syn * n_conf / 2**64, negligible at any realistic size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized

__all__ = [
    "SynthesisDiagnostics",
    "hash_rows",
    "leaf_summary",
    "replicated_share",
]

_START = np.uint64(0x345678)


def _combine(h: np.ndarray | None, hc: np.ndarray, position: int) -> np.ndarray:
    """Fold column hash ``hc`` (column number ``position``) into the row hashes ``h``.

    As CPython's tuple hash and pandas' ``combine_hash_arrays``: ``h <- (h XOR hc) * mult_pos``
    with a multiplier that depends on the position, so swapping two columns' values changes
    the hash. Depends only on the columns so far, so hashes can be extended column by column.
    """
    if h is None:
        h = np.full(len(hc), _START, dtype=np.uint64)
    mult = np.uint64(1000003 + 2 * 82520 * position + position * position)
    return (h ^ hc) * mult


def _hash_column(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "f":
        a = a + 0.0  # -0.0 and 0.0 hash alike
    elif a.dtype.kind in "iub":
        a = a.astype(np.int64, copy=False)  # codes hash alike whatever their integer width
    return np.asarray(pd.util.hash_array(a), dtype=np.uint64)


def hash_rows(arrays: Mapping[str, np.ndarray], columns: Sequence[str]) -> np.ndarray:
    """One uint64 hash per row of the named working-form arrays (equal rows, equal hashes)."""
    h: np.ndarray | None = None
    for pos, c in enumerate(columns):
        h = _combine(h, _hash_column(arrays[c]), pos)
    if h is None:
        raise ValueError("hash_rows needs at least one column")
    return h


def _sorted_unique(h: np.ndarray) -> np.ndarray:
    """Sorted distinct hashes (a plain sort; faster than ``np.unique`` on uint64 here)."""
    s = np.sort(h)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _share_in(h_syn: np.ndarray, conf_sorted: np.ndarray) -> float:
    if len(h_syn) == 0:
        return float("nan")
    # (searched in sorted order: each search starts where the last ended, several times
    # faster than in the records' order; the share does not depend on the order)
    h = np.sort(h_syn)
    pos = np.searchsorted(conf_sorted, h)
    pos[pos == len(conf_sorted)] = 0
    return float(np.mean(conf_sorted[pos] == h))


def replicated_share(
    confidential: pd.DataFrame, synthetic: pd.DataFrame, columns: Iterable[str] | None = None
) -> float:
    """Share of synthetic records identical to some confidential record on ``columns``.

    ``(1/n_syn) * #{i : exists j with syn_i == conf_j}`` on the given columns (default: the
    synthetic data's columns), computed by hashing rows with
    ``pandas.util.hash_pandas_object`` (no pairwise comparison).
    """
    cols = list(synthetic.columns) if columns is None else list(columns)
    conf = pd.util.hash_pandas_object(confidential[cols], index=False).to_numpy()
    syn = pd.util.hash_pandas_object(synthetic[cols].astype(confidential[cols].dtypes.to_dict()),
                                     index=False).to_numpy()
    return _share_in(syn, _sorted_unique(conf))


def leaf_summary(method: Any) -> dict[str, float] | None:
    """Homogeneous-leaf counts of a fitted tree method, or None when it exposes none.

    Reads ``method.leaf_diagnostics()`` and accepts a mapping or a one-row DataFrame with the
    number of leaves, the number of leaves whose confidential values are all identical, and the
    number of confidential records in those leaves (or a per-leaf DataFrame with ``n`` and
    ``homogeneous`` columns).
    """
    fn = getattr(method, "leaf_diagnostics", None)
    if fn is None or not callable(fn):
        return None
    try:
        d = fn()
    except Exception:  # a method without a tree for this stratum (constant, too few rows)
        return None
    if isinstance(d, pd.DataFrame):
        cols = {c.lower(): c for c in d.columns}
        n_col = next((cols[k] for k in ("size", "n", "n_records", "count") if k in cols), None)
        h_col = next(
            (cols[k] for k in ("all_identical", "homogeneous", "identical", "is_homogeneous")
             if k in cols),
            None,
        )
        if n_col is not None and h_col is not None:  # one row per leaf
            hom = d[h_col].to_numpy(dtype=bool)
            n = d[n_col].to_numpy(dtype=float)
            return {
                "n_leaves": float(len(d)),
                "n_homogeneous_leaves": float(hom.sum()),
                "n_records_homogeneous": float(n[hom].sum()),
                "n_records": float(n.sum()),
            }
        if len(d) != 1:
            return None
        d = d.iloc[0].to_dict()
    if not isinstance(d, Mapping):
        d = getattr(d, "__dict__", None)
        if not isinstance(d, Mapping):
            return None

    def pick(*keys: str) -> float:
        for k in keys:
            if k in d and d[k] is not None:
                return float(d[k])
        return float("nan")

    return {
        "n_leaves": pick("n_leaves", "leaves"),
        "n_homogeneous_leaves": pick(
            "n_homogeneous_leaves", "n_homogeneous", "homogeneous_leaves", "n_identical_leaves"
        ),
        "n_records_homogeneous": pick(
            "n_records_homogeneous", "records_in_homogeneous", "n_records_in_homogeneous_leaves",
            "records_in_homogeneous_leaves", "n_records_identical",
        ),
        "n_records": pick("n_records", "n", "n_fit"),
    }


@dataclass(frozen=True, eq=False)
class SynthesisDiagnostics(Summarized):
    """Disclosure diagnostics of one synthetic release (Bowen et al. 2020 style).

    Attributes
    ----------
    replicated_share : float
        Mean over implicates of the share of synthetic records identical, on every released
        column, to some confidential record. 0 is the ideal for full synthesis; in partial
        synthesis it counts records whose synthesized values recreate a real record's.
    replicated_by_implicate : tuple of float
        The same share for each implicate.
    columns : DataFrame
        One row per synthesized column (visit order): method; ``replicated_cumulative`` (share
        of synthetic records identical to a confidential record on the kept columns and every
        column visited up to this one, mean over implicates); ``same_row`` (partial synthesis:
        share of rows whose synthetic value equals the row's confidential value); and, for
        tree methods, ``n_leaves``, ``n_homogeneous_leaves``, ``n_records_homogeneous`` and
        ``share_records_homogeneous`` (confidential records in leaves whose values are all
        identical; summed over strata).
    methods : DataFrame
        One row per method: the columns it synthesized and the share of synthetic records
        identical to a confidential record on the kept columns plus those columns.
    safeguards : SafeguardReport or None
        Replicated uniques found, redrawn, removed and released, and extreme values coded,
        per implicate (:mod:`synthguard.synthesis.safeguards`).
    """

    replicated_share: float
    replicated_by_implicate: tuple[float, ...]
    columns: pd.DataFrame = field(repr=False)
    methods: pd.DataFrame = field(repr=False)
    safeguards: Any = field(default=None, repr=False)

    @property
    def replicated_uniques(self) -> int:
        """Released records that replicate a confidential unique, summed over implicates
        (0 by default; -1 when the safeguards were not recorded)."""
        if self.safeguards is None:
            return -1
        return int(sum(self.safeguards.remaining))

    def to_frame(self) -> pd.DataFrame:
        """The per-column table."""
        return self.columns.copy()

    def summary(self) -> str:
        lines = [
            f"synthetic records identical to a confidential record on every released column: "
            f"{self.replicated_share:.2%} "
            f"(mean over {len(self.replicated_by_implicate)} implicates)"
        ]
        if self.safeguards is not None:
            lines.append(self.safeguards.summary())
        if "n_homogeneous_leaves" in self.columns:
            tree = self.columns.dropna(subset=["n_leaves"])
            for col, row in tree.iterrows():
                lines.append(
                    f"  {col}: {int(row['n_homogeneous_leaves'])} of {int(row['n_leaves'])} "
                    f"leaves homogeneous, holding {row['share_records_homogeneous']:.1%} of records"
                )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>" + self.columns.to_html()


class ConfidentialFingerprint:
    """Sorted confidential row hashes for the column sets the diagnostics check.

    Built once at fit time, so the synthesizer needs no second pass over the confidential
    data when it samples. It is derived from confidential data and stays inside the fitted
    (confidential) synthesizer.
    """

    def __init__(
        self,
        arrays: Mapping[str, np.ndarray],
        base: Sequence[str],
        visit: Sequence[str],
        methods: Mapping[str, str],
        partial: bool,
    ) -> None:
        self.base = list(base)
        self.visit = list(visit)
        self.methods = dict(methods)
        self.partial = partial
        self.cumulative: list[np.ndarray] = []
        for j in range(len(self.visit)):
            cols = self.base + self.visit[: j + 1]
            self.cumulative.append(_sorted_unique(hash_rows(arrays, cols)))
        self.by_method: dict[str, np.ndarray] = {}
        for name, cols in self.method_groups().items():
            self.by_method[name] = _sorted_unique(hash_rows(arrays, self.base + cols))
        # same-row comparison (partial synthesis: rows are aligned)
        self.row_hashes: dict[str, np.ndarray] = (
            {c: _hash_column(arrays[c]) for c in self.visit} if partial else {}
        )

    def method_groups(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for c in self.visit:
            groups.setdefault(self.methods[c], []).append(c)
        return groups

    def measure(
        self, arrs: Mapping[str, np.ndarray], rows: np.ndarray | None = None
    ) -> dict[str, Any]:
        """Replication shares of one synthetic implicate given in working form (so implicates
        need not be held in memory together). In partial synthesis ``rows`` (a boolean mask
        of the confidential rows) says which rows the implicate holds, when some were
        removed."""
        cum = np.zeros(len(self.visit))
        same = np.full(len(self.visit), np.nan)
        h: np.ndarray | None = None
        for pos, c in enumerate(self.base):
            h = _combine(h, _hash_column(arrs[c]), pos)
        for j, c in enumerate(self.visit):
            hc = _hash_column(arrs[c])
            h = _combine(h, hc, len(self.base) + j)
            cum[j] = _share_in(h, self.cumulative[j])
            if self.partial:
                ref = self.row_hashes[c] if rows is None else self.row_hashes[c][rows]
                same[j] = float(np.mean(hc == ref)) if len(hc) else float("nan")
        by_method = {
            name: _share_in(hash_rows(arrs, self.base + cols), self.by_method[name])
            for name, cols in self.method_groups().items()
        }
        return {"cumulative": cum, "same_row": same, "by_method": by_method}

    def diagnose(
        self, implicates: Sequence[Mapping[str, np.ndarray]], trees: Mapping[str, dict[str, float]]
    ) -> SynthesisDiagnostics:
        """Diagnostics of synthetic implicates given in working form."""
        return self.combine([self.measure(a) for a in implicates], trees)

    def combine(
        self, measured: Sequence[Mapping[str, Any]], trees: Mapping[str, dict[str, float]]
    ) -> SynthesisDiagnostics:
        """Diagnostics from per-implicate :meth:`measure` results and tree leaf summaries."""
        m = len(measured)
        cum = np.array([r["cumulative"] for r in measured]).reshape(m, len(self.visit))
        same = np.array([r["same_row"] for r in measured]).reshape(m, len(self.visit))
        by_method = {name: np.array([r["by_method"][name] for r in measured])
                     for name in self.by_method}
        rows = []
        for j, c in enumerate(self.visit):
            row: dict[str, Any] = {
                "column": c,
                "method": self.methods[c],
                "replicated_cumulative": float(cum[:, j].mean()),
                "same_row": float(np.nanmean(same[:, j])) if self.partial else np.nan,
            }
            t = trees.get(c)
            if t is not None:
                row.update(t)
                n = t.get("n_records", np.nan)
                row["share_records_homogeneous"] = (
                    t["n_records_homogeneous"] / n if n and np.isfinite(n) else np.nan
                )
            rows.append(row)
        columns = pd.DataFrame(rows).set_index("column")
        methods = pd.DataFrame(
            [
                {
                    "method": name,
                    "columns": ", ".join(cols),
                    "replicated_share": float(by_method[name].mean()),
                }
                for name, cols in self.method_groups().items()
            ]
        ).set_index("method")
        per_imp = tuple(float(x) for x in cum[:, -1]) if len(self.visit) else ()
        return SynthesisDiagnostics(
            replicated_share=float(np.mean(per_imp)) if per_imp else float("nan"),
            replicated_by_implicate=per_imp,
            columns=columns,
            methods=methods,
        )
