"""The release safeguards as one step applied to every drawn implicate (after sampling).

A fitted :class:`~synthguard.synthesis.Synthesizer` draws an implicate with its block engine;
:class:`ReleaseSafeguards` then protects it, in place, before the release is assembled:

1. **tail coding** of the synthesized numeric columns at the fitted thresholds (the ``k``
   most extreme confidential values never appear; :func:`~synthguard.synthesis.safeguards.
   apply_tail_coding`);
2. **rare values** (held by fewer than ``rare_values`` records) redrawn
   (:class:`~synthguard.synthesis.rare_values.RareGuard`);
3. **replicated uniques**: records equal to a record unique in the confidential data on the
   released columns (:class:`~synthguard.synthesis.safeguards.UniqueGuard`) are, by the
   ``replicated_uniques`` policy, kernel-smoothed then redrawn (``"redraw"``), removed
   (``"remove"``) or kept (``"keep"``, counted only). In partial synthesis the kept values
   that identify are changed first (``partial_uniques``,
   :mod:`synthguard.synthesis.partial_guard`) and a record still replicating a unique has its
   synthesized values suppressed rather than the row removed.

Redraws use Generators spawned from the implicate's after its strata's, so the first draw is
the same as without safeguards and the same seed gives the same release. The step reads the
fitted synthesizer's state (thresholds, guards, block models) and changes nothing of it; the
counts it makes go to :class:`~synthguard.synthesis.safeguards.SafeguardReport`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import spawn
from synthguard.synthesis.encoding import postprocess_numeric
from synthguard.synthesis.engine import (
    BlockModel,
    ColumnRedraw,
    draw_block,
    leaf_smoothable,
    leaves,
    rederive,
)
from synthguard.synthesis.partial_guard import coarsen_values
from synthguard.synthesis.rare_values import RareGuard
from synthguard.synthesis.safeguards import (
    MAX_REDRAW_ROUNDS,
    SafeguardReport,
    apply_tail_coding,
)

__all__ = ["ReleaseSafeguards", "row_groups"]


def row_groups(idx: np.ndarray, row_block: np.ndarray | None) -> list[tuple[int, np.ndarray]]:
    """Rows ``idx`` grouped by the block (stratum) they were drawn from."""
    if row_block is None:
        return [(0, idx)]
    return [(int(b), idx[row_block[idx] == b]) for b in np.unique(row_block[idx])]


class ReleaseSafeguards:
    """The safeguards of one fitted synthesizer, applied to its implicates as they are drawn.

    ``model`` is the fitted :class:`~synthguard.synthesis.Synthesizer` (its ``_policy()``,
    ``tail_thresholds_``, ``rare_guard_``, ``unique_guard_``, ``kept_models_``, block models
    and schema); :meth:`apply` protects one implicate in place, :meth:`report` sums the counts.
    """

    def __init__(self, model: Any) -> None:
        self.model = model

    def apply(
        self,
        out: dict[str, np.ndarray],
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        child: np.random.Generator,
        counts: dict[str, list[Any]],
    ) -> np.ndarray | None:
        """Code the tails and redraw or remove replicated uniques of one implicate, in place.

        Returns the boolean mask of rows to release, or None to release every row. Redraws use
        a Generator spawned from the implicate's after its strata's, so the first draw is the
        same as without safeguards and the same seed gives the same release.
        """
        thresholds = getattr(self.model, "tail_thresholds_", {})
        coded = {c: apply_tail_coding(out[c], lo, hi) for c, (lo, hi) in thresholds.items()}
        rare_guard: RareGuard | None = getattr(self.model, "rare_guard_", None)
        rare: dict[str, int] = {}
        if rare_guard is not None and rare_guard.active:
            (rrng,) = spawn(child, 1)
            rare = rare_guard.apply(out, rrng)
        rederive(out, None, tasks, row_block, self.model.schema_.columns)
        policy = self.model._policy()
        found = redrawn = removed = remaining = suppressed = 0
        kept_changed: dict[str, int] = {}
        keep_rows: np.ndarray | None = None
        if policy == "keep":
            if hasattr(self.model, "replicated_uniques_"):
                remaining = int(self.model.unique_guard_.replicated(out).sum())
        else:
            guard = self.model.unique_guard_
            bad = guard.replicated(out)
            found = int(bad.sum())  # as first drawn
            if self.model.kind_ == "partial" and bad.any():
                # the kept values identify: change them, in every record unique on the kept
                # columns (only when some record came out as its unique, so a release that
                # replicates none keeps its kept columns as the data's)
                kept_changed = self.change_kept(out, tasks, row_block, child)
                if kept_changed:
                    bad = guard.replicated(out)
            if bad.any() and policy == "redraw":
                (srng,) = spawn(child, 1)
                ever = np.zeros(len(bad), dtype=bool)
                for r in range(2 * MAX_REDRAW_ROUNDS):
                    idx = np.flatnonzero(bad)
                    if len(idx) == 0:
                        break
                    ever[idx] = True
                    if r < MAX_REDRAW_ROUNDS:
                        self.jitter(out, idx, tasks, row_block, srng)
                    else:
                        self.redraw(out, idx, tasks, row_block, srng, smooth=True)
                    for c, (lo, hi) in thresholds.items():
                        vals = out[c][idx]
                        coded[c] += apply_tail_coding(vals, lo, hi)
                        out[c][idx] = vals
                    if rare_guard is not None and rare_guard.active:
                        for c, v in rare_guard.apply(out, srng, idx).items():
                            rare[c] = rare.get(c, 0) + v
                    rederive(out, idx, tasks, row_block, self.model.schema_.columns)
                    bad[idx] = guard.replicated(out, idx)
                redrawn = int(ever.sum())
            removed = int(bad.sum())
            if removed and self.model.kind_ == "partial":
                # a partial release keeps every confidential row, in order: the synthesized
                # values of a row that still replicates a unique are suppressed (set missing),
                # not the row removed. A row whose synthesized values are missing in the data
                # as well still replicates it: counted as released, not as fixed
                rows = np.flatnonzero(bad)
                self.suppress(out, rows)
                remaining = int(guard.replicated(out, rows).sum())
                suppressed, removed = removed - remaining, 0
            elif removed:
                keep_rows = ~bad
        counts["found"].append(found)
        counts["redrawn"].append(redrawn)
        counts["removed"].append(removed)
        counts["remaining"].append(remaining)
        counts.setdefault("suppressed", []).append(suppressed)
        counts.setdefault("kept_changed", []).append(kept_changed)
        counts.setdefault("n_records", []).append(len(next(iter(out.values()))) if out else 0)
        counts["coded"].append(coded)
        counts.setdefault("rare", []).append(rare)
        return keep_rows

    def report(self, counts: dict[str, list[Any]]) -> SafeguardReport:
        return SafeguardReport(
            replicated_uniques=self.model._policy(),
            extremes=int(getattr(self.model, "extremes_", 0)),
            thresholds=dict(getattr(self.model, "tail_thresholds_", {})),
            found=tuple(counts["found"]),
            redrawn=tuple(counts["redrawn"]),
            removed=tuple(counts["removed"]),
            remaining=tuple(counts["remaining"]),
            suppressed=tuple(counts.get("suppressed", ())),
            partial_uniques=(str(getattr(self.model, "partial_uniques_", "suppress"))
                             if self.model.kind_ == "partial" else ""),
            kept_changed=tuple(counts.get("kept_changed", ())),
            n_records=tuple(counts.get("n_records", ())),
            synthesized_columns=tuple(self.model.visit_sequence_),
            coded=tuple(counts["coded"]),
            rare_values=int(getattr(self.model, "rare_values_", 0)),
            rare=tuple(counts.get("rare", ())),
        )

    def change_kept(
        self,
        out: dict[str, np.ndarray],
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        child: np.random.Generator,
    ) -> dict[str, int]:
        """Partial synthesis: change, in place, the riskiest kept value of every record unique
        on the kept columns in the data, as ``partial_uniques`` says (synthesize it anew or
        coarsen it; :mod:`synthguard.synthesis.partial_guard`). Every such record, not only
        those whose synthesized values came out as their own: a changed value then says
        nothing about the synthesized ones. Returns the number of values changed per column."""
        how = getattr(self.model, "partial_uniques_", "suppress")
        unique = getattr(self.model, "kept_unique_", None)
        if how == "suppress" or unique is None or not unique.any():
            return {}
        schema = self.model.schema_.columns
        ranking = list(getattr(self.model, "kept_ranking_", self.model.kept_))
        if how == "synthesize":
            columns = self.model.kept_models_.columns[:1]
        else:
            columns = [c for c in ranking if schema[c].is_numeric][:1]
        rows = np.flatnonzero(unique)
        (krng,) = spawn(child, 1)
        changed: dict[str, int] = {}
        for c in columns:
            out[c] = out[c].copy()  # the kept arrays are shared by every implicate
            orig = out[c][rows].copy()
            todo = rows
            for _ in range(MAX_REDRAW_ROUNDS if how == "synthesize" else 1):
                if how == "synthesize":
                    cm = self.model.kept_models_.drawer(c)
                    new = ColumnRedraw(cm, out, schema, smooth=True).draw(todo, krng)
                else:
                    new = coarsen_values(out[c][todo])
                if out[c].dtype.kind in "iu" and schema[c].is_numeric:
                    new = np.round(new)
                out[c][todo] = new
                now = out[c][rows]
                same = (now == orig) | (pd.isna(now) & pd.isna(orig))
                todo = rows[same]
                if not len(todo):
                    break
            changed[c] = len(rows) - len(todo)
        rederive(out, rows, tasks, row_block, schema)
        return changed

    def suppress(self, out: dict[str, np.ndarray], rows: np.ndarray) -> None:
        """Set the synthesized values of ``rows`` missing, in place (working form: code -1
        for a categorical column, NaN for a numeric one); kept and strata columns stay."""
        fixed = set(self.model.kept_) | set(self.model.strata_)
        for c in self.model.columns_:
            if c in fixed:
                continue
            if self.model.schema_.columns[c].is_categorical:
                out[c][rows] = -1
            else:
                if out[c].dtype.kind != "f":
                    out[c] = out[c].astype(np.float64)
                out[c][rows] = np.nan

    def jitter(
        self,
        out: dict[str, np.ndarray],
        idx: np.ndarray,
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        rng: np.random.Generator,
    ) -> None:
        """Kernel-smooth, in place, the numeric CART values of rows ``idx``: each value moves
        by Gaussian noise with the bandwidth of the leaf its row falls in (point masses stay,
        range and precision kept; :meth:`CartMethod.smooth_values`). Categorical values are
        not touched, so their distribution is exactly the first draw's."""
        schema = self.model.schema_.columns
        for b, rows in row_groups(idx, row_block):
            for cm in tasks[b][0].models:
                col = schema[cm.target]
                part = cm.value
                # leaf bandwidths are on a transformed column's model scale: not smoothed
                if not col.is_numeric or part is None or getattr(cm, "transform", None) \
                        or getattr(cm, "exact", False) or cm.target in self.model._start_columns:
                    continue
                if not leaf_smoothable(part):
                    continue
                vals = out[cm.target][rows]
                present = ~np.isnan(vals)
                if not present.any():
                    continue
                r = rows[present]
                leaf = leaves(part, cm.predictors, out, schema, r)
                new = part.method.smooth_values(vals[present], leaf, rng)  # type: ignore[attr-defined]
                out[cm.target][r] = postprocess_numeric(np.asarray(new, dtype=float), col)

    def redraw(
        self,
        out: dict[str, np.ndarray],
        idx: np.ndarray,
        tasks: list[tuple[BlockModel, int, np.random.Generator]],
        row_block: np.ndarray | None,
        rng: np.random.Generator,
        smooth: bool = False,
    ) -> None:
        """Draw the synthesized columns of rows ``idx`` again, each from its block's models,
        with the rows' kept and strata values fixed."""
        schema = self.model.schema_.columns
        partial = self.model.kind_ == "partial"
        for b, rows in row_groups(idx, row_block):
            block = tasks[b][0]
            if partial:
                fixed = {c: a[rows] for c, a in self.model.fixed_arrays_.items()}
            else:
                fixed = {
                    c: np.full(len(rows), v, dtype=self.model.fixed_arrays_[c].dtype)
                    for c, v in block.stratum.items()
                }
            fixed.update({c: out[c][rows] for c in self.model._start_columns})
            drawn = draw_block(block, len(rows), fixed, schema, rng, smooth=smooth,
                               enforcer=getattr(self.model, "enforcer_", None))
            for c in self.model.visit_sequence_:
                out[c][rows] = drawn[c]
