"""DP statistics on demand as a release: of a plan (``method: dp_queries``) or of
``synthguard dp query``, written as one release folder.

A plan asks for them as for any release, on the plan's ledger::

    privacy: {epsilon: 2.0}
    releases:
      stats:
        method: dp_queries
        privacy_unit: hid            # the unit every charge protects; also max_groups, ...
        max_rows: 5
        epsilon: 1.0                 # what the queries may spend of the plan's budget
        queries:                     # as in a queries file (synthguard.pipeline.dp_queries)
          by_sex:
            by: {sex: [Male, Female]}
            aggregations: {n: count, hours: {mean: hours_per_week, bounds: [0, 100]}}
            epsilon: 0.4
          all: {aggregations: {households: count_distinct}}   # shares what is left

The parameters are those of :func:`dp_queries`. The pipeline sets ``ledger`` (the plan's: the
queries are charged there, at the unit level, naming the unit, before any noise) and
``random_state`` (the seed of the bounding's random truncation, never of the noise: OpenDP's
samplers draw it, a release). A plan's DP releases must protect one unit (amounts for a row
and for a household do not add up on one ledger).

The release folder (a plan's ``releases/<name>/`` or ``dp query --out``) holds one CSV per
query (the keys, each value and its ``_lower``/``_upper`` interval), ``release.json`` (kind
``dp-queries``: the unit, each query's ε, δ, α, keys, bounds and noise plan, the spending),
``report.html`` (each value with its interval and the ledger's unit-level charges) and the
ledger (a copy, ``ledger.json``, for ``dp query``; ``ledger_record.json`` for a plan).
Statistics are not records: the plan's utility and risk evaluation leaves them out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from synthguard.data.safe_load import parse_json
from synthguard.errors import PlanError

__all__ = ["QueriesRelease", "dp_queries", "is_queries", "make_dp_queries",
           "write_queries_release"]

KIND = "dp-queries"


@dataclass(frozen=True)
class QueriesRelease:
    """The answers of a set of queries: the session that answered them and its results."""

    session: Any
    results: tuple[Any, ...]
    raw_noisy: bool = False
    dp: bool = True
    kind: str = KIND

    @property
    def ledger(self) -> Any:
        return self.session.ledger


def is_queries(release: Any) -> bool:
    """True for a DP statistics release (not microdata: nothing to evaluate)."""
    return isinstance(release, QueriesRelease)


def dp_queries(data: pd.DataFrame, *, queries: Mapping[str, Any], epsilon: float,
               privacy_unit: str | None = None, max_rows: int | None = None,
               max_groups: int | None = None, max_rows_per_group: int | None = None,
               delta: float = 0.0, alpha: float = 0.05, raw_noisy: bool = False,
               ledger: Any = None, random_state: Any = None,
               source: str = "<dp_queries>") -> QueriesRelease:
    """Answer ``queries`` (a queries file's ``queries:`` mapping) on ``data`` per privacy unit.

    ``epsilon``/``delta``: what the queries may spend; with ``ledger`` (a plan's) they are
    charged there and may not exceed it, without it a fresh ledger of that budget is used.
    ``random_state`` seeds the bounding's truncation only. See
    :func:`synthguard.pipeline.dp_queries.run_queries`.
    """
    from synthguard.dp import PrivacyLedger
    from synthguard.pipeline.dp_queries import parse_queries_doc, run_queries

    doc = {"privacy_unit": privacy_unit, "max_rows": max_rows, "max_groups": max_groups,
           "max_rows_per_group": max_rows_per_group, "epsilon": epsilon, "delta": delta,
           "alpha": alpha, "raw_noisy": raw_noisy, "queries": queries}
    spec = parse_queries_doc({k: v for k, v in doc.items()
                              if v is not None and not (k == "delta" and v == 0)},
                             source=source, needs_data=False)
    if ledger is None:
        ledger = PrivacyLedger(epsilon=spec.epsilon, delta=spec.delta)
    session, results = run_queries(spec, data, ledger=ledger, random_state=random_state)
    return QueriesRelease(session, tuple(results), spec.raw_noisy)


def make_dp_queries(spec: Any, data: pd.DataFrame, schema: Any, plan: Any, rng: Any,
                    ledger: Any) -> QueriesRelease:
    """The plan maker: :func:`dp_queries` on the training data, charging the plan's ledger."""
    params = dict(spec.params)
    if "queries" not in params:
        raise PlanError(f"release '{spec.name}': a dp_queries release needs 'queries', e.g. "
                        "{by_sex: {by: {sex: [F, M]}, aggregations: {n: count}}}")
    return dp_queries(data, ledger=ledger, random_state=rng, source=f"release '{spec.name}'",
                      **params)


def write_queries_release(folder: Path, results: Sequence[Any], session: Any, *,
                          title: str, provenance: Mapping[str, str], raw_noisy: bool,
                          ledger_ref: str | None, seed: int | None = None,
                          extra: Mapping[str, Any] | None = None) -> list[str]:
    """Write the query CSVs, ``report.html`` and ``release.json`` into ``folder``; returns
    the names of the CSVs. ``ledger_ref``: where the ledger is, relative to the folder."""
    from synthguard.dp.session.publish import published_text
    from synthguard.report.dp_queries import write_queries_report

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for r in results:
        r.to_frame().to_csv(folder / f"{r.label}.csv", index=False)
        files.append(f"{r.label}.csv")
    write_queries_report(folder / "report.html", title=title, results=results,
                         ledger=session.ledger, provenance=dict(provenance))
    spent = session.spent
    info = {"kind": KIND, "files": files, "privacy_unit": session.unit.describe(),
            "published": published_text(raw_noisy),
            "queries": {r.label: {"epsilon": r.epsilon, "delta": r.delta,
                                  "alpha": r.alpha, "keys": r.keys, "bounds": r.bounds,
                                  "plan": parse_json(r.plan.to_json(orient="records"),
                                                     source="the query plan")}
                        for r in results},
            "noise": results[0].noise if results else None, "seed": seed,
            "ledger": ledger_ref,
            "spent": {"epsilon": spent.epsilon, "delta": spent.delta},
            "report": "report.html", **dict(extra or {})}
    (folder / "release.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    return files
