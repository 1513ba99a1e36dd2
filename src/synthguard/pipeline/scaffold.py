"""``synthguard init``: a commented plan a steward starts from.

The plan guesses what a steward would choose, and says each guess is one ("# guess: check"):

* **keys** (what an intruder knows from a linkage file such as a voter roll or a register):
  categorical columns, or numbers used as codes, with 2 to ``MAX_KEY_LEVELS`` (50) levels, at
  most ``MAX_KEYS`` (4) of them; demographic and geographic names (age, sex, gender, race,
  ethnicity, marital status, education, region, state, county, urban/rural, country, ...)
  come first, in that order, then the other candidates in file order. A column named like a
  demographic may have up to ``MAX_DEMOGRAPHIC_LEVELS`` (100) levels (age in years is a
  classic key). Survey weights and identifiers are never keys.
* **target** (the sensitive value the intruder seeks): the numeric column whose name sounds
  most sensitive, in the order income, earnings, wage, salary, wealth, assets, expenditure,
  spending, capital, amount, debt, tax, cost, payment, price, value; else the most
  right-skewed numeric column with more than 50 distinct values (sample skewness), the shape
  incomes and amounts take. Only one column per demographic is a key (age, not also an age
  group). With no numeric column, the target is the last column that is not a key.
* **derived and nested columns**: a column that is an exact function of another in the data
  is proposed ``passive`` (or ``nested`` in its coarser parent) instead of ``cart``, and a
  categorical column that is an interval binning of a numeric one (an age group of an age)
  ``passive`` with break points (``passive:of=age:breaks=24.5,34.5``), chosen as rounded
  midpoints between the groups' observed ranges, to be checked against the groups' public
  definitions (:func:`synthguard.synthesis.dependencies.propose_methods`).
* **integer codes are categorical**: the library infers a column of non-negative integers as
  a ``count`` (:func:`synthguard.data.schema.infer_schema`), which a coded category (race
  1..6, urban/rural 1..2) is not. ``init`` proposes ``categorical`` for an integer column
  that looks like codes (:func:`code_like`): at most ``MAX_CODE_LEVELS`` (12) distinct values,
  none of them 0 (a count of people, rooms or events has zeros; codes start at 1), all at most
  ``MAX_CODE`` (20) (years and ages stay numbers), and a name that does not say count, number,
  size, age, year, hours, ... (a household size of 1..9 stays a count). On the data the
  project ships and tests with it turns CE's Race and UrbanRural, ACS's and sdcMicro's coded
  columns into categories and leaves KidsCount, hsize, Adult's education_num (16 levels),
  penguins' year and SD2011's columns as they were.
* **never an identifier**: columns :func:`synthguard.data.schema.identifier_reason` flags
  (an id-like name, nearly all values distinct, an integer sequence) are left out of
  ``data.columns`` and of every key, target and formula, with the reason.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.io import read_table
from synthguard.data.schema import Kind, Schema, identifier_reason, infer_schema, validate_frame
from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS
from synthguard.synthesis.dependencies import propose_methods

__all__ = ["code_like", "guess_keys_targets", "init_plan"]

MAX_CODE_LEVELS = 12
MAX_CODE = 20
# names that say a column counts or measures something (never a coded category)
_COUNT_NAME = re.compile(
    r"count|num|number|size|total|^n_|_n$|^n[A-Z]|kid|child|person|people|member|room|"
    r"year|^age|_age|age$|hour|day|week|month|time|freq|qty|quantit|visit|score",
    re.IGNORECASE)
MAX_KEYS = 4
MAX_KEY_LEVELS = 50
MAX_DEMOGRAPHIC_LEVELS = 100

# demographic and geographic names, in the order a linkage file usually holds them
_DEMOGRAPHIC = [re.compile(p, re.IGNORECASE) for p in (
    r"^age|[^a-z]age\b|age_?group|agegrp", r"sex|gender", r"race|ethni", r"marital|married",
    r"educ|school|degree", r"urban|rural|metro", r"region|state|county|district|province|"
    r"place|city|zip|postcode|postal|area|geo", r"country|nativ|citizen|birth", r"tenure|house",
)]
_SENSITIVE = [re.compile(p, re.IGNORECASE) for p in (
    r"income", r"earn", r"wage", r"salar", r"wealth|asset", r"expend", r"spend", r"capital",
    r"amount", r"debt|loan", r"tax", r"cost", r"pay", r"price", r"value",
)]
# survey weights and design variables: neither keys nor targets
_WEIGHT = re.compile(r"weight|wgt|wght|^wt|_wt$|^pw|^hw|stratum|strata|^psu|varunit|cluster",
                     re.IGNORECASE)


def _rank(name: str, patterns: Sequence[re.Pattern[str]]) -> int | None:
    return next((i for i, p in enumerate(patterns) if p.search(name)), None)


def _skewness(x: pd.Series) -> float:
    v = pd.to_numeric(x, errors="coerce").dropna().to_numpy(dtype=float)
    if len(v) < 3 or np.std(v) == 0:
        return -np.inf
    return float(np.mean((v - v.mean()) ** 3) / np.std(v) ** 3)


def code_like(name: str, values: pd.Series, schema: Schema) -> bool:
    """True when a column inferred as ``count`` looks like integer codes of a category (the
    rule in this module's docstring: few levels, no zero, small values, no count-like name)."""
    if name not in schema.names or schema[name].kind is not Kind.COUNT:
        return False
    if _COUNT_NAME.search(str(name)):
        return False
    v = pd.to_numeric(values, errors="coerce").dropna()
    if v.empty:
        return False
    n_levels = int(v.nunique())
    return 2 <= n_levels <= MAX_CODE_LEVELS and v.min() >= 1 and v.max() <= MAX_CODE


def identifiers(data: pd.DataFrame, schema: Schema | None = None) -> dict[str, str]:
    """Columns that look like identifiers, with the reason (no data value in it)."""
    out: dict[str, str] = {}
    for c in data.columns:
        flagged = schema is not None and c in schema.names and getattr(schema[c], "identifier", False)
        reason = identifier_reason(str(c), data[c])
        if flagged or reason is not None:
            out[str(c)] = reason or "looks like an identifier"
    return out


def guess_keys_targets(data: pd.DataFrame, schema: Schema, max_keys: int = MAX_KEYS
                       ) -> tuple[list[str], list[str]]:
    """Guessed key variables and target, by the rules in this module's docstring.

    Returns ``(keys, targets)``; ``targets`` holds at most one column. Identifiers and survey
    weights are never chosen.
    """
    ids = identifiers(data, schema)
    usable = [c for c in schema.names if c not in ids and not _WEIGHT.search(c)]
    numeric = [c for c in usable if schema[c].is_numeric and not schema[c].is_categorical]
    ranked = [(r, i, c) for i, c in enumerate(numeric)
              if (r := _rank(c, _SENSITIVE)) is not None]
    if ranked:
        target: str | None = min(ranked)[2]
    else:
        wide = [c for c in numeric if data[c].nunique(dropna=True) > MAX_KEY_LEVELS]
        skew = [(_skewness(data[c]), -i, c) for i, c in enumerate(wide)]
        target = max(skew)[2] if skew else None
    candidates = []
    for i, c in enumerate(usable):
        if c == target:
            continue
        col = schema[c]
        demo = _rank(c, _DEMOGRAPHIC)
        n_levels = int(data[c].nunique(dropna=True))
        codes = col.is_categorical or col.kind is Kind.COUNT
        limit = MAX_DEMOGRAPHIC_LEVELS if demo is not None else MAX_KEY_LEVELS
        if (codes or (demo is not None and col.is_numeric)) and 2 <= n_levels <= limit:
            candidates.append((demo if demo is not None else len(_DEMOGRAPHIC), i, c))
    keys: list[str] = []
    seen: set[int] = set()
    for demo, _, c in sorted(candidates):  # one column per demographic (age, not also agegroup)
        if demo < len(_DEMOGRAPHIC) and demo in seen:
            continue
        seen.add(demo)
        keys.append(c)
    keys = keys[:max_keys]
    keys.sort(key=list(schema.names).index)
    if target is None:  # no numeric column: the last other column, so the plan validates
        target = next((c for c in reversed(usable) if c not in keys), None)
    return keys, [target] if target is not None else []


def _yaml_list(names: list[str]) -> str:
    return "[" + ", ".join(_quote(n) for n in names) + "]"


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else '"' + name.replace('"', '\\"') + '"'


def init_plan(data_path: str | os.PathLike[str], *, plan_dir: str | os.PathLike[str] | None = None,
              seed: int = 20240101, read_options: Mapping[str, Any] | None = None) -> str:
    """A commented example plan (YAML text) for the data file ``data_path``.

    Parameters
    ----------
    data_path : the confidential data file (any format :func:`synthguard.data.read_table` reads).
    plan_dir : folder the plan will be saved in (the data path is written relative to it);
        default the current folder.
    seed : the seed written into the plan.
    read_options : keywords of :func:`synthguard.data.read_table` (``na_values``, ``strip``);
        written into the plan's ``data.read_options`` so ``run`` reads the file the same way.
    """
    read_options = dict(read_options or {})
    data = validate_frame(read_table(data_path, **read_options))
    schema = infer_schema(data)
    codes = [c for c in schema.names if code_like(c, data[c], schema)
             and identifier_reason(str(c), data[c]) is None]
    if codes:
        schema = infer_schema(data, overrides=dict.fromkeys(codes, "categorical"))
    ids = identifiers(data, schema)
    keys, targets = guess_keys_targets(data, schema)
    start = Path(plan_dir) if plan_dir is not None else Path.cwd()
    rel = os.path.relpath(Path(data_path).resolve(), start.resolve())
    others = [c for c in schema.names if c not in keys and c not in ids]
    target = targets[0] if targets else None
    coded = [c for c in schema.names if schema[c].kind is Kind.COUNT and c in keys]
    kept_cols = [c for c in schema.names if c not in ids]
    full = propose_methods(data[kept_cols], schema.subset(kept_cols), visit_sequence=kept_cols)
    part = {c: v for c, v in propose_methods(data[kept_cols], schema.subset(kept_cols),
                                             visit_sequence=keys + others).items()
            if c in others}

    lines = [
        "# synthguard plan — written by `synthguard init`. Edit it, then run:",
        "#   synthguard run plan.yaml",
        "# Paths are relative to this file. Every field is explained; delete what you do not need.",
        "",
        "data:",
        f"  path: {_quote(rel)}",
    ]
    if read_options:
        lines.append("  read_options:                 # how the file is read (CLI --na-values, --strip)")
        for k, v in read_options.items():
            val = _yaml_list([str(t) for t in v]) if isinstance(v, list | tuple) else str(v).lower()
            lines.append(f"    {k}: {val}")
    if ids:
        lines.append("  # left out as identifiers (never synthesized, released or used as a predictor):")
        for c, why in ids.items():
            lines.append(f"  #   {c}: {why}")
        lines.append(f"  columns: {_yaml_list([c for c in schema.names if c not in ids])}"
                     "   # guess: check")
    lines.append("  schema:                       # guess: check. Column kinds as inferred; fix any wrong")
    for c in schema.names:
        if c in ids:
            continue
        note = ""
        if c in coded:
            note = "   # numbers used as codes? declare categorical"
        elif c in codes:
            note = (f"   # guess: integer codes ({int(data[c].nunique())} levels, none 0); "
                    "a count? write count")
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
        "#   delta: 1.0e-6              # mst and aim (zCDP) need delta > 0; below 1/records",
        "",
        "releases:                      # name -> how to make it",
    ]
    if keys and others:
        lines += [
            "  partial:                     # partially synthetic: the keys kept, the rest synthesized",
            "    method: synthesis          # parameters of synthguard.Synthesizer",
            "    m: 5                       # implicates",
            f"    keep: {_yaml_list(keys)}   # guess: check (the keys)",
            f"    methods: {{{', '.join(_quote(c) + ': ' + _quote(part.get(c, 'cart')) for c in others)}}}",
        ]
        if part:
            lines.append("    # passive/nested: exact functional dependencies or interval binnings (breaks:")
            lines.append("    #   rounded midpoints between groups in the data) found in the data (guess: check)")
    lines += [
        "  full:                        # fully synthetic: every column synthesized",
        "    method: synthesis",
        "    m: 5",
    ]
    if full:
        lines += [
            f"    methods: {{{', '.join(_quote(c) + ': ' + _quote(v) for c, v in full.items())}}}",
            "    # ^ exact functional dependencies in the data: derived (passive) or nested columns,",
            "    #   not modelled; passive breaks bin a numeric column, at rounded midpoints between",
            "    #   the groups in the data: check them against the groups' public definitions",
            "    #   (synthguard.synthesis.dependencies; guess: check)",
        ]
    # every numeric column an intruder does not hold as a key is top coded, not the target
    # alone: an extreme income is as telling as an extreme expenditure
    tails = [c for c in schema.names if schema[c].kind in (Kind.NUMERIC, Kind.COUNT)
             and c not in keys and c not in ids and not _WEIGHT.search(c)]
    if target is not None and target not in tails:
        tails.insert(0, target)
    if target is not None:
        lines += [
            "  topcoded:                    # traditional SDC: censor the top 5% of each numeric",
            "    method: sdc                # column that is not a key (its extremes are not released)",
            "    steps:                     # synthguard.sdc functions applied in turn",
        ]
        lines += [f"      - topcode: {{column: {_quote(c)}, percentile: 95}}   # guess: check"
                  for c in tails]
        lines += [
            "  # weighted:                  # risk-weighted Bayesian synthesis (Hu, Savitsky & Williams)",
            "  #   method: risk_weighted",
            "  #   model: bayes_norm",
            "  #   kind: pairwise",
            "  #   m: 5",
        ]
    lines += [
        "  # dp:                        # differentially private synthetic data (needs privacy:)",
        "  #   method: dp",
        f"  #   synthesizer: mst         # one of {', '.join(DP_SYNTHESIZERS)}",
        "  #   epsilon: 1.0",
        "  #   delta: 1.0e-6",
        "",
        "evaluation:",
        f"  keys: {_yaml_list(keys)}        # guess: check. What an intruder knows from a linkage file",
        "                               # (few-level demographic/geographic columns come first)",
        f"  targets: {_yaml_list(targets)}  # guess: check. The sensitive value the intruder seeks",
        "  radius: 0.2                  # a guess within 20% of the true value identifies",
        "  max_distance_records: 10000  # DCR and membership attack on samples of this size",
    ]
    numeric_others = [c for c in schema.names if schema[c].is_numeric and c != target
                      and c not in ids and not _WEIGHT.search(c)]
    if target is not None and numeric_others:
        lines.append(f'  formulas: ["{target} ~ {" + ".join(numeric_others[:3])}"]'
                     "   # guess: check. Analysts' regressions to compare")
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
