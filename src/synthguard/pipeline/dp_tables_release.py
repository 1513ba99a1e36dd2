"""Plan releases of DP tables (``method: dp_tables``): noisy tables charged to the plan's ledger.

A plan asks for them as for any release::

    privacy: {epsilon: 2.0, delta: 1e-9}
    releases:
      tables:
        method: dp_tables
        tables: ["region x sex", "region"]
        epsilon: 1.0
        categories: {region: [north, south], sex: [F, M]}
        sums: {income: [0, 200000]}       # optional noisy sums, clamped to public bounds
        rule: {confidence: 0.9, max_relative_margin: 0.5}

The parameters are those of :func:`synthguard.dp.tables.dp_tables` (checked against its
signature); the pipeline sets ``ledger`` (the plan's, charged before any noise) and never a
seed (OpenDP noise: a release). The release folder holds one CSV per table (every public cell
with its noisy count, interval and reliability flag), ``allocation.csv`` and ``release.json``
(kind ``dp-tables``, or ``not-dp-tables`` when a domain was read from the data; the spending, the reliability rule) as ``synthguard dp tabulate`` writes.
Tables are not records: the plan's utility and risk evaluation measures its microdata releases
only, and the report lists the tables release with its spending.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthguard.dp.tables import DPTables, dp_tables
from synthguard.dp.tables.reliability import ReliabilityRule
from synthguard.errors import PlanError

__all__ = ["is_tables", "make_dp_tables", "write_dp_tables"]

METHOD = "dp_tables"


def is_tables(release: Any) -> bool:
    """True for a DP tables release (not microdata: no implicates to evaluate)."""
    return isinstance(release, DPTables)


def make_dp_tables(spec: Any, data: pd.DataFrame, schema: Any, plan: Any,
                   rng: np.random.Generator, ledger: Any) -> DPTables:
    """The plan maker: :func:`dp_tables` on the training data, charging the plan's ledger."""
    params = dict(spec.params)
    rule = params.pop("rule", None)
    if isinstance(rule, Mapping):
        try:
            params["rule"] = ReliabilityRule(**rule)
        except TypeError as e:
            raise PlanError(f"release '{spec.name}': rule: {e}") from None
    elif rule is not None:
        params["rule"] = rule
    if ledger is not None:
        params["ledger"] = ledger
    tables = params.pop("tables", None)
    if tables is None:
        raise PlanError(f"release '{spec.name}': a dp_tables release needs 'tables', e.g. "
                        "['region x sex']")
    return dp_tables(data, tables, label=f"{spec.name}:", **params)


def write_dp_tables(folder: Path, release: DPTables, ledger_ref: str | None) -> list[Path]:
    """Write the tables, the allocation and ``release.json`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, table in release.tables.items():
        p = folder / f"{name}.csv"
        table.frame.to_csv(p, index=False)
        paths.append(p)
    release.allocation_frame().to_csv(folder / "allocation.csv", index=False)
    a = release.allocation
    spent = release.ledger.spent if release.ledger is not None else None
    info = {
        "kind": "dp-tables" if release.dp else "not-dp-tables",
        "files": [p.name for p in paths],
        "epsilon": a.epsilon, "delta": a.delta, "noise": release.noise_source,
        "dp": release.dp, "rule": release.rule.describe() + " " + release.published(),
        "notes": list(release.notes),
        "ledger": ledger_ref,
        "spent": None if spent is None else {"epsilon": spent.epsilon, "delta": spent.delta,
                                             "rho": spent.rho},
    }
    if ledger_ref is not None and hasattr(release.ledger, "write_record"):
        # the release's own read-only copy of its ledger: it travels with the folder
        release.ledger.write_record(folder / "ledger_record.json")
        info["ledger_record"] = "ledger_record.json"
    (folder / "release.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    return paths
