"""``synthguard init``: a commented example plan for a data file.

The plan is a starting point a steward edits, not a recommendation: the key
variables are guessed as the categorical columns (and counts) with few levels, the
target as the numeric column whose name sounds sensitive (income, wage, expenditure,
amount) or else the first continuous column. Every field carries a comment saying
what it means and what to change.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from synthguard.data.io import read_table
from synthguard.data.schema import Kind, Schema, infer_schema, validate_frame

__all__ = ["guess_keys_targets", "init_plan"]

_SENSITIVE = re.compile(r"income|wage|salar|earn|expend|spend|amount|value|price|revenue|tax",
                        re.IGNORECASE)


def guess_keys_targets(data: pd.DataFrame, schema: Schema, max_keys: int = 3
                       ) -> tuple[list[str], list[str]]:
    """Heuristic key variables (few-level categorical and count columns) and target (a continuous
    column, preferring sensitive-sounding names)."""
    keys: list[str] = []
    for c in schema.names:
        col = schema[c]
        n_levels = data[c].nunique(dropna=True)
        if (col.is_categorical or col.kind is Kind.COUNT) and 2 <= n_levels <= 20:
            keys.append(c)
    keys = keys[:max_keys]
    numeric = [c for c in schema.names if schema[c].kind is Kind.NUMERIC and c not in keys]
    if not numeric:
        numeric = [c for c in schema.names if schema[c].is_numeric and c not in keys]
    sensitive = [c for c in numeric if _SENSITIVE.search(c)]
    targets = (sensitive or numeric)[:1]
    return keys, targets


def _yaml_list(names: list[str]) -> str:
    return "[" + ", ".join(_quote(n) for n in names) + "]"


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else '"' + name.replace('"', '\\"') + '"'


def init_plan(data_path: str | os.PathLike[str], *, plan_dir: str | os.PathLike[str] | None = None,
              seed: int = 20240101) -> str:
    """A commented example plan (YAML text) for the data file ``data_path``.

    Parameters
    ----------
    data_path : the confidential data file (any format :func:`synthguard.data.read_table` reads).
    plan_dir : folder the plan will be saved in (the data path is written relative to it);
        default the current folder.
    seed : the seed written into the plan.
    """
    data = validate_frame(read_table(data_path))
    schema = infer_schema(data)
    keys, targets = guess_keys_targets(data, schema)
    start = Path(plan_dir) if plan_dir is not None else Path.cwd()
    rel = os.path.relpath(Path(data_path).resolve(), start.resolve())
    others = [c for c in schema.names if c not in keys]
    target = targets[0] if targets else None
    coded = [c for c in schema.names if schema[c].kind is Kind.COUNT and c in keys]

    lines = [
        "# synthguard plan — written by `synthguard init`. Edit it, then run:",
        "#   synthguard run plan.yaml",
        "# Paths are relative to this file. Every field is explained; delete what you do not need.",
        "",
        "data:",
        f"  path: {_quote(rel)}",
        "  schema:                       # column kinds as inferred; change any that are wrong",
    ]
    for c in schema.names:
        note = ""
        if c in coded:
            note = "   # numbers used as codes? declare categorical"
        lines.append(f"    {_quote(c)}: {schema[c].kind.value}{note}")
    lines += [
        "",
        f"seed: {seed}                  # the same seed gives the same releases and report",
        "output: synthguard_output      # folder for releases, evaluation table, ledger and report",
        "holdout: 0.1                   # share of records set aside (membership and DCR baselines);",
        "                               # 0 to use every record",
        "",
        "# privacy:                     # needed only for dp releases: the total budget",
        "#   epsilon: 1.0",
        "#   delta: 0.0",
        "",
        "releases:                      # name -> how to make it",
    ]
    if keys and others:
        lines += [
            "  partial:                     # partially synthetic: the keys kept, the rest synthesized",
            "    method: synthesis          # parameters of synthguard.Synthesizer",
            "    m: 5                       # implicates",
            f"    keep: {_yaml_list(keys)}",
            f"    methods: {{{', '.join(f'{_quote(c)}: cart' for c in others)}}}",
        ]
    lines += [
        "  full:                        # fully synthetic: every column synthesized",
        "    method: synthesis",
        "    m: 5",
    ]
    if target is not None:
        lines += [
            "  topcoded:                    # traditional SDC: censor the top 5% of the target",
            "    method: sdc",
            "    steps:                     # synthguard.sdc functions applied in turn",
            f"      - topcode: {{column: {_quote(target)}, percentile: 95}}",
            "  # weighted:                  # risk-weighted Bayesian synthesis (Hu, Savitsky & Williams)",
            "  #   method: risk_weighted",
            "  #   model: bayes_norm",
            "  #   kind: pairwise",
            "  #   m: 5",
        ]
    lines += [
        "  # dp:                        # differentially private synthetic data (needs privacy:)",
        "  #   method: dp",
        "  #   synthesizer: mst         # stratified, fieldgroups or mst",
        "  #   epsilon: 1.0",
        "",
        "evaluation:",
        f"  keys: {_yaml_list(keys)}        # what an intruder knows about a person (quasi-identifiers)",
        f"  targets: {_yaml_list(targets)}  # the sensitive variable(s) the intruder seeks",
        "  radius: 0.2                  # a guess within 20% of the true value identifies",
        "  max_distance_records: 10000  # DCR and membership attack on samples of this size",
    ]
    numeric_others = [c for c in schema.names if schema[c].is_numeric and c != target]
    if target is not None and numeric_others:
        lines.append(f'  formulas: ["{target} ~ {" + ".join(numeric_others[:3])}"]'
                     "   # analysts' regressions to compare")
    else:
        lines.append("  formulas: []                 # analysts' regressions, e.g. [\"y ~ x1 + x2\"]")
    lines += [
        "  thresholds:                  # the release board's rules; a release failing one fails",
        "    max_identification_risk: 0.5",
        "    pmse_ratio: 10",
        "",
        "report:",
        "  title: Release options",
        "  min_cell: 10                 # category levels with fewer records are never named",
        "",
    ]
    return "\n".join(lines)
