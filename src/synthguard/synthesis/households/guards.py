"""The default safeguards of a person release, for the members of a household release.

A household release draws its members with two parts (heads; further members), each a
:class:`~synthguard.synthesis.Synthesizer` fitted on a subset of the persons. Each part's
release safeguards (tail coding, :func:`~synthguard.synthesis.safeguards.tail_thresholds`;
rare values, :class:`~synthguard.synthesis.rare_values.RareGuard`) would be built from that
subset alone, so the part knew only its own persons: measured on EU-SILC (``eusilcS``, seed
1), 9 released income values were each held by exactly one person of the data, a further
member's value the heads' guard had smoothed a head's income onto (the guard checks a moved
value against the rare values it knows). A person release's guards know every person.

:func:`share_person_guards` therefore rebuilds each member part's guards from **every member
of the data** with the safeguards' own functions, so the rules are the person release's: no
synthesized value held by fewer than ``rare_values`` persons, numeric tails coded at the
thresholds of the whole person file. The household table keeps the guards built on its
households (a value is rare when fewer than ``rare_values`` *households* hold it, and tails
count households: stricter than counting their members).

The replicated-uniques guard is the household model's own (whole households redrawn,
:mod:`synthguard.synthesis.households.replicated`), on every released column and, as for a
person release, on ``uniques_on`` when given. :func:`household_safeguards` gathers what every
guard did into the :class:`~synthguard.synthesis.safeguards.SafeguardReport` a person release
carries (``result.safeguards``), so the summary, the manifest and the report read it alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import ParameterError
from synthguard.synthesis.encoding import to_working
from synthguard.synthesis.rare_values import RareGuard, declared_levels
from synthguard.synthesis.safeguards import SafeguardReport, snap_to_values, tail_thresholds

__all__ = ["household_safeguards", "share_person_guards"]


def _derived(part: Any) -> tuple[set[str], set[str]]:
    """``(derived, sources)``: columns a derived (passive) method computes, and those it
    reads, whose values a lookup needs as drawn (the person release exempts both from the
    rare-value guard, codes no derived column's tails and codes a source's at data values)."""
    derived: set[str] = set()
    sources: set[str] = set()
    for block in getattr(part, "blocks_", []):
        for cm in block.models:
            if cm.value is not None and getattr(cm.value.method, "derived", False):
                derived.add(cm.target)
                sources.update(getattr(cm.value.method, "sources_", cm.predictors))
    return derived, sources


def share_person_guards(part: Any, members: pd.DataFrame, person_columns: Sequence[str]) -> None:
    """Rebuild ``part``'s tail thresholds and rare-value guard for its person-level columns
    from ``members`` (every person of the data), in place; other columns keep theirs."""
    schema = part.schema_.columns
    cols = [c for c in part.visit_sequence_ if c in set(person_columns) and c in members.columns
            and c not in set(part.kept_)]
    if not cols:
        return
    arrays = {c: to_working(members[c], schema[c]) for c in cols}
    derived, sources = _derived(part)
    k_tail = int(getattr(part, "extremes_", 0) or 0)
    tails = {c: t for c, t in part.tail_thresholds_.items() if c not in set(cols)}
    if k_tail:
        for c in cols:
            if not schema[c].is_numeric or c in derived:
                continue
            lo, hi = tail_thresholds(arrays[c], k_tail)
            if c in sources:  # a lookup reads it: coded at data values
                lo, hi = snap_to_values(arrays[c], lo, hi)
            if lo is not None or hi is not None:
                tails[c] = (lo, hi)
    part.tail_thresholds_ = tails
    k_rare = int(getattr(part, "rare_values_", 0) or 0)
    public: dict[str, set[object]] = {
        c: set(v) for c, v in dict(part.public_levels or {}).items()}
    for c in cols:
        declared = declared_levels(getattr(part, "schema", None), c)
        if declared is not None:
            public[c] = public.get(c, set()) | declared
    shared = RareGuard(arrays, part.schema_, [c for c in cols if c not in derived | sources],
                       k_rare, public, tails)
    own = part.rare_guard_
    shared.numeric = {**{c: v for c, v in own.numeric.items() if c not in set(cols)},
                      **shared.numeric}
    shared.categorical = {**{c: v for c, v in own.categorical.items() if c not in set(cols)},
                          **shared.categorical}
    part.rare_guard_ = shared


def household_safeguards(policy: str, extremes: int, rare_values: int,
                         parts: Sequence[Sequence[SafeguardReport]],
                         found: Sequence[int], redrawn: Sequence[int], removed: Sequence[int],
                         n_records: Sequence[int], synthesized: Sequence[str],
                         remaining: Sequence[int] | None = None,
                         suppressed: Sequence[int] | None = None) -> SafeguardReport:
    """One :class:`SafeguardReport` for a household release: per implicate, the tails coded
    and rare values moved by every part draw (``parts[i]``: the reports of implicate ``i``'s
    draws), and the household guard's members found replicating a unique person, members
    redrawn (their households drawn again) and removed."""
    coded: list[dict[str, int]] = []
    rare: list[dict[str, int]] = []
    thresholds: dict[str, tuple[float | None, float | None]] = {}
    for reports in parts:
        merged = SafeguardReport.combine(list(reports)) if reports else None
        released = set(synthesized)  # not the parts' start columns (the members' context)
        coded.append({c: v for c, v in (merged.coded[0] if merged is not None and merged.coded
                                        else {}).items() if c in released})
        rare.append({c: v for c, v in (merged.rare[0] if merged is not None and merged.rare
                                       else {}).items() if c in released})
        if merged is not None:
            for c, t in merged.thresholds.items():
                if c in set(synthesized):
                    thresholds.setdefault(c, t)
    m = len(parts)
    return SafeguardReport(
        replicated_uniques=policy, extremes=int(extremes), thresholds=thresholds,
        found=tuple(int(x) for x in found), redrawn=tuple(int(x) for x in redrawn),
        removed=tuple(int(x) for x in removed),
        remaining=tuple(int(x) for x in remaining) if remaining is not None else (0,) * m,
        suppressed=tuple(int(x) for x in suppressed) if suppressed is not None else (0,) * m,
        kept_changed=tuple({} for _ in range(m)),
        n_records=tuple(int(x) for x in n_records), synthesized_columns=tuple(synthesized),
        coded=tuple(coded), rare_values=int(rare_values), rare=tuple(rare),
    )


def unique_sets(columns: Sequence[str], uniques_on: Any) -> list[list[str]]:
    """The column sets a released member is checked on for being a unique person: every
    released column, and ``uniques_on`` when given (as a person release does)."""
    sets = [list(columns)]
    if uniques_on is not None:
        on = [uniques_on] if isinstance(uniques_on, str) else list(uniques_on)
        unknown = [str(c) for c in on if c not in set(columns)]
        if unknown:
            raise ParameterError(f"parameter 'uniques_on' names columns that are not released "
                                 f"(the household id is not one): {', '.join(unknown)}")
        if on and on != list(columns):
            sets.append(on)
    return sets


def replicated_any(guards: Sequence[Any], frame: pd.DataFrame) -> np.ndarray:
    """Per released record: whether it equals a unique person on any of the guards' sets."""
    out = np.zeros(len(frame), dtype=bool)
    for g in guards:
        out |= g.replicated(frame)
    return out
