"""What the private defaults cost and buy: CE (bundled) and Adult, before and after.

"Before" is the synthesizer with the safeguards off (``replicated_uniques="keep"``,
``extremes=0``, ``rare_values=0``), "after" its defaults. For each file (m = 1, seeds 1-3, means printed):
share of synthetic records identical to a confidential record, replicated uniques (synthetic
records equal to a record unique in the confidential file on every column, counted here with
a pandas merge, independently of the synthesizer's own count), how many of each numeric
column's 5 smallest and 5 largest values appear in the release, repU and DiSCO
(synthguard.risk.disclosure, synthpop's definitions; CE: keys UrbanRural, Race, KidsCount,
target Income in 10 groups; Adult: keys age, sex, race, marital_status, target income), the logistic pMSE ratio and the
synthesis time (fit + sample, best of the seeds' runs). Then leaf smoothing on Adult's
``capital_gain`` (``cart:smoothing=density``): share of zeros, maximum, pMSE ratio.

Then the safeguards' time overhead at scale (issue 12 asks for under 20 %): Adult resampled
to ``--rows`` records (default 1,000,000; ``fnlwgt`` and ``capital_gain`` values moved by a few
units so that most stay rare, as in real data of that size), one fit + sample with the
safeguards off and one with the defaults.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/private_defaults.py`` (Adult is read from
../shared/data/ and skipped when absent; about two minutes on two cores, plus the 1M-row
overhead; ``--rows 0`` skips it, ``--only-overhead`` runs it alone).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from synthguard import Synthesizer, load_dataset
from synthguard.risk import disclosure
from synthguard.utility import pmse

ADULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "synthpop_releases" / (
    "adult_complete_cases.csv"
)
ADULT = ADULT if ADULT.exists() else Path("/work/shared/data/synthpop_releases/adult_complete_cases.csv")
OFF = {"replicated_uniques": "keep", "extremes": 0, "rare_values": 0}


def replicated_uniques(conf: pd.DataFrame, syn: pd.DataFrame) -> int:
    cols = list(conf.columns)
    counts = conf.groupby(cols, dropna=False).size().rename("n").reset_index()
    uniq = counts[counts["n"] == 1].drop(columns="n")
    return len(syn[cols].astype(conf.dtypes.to_dict()).merge(uniq, on=cols, how="inner"))


def tails_present(conf: pd.DataFrame, syn: pd.DataFrame, numeric: list[str], k: int = 5) -> int:
    """Synthetic values equal to a confidential tail value: a value v with at most k records
    at or above it (or at or below it), i.e. one of the k largest (smallest) records' values
    unless held by more than k records (a point mass such as a zero or a top code)."""
    n = 0
    for c in numeric:
        v = np.sort(conf[c].dropna().to_numpy())
        tails = np.r_[v[:k][v[:k] < v[k]], v[-k:][v[-k:] > v[-k - 1]]]
        n += int(np.isin(syn[c], tails).sum())
    return n


def run(name: str, conf: pd.DataFrame, schema: dict, keys: list[str], target: str,
        numeric: list[str], seeds=(1, 2, 3)) -> None:
    print(f"\n== {name}: {conf.shape[0]} x {conf.shape[1]}, default CART full synthesis, m = 1")
    rows = {}
    for label, kw in (("before (safeguards off)", OFF), ("after (defaults)", {})):
        res = []
        for seed in seeds:
            t = time.perf_counter()
            out = Synthesizer(schema=schema, random_state=seed, **kw).fit(conf).sample()
            dt = time.perf_counter() - t
            syn = out.implicates[0]
            d = disclosure(conf, syn, keys=keys, targets=target,
                           ngroups_targets=10 if conf[target].dtype.kind in "if" else 0)
            res.append({
                "exact copies": out.diagnostics.replicated_share,
                "replicated uniques": replicated_uniques(conf, syn),
                "tail values present": tails_present(conf, syn, numeric),
                "repU": d.repu,
                "DiSCO": d.disco,
                "pMSE ratio": pmse(conf, syn, schema=None, random_state=seed).ratio,
                "seconds": dt,
                "rows": len(syn),
            })
        f = pd.DataFrame(res)
        agg = f.mean()
        agg["seconds"] = f["seconds"].min()
        rows[label] = agg
    table = pd.DataFrame(rows).T
    print(table.to_string(float_format=lambda x: f"{x:.4g}"))
    b, a = table.iloc[0]["seconds"], table.iloc[1]["seconds"]
    print(f"time overhead of the safeguards: {100 * (a / b - 1):+.0f}%")


def smoothing(conf: pd.DataFrame, schema: dict, seeds=(1, 2, 3)) -> None:
    print("\n== Adult capital_gain: leaf smoothing (cart:smoothing=density), defaults otherwise")
    rows = {}
    for label, methods in (("cart", None), ("cart:smoothing=density",
                                            {"capital_gain": "cart:smoothing=density"})):
        res = []
        for seed in seeds:
            syn = Synthesizer(schema=schema, methods=methods, random_state=seed).fit(
                conf).sample(diagnostics=False).implicates[0]
            res.append({
                "share of zeros": float(np.mean(syn["capital_gain"] == 0)),
                "max": float(syn["capital_gain"].max()),
                "pMSE ratio": pmse(conf, syn, random_state=seed).ratio,
            })
        rows[label] = pd.DataFrame(res).mean()
    rows["data"] = pd.Series({"share of zeros": float(np.mean(conf["capital_gain"] == 0)),
                              "max": float(conf["capital_gain"].max()), "pMSE ratio": np.nan})
    print(pd.DataFrame(rows).T.to_string(float_format=lambda x: f"{x:.4g}"))


def overhead(adult: pd.DataFrame, rows: int, seed: int = 1) -> None:
    """Fit + sample time with the safeguards off and on, Adult resampled to ``rows``."""
    rng = np.random.default_rng(seed)
    big = adult.iloc[rng.integers(0, len(adult), rows)].reset_index(drop=True)
    big["fnlwgt"] = big["fnlwgt"] + rng.integers(-50, 51, rows)
    gain = big["capital_gain"] > 0
    big.loc[gain, "capital_gain"] += rng.integers(-3, 4, int(gain.sum()))
    print(f"\n== safeguard overhead: Adult resampled to {rows:,} rows, m = 1, seed {seed}")
    times = {}
    for label, kw in (("off", OFF), ("defaults", {})):
        t = time.perf_counter()
        out = Synthesizer(random_state=seed, **kw).fit(big).sample(diagnostics=False)
        times[label] = time.perf_counter() - t
        extra = "" if label == "off" else " (" + out.safeguards.summary().replace("\n", "; ") + ")"
        print(f"  {label}: {times[label]:.1f} s{extra}", flush=True)
    print(f"time overhead of the safeguards: {100 * (times['defaults'] / times['off'] - 1):+.0f}%")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--only-overhead", action="store_true")
    args = ap.parse_args()
    if args.only_overhead:
        if args.rows:
            overhead(pd.read_csv(ADULT), args.rows)
        return
    ce = load_dataset("ce")
    run("CE 2019 Q1 (bundled)", ce, {}, ["UrbanRural", "Race", "KidsCount"], "Income",
        ["Income", "Expenditure", "KidsCount"])
    if ADULT.exists():
        adult = pd.read_csv(ADULT)
        run("Adult complete cases", adult, {}, ["age", "sex", "race", "marital_status"],
            "income", ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss",
                       "hours_per_week"])
        smoothing(adult, {})
        if args.rows:
            overhead(adult, args.rows)
    else:  # pragma: no cover
        print(f"\nAdult not found at {ADULT}: skipped")


if __name__ == "__main__":
    main()
