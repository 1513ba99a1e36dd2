"""Noisy counts (and clamped sums) for several tables from one privacy budget.

Each table is the full cross-classification of its columns' **public** levels; each record
falls in exactly one cell, so the count vector has l1 and l2 sensitivity 1 under add/remove
neighbours (2 and √2 under replacement), and a vector of sums of values clamped to public
bounds [L, U] has sensitivity M = max(|L|, |U|) (replacement: l1 2M, l2 max(√2 M, U − L)),
McSherry (2009); Dwork & Roth (2014, §3.3). The budget is split by
:func:`~synthguard.dp.tables.allocation.allocate`, **the ledger is charged for every table at
once** (all or nothing) before any noise is drawn, and the noise comes from OpenDP's samplers
(:mod:`synthguard.dp._noise`):

* counts: discrete Laplace, b = Δ₁/εᵢ (Ghosh et al. 2009, ε-DP), or discrete Gaussian,
  σ = Δ₂/√(2ρᵢ) (Canonne, Kamath & Steinke 2020, ρ-zCDP — the 2020 Census's noise);
* sums: Laplace, b = Δ₁/εᵢ, or Gaussian, σ = Δ₂/√(2ρᵢ) (Bun & Steinke 2016, ρ-zCDP).

Declared structural zeros (cells that are impossible by a public rule, e.g. a 5-year-old
widow) are not measured: their count and sums are 0 with a zero-width interval. A record that
falls in one is not counted (a public edit rule); no error reports it, since that would tell
whether such a record exists.

Every answer carries an exact interval from its noise law and a reliability flag
(:mod:`synthguard.dp.tables.reliability`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState
from synthguard.dp import _noise
from synthguard.dp.accountant import PrivacyLedger, _make_charge
from synthguard.dp.sensitivity import histogram_sensitivity, sum_sensitivity
from synthguard.dp.synthesizers._base import NOT_DP_LABEL
from synthguard.dp.synthesizers._domain import build_domain
from synthguard.dp.tables.allocation import allocate, family_of
from synthguard.dp.tables.noise import NoiseModel
from synthguard.dp.tables.reliability import ReliabilityRule
from synthguard.dp.tables.result import DPTable, DPTables
from synthguard.dp.tables.spec import TableSpec, parse_tables
from synthguard.errors import DataError, ParameterError

__all__ = ["cell_labels", "charge_all", "dp_tables", "structural_zero_mask"]

_SUM_MECH = {"discrete_laplace": "laplace", "discrete_gaussian": "gaussian"}


def cell_labels(domain: Any, column: str) -> list[Any]:
    """Printable public levels of a column: its levels, or ``[a, b)`` for a bin of edges."""
    if column in domain.edges:
        e = domain.edges[column]
        return [f"[{e[i]:g}, {e[i + 1]:g})" for i in range(e.size - 1)]
    return list(domain.levels[column])


def structural_zero_mask(columns: Sequence[str], labels: Sequence[Sequence[Any]],
                         zeros: Sequence[Mapping[str, Any]] | None) -> np.ndarray:
    """Boolean mask (cells in C order) of the cells matching any declared structural zero.

    A zero is ``{column: level or [levels], ...}``; it applies to the tables holding all of
    its columns (a table lacking one cannot tell the cell apart).
    """
    sizes = [len(lv) for lv in labels]
    mask = np.zeros(int(np.prod(sizes, dtype=np.int64)), dtype=bool)
    for z in zeros or ():
        if not isinstance(z, Mapping) or not z:
            raise ParameterError(
                "parameter 'structural_zeros': expected mappings column -> level(s), e.g. "
                "{'age': '0-4', 'marital': 'widowed'}")
        if not set(z) <= set(columns):
            continue
        sel = []
        for c, lv in zip(columns, labels):
            if c in z:
                wanted = z[c] if isinstance(z[c], list | tuple | set) else [z[c]]
                hit = np.array([str(v) in {str(w) for w in wanted} for v in lv])
                if not hit.any():
                    raise ParameterError(
                        f"parameter 'structural_zeros': column '{c}' has no declared level "
                        f"named in a zero ({', '.join(map(str, wanted))})")
                sel.append(hit)
            else:
                sel.append(np.ones(len(lv), dtype=bool))
        grid = sel[0]
        for s in sel[1:]:
            grid = np.logical_and.outer(grid, s)
        mask |= np.asarray(grid).ravel()
    return mask


def charge_all(ledger: Any, parts: Sequence[tuple[str, float, float]], *, dp: bool) -> None:
    """Charge ``(label, epsilon, rho)`` parts on ``ledger`` all at once (all or none) — a
    :class:`PrivacyLedger` records them in one write; anything else is charged one by one."""
    prefix = "" if dp else NOT_DP_LABEL
    if isinstance(ledger, PrivacyLedger):
        ledger.put_many([_make_charge(prefix + label, eps, 0.0, rho)
                          for label, eps, rho in parts])
        return
    for label, eps, rho in parts:
        if rho > 0:
            ledger.charge_rho(prefix + label, rho)
        else:
            ledger.charge(prefix + label, eps)


def _sum_bounds(sums: Mapping[str, Any] | None) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    for col, b in (sums or {}).items():
        try:
            lo, hi = (float(v) for v in b)
        except (TypeError, ValueError):
            raise ParameterError(
                f"parameter 'sums': column '{col}' needs public bounds (lower, upper)") from None
        sum_sensitivity(lo, hi)  # validates
        out[str(col)] = (lo, hi)
    return out


def _sum_sens(lo: float, hi: float, relation: str) -> tuple[float, float]:
    m = max(abs(lo), abs(hi))
    if relation == "add_remove":
        return m, m
    return 2.0 * m, max(math.sqrt(2.0) * m, hi - lo)


def _add_noise(values: np.ndarray, nm: NoiseModel, rng: np.random.Generator | None
               ) -> np.ndarray:
    if nm.mechanism == "discrete_laplace":
        return _noise.add_discrete_laplace(values.astype(np.int64), nm.scale, rng)
    if nm.mechanism == "discrete_gaussian":
        return _noise.add_discrete_gaussian(values.astype(np.int64), nm.scale, rng)
    if nm.mechanism == "laplace":
        return _noise.add_laplace(values, nm.scale, rng)
    return _noise.add_gaussian(values, nm.scale, rng)


def dp_tables(
    data: pd.DataFrame,
    tables: Sequence[str | Sequence[str] | TableSpec],
    *,
    epsilon: float,
    delta: float = 0.0,
    ledger: Any = None,
    categories: Mapping[str, Any] | None = None,
    bins: Mapping[str, Any] | None = None,
    sums: Mapping[str, Any] | None = None,
    allocation: Any = None,
    mechanism: str = "discrete_laplace",
    relation: str = "add_remove",
    structural_zeros: Sequence[Mapping[str, Any]] | None = None,
    rule: ReliabilityRule | None = None,
    domain_from_data: str | None = None,
    where: Any = None,
    label: str = "dp table",
    raw_noisy: bool = False,
    random_state: RandomState = None,
) -> DPTables:
    """Noisy counts (and sums) of several tables from one (ε, δ) budget.

    Parameters
    ----------
    data : the confidential records.
    tables : e.g. ``["county x sex x agegroup", "state x sex"]``.
    epsilon, delta : the budget of the whole call (δ > 0 only for ``discrete_gaussian``).
    ledger : a :class:`PrivacyLedger` charged for every table before any noise; default a new
        in-memory ledger of exactly (ε, δ), returned on the result.
    categories, bins : public levels / bin edges of every table column (the DP room's rule:
        nothing read from the data is a declaration; ``domain_from_data="not-dp"`` reads them
        anyway and marks the release and its ledger lines NOT DP).
    sums : ``{column: (lower, upper)}`` public clamping bounds; each table also gets the
        noisy sum of each such column per cell.
    allocation : ``"equal"`` (default), a list of weights (one per table) or a mapping table
        name -> weight; stated in ``result.allocation``.
    mechanism : ``"discrete_laplace"`` (ε-DP) or ``"discrete_gaussian"`` (ρ-zCDP, tight
        conversion of (ε, δ)).
    relation : ``"add_remove"`` or ``"replace"`` neighbours.
    structural_zeros : cells impossible by a public rule, ``[{"age": "0-14", "marital":
        "married"}]``; fixed at 0 and not measured.
    rule : the :class:`ReliabilityRule` (interval level, unreliable margin, suppression).
    where : optional boolean mask of the records to tabulate (e.g. one period); the domain is
        still checked on every record, and an empty selection is tabulated like any other
        (a refusal would tell that it is empty).
    label : the start of each ledger line (``"<label> <table>: <statistic>"``).
    raw_noisy : False (default) publishes every count as a non-negative integer: the noisy
        count rounded and clamped at 0, max(0, round(ỹ)), and its interval clamped at 0 too;
        a sum of values clamped to bounds that are both ≥ 0 (≤ 0) is clamped at 0 likewise.
        This reads the noisy values only, so it is post-processing and costs no privacy
        (Dwork & Roth 2014, Prop. 2.1); the clamped counts are biased upwards near 0. True
        publishes the raw noisy values, negative ones included (unbiased; for analysts who
        model the noise themselves). Reliability and suppression are decided on the raw
        noisy count either way.
    random_state : None for OpenDP's noise (releases); a seed for simulation only.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["F", "M", "F"], "region": ["N", "N", "S"]})
    >>> res = dp_tables(df, ["region x sex"], epsilon=1.0,
    ...                 categories={"sex": ["F", "M"], "region": ["N", "S"]})  # doctest: +SKIP
    """
    specs = parse_tables(tables)
    if not isinstance(data, pd.DataFrame) or data.empty:
        raise DataError("dp_tables: expected a non-empty DataFrame of records")
    rule = rule or ReliabilityRule()
    family = family_of(mechanism)
    histogram_sensitivity(relation)  # type: ignore[arg-type]  # validates the relation
    cols = list(dict.fromkeys(c for s in specs for c in s.columns))
    bounds = _sum_bounds(sums)
    clash = [c for c in bounds if c in cols]
    if clash:
        raise ParameterError(f"parameter 'sums': column(s) {', '.join(clash)} are also table "
                             "columns; sum a numeric column that classifies no table")
    missing = [c for c in (*cols, *bounds) if c not in data.columns]
    if missing:
        raise DataError(f"dp_tables: columns not in the data: {', '.join(missing)}")
    cats = {c: v for c, v in (categories or {}).items() if c in cols}
    bns = {c: v for c, v in (bins or {}).items() if c in cols}
    domain, codes = build_domain(data, columns=cols, categories=cats, bins=bns,
                                 domain_from_data=domain_from_data, owner="dp_tables")
    if where is not None:
        mask = np.asarray(where, dtype=bool).ravel()
        if mask.size != len(data):
            raise ParameterError("parameter 'where': expected one boolean per record")
        codes = {c: v[mask] for c, v in codes.items()}
    else:
        mask = np.ones(len(data), dtype=bool)
    sum_values: dict[str, np.ndarray] = {}
    for c, (lo, hi) in bounds.items():
        x = pd.to_numeric(data[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(x).any():
            raise DataError(f"dp_tables: sum column '{c}' has missing or non-numeric values; "
                            "impute or drop them (a public rule) first")
        sum_values[c] = np.clip(x, lo, hi)[mask]
    stats = {s.name: ["count", *(f"sum:{c}" for c in bounds)] for s in specs}
    alloc = allocate([s.name for s in specs], stats, epsilon=epsilon, delta=delta,
                     mechanism=mechanism, weights=allocation)
    h = histogram_sensitivity(relation)  # type: ignore[arg-type]
    models: dict[str, dict[str, NoiseModel]] = {}
    parts: list[tuple[str, float, float]] = []
    for s in specs:
        models[s.name] = {}
        for st in stats[s.name]:
            eps, rho = alloc.of(f"{s.name}/{st}")
            if st == "count":
                l1, l2, mech = h.l1, h.l2, mechanism
            else:
                lo, hi = bounds[st[4:]]
                (l1, l2), mech = _sum_sens(lo, hi, relation), _SUM_MECH[mechanism]
            scale = l1 / eps if family == "pure" else l2 / math.sqrt(2.0 * rho)
            models[s.name][st] = NoiseModel(mech, scale)
            parts.append((f"{label} {s.name}: {st}", eps, rho))
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    rng = _noise.resolve_noise(random_state, stacklevel=3)
    charge_all(ledger, parts, dp=domain.dp)  # BEFORE any noise exists
    out: dict[str, DPTable] = {}
    for s in specs:
        labels = [cell_labels(domain, c) for c in s.columns]
        sizes = tuple(len(lv) for lv in labels)
        flat = np.ravel_multi_index(tuple(codes[c] for c in s.columns), sizes)
        n_cells = int(np.prod(sizes, dtype=np.int64))
        zero = structural_zero_mask(s.columns, labels, structural_zeros)
        index = pd.MultiIndex.from_product(labels, names=list(s.columns))
        frame = index.to_frame(index=False)
        nm = models[s.name]["count"]
        true = np.bincount(flat, minlength=n_cells)
        noisy = np.zeros(n_cells, dtype=np.int64 if nm.discrete else np.float64)
        noisy[~zero] = _add_noise(true[~zero], nm, rng)
        t = nm.halfwidth(rule.confidence)
        supp = rule.suppressed(noisy) & ~zero
        shown, lower, upper = noisy, noisy - t, noisy + t
        if not raw_noisy:  # post-processing: non-negative integers
            shown = np.maximum(np.rint(noisy), 0).astype(np.int64)
            lower, upper = np.maximum(lower, 0.0), np.maximum(upper, 0.0)
        frame["count"] = pd.array(np.where(supp, np.nan, shown),
                                  dtype="Int64" if (nm.discrete or not raw_noisy) else "Float64")
        frame["count_lower"] = np.where(zero, 0.0, np.where(supp, np.nan, lower))
        frame["count_upper"] = np.where(zero, 0.0, np.where(supp, np.nan, upper))
        frame["reliable"] = zero | (rule.reliable(noisy, t) & ~supp)
        frame["suppressed"] = supp
        frame["structural_zero"] = zero
        for c, v in sum_values.items():
            snm = models[s.name][f"sum:{c}"]
            ts = np.bincount(flat, weights=v, minlength=n_cells)
            sv = np.zeros(n_cells)
            sv[~zero] = _add_noise(ts[~zero], snm, rng)
            th = snm.halfwidth(rule.confidence)
            s_lo, s_hi = sv - th, sv + th
            lo, hi = bounds[c]
            if not raw_noisy and (lo >= 0 or hi <= 0):  # the sum's sign is public
                sign = 1.0 if lo >= 0 else -1.0
                sv, s_lo, s_hi = (sign * np.maximum(sign * a, 0.0) for a in (sv, s_lo, s_hi))
            frame[f"sum_{c}"] = np.where(supp, np.nan, sv)
            frame[f"sum_{c}_lower"] = np.where(zero, 0.0, np.where(supp, np.nan, s_lo))
            frame[f"sum_{c}_upper"] = np.where(zero, 0.0, np.where(supp, np.nan, s_hi))
        out[s.name] = DPTable(s.name, s.columns, frame, models[s.name])
    notes = () if domain.dp else (
        "NOT DIFFERENTIALLY PRIVATE: levels or bins of "
        f"{', '.join(domain.read_from_data)} were read from the data",)
    return DPTables(out, alloc, rule, ledger, _noise.noise_source(random_state), domain.dp,
                    bounds, notes, domain, raw_noisy=bool(raw_noisy))
