"""Issue 31: what the unique guard should do with a partially synthetic record it cannot fix
by redrawing, measured on Adult with 12 kept columns.

UCI Adult complete cases (../shared/data/synthpop_releases/adult_complete_cases.csv, 30,162 x
15). ``income``, ``capital_gain`` and ``capital_loss`` are synthesized (CART, the defaults),
the 12 other columns kept, m = 3, seeds 1-3. With ``fnlwgt`` kept nearly every record is
unique on the kept columns, so a record whose three synthesized values come out equal to its
own (0, 0, <=50K for most) is a replicated unique. The options compared
(:mod:`synthguard.synthesis.partial_guard`):

* ``no guard``: ``replicated_uniques="keep"`` (the risk the guard is for);
* ``suppress``: redraw, then blank the synthesized values of the records that still replicate
  a unique (main before issue 31);
* ``coarsen``: round the riskiest kept value (``fnlwgt``) of every record unique on the kept
  columns to 2 significant digits, then redraw / blank what still replicates;
* ``synthesize``: draw that value anew from a CART model of it instead.

Each release is measured with :func:`synthguard.evaluate` as a partial release (the measures
``synthguard evaluate`` prints), intruder keys ``age, sex, race, marital_status, education``:

* utility: pMSE ratio (goal about 1), CI overlap of the linear regression
  ``hours_per_week ~ age + education_num + sex + capital_gain + capital_loss + income``
  (goal 1), share of the released values the guard changed or blanked;
* risk: maximum and mean identification risk of ``capital_gain`` (Hu, Savitsky & Williams,
  radius 0.2), replicated uniques on all columns, DiSCO of ``income``; and the share of records
  whose three synthesized values equal their own confidential ones while the released kept
  values still identify them (unique on the kept columns and equal to the data's: the
  records a linkage on the kept columns reveals exactly); and whether a change is a signal:
  the share of records whose synthesized values are their own among those whose kept values
  changed, against the same share among the unchanged records unique on the kept columns
  (a guard that changes only the records whose synthesized values are real makes the first
  1 and the second 0, telling an intruder which records to read).

Means over the seeds are printed as a table, with the time of fit + sample.
Run: ``PYTHONPATH=src .venv/bin/python benchmarks/partial_guard.py`` (about 10 minutes on 2
cores); ``--seeds 1`` for one seed.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthguard import Synthesizer, evaluate

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SHARED = SHARED if SHARED.exists() else Path("/work/shared/data")
ADULT = SHARED / "synthpop_releases" / "adult_complete_cases.csv"
SYNTHESIZED = ["income", "capital_gain", "capital_loss"]
KEYS = ["age", "sex", "race", "marital_status", "education"]
FORMULA = ("hours_per_week ~ age + education_num + sex + capital_gain + capital_loss "
           "+ income")
OPTIONS: dict[str, dict[str, Any]] = {
    "no guard": {"replicated_uniques": "keep"},
    "suppress": {"partial_uniques": "suppress"},
    "coarsen": {"partial_uniques": "coarsen"},
    "synthesize": {"partial_uniques": "synthesize"},
}
METRICS = {
    "pmse_ratio": "pMSE ratio",
    "ci_overlap": "CI overlap",
    "max_identification_risk": "max identification risk",
    "mean_identification_risk": "mean identification risk",
    "replicated_uniques": "replicated uniques (share)",
    "disco": "DiSCO",
}


def _same(conf: pd.DataFrame, syn: pd.DataFrame, cols: list[str]) -> np.ndarray:
    """Row-wise: every column of ``cols`` equal in ``syn`` and ``conf`` (numbers compared as
    numbers, so 0 and 0.0 are equal; a missing value equals nothing)."""
    out = np.ones(len(conf), dtype=bool)
    for c in cols:
        out &= (syn[c].reset_index(drop=True) == conf[c].reset_index(drop=True)).to_numpy()
    return out


def exposed(conf: pd.DataFrame, syn: pd.DataFrame, kept: list[str]) -> float:
    """Share of records unique on the kept columns whose released kept values are the data's
    and whose synthesized values all equal their own: what a linkage on the kept columns
    reveals exactly."""
    key = conf[kept].astype(str).agg("|".join, axis=1)
    unique = key.map(key.value_counts()).eq(1).to_numpy()
    return float(np.mean(unique & _same(conf, syn, kept) & _same(conf, syn, SYNTHESIZED)))


def signal(conf: pd.DataFrame, syn: pd.DataFrame, kept: list[str]) -> tuple[float, float]:
    """Whether a changed kept value tells that the synthesized values are real: the share of
    records whose three synthesized values equal their own among the records whose kept
    values were changed, and among the records unique on the kept columns left unchanged
    (NaN where there are none)."""
    key = conf[kept].astype(str).agg("|".join, axis=1)
    unique = key.map(key.value_counts()).eq(1).to_numpy()
    changed = ~_same(conf, syn, kept)
    same_syn = _same(conf, syn, SYNTHESIZED)
    a = float(same_syn[changed].mean()) if changed.any() else float("nan")
    b = float(same_syn[unique & ~changed].mean()) if (unique & ~changed).any() else float("nan")
    return a, b


def one(conf: pd.DataFrame, kept: list[str], seed: int, kw: dict[str, Any]) -> dict[str, float]:
    t0 = time.perf_counter()
    res = Synthesizer(keep=kept, m=3, random_state=seed, **kw).fit(conf).sample(
        random_state=seed)
    seconds = time.perf_counter() - t0
    sg = res.safeguards
    n_values = sum(len(s) for s in res.implicates) * conf.shape[1]
    changed = sum(sum(d.values()) for d in sg.kept_changed)
    blanked = sum(sg.suppressed) * len(SYNTHESIZED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(conf, {"release": res}, keys=KEYS, targets=["capital_gain", "income"],
                      formulas=FORMULA, kinds={"release": "partial"}, random_state=seed,
                      default_thresholds=False)
    row = ev.to_frame().iloc[0]
    out = {label: float(row[k]) for k, label in METRICS.items()}
    out["values changed (share)"] = changed / n_values
    out["values blanked (share)"] = blanked / n_values
    out["records changed or blanked"] = (changed + sum(sg.suppressed)) / sum(
        len(s) for s in res.implicates)
    out["exposed by linkage (share)"] = float(np.mean(
        [exposed(conf, s, kept) for s in res.implicates]))
    sig = [signal(conf, s, kept) for s in res.implicates]
    out["real | kept changed"] = float(np.nanmean([a for a, _ in sig])) if any(
        np.isfinite(a) for a, _ in sig) else float("nan")
    out["real | unique, unchanged"] = float(np.nanmean([b for _, b in sig])) if any(
        np.isfinite(b) for _, b in sig) else float("nan")
    out["seconds (fit + sample)"] = seconds
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--data", default=str(ADULT))
    args = ap.parse_args()
    conf = pd.read_csv(args.data)
    kept = [c for c in conf.columns if c not in SYNTHESIZED]
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"Adult complete cases {conf.shape[0]:,} x {conf.shape[1]}; kept {len(kept)}, "
          f"synthesized {', '.join(SYNTHESIZED)}; m = 3; seeds {seeds}")
    table: dict[str, pd.Series] = {}
    for name, kw in OPTIONS.items():
        rows = [one(conf, kept, s, kw) for s in seeds]
        table[name] = pd.DataFrame(rows).mean()
        print(f"  {name}: done", flush=True)
    out = pd.DataFrame(table)
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(out.to_string())


if __name__ == "__main__":
    main()
