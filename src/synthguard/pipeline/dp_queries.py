"""A queries file: a privacy unit, a budget and named queries, answered by one
:class:`synthguard.dp.Session` (``synthguard dp query queries.yaml --out release/``).

::

    data: {path: persons.csv}           # relative to this file
    privacy_unit: hid                   # or row (the default)
    max_rows: 5                         # also max_groups, max_rows_per_group
    epsilon: 1.0                        # the session's budget (unit level); delta: for selections
    ledger: persons.ledger.json         # default <file name>.ledger.json beside this file
    alpha: 0.05                         # intervals (default 0.05); seed: the bounding's seed
    raw_noisy: false                    # true: raw noisy counts (default: non-negative integers)
    queries:
      by_sex:
        by: {sex: [Male, Female]}       # public keys; [sex] selects them privately
        aggregations: {n: count, households: count_distinct,
                       hours: {mean: hours_per_week, bounds: [0, 100]}}
        epsilon: 0.4                    # or weight: 2, or accuracy: {n: 50}

Budget across the queries (sequential composition): a query with ``epsilon`` takes it; one with
``accuracy`` (a target half-width per aggregation) takes the ε that target needs; the queries
with ``weight`` (or none of the three, weight 1) share what is left of the ledger's budget in
proportion to their weights. The whole file is checked against the ledger before the first
charge: a file that would overspend is refused whole, nothing spent.

The file is read with the plan loader's rules (:mod:`synthguard.pipeline.plan`): safe YAML, no
anchors or aliases, no duplicate keys; every problem is reported at once (PlanError).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synthguard.errors import PlanError, PrivacyBudgetError

__all__ = ["QueriesFile", "QuerySpec", "load_queries", "parse_queries", "run_queries"]

TOP_KEYS = ("data", "privacy_unit", "max_rows", "max_groups", "max_rows_per_group", "epsilon",
            "delta", "ledger", "alpha", "seed", "raw_noisy", "queries")
QUERY_KEYS = ("by", "aggregations", "epsilon", "weight", "accuracy", "alpha", "delta")


@dataclass(frozen=True)
class QuerySpec:
    """One query of the file, before its ε is resolved."""

    name: str
    by: Any
    aggregations: Mapping[str, Any]
    epsilon: float | None = None
    weight: float | None = None
    accuracy: Mapping[str, float] | None = None
    alpha: float | None = None
    delta: float | None = None


@dataclass(frozen=True)
class QueriesFile:
    """A validated queries file (see the module docstring)."""

    data_path: Path
    privacy_unit: str | None
    max_rows: int | None
    max_groups: int | None
    max_rows_per_group: int | None
    epsilon: float
    delta: float
    ledger_path: Path
    alpha: float
    seed: int | None
    queries: tuple[QuerySpec, ...] = field(default=())
    source: str = "<queries>"
    raw_noisy: bool = False


def _number(v: Any, where: str, problems: list[str], *, integer: bool = False,
            positive: bool = True) -> Any:
    ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    if ok and integer:
        ok = isinstance(v, int)
    if ok and positive:
        ok = v > 0
    if not ok:
        problems.append(f"{where}: expected a {'whole ' if integer else ''}number"
                        f"{' > 0' if positive else ''}")
        return None
    return v


def parse_queries(text: str, *, source: str = "<queries>",
                  base_dir: str | os.PathLike[str] | None = None) -> QueriesFile:
    """Parse and validate a queries file; relative paths resolve against ``base_dir``."""
    from synthguard.data.safe_load import parse_yaml_node
    from synthguard.pipeline.plan import _duplicate_keys

    # the one safe loader: no anchors or aliases, bounded size and depth (issue 31, N1)
    node, doc = parse_yaml_node(text, source=source, what="a queries file", error=PlanError)
    problems = [f"{'.'.join(map(str, p))}: {m}" for p, m in _duplicate_keys(node)]
    if not isinstance(doc, Mapping):
        raise PlanError(f"{source}: expected a mapping with 'data', 'epsilon' and 'queries'")
    return parse_queries_doc(doc, source=source, base_dir=base_dir, problems=problems)


def parse_queries_doc(doc: Mapping[str, Any], *, source: str = "<queries>",
                      base_dir: str | os.PathLike[str] | None = None,
                      problems: list[str] | None = None, needs_data: bool = True
                      ) -> QueriesFile:
    """Validate a queries file already read as a mapping (a plan's ``dp_queries`` release
    passes ``needs_data=False``: its data are the plan's)."""
    problems = [] if problems is None else problems
    for k in doc:
        if k not in TOP_KEYS:
            problems.append(f"{k}: unknown key; expected one of {', '.join(TOP_KEYS)}")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    data = doc.get("data")
    data_path = base
    if not needs_data:
        pass
    elif not isinstance(data, Mapping) or not isinstance(data.get("path"), str) or set(
            data) != {"path"}:
        problems.append("data: expected {path: FILE}, the confidential file")
    else:
        data_path = (base / data["path"]).resolve()
    unit = doc.get("privacy_unit")
    if unit is not None and not (isinstance(unit, str) and unit):
        problems.append("privacy_unit: expected 'row' or an id column name")
    bounds = {}
    for key in ("max_rows", "max_groups", "max_rows_per_group"):
        bounds[key] = (None if doc.get(key) is None
                       else _number(doc[key], key, problems, integer=True))
    epsilon = _number(doc.get("epsilon"), "epsilon", problems)
    delta = 0.0 if doc.get("delta") is None else _number(doc["delta"], "delta", problems)
    alpha = 0.05 if doc.get("alpha") is None else _number(doc["alpha"], "alpha", problems)
    seed = None if doc.get("seed") is None else _number(doc["seed"], "seed", problems,
                                                        integer=True, positive=False)
    raw_noisy = doc.get("raw_noisy", False)
    if not isinstance(raw_noisy, bool):
        problems.append("raw_noisy: expected true or false")
    ledger = doc.get("ledger")
    if ledger is not None and not isinstance(ledger, str):
        problems.append("ledger: expected a file path")
    ledger_path = (base / ledger).resolve() if isinstance(ledger, str) else (
        base / f"{Path(source).stem}.ledger.json").resolve()
    queries = []
    raw = doc.get("queries")
    if not isinstance(raw, Mapping) or not raw:
        problems.append("queries: expected a mapping name -> {by, aggregations, epsilon}")
        raw = {}
    for name, q in raw.items():
        where = f"queries.{name}"
        if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
            problems.append(f"{where}: a query name is a file name: letters, digits, _ and -")
            continue
        if not isinstance(q, Mapping):
            problems.append(f"{where}: expected a mapping with 'aggregations'")
            continue
        for k in q:
            if k not in QUERY_KEYS:
                problems.append(f"{where}.{k}: unknown key; expected one of "
                                f"{', '.join(QUERY_KEYS)}")
        chosen = [k for k in ("epsilon", "weight", "accuracy") if k in q]
        if len(chosen) > 1:
            problems.append(f"{where}: give one of epsilon, weight and accuracy")
        if not isinstance(q.get("aggregations"), Mapping):
            problems.append(f"{where}.aggregations: expected name -> aggregation")
        acc = q.get("accuracy")
        if acc is not None and not (isinstance(acc, Mapping) and acc):
            problems.append(f"{where}.accuracy: expected aggregation name -> half-width")
        queries.append(QuerySpec(
            name, q.get("by"), q.get("aggregations") or {},
            None if q.get("epsilon") is None else _number(q["epsilon"], f"{where}.epsilon",
                                                         problems),
            None if q.get("weight") is None else _number(q["weight"], f"{where}.weight",
                                                        problems),
            acc, None if q.get("alpha") is None else _number(q["alpha"], f"{where}.alpha",
                                                            problems),
            None if q.get("delta") is None else _number(q["delta"], f"{where}.delta",
                                                        problems)))
    if problems:
        raise PlanError(f"{source}: " + "; ".join(problems))
    return QueriesFile(data_path, unit, bounds["max_rows"], bounds["max_groups"],
                       bounds["max_rows_per_group"], float(epsilon), float(delta), ledger_path,
                       float(alpha), seed, tuple(queries), source, raw_noisy is True)


def load_queries(path: str | os.PathLike[str]) -> QueriesFile:
    """Read and validate a queries file; relative paths in it resolve against its folder."""
    p = Path(path)
    if not p.is_file():
        raise PlanError(f"queries file '{p}' does not exist")
    from synthguard.data.safe_load import MAX_YAML_BYTES, read_text

    return parse_queries(read_text(p, p.name, "a queries file", MAX_YAML_BYTES, PlanError),
                         source=p.name,
                         base_dir=p.parent.resolve())


def _session(spec: QueriesFile, data: Any, noise_seed: int | None, ledger: Any = None,
             random_state: Any = None) -> Any:
    from synthguard.dp import Session

    return Session(data, privacy_unit=spec.privacy_unit, max_rows=spec.max_rows,
                   max_groups=spec.max_groups, max_rows_per_group=spec.max_rows_per_group,
                   epsilon=spec.epsilon, delta=spec.delta,
                   ledger=spec.ledger_path if ledger is None else ledger,
                   random_state=random_state, noise_random_state=noise_seed)


def resolve_epsilons(spec: QueriesFile, session: Any,
                     available: float | None = None) -> dict[str, float | None]:
    """ε of each query (None: set by its accuracy targets), per the module docstring;
    ``available``: what the file may spend (default what is left on the ledger)."""
    planned: dict[str, float] = {}
    for q in spec.queries:
        if q.accuracy is not None:
            planned[q.name] = float(session.plan(by=q.by, aggregations=q.aggregations,
                                                 accuracy=q.accuracy,
                                                 alpha=q.alpha or spec.alpha)["epsilon"].sum())
        elif q.epsilon is not None:
            planned[q.name] = float(q.epsilon)
    weighted = [q for q in spec.queries if q.accuracy is None and q.epsilon is None]
    avail = session.remaining.epsilon if available is None else available
    left = avail - math.fsum(planned.values())
    if weighted:
        if left <= 0:
            raise PrivacyBudgetError(
                f"{spec.source}: the queries with epsilon or accuracy leave nothing of the "
                f"budget for the queries shared by weight; nothing was spent")
        total_w = math.fsum(q.weight or 1.0 for q in weighted)
        for q in weighted:
            planned[q.name] = left * (q.weight or 1.0) / total_w
    return {q.name: (None if q.accuracy is not None else planned[q.name])
            for q in spec.queries} | {"__total__": math.fsum(planned.values())}


def run_queries(spec: QueriesFile, data: Any, *, noise_seed: int | None = None,
                dry_run: bool = False, ledger: Any = None,
                random_state: Any = None) -> tuple[Any, list[Any]]:
    """Answer every query of ``spec`` on ``data``; returns (session, results in file order).

    The file's total is checked against the ledger's remaining budget first (PrivacyBudgetError,
    nothing spent); ``dry_run`` returns each query's plan and spends nothing. ``ledger``: a
    :class:`~synthguard.dp.PrivacyLedger` shared with other releases (a plan's), of which the
    file may spend ``spec.epsilon`` and ``spec.delta`` at most; ``random_state``: the
    bounding's seed when the file gives none.
    """
    session = _session(spec, data, noise_seed, ledger,
                       spec.seed if spec.seed is not None else random_state)
    eps = resolve_epsilons(spec, session, None if ledger is None else spec.epsilon)
    total = float(eps.pop("__total__") or 0.0)
    deltas = math.fsum(q.delta or 0.0 for q in spec.queries)
    rem = session.remaining
    if ledger is not None and (total > spec.epsilon * (1 + 1e-12) + 1e-12
                               or deltas > spec.delta * (1 + 1e-12) + 1e-15):
        raise PrivacyBudgetError(
            f"{spec.source}: the queries cost epsilon={total:.6g}, delta={deltas:.3g} per "
            f"{session.unit.column} in all, more than the release's epsilon={spec.epsilon:g}, "
            f"delta={spec.delta:g}; nothing was spent: ask for less or raise the release's")
    if not dry_run and (total > rem.epsilon * (1 + 1e-12) + 1e-12
                        or deltas > rem.delta * (1 + 1e-12) + 1e-15):
        raise PrivacyBudgetError(
            f"{spec.source}: the queries cost epsilon={total:.6g}, delta={deltas:.3g} per "
            f"{session.unit.column} in all, and only epsilon={rem.epsilon:.6g}, "
            f"delta={rem.delta:.3g} is left on the ledger; nothing was spent: ask for less")
    results = []
    for q in spec.queries:
        results.append(session.query(by=q.by, aggregations=q.aggregations, epsilon=eps[q.name],
                                     accuracy=q.accuracy, alpha=q.alpha or spec.alpha,
                                     delta=q.delta, label=q.name, dry_run=dry_run,
                                     raw_noisy=spec.raw_noisy))
    return session, results
