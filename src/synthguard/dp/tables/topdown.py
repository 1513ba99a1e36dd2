"""TopDown: a hierarchy measured with noise at every level, made consistent from the top down.

The 2020 Census Disclosure Avoidance System (Abowd et al. 2022, "The 2020 Census Disclosure
Avoidance System TopDown Algorithm", Harvard Data Science Review, Special Issue 2) measures the
nation, every state, every county, ... with discrete Gaussian noise, then post-processes one
level at a time from the top: the nation's noisy table is made non-negative and integer, then
each state's children are fitted to their parent's now final table, and so on down. Here:

* a hierarchy is a list of nested columns, ``["state", "county"]`` (or code prefixes, NAICS 2 →
  3 → 6 digits, given as columns); level 0 is the total, level ℓ has one unit per distinct path
  of the first ℓ columns among the **public** ``units`` (a geography lookup; by default every
  combination of the declared levels);
* each level's table (units × attribute cells) is a histogram of sensitivity 1 (one record,
  one cell), measured with discrete Laplace (ε-DP) or discrete Gaussian (ρ-zCDP) noise from
  OpenDP; the budget is split over the levels by ``level_shares`` and charged to the ledger
  (sequential composition over levels: ε's or ρ's add up);
* post-processing, per parent (free of privacy cost: Dwork & Roth 2014, Prop. 2.1): least
  squares onto {non-negative, children sum to the parent, invariant totals}, then an integer
  programme (:mod:`synthguard.dp.tables.rounding`);
* **invariants**: ``"total"`` and/or hierarchy levels whose unit totals (over the attribute
  cells) are published exactly, as the Census held state populations invariant. They are read
  from the confidential data **without noise**: they are not differentially private and not
  covered by the ledger; the result's notes say so;
* **structural zeros**: attribute cells impossible by a public rule stay exactly zero.

Each level's counts are then non-negative integers, add up to their parent's exactly, and
hold the invariants exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState
from synthguard.dp import _noise
from synthguard.dp.accountant import PrivacyLedger
from synthguard.dp.sensitivity import histogram_sensitivity
from synthguard.dp.synthesizers._domain import Domain, build_domain
from synthguard.dp.tables.allocation import Allocation, allocate, family_of
from synthguard.dp.tables.measure import _add_noise, cell_labels, charge_all, structural_zero_mask
from synthguard.dp.tables.noise import NoiseModel
from synthguard.dp.tables.rounding import controlled_round, least_squares_fit
from synthguard.errors import DataError, ParameterError

__all__ = ["TopDownLevel", "TopDownResult", "topdown"]

TOTAL = "total"


@dataclass(frozen=True)
class TopDownLevel:
    """One level: ``frame`` has the unit's hierarchy columns, the attribute columns,
    ``measured`` (the noisy measurement) with its exact interval ``measured_lower``/
    ``measured_upper``, ``count`` (the consistent integer estimate) and ``structural_zero``."""

    name: str
    columns: tuple[str, ...]
    frame: pd.DataFrame
    noise: NoiseModel
    invariant: bool


@dataclass(frozen=True)
class TopDownResult:
    """The levels (total first), the allocation over levels, the ledger and the notes."""

    levels: list[TopDownLevel]
    hierarchy: tuple[str, ...]
    attributes: tuple[str, ...]
    allocation: Allocation
    ledger: Any
    noise_source: str
    dp: bool
    domain: Domain | None = None
    units: pd.DataFrame | None = None
    notes: tuple[str, ...] = field(default=())

    def level(self, name: str) -> TopDownLevel:
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise KeyError(name)

    def summary(self) -> str:
        lines = [f"TopDown over {' > '.join((TOTAL, *self.hierarchy))}"
                 f" x ({' x '.join(self.attributes) or 'total'}); noise: {self.noise_source}"]
        for lv, (_, share, eps, rho) in zip(self.levels, self.allocation.rows):
            lines.append(f"  {lv.name:<16} units {len(lv.frame) // max(1, self._m):>7}  share "
                         f"{share:.3g}  epsilon {eps:.4g}  rho {rho:.4g}  sd {lv.noise.sd:.3g}"
                         + ("  (totals invariant)" if lv.invariant else ""))
        lines.extend(self.notes)
        return "\n".join(lines)

    @property
    def _m(self) -> int:
        return len(self.levels[0].frame)

    def __str__(self) -> str:
        return self.summary()


def _unit_table(units: pd.DataFrame | None, hierarchy: list[str], domain: Domain,
                data: pd.DataFrame, from_data: bool) -> pd.DataFrame:
    if units is not None:
        missing = [c for c in hierarchy if c not in units.columns]
        if missing:
            raise ParameterError(f"parameter 'units': lacks hierarchy column(s) "
                                 f"{', '.join(missing)}")
        u = units[hierarchy].astype(str).drop_duplicates().reset_index(drop=True)
    elif from_data:
        u = data[hierarchy].astype(str).drop_duplicates().reset_index(drop=True)
    else:
        u = pd.DataFrame(list(itertools.product(*(map(str, domain.levels[c])
                                                  for c in hierarchy))), columns=hierarchy)
    if u.empty or u.isna().any().any():
        raise ParameterError("parameter 'units': expected a non-empty table of public unit paths")
    return u


def topdown(
    data: pd.DataFrame,
    hierarchy: Sequence[str],
    attributes: Sequence[str] = (),
    *,
    epsilon: float,
    delta: float = 0.0,
    ledger: Any = None,
    categories: Mapping[str, Any] | None = None,
    bins: Mapping[str, Any] | None = None,
    units: pd.DataFrame | None = None,
    level_shares: Any = None,
    mechanism: str = "discrete_laplace",
    invariants: Sequence[str] = (),
    structural_zeros: Sequence[Mapping[str, Any]] | None = None,
    relation: str = "add_remove",
    domain_from_data: str | None = None,
    confidence: float = 0.95,
    random_state: RandomState = None,
) -> TopDownResult:
    """Measure every level of ``hierarchy`` × ``attributes`` with noise and post-process top down.

    Parameters
    ----------
    data : confidential records, one per person (or establishment).
    hierarchy : nested unit columns, coarsest first, e.g. ``["state", "county"]``.
    attributes : columns cross-classified inside every unit, e.g. ``["sex", "agegroup"]``.
    epsilon, delta : budget of the whole hierarchy (δ > 0 for ``discrete_gaussian``).
    ledger : :class:`PrivacyLedger` charged once per level before any noise.
    categories, bins : public levels of the attributes (and of the hierarchy columns when
        ``units`` is not given).
    units : public table of every unit path (one row per leaf unit, columns = hierarchy).
    level_shares : budget weights of the levels ``[total, level 1, ...]`` (default equal).
    mechanism : ``"discrete_laplace"`` or ``"discrete_gaussian"`` (the Census's).
    invariants : ``"total"`` and/or hierarchy column names whose unit totals are kept exact
        (NOT differentially private; see the module docstring). A level implies its ancestors.
    structural_zeros : attribute cells fixed at zero, ``[{"age": "0-14", "rel": "spouse"}]``.
    confidence : level of the ``measured_lower``/``measured_upper`` interval of each noisy
        measurement (exact, from the noise law). The consistent ``count`` has no exact
        interval: post-processing changes its error law (the Census publishes none either);
        its accuracy is measured with :func:`~synthguard.dp.tables.topdown_accuracy`.
    random_state : None for OpenDP's noise; a seed for simulation only.
    """
    hier = [str(c) for c in hierarchy]
    attrs = [str(c) for c in attributes]
    if not hier or len(set(hier + attrs)) != len(hier) + len(attrs):
        raise ParameterError("parameters 'hierarchy', 'attributes': expected one or more "
                             "hierarchy columns and distinct attribute columns")
    if not isinstance(data, pd.DataFrame) or data.empty:
        raise DataError("topdown: expected a non-empty DataFrame of records")
    missing = [c for c in hier + attrs if c not in data.columns]
    if missing:
        raise DataError(f"topdown: columns not in the data: {', '.join(missing)}")
    bad_inv = [v for v in invariants if v != TOTAL and v not in hier]
    if bad_inv:
        raise ParameterError(f"parameter 'invariants': {', '.join(map(str, bad_inv))} is not "
                             f"'{TOTAL}' or a hierarchy column ({', '.join(hier)})")
    inv_depth = max((0 if v == TOTAL else hier.index(v) + 1 for v in invariants), default=-1)
    family = family_of(mechanism)
    h = histogram_sensitivity(relation)  # type: ignore[arg-type]
    from_data = domain_from_data is not None
    dom_cols = attrs + ([] if units is not None else hier)
    cats = {c: v for c, v in (categories or {}).items() if c in dom_cols}
    bns = {c: v for c, v in (bins or {}).items() if c in attrs}
    if dom_cols:
        domain, codes = build_domain(data, columns=dom_cols, categories=cats, bins=bns,
                                     domain_from_data=domain_from_data, owner="topdown")
    else:
        domain, codes = Domain((), {}, {}, {}), {}
    u = _unit_table(units, hier, domain, data, from_data)
    leaf_index = pd.MultiIndex.from_frame(u)
    rec = leaf_index.get_indexer(pd.MultiIndex.from_frame(data[hier].astype(str)))
    if (rec < 0).any():
        raise DataError("topdown: some records' hierarchy paths are not among the public "
                        "'units'; add the units or recode the records (a public rule) first")
    labels = [cell_labels(domain, c) for c in attrs]
    sizes = tuple(len(lv) for lv in labels)
    m = int(np.prod(sizes, dtype=np.int64)) if attrs else 1
    cell = (np.ravel_multi_index(tuple(codes[c] for c in attrs), sizes) if attrs
            else np.zeros(len(data), dtype=np.int64))
    zero = structural_zero_mask(attrs, labels, structural_zeros) if attrs else np.zeros(1, bool)
    keep = ~zero[cell]  # records in a structural zero are not counted (public edit rule)
    rec, cell = rec[keep], cell[keep]
    nz = np.flatnonzero(~zero)

    # the units of every level and each unit's parent
    level_units: list[pd.DataFrame] = [pd.DataFrame(index=[0])]
    unit_of_leaf: list[np.ndarray] = [np.zeros(len(u), dtype=np.int64)]
    for lvl in range(1, len(hier) + 1):
        cols = hier[:lvl]
        uniq = u[cols].drop_duplicates().reset_index(drop=True)
        level_units.append(uniq)
        unit_of_leaf.append(pd.MultiIndex.from_frame(uniq).get_indexer(
            pd.MultiIndex.from_frame(u[cols])).astype(np.int64))
    names = [TOTAL, *hier]
    alloc = allocate([f"level {i}: {n}" for i, n in enumerate(names)], {}, epsilon=epsilon,
                     delta=delta, mechanism=mechanism, weights=level_shares)
    models = []
    parts = []
    for (part, _, eps, rho) in alloc.rows:
        scale = h.l1 / eps if family == "pure" else h.l2 / math.sqrt(2.0 * rho)
        models.append(NoiseModel(mechanism, scale))
        parts.append((f"topdown {part.split('/')[0]}", eps, rho))
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    rng = _noise.resolve_noise(random_state, stacklevel=3)
    charge_all(ledger, parts, dp=domain.dp and not from_data)

    measured: list[np.ndarray] = []
    exact_totals: list[np.ndarray | None] = []
    for lvl, nm in enumerate(models):
        n_units = len(level_units[lvl])
        unit = unit_of_leaf[lvl][rec]
        true = np.bincount(unit * m + cell, minlength=n_units * m).reshape(n_units, m)
        y = np.zeros((n_units, m), dtype=np.float64)
        y[:, nz] = _add_noise(true[:, nz].ravel(), nm, rng).reshape(n_units, nz.size)
        measured.append(y)
        exact_totals.append(true.sum(axis=1) if lvl <= inv_depth else None)
        del true

    final: list[np.ndarray] = []
    for lvl, y in enumerate(measured):
        n_units = y.shape[0]
        x = np.zeros((n_units, m), dtype=np.int64)
        t_all = exact_totals[lvl]
        if lvl == 0:
            t = None if t_all is None else t_all.astype(np.float64)
            x[:, nz] = controlled_round(least_squares_fit(y[:, nz], None, t), None, t)
        else:
            parent_of = _parents(level_units[lvl], level_units[lvl - 1], hier[:lvl - 1])
            order = np.argsort(parent_of, kind="stable")
            bounds = np.searchsorted(parent_of[order], np.arange(len(level_units[lvl - 1]) + 1))
            for p in range(len(level_units[lvl - 1])):
                kids = order[bounds[p]:bounds[p + 1]]
                if kids.size == 0:
                    continue
                pv = final[lvl - 1][p, nz].astype(np.float64)
                t = None if t_all is None else t_all[kids].astype(np.float64)
                fit = least_squares_fit(y[np.ix_(kids, nz)], pv, t)
                x[np.ix_(kids, nz)] = controlled_round(fit, pv, t)
        final.append(x)

    levels = []
    attr_frame = (pd.MultiIndex.from_product(labels, names=attrs).to_frame(index=False)
                  if attrs else pd.DataFrame(index=[0]))
    for lvl, (name, nm) in enumerate(zip(names, models)):
        uf = level_units[lvl]
        frame = uf.loc[uf.index.repeat(m)].reset_index(drop=True)
        af = pd.concat([attr_frame] * len(uf), ignore_index=True)
        frame = pd.concat([frame, af], axis=1) if attrs else frame
        frame["measured"] = measured[lvl].ravel()
        lo, hi = nm.interval(frame["measured"].to_numpy(), confidence)
        zcol = np.tile(zero, len(uf))
        frame["measured_lower"] = np.where(zcol, 0.0, lo)
        frame["measured_upper"] = np.where(zcol, 0.0, hi)
        frame["count"] = final[lvl].ravel()
        frame["structural_zero"] = np.tile(zero, len(uf))
        levels.append(TopDownLevel(name, tuple(hier[:lvl]), frame, nm, lvl <= inv_depth))
    notes = []
    if inv_depth >= 0:
        notes.append(f"invariants: the totals of level(s) {', '.join(names[:inv_depth + 1])} "
                     "are exact, read from the confidential data without noise: they are NOT "
                     "differentially private and not covered by the ledger")
    if not domain.dp or from_data:
        notes.append("NOT DIFFERENTIALLY PRIVATE: levels or units were read from the data")
    return TopDownResult(levels, tuple(hier), tuple(attrs), alloc, ledger,
                         _noise.noise_source(random_state), domain.dp and not from_data,
                         domain, u, tuple(notes))


def _parents(child_units: pd.DataFrame, parent_units: pd.DataFrame,
             parent_cols: list[str]) -> np.ndarray:
    """Index of each child unit's parent unit (its path without the last column)."""
    if not parent_cols:
        return np.zeros(len(child_units), dtype=np.int64)
    idx = pd.MultiIndex.from_frame(parent_units[parent_cols])
    return idx.get_indexer(pd.MultiIndex.from_frame(child_units[parent_cols])).astype(np.int64)
