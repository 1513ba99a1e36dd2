"""Household synthesis: households first, then their members in order.

The joint distribution of a household ``h`` with household-level values ``x_h``, size
``n_h`` and members ``y_1 .. y_{n_h}`` (ordered head, partner, children, others) is factored
as

    f(n_h, x_h) f(y_1 | n_h, x_h) prod_{k>=2} f(y_k | n_h, k, x_h, c(y_1), c(y_{k-1})),

where ``c(y)`` are a member's first (context) columns in the visit order, by default the
relationship code, then the rest (e.g. relationship, age, sex). Each factor is a
:class:`~synthguard.synthesis.synthesizer.Synthesizer` (the sequential engine, CART by
default): the **household table** (one row per household, the size first) is synthesized as
any file; the **heads** are drawn conditional on their household's synthesized values, and
each **further member** on those, its position, the head's and the previous member's context,
through the engine's start data (``sample(start=...)``). Size and composition are therefore
synthesized, never copied from a real household as simPop's resampling of household
structures does (Templ et al. 2017); this is the "households first, then members" route of
the hierarchical synthesizers (Nowok et al.'s synthpop has none, issue #4), with the sequential
engine's models in place of Hu, Reiter & Wang's (2018) latent classes.

Household totals (:data:`HOUSEHOLD_TOTALS`, off): the at-risk-of-poverty rate is a
function of the household totals given the household's size and ages, so drawing the
household income with the household was tried (benchmarks/households.py, seeds 1-3;
default: testdata +1.7, +2.4, +3.2 pp, eusilcS -0.3, -0.6, -0.3 pp, pMSE ratio on eusilcS
about 3.8):

* every numeric person column's total in the household table, members scaled to sum to
  their own column's total: testdata +1.6, +0.1, +0.9 pp, eusilcS -0.2, +0.5, +0.2 pp, but a
  person's columns scaled by different factors lose their ties (net income equal to the
  employee income of a one-earner person) and eusilcS's pMSE ratio rose to 21 (the default
  gate fails);
* one factor per household from the lead column (the largest total): eusilcS +0.06 to -0.5
  pp at a pMSE ratio of 2.8-4.3, but on testdata the lead is the expenditure, not the
  income, and the rate moved to +2.7 to +4.2 pp;
* totals only as predictors (no scaling): testdata +8.4, +6.6, +7.6 pp.

None meets the 1.5 pp goal on testdata without breaking something else, so the default draws
no totals. Naming the income column (a parameter the Synthesizer does not have yet) is the
next thing to try.

Safeguards at household level: a synthetic household replicating a household unique in the
data (:mod:`synthguard.synthesis.households.replicated`) or breaking a rule within a
household (:mod:`synthguard.data.household_rules`) has its members drawn again, up to
``max_redraws`` rounds; households still replicating one are then removed, households still
breaking a rule are counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._random import spawn
from synthguard.data.constraints import (
    Constraint,
    check_constraints,
    parse_constraints,
    rounded_count,
)
from synthguard.errors import DataError, ParameterError
from synthguard.synthesis.households.guards import (
    household_safeguards,
    replicated_any,
    share_person_guards,
    unique_sets,
)
from synthguard.synthesis.households.layout import (
    POSITION,
    household_table,
    ordered,
    resolve_layout,
)
from synthguard.synthesis.households.marginal import WeightedMarginal
from synthguard.synthesis.households.replicated import HouseholdSignatures, PersonUniques
from synthguard.synthesis.result import SyntheticData

__all__ = ["N_CONTEXT", "HouseholdModel", "HouseholdReport"]

#: A numeric person-level column with more distinct values than this has its running
#: household total as a predictor of the next member, when :data:`RUNNING_TOTALS` is on.
SUM_MIN_VALUES = 20

#: Running household totals as predictors: off by default, from measurements
#: (benchmarks/households.py, seeds 1-3): on eusilcS they moved the at-risk-of-poverty rate
#: by -1.1 to -1.7 pp from the data's (without: +0.2, -0.3 on seeds 1 and 3); on sdcMicro's
#: testdata they helped a little (+1.2 to +3.0 pp, without +2.8 to +3.5).
RUNNING_TOTALS = False

#: Household totals synthesized in the household table (an experiment, off from
#: measurements; see the module docstring): "off"; "predict" (the numeric person columns'
#: household totals read by every member's model); "rescale" (the lead column's total only,
#: and the members' numeric columns then scaled by one factor per household so the lead
#: sums to it).
HOUSEHOLD_TOTALS = "off"

#: Context columns of a member read by the next members (the first person-level columns in
#: the visit order).
N_CONTEXT = 3

# Synthesizer parameters passed to every part (filtered to its columns where per column)
_SHARED = ("default_method", "n_jobs", "min_stratum_size", "extremes", "rare_values",
           "min_rows", "max_redraws", "allow_violations")
_PER_COLUMN = ("methods", "method_params", "transforms", "noise", "public_levels")


@dataclass(frozen=True)
class HouseholdReport(Summarized):
    """What household synthesis released and what its household safeguards did.

    Attributes
    ----------
    layout : the id, household-level columns, size column and member order.
    households, persons : per implicate.
    replicated_found, replicated_redrawn, replicated_removed : households replicating a
        household unique in the data: found at the first draw; households drawn again
        (replicating a unique household or person, or breaking a rule), and removed.
    replicated_persons : members replicating a person unique in the data, at the first
        draw.
    rules : rule text -> per implicate, members of the release breaking it.
    rules_data : rule text -> members of the data breaking it (rounded as counts of
        confidential records are).
    """

    layout: dict[str, Any]
    households: tuple[int, ...]
    persons: tuple[int, ...]
    replicated_found: tuple[int, ...] = ()
    replicated_redrawn: tuple[int, ...] = ()
    replicated_removed: tuple[int, ...] = ()
    replicated_persons: tuple[int, ...] = ()
    rules: dict[str, tuple[int, ...]] = field(default_factory=dict)
    rules_data: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.layout, "households": list(self.households), "persons": list(self.persons),
            "replicated_households": {"found": list(self.replicated_found),
                                      "redrawn": list(self.replicated_redrawn),
                                      "removed": list(self.replicated_removed),
                                      "unique_persons_found": list(self.replicated_persons)},
            "rules": {k: list(v) for k, v in self.rules.items()},
            "rules_data": dict(self.rules_data),
        }

    def summary(self) -> str:
        lines = [
            f"households: id {self.layout['id']}, household-level columns: "
            + (", ".join(self.layout["household_columns"]) or "none")
            + f"; {', '.join(map(str, self.households))} households, "
            f"{', '.join(map(str, self.persons))} persons per implicate",
            f"replicated unique households: found {sum(self.replicated_found)} (and "
            f"{sum(self.replicated_persons)} members replicating a unique person); households "
            f"redrawn {sum(self.replicated_redrawn)}, removed {sum(self.replicated_removed)}",
        ]
        for text, counts in self.rules.items():
            lines.append(f"rule '{text}': {max(counts) if counts else 0} members break it in "
                         f"the worst implicate (data: {self.rules_data.get(text, '0')})")
        return "\n".join(lines)


def _source(column: str) -> str | None:
    """The person-level column a context column is derived from (None: not one)."""
    for prefix in ("_sg_head_", "_sg_prev_", "_sg_sum_", "_sg_tot_"):
        if column.startswith(prefix):
            return column[len(prefix):]
    return None


def _subset(value: Any, columns: Sequence[str]) -> Any:
    if value is None or not isinstance(value, Mapping):
        return value
    out = {k: v for k, v in value.items() if k in set(columns)}
    return out or None


class HouseholdModel:
    """Fit and draw a household–person file for a :class:`Synthesizer` given ``household=``
    (its parameters are read from ``est``; see the module docstring)."""

    def __init__(self, est: Any) -> None:
        self.est = est

    # ------------------------------------------------------------------ parts
    def _part(self, columns: Sequence[str], visit: Sequence[str], start: Sequence[str],
              *, keep: Sequence[str] = (), strata: Sequence[str] = (),
              weights: Any = None, constraints: Sequence[Constraint] = (),
              schema: Mapping[str, Any] | None = None, policy: str = "keep") -> Any:
        """A Synthesizer for one part; ``policy`` is its replicated-uniques policy (the
        full synthesis parts keep theirs: the household safeguards judge whole members)."""
        from synthguard.synthesis.synthesizer import Synthesizer

        est = self.est
        kw: dict[str, Any] = {k: getattr(est, k) for k in _SHARED}
        for k in _PER_COLUMN:
            kw[k] = _subset(getattr(est, k), visit)
        methods = dict(kw["methods"] or {})
        for c in start:  # start columns are given at draw time; their models are never drawn
            methods[c] = "sample" if weights is None else WeightedMarginal()
        first = [c for c in visit if c not in set(start)][:1]
        if weights is not None and first and first[0] == self.layout_.size and not start:
            methods.setdefault(first[0], WeightedMarginal())  # the size, with weights
        kw["methods"] = methods or None
        usable = [c.text for c in constraints if set(c.columns) <= set(columns)]
        pm = self._predictors(columns, visit, start)
        if start:  # no model reads predictors for a start column
            pm = {**{c: [] for c in start}, **(pm or {})}
        kw["predictor_matrix"] = pm
        return Synthesizer(
            visit_sequence=list(start) + [c for c in visit if c not in set(start)],
            keep=list(keep) or None, strata=list(strata) or None, weights=weights,
            schema=schema, constraints=usable or None, replicated_uniques=policy,
            random_state=0, **kw)

    def _predictors(self, columns: Sequence[str], visit: Sequence[str], start: Sequence[str]
                    ) -> dict[str, list[str]] | None:
        """The user's predictor matrix restricted to a part: its predictors within the part,
        and in a member part the size, the position and the context copies of the allowed
        predictors (``_sg_head_<c>``, ``_sg_prev_<c>``)."""
        pm = self.est.predictor_matrix
        if pm is None:
            return None
        if isinstance(pm, pd.DataFrame):
            pm = {str(t): [str(c) for c in pm.columns if pm.loc[t, c]] for t in pm.index}
        have = set(columns)
        order = [*start, *[c for c in visit if c not in set(start)]]
        out: dict[str, list[str]] = {}
        for t, preds in pm.items():
            if t not in have or t in set(start):
                continue
            allowed = [p for p in preds if p in have]
            allowed += [c for c in start if c in (self.layout_.size, POSITION)
                        or _source(c) in set(preds)]
            earlier = set(order[:order.index(t)])
            out[t] = [p for p in dict.fromkeys(allowed) if p in earlier]
        return out or None

    def _schema(self, columns: Sequence[str], copies: Mapping[str, str]) -> dict[str, Any] | None:
        over = self.est.schema
        if over is None or not isinstance(over, Mapping):
            return None
        out = {c: v for c, v in over.items() if c in set(columns)}
        out.update({new: over[old] for new, old in copies.items() if old in over})
        return out or None

    # ------------------------------------------------------------------ fit
    def fit(self, data: pd.DataFrame) -> HouseholdModel:
        est = self.est
        drop = [est.drop] if isinstance(est.drop, str) else list(est.drop or [])
        data = data.drop(columns=[c for c in drop if c in data.columns]).reset_index(drop=True)
        lay = resolve_layout(data, est.household, est.household_columns, est.member_order)
        self.layout_ = lay
        self.columns_ = list(data.columns)
        keep = [est.keep] if isinstance(est.keep, str) else list(est.keep or [])
        strata = [est.strata] if isinstance(est.strata, str) else list(est.strata or [])
        for name, cols in (("keep", keep), ("strata", strata)):
            unknown = [c for c in cols if c not in lay.household_columns + lay.person_columns]
            if unknown:
                raise ParameterError(f"parameter '{name}' names columns that are not in the "
                                     f"data: {', '.join(unknown)}")
        bad = [c for c in strata if c not in lay.household_columns]
        if bad:
            raise ParameterError(
                f"parameter 'strata': {', '.join(bad)} vary within households; with "
                f"household= the strata must be household-level columns")
        self.keep_, self.strata_ = keep, strata
        visit = list(est.visit_sequence) if est.visit_sequence is not None else None
        hh = [c for c in lay.household_columns if c != lay.size]
        persons = list(lay.person_columns)
        if visit is not None:
            unknown = [c for c in visit if c not in self.columns_]
            if unknown:
                raise ParameterError(f"parameter 'visit_sequence' names columns that are not "
                                     f"in the data: {', '.join(unknown)}")
            hh = [c for c in visit if c in set(hh)] + [c for c in hh if c in set(keep)]
            persons = [c for c in visit if c in set(persons)] + [
                c for c in persons if c in set(keep) and c not in set(visit)]
        elif lay.order is not None:
            persons = [lay.order] + [c for c in persons if c != lay.order]
        self.hh_cols_, self.person_cols_ = hh, persons
        members = ordered(data, lay)
        self.members_n_ = len(members)
        # --- constraints: household rules are checked here; plain ones go to the parts
        rules = parse_constraints(est.constraints, self.columns_)
        self.plain_ = [c for c in rules if not c.members]
        self.rules_ = [c for c in rules if c.members]
        self.rules_data_: dict[str, str] = {}
        self.checked_ = list(rules)  # every rule is checked and counted on the release
        if rules:
            every = check_constraints(members, rules, household=lay.id)
            self.rules_data_ = {str(t): rounded_count(int(v))
                                for t, v in every["violations"].items()}
        if self.rules_:
            check = check_constraints(members, self.rules_, household=lay.id)
            broken = check[check["violations"] > 0]
            if len(broken) and not est.allow_violations:
                raise DataError(
                    "the confidential data break rules within households; a rule the data "
                    "break is not a rule",
                    [f"constraint '{t}': {rounded_count(int(v))} members break it; fix the "
                     f"data or the rule, or pass allow_violations=True (command line: "
                     f"--allow-violations) to accept it knowingly"
                     for t, v in broken["violations"].items()])
            self._enforced = [c for c in self.rules_ if c.text not in set(broken.index)]
        else:
            self._enforced = []
        weights = est.weights
        hw = pw = None
        if isinstance(weights, str):
            if weights not in self.columns_:
                raise ParameterError(f"parameter 'weights': column '{weights}' is not in the "
                                     f"data")
            hw, pw = (weights, None) if weights in lay.household_columns else (None, weights)
        elif weights is not None:
            w = np.asarray(weights, dtype=float)
            if w.shape != (len(data),):
                raise ParameterError("parameter 'weights': expected one weight per record")
            pw = w[members.index.to_numpy()]  # data's index was reset: positions
        self.kind_ = "partial" if keep else "full"
        table = household_table(members, lay)
        hh_visit = [lay.size, *hh]
        if isinstance(hw, str) and hw not in hh_visit:
            hh_visit.append(hw)
        self.table_n_ = len(table)
        if self.kind_ == "partial":
            self._fit_partial(members, table, hh_visit, pw, hw)
        else:
            self._fit_full(members, table, hh_visit, pw, hw)
        self.signatures_ = HouseholdSignatures(members, lay.id, self.released_columns())
        # a member is checked for being a unique person as a person release checks a record:
        # on every released column, and on uniques_on when given
        self.person_guards_ = [PersonUniques(members, cols) for cols in unique_sets(
            self.released_columns(), getattr(est, "uniques_on", None))]
        if self.kind_ != "partial":  # the member parts' guards know every person of the data
            for part in self.member_parts():
                share_person_guards(part, members, self.person_cols_)
        from synthguard.synthesis.safeguards import check_safeguard_params

        self.policy_ = check_safeguard_params(est.replicated_uniques, est.extremes)[0]
        self.methods_ = dict(self.hh_syn_.methods_) if self.hh_syn_ is not None else {}
        for part in self.member_parts():
            self.methods_.update({c: m for c, m in part.methods_.items()
                                  if c in set(self.person_cols_)})
        self.methods_ = {c: m for c, m in self.methods_.items()
                         if c in set(self.released_columns()) and c not in set(self.kept_())}
        return self

    def member_parts(self) -> list[Any]:
        return [p for p in (self.head_syn_, self.member_syn_) if p is not None]

    def kept_(self) -> list[str]:
        return list(self.keep_)

    def released_columns(self) -> list[str]:
        """The release's columns but the id, in the data's order."""
        lay = self.layout_
        return [c for c in self.columns_ if c != lay.id]

    def _context(self) -> list[str]:
        return [c for c in self.person_cols_ if c not in set(self.keep_)][:N_CONTEXT]

    def _fit_full(self, members: pd.DataFrame, table: pd.DataFrame, hh_visit: list[str],
                  pw: Any, hw: Any) -> None:
        lay = self.layout_
        strata = self.strata_
        # the scaled columns share one factor per household, their lead's (the largest
        # total in the data: a person's columns keep their ratios, e.g. net income and its
        # components); only the lead's total is synthesized
        self.scaled_ = self._total_columns(members)
        self.totals_ = sorted(self.scaled_, key=lambda c: -float(
            np.nansum(np.abs(members[c].to_numpy(dtype=float)))))[:1]
        self.decimals_ = {c: int(next((d for d in range(9) if np.allclose(
            members[c].dropna(), members[c].dropna().round(d))), 8)) for c in self.scaled_}
        if self.totals_:
            codes = pd.factorize(members[lay.id], sort=False)[0]
            table = table.copy()
            extra = {}
            for c in self.totals_:
                tot = np.bincount(codes, weights=np.nan_to_num(members[c].to_numpy(dtype=float)),
                                  minlength=len(table))
                table[f"_sg_tot_{c}"] = tot
                extra[f"_sg_tot_{c}"] = tot[codes]
            members = members.assign(**extra)
        hh_cols = [c for c in hh_visit if c not in set(strata)] + [
            f"_sg_tot_{c}" for c in self.totals_]
        tcols = [str(c) for c in table.columns]
        self.hh_syn_ = self._part(tcols, hh_cols, (), strata=strata, weights=hw,
                                  constraints=self.plain_,
                                  schema=self._schema(tcols, {})).fit(table)
        person = self.person_cols_
        heads = members[members[POSITION] == 1]
        start = hh_cols
        cols = [*start, *strata, *person]
        w = None if pw is None or isinstance(pw, str) else pw[members[POSITION].to_numpy() == 1]
        self.head_syn_ = self._part(cols, [*start, *person], start, strata=strata,
                                    weights=pw if isinstance(pw, str) else w,
                                    constraints=self.plain_,
                                    schema=self._schema(cols, {})).fit(heads[cols])
        ctx = self._context()
        self.context_ = ctx
        self.sums_ = self._sum_columns(members, ctx)
        others = members[members[POSITION] > 1]
        self.member_syn_ = None
        if len(others):
            frame = self._with_context(members, others.index, ctx)
            mstart = [lay.size, POSITION, *[c for c in start if c != lay.size],
                      *[f"_sg_head_{c}" for c in ctx], *[f"_sg_prev_{c}" for c in ctx],
                      *[f"_sg_sum_{c}" for c in self.sums_]]
            mcols = [*mstart, *strata, *person]
            copies = {f"_sg_{k}_{c}": c for c in ctx for k in ("head", "prev")}
            w = None if pw is None or isinstance(pw, str) else pw[
                members[POSITION].to_numpy() > 1]
            self.member_syn_ = self._part(
                mcols, [*mstart, *person], mstart, strata=strata,
                weights=pw if isinstance(pw, str) else w, constraints=self.plain_,
                schema=self._schema(mcols, copies)).fit(frame[mcols])
        self.member_start_ = [] if self.member_syn_ is None else mstart
        self.head_start_ = start

    def _total_columns(self, members: pd.DataFrame) -> list[str]:
        """Numeric person-level columns whose household totals the household table holds
        (:data:`HOUSEHOLD_TOTALS`)."""
        if HOUSEHOLD_TOTALS == "off":
            return []
        ctx = set(self._context())
        return [c for c in self.person_cols_
                if c not in ctx and c not in set(self.keep_)
                and pd.api.types.is_numeric_dtype(members[c])
                and not pd.api.types.is_bool_dtype(members[c])
                and members[c].nunique() > SUM_MIN_VALUES]

    def _sum_columns(self, members: pd.DataFrame, ctx: Sequence[str]) -> list[str]:
        """Numeric person-level columns (more than :data:`SUM_MIN_VALUES` distinct values,
        not context) whose running household total over the members already drawn is a
        predictor of the next member: a household's incomes are read together."""
        out: list[str] = []
        if not RUNNING_TOTALS:
            return out
        for c in self.person_cols_:
            v = members[c]
            if (c not in set(ctx) and c not in set(self.keep_)
                    and pd.api.types.is_numeric_dtype(v) and not pd.api.types.is_bool_dtype(v)
                    and v.nunique() > SUM_MIN_VALUES):
                out.append(c)
        return out

    def _with_context(self, members: pd.DataFrame, rows: pd.Index, ctx: Sequence[str]
                      ) -> pd.DataFrame:
        """``members``' rows ``rows`` with the head's and the previous member's context
        columns and the running totals of the members before (members sorted by
        :func:`ordered`)."""
        lay = self.layout_
        codes = pd.factorize(members[lay.id], sort=False)[0]
        pos = members[POSITION].to_numpy()
        head_at = np.flatnonzero(pos == 1)[codes]
        prev_at = np.arange(len(members)) - 1
        sel = members.index.get_indexer(rows)
        out = members.iloc[sel].copy()
        for c in ctx:
            v = members[c].to_numpy()
            out[f"_sg_head_{c}"] = v[head_at[sel]]
            out[f"_sg_prev_{c}"] = v[prev_at[sel]]
        for c in self.sums_:
            v = np.nan_to_num(members[c].to_numpy(dtype=float))
            before = pd.Series(v).groupby(codes).cumsum().to_numpy() - v
            out[f"_sg_sum_{c}"] = before[sel]
        return out

    def _fit_partial(self, members: pd.DataFrame, table: pd.DataFrame, hh_visit: list[str],
                     pw: Any, hw: Any) -> None:
        """Partial synthesis: the confidential households and members are kept (rows, size,
        kept columns); household-level columns are synthesized per household, person-level
        ones per member given the kept columns, the size and the position."""
        lay = self.layout_
        keep = self.keep_
        hh_keep = [lay.size] + [c for c in keep if c in set(hh_visit)]
        hh_syn = [c for c in hh_visit if c not in set(hh_keep) and c not in set(self.strata_)]
        self.hh_syn_ = None
        if hh_syn:
            cols = [*hh_keep, *self.strata_, *hh_syn]
            self.hh_syn_ = self._part(cols, hh_syn, (), keep=hh_keep, strata=self.strata_,
                                      weights=hw, constraints=self.plain_,
                                      schema=self._schema(cols, {})).fit(table[cols])
        p_keep = [lay.size, POSITION] + [c for c in keep if c in set(self.person_cols_)]
        p_syn = [c for c in self.person_cols_ if c not in set(keep)]
        self.head_syn_, self.member_syn_ = None, None
        if p_syn:
            cols = [*p_keep, *p_syn]
            self.head_syn_ = self._part(cols, p_syn, (), keep=p_keep, weights=pw,
                                        constraints=self.plain_, schema=self._schema(cols, {}),
                                        policy=self.est.replicated_uniques
                                        ).fit(members[cols])
        self.partial_members_ = members

    # ------------------------------------------------------------------ sample
    def sample(self, *, m: int, n: int | None, random_state: Any, diagnostics: bool,
               progress: Callable[[int, int], None] | None, seed: int | None,
               rng: np.random.Generator) -> SyntheticData:
        lay = self.layout_
        n_h = None
        if n is not None:
            n_h = max(1, round(n * self.table_n_ / self.members_n_))
        frames, hh_counts, p_counts = [], [], []
        found, redrawn, removed, persons_found = [], [], [], []
        rule_counts: dict[str, list[int]] = {c.text: [] for c in self.checked_}
        part_reports: list[list[Any]] = []
        guard_counts: list[tuple[int, int, int]] = []
        for i, child in enumerate(spawn(rng, m)):
            r_h, r_m, r_s = spawn(child, 3)
            self._reports: list[Any] = []
            if self.kind_ == "partial":
                frame, stats = self._partial_implicate(r_h, r_m), (0, 0, 0, 0)
                guard_counts.append((0, 0, 0))
            else:
                table = self._kept_report(self.hh_syn_.sample(m=1, n=n_h, random_state=r_h,
                                                              diagnostics=False))
                frame, stats = self._full_implicate(table, r_m, r_s)
                guard_counts.append(self.guard_counts_)
            part_reports.append(self._reports)
            found.append(stats[0])
            redrawn.append(stats[1])
            removed.append(stats[2])
            persons_found.append(stats[3])
            if self.checked_:
                check = check_constraints(frame, self.checked_, household=lay.id)
                for t in rule_counts:
                    rule_counts[t].append(int(check["violations"].to_dict()[t]))
            frames.append(frame)
            hh_counts.append(int(frame[lay.id].nunique()))
            p_counts.append(len(frame))
            if progress is not None:
                progress(i + 1, m)
        report = HouseholdReport(
            layout=lay.to_dict(), households=tuple(hh_counts), persons=tuple(p_counts),
            replicated_found=tuple(found), replicated_redrawn=tuple(redrawn),
            replicated_removed=tuple(removed), replicated_persons=tuple(persons_found),
            rules={k: tuple(v) for k, v in rule_counts.items()},
            rules_data=dict(self.rules_data_))
        synthesized = [c for c in self.released_columns() if c not in set(self.keep_)
                       and c not in set(self.strata_)]
        safeguards = self._safeguards(part_reports, guard_counts, p_counts, synthesized)
        return SyntheticData(
            implicates=frames, kind=self.kind_, m=m, seed=seed, synthesized=synthesized,
            safeguards=safeguards,
            kept=list(self.keep_), methods=dict(self.methods_), weights=None,
            provenance={"household": report.to_dict(), "strata": list(self.strata_),
                        "random_state": seed, "left_out": [], "n_confidential":
                        self.members_n_},
            households=report)

    def _safeguards(self, part_reports: list[list[Any]], counts: list[tuple[int, int, int]],
                    n_records: list[int], synthesized: list[str]) -> Any:
        """The release's :class:`~synthguard.synthesis.safeguards.SafeguardReport`: the
        parts' tail coding and rare values; in full synthesis the household guard's members
        found replicating a unique person, redrawn and removed (partial synthesis: the
        member part's own guard, whose report is among the parts')."""
        from synthguard.synthesis.safeguards import SafeguardReport

        est = self.est
        extra: dict[str, Any] = {}
        if self.kind_ == "partial":  # the members' part is drawn last; its guard is theirs
            merged = [r[-1] if r and self.head_syn_ is not None else SafeguardReport(
                replicated_uniques=self.policy_, extremes=0, found=(0,), redrawn=(0,),
                removed=(0,), remaining=(0,), suppressed=(0,)) for r in part_reports]
            counts = [(r.found[0], r.redrawn[0], r.removed[0]) for r in merged]
            extra = {"remaining": [r.remaining[0] for r in merged],
                     "suppressed": [r.suppressed[0] for r in merged]}
        return household_safeguards(
            self.policy_, int(est.extremes or 0), int(est.rare_values or 0), part_reports,
            [c[0] for c in counts], [c[1] for c in counts], [c[2] for c in counts],
            n_records, synthesized, **extra)

    def _kept_report(self, drawn: SyntheticData) -> pd.DataFrame:
        """The one implicate of a part's draw; its safeguard report is kept for the
        implicate's :func:`household_safeguards`."""
        if drawn.safeguards is not None:
            self._reports.append(drawn.safeguards)
        return drawn.implicates[0]

    def _draw_members(self, table: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        """Members of the households of ``table`` (index: household row), head first."""
        lay = self.layout_
        r_head, *r_next = spawn(rng, 1 + int(table[lay.size].max()))
        start = table[[*self.head_start_, *self.strata_]]
        order = self._stratum_order(self.head_syn_, start)
        heads = self._kept_report(self.head_syn_.sample(
            m=1, start=start.iloc[order], random_state=r_head, diagnostics=False))
        heads.index = table.index[order]
        heads = heads.sort_index()
        heads[POSITION] = 1
        parts = [heads]
        prev = heads
        totals = {c: np.nan_to_num(heads[c].to_numpy(dtype=float)) for c in self.sums_}
        totals_at = pd.Index(heads.index)
        sizes = table[lay.size].to_numpy()
        for p in range(2, int(sizes.max()) + 1):
            rows = table.index[sizes >= p]
            if not len(rows) or self.member_syn_ is None:
                break
            st = pd.DataFrame({lay.size: table.loc[rows, lay.size].to_numpy(),
                               POSITION: p}, index=rows)
            for c in self.member_start_:
                if c in (lay.size, POSITION):
                    continue
                if c.startswith("_sg_head_"):
                    st[c] = heads.loc[rows, c[len("_sg_head_"):]].to_numpy()
                elif c.startswith("_sg_prev_"):
                    st[c] = prev.loc[rows, c[len("_sg_prev_"):]].to_numpy()
                elif c.startswith("_sg_sum_"):
                    st[c] = totals[c[len("_sg_sum_"):]][totals_at.get_indexer(rows)]
                else:
                    st[c] = table.loc[rows, c].to_numpy()
            for c in self.strata_:
                st[c] = table.loc[rows, c].to_numpy()
            st = st[[*self.member_start_, *self.strata_]]
            order = self._stratum_order(self.member_syn_, st)
            drawn = self._kept_report(self.member_syn_.sample(
                m=1, start=st.iloc[order], random_state=r_next[p - 1], diagnostics=False))
            drawn.index = rows[order]
            drawn = drawn.sort_index()
            drawn[POSITION] = p
            at = totals_at.get_indexer(drawn.index)
            for c in self.sums_:
                totals[c][at] += np.nan_to_num(drawn[c].to_numpy(dtype=float))
            parts.append(drawn)
            prev = drawn
        cols = [*self.person_cols_, POSITION]
        out = pd.concat([d[cols] for d in parts])
        out = out.rename_axis("_sg_row_").reset_index()
        out = out.sort_values(["_sg_row_", POSITION], kind="stable")
        return out

    @staticmethod
    def _stratum_order(syn: Any, start: pd.DataFrame) -> np.ndarray:
        """Row order that makes a stratified draw's output line up with ``start`` (the
        engine returns records stratum by stratum in the fitted strata's order)."""
        if not syn.strata_:
            return np.arange(len(start))
        keys = {tuple(b.stratum[c] for c in syn.strata_): j for j, b in enumerate(syn.blocks_)}
        from synthguard.synthesis.encoding import to_working

        arrays = [to_working(start[c], syn.schema_.columns[c]) for c in syn.strata_]
        block = np.array([keys.get(tuple(a[i] for a in arrays), -1)
                          for i in range(len(start))])
        return np.argsort(block, kind="stable")

    def _assemble(self, table: pd.DataFrame, members: pd.DataFrame) -> pd.DataFrame:
        lay = self.layout_
        hh = table.loc[members["_sg_row_"].to_numpy()].reset_index(drop=True)
        out = pd.DataFrame(index=pd.RangeIndex(len(members)))
        ids = pd.factorize(members["_sg_row_"], sort=False)[0] + 1
        for c in self.columns_:
            if c == lay.id:
                out[c] = ids
            elif c in hh.columns and c in lay.household_columns:
                out[c] = hh[c].to_numpy()
            else:
                out[c] = members[c].to_numpy()
        return out

    def _full_implicate(self, table: pd.DataFrame, rng: np.random.Generator,
                        r_safe: np.random.Generator
                        ) -> tuple[pd.DataFrame, tuple[int, int, int, int]]:
        """One implicate's members, with the household safeguards: households replicating a
        unique data household, or holding a member who replicates a unique data person, or
        breaking a rule within households, are drawn again (``replicated_uniques="redraw"``,
        up to ``max_redraws`` rounds); those still replicating are then removed (``"redraw"``,
        ``"remove"``) or kept and counted (``"keep"``)."""
        lay = self.layout_
        members = self._draw_members(table, rng)
        max_rounds = int(self.est.max_redraws)
        redraw_replicas = self.policy_ == "redraw"
        found = persons = redrawn = 0
        ever: set[int] = set()  # household rows whose members were drawn again
        for round_, r in enumerate(spawn(r_safe, max_rounds + 1)):
            frame = self._assemble(table, members)
            replic, n_households, n_persons = self._replicated_rows(frame, members)
            if round_ == 0:
                found, persons = n_households, n_persons
            bad = set(replic.tolist()) if redraw_replicas else set()
            bad |= self._breaking_rows(frame, members)
            if not bad or round_ == max_rounds:
                break
            bad_rows = np.array(sorted(bad), dtype=np.int64)
            redrawn += len(bad_rows)
            ever.update(int(b) for b in bad_rows)
            again = self._draw_members(table.loc[bad_rows], r)
            members = pd.concat([members[~members["_sg_row_"].isin(bad_rows)], again])
            members = members.sort_values(["_sg_row_", POSITION], kind="stable")
        removed = 0
        sizes = table[lay.size].to_numpy()
        at = table.index.get_indexer(pd.Index(sorted(ever)))
        members_removed = 0
        if len(replic) and self.policy_ != "keep":
            members_removed = int(members["_sg_row_"].isin(replic).sum())
            keep = ~members["_sg_row_"].isin(replic).to_numpy()
            members = members[keep]
            frame = self._assemble(table, members)
            removed = len(replic)
        if HOUSEHOLD_TOTALS == "rescale" and getattr(self, "totals_", None):
            self._rescale(frame, table, members, spawn(r_safe, 1)[0])
        frame[lay.id] = pd.factorize(frame[lay.id], sort=False)[0] + 1
        # the person-release counts: members replicating a unique person as first drawn,
        # members drawn again, members removed
        self.guard_counts_ = (persons, int(sizes[at].sum()), members_removed)
        return frame, (found, redrawn, removed, persons)

    def _rescale(self, frame: pd.DataFrame, table: pd.DataFrame, members: pd.DataFrame,
                 rng: np.random.Generator) -> None:
        """Scale each total column's members so they sum to their household's synthesized
        total (households whose members drew a zero sum keep their draws), in place; then the
        person release's tail coding and rare-value guard on the scaled values (the heads'
        part holds the person file's, :func:`share_person_guards`), whose counts join the
        implicate's safeguard report."""
        import copy

        from synthguard.synthesis.safeguards import SafeguardReport, apply_tail_coding

        rows = members["_sg_row_"].to_numpy()
        codes, uniq = pd.factorize(rows, sort=False)
        part = self.head_syn_
        coded: dict[str, int] = {}
        rare: dict[str, int] = {}
        (lead,) = self.totals_
        s = np.bincount(codes, weights=np.nan_to_num(frame[lead].to_numpy(dtype=float)),
                        minlength=len(uniq))
        target = table.loc[uniq, f"_sg_tot_{lead}"].to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(s > 0, target / s, np.nan)
        for c in self.scaled_:
            v = frame[c].to_numpy(dtype=float, copy=True)
            scaled = v * f[codes]
            ok = np.isfinite(scaled)
            v[ok] = np.round(scaled[ok], self.decimals_.get(c, 2))
            lo, hi = part.tail_thresholds_.get(c, (None, None))
            n_coded = apply_tail_coding(v, lo, hi)
            if n_coded:
                coded[c] = n_coded
            spec = part.rare_guard_.numeric.get(c)
            if spec is not None:
                guard = copy.copy(part.rare_guard_)
                guard.numeric, guard.categorical = {c: spec}, {}
                rare.update(guard.apply({c: v}, rng))
            frame[c] = v
        self._reports.append(SafeguardReport(
            replicated_uniques=self.policy_, extremes=int(part.extremes_ or 0),
            found=(0,), redrawn=(0,), removed=(0,), remaining=(0,), suppressed=(0,),
            n_records=(0,), coded=(coded,), rare_values=int(part.rare_values_ or 0),
            rare=(rare,)))

    def _replicated_rows(self, frame: pd.DataFrame, members: pd.DataFrame
                         ) -> tuple[np.ndarray, int, int]:
        """Household rows (of the table) replicating a unique data household or holding a
        member who replicates a unique data person; and the counts of each."""
        lay = self.layout_
        ids, mask = self.signatures_.replicated(frame, lay.id)
        rows = pd.unique(members["_sg_row_"])  # ids are 1.. in order of the rows
        households = np.asarray(rows[np.asarray(ids)[mask] - 1])
        person = replicated_any(self._person_guards(), frame)
        holding = np.unique(members["_sg_row_"].to_numpy()[person])
        both = np.union1d(households, holding).astype(np.int64)
        return both, int(mask.sum()), int(person.sum())

    def _person_guards(self) -> list[PersonUniques]:
        guards = getattr(self, "person_guards_", None)
        if guards is None:  # a synthesizer saved before uniques_on was honoured
            guards = [getattr(self, "person_uniques_")]  # noqa: B009
        return list(guards)

    def _breaking_rows(self, frame: pd.DataFrame, members: pd.DataFrame) -> set[int]:
        """Household rows with a member breaking a rule within households (those the data
        keep)."""
        bad: set[int] = set()
        rows = members["_sg_row_"].to_numpy()
        for c in self._enforced:
            _, breaks = c.evaluate_in(frame, self.layout_.id)
            bad.update(int(v) for v in np.unique(rows[breaks]))
        return bad

    def _partial_implicate(self, r_h: np.random.Generator, r_m: np.random.Generator
                           ) -> pd.DataFrame:
        lay = self.layout_
        members = self.partial_members_
        out = members[[c for c in self.columns_]].copy()
        if self.hh_syn_ is not None:
            table = self._kept_report(self.hh_syn_.sample(m=1, random_state=r_h,
                                                          diagnostics=False))
            codes = pd.factorize(members[lay.id], sort=False)[0]
            for c in table.columns:
                if c in lay.household_columns:
                    out[c] = table[c].to_numpy()[codes]
        if self.head_syn_ is not None:
            drawn = self._kept_report(self.head_syn_.sample(m=1, random_state=r_m,
                                                            diagnostics=False))
            for c in drawn.columns:
                if c in self.person_cols_:
                    out[c] = drawn[c].to_numpy()
        out[lay.id] = pd.factorize(members[lay.id], sort=False)[0] + 1
        return out.reset_index(drop=True)
