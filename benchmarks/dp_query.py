"""Benchmark of ``synthguard.dp.Session`` on Adult grouped into households (issue 34).

Data: Adult complete cases (``shared/data/synthpop_releases/adult_complete_cases.csv``, 30,162
rows), shuffled with a fixed seed and cut into households of 1–5 consecutive rows, the sizes
drawn uniformly with ``numpy.random.default_rng(SEED)`` (about 10,000 households). Privacy
unit: the household, ``max_rows=5`` (so the bounding keeps every row and the truth "on the
bounded data" is the statistic of the file).

Queries, by sex over the public keys [Male, Female], each at ε = 0.2 per household: count,
sum of hours_per_week in [0, 100], mean of it, median of it, count of distinct households.
For each, over ``--reps`` repetitions (default 200):

* MAE: mean absolute error against the truth, over both sexes;
* coverage of the 95% interval (the median: share of releases whose rank error is within the
  stated bound, ``rank_error``);
* the ledger's charge for the five queries (must be 1.0: the household-level cost);
* seconds per query: with OpenDP's noise (the release path) over ``--timed`` repetitions.

The errors and coverage use the seeded numpy noise path (simulation only), as a simulation
must; the timings use OpenDP.

OpenDP 0.16's ``Context`` on the same households, queries, ε and bounds runs in its own
environment (it needs polars pinned to 1.36.1): with ``--opendp-python`` (default
``.venv-opendp/bin/python`` when it exists) this script runs ``dp_query_opendp.py`` there with
the same ``--reps``, reads the figures it writes and prints both side by side. Without that
environment it says OpenDP was not run.

With ``--dask-rows N`` (e.g. 10000000) it also times one query of five aggregations (count,
count of distinct households, sum, mean and variance of hours by sex) through the same Session
on a Dask frame of N generated rows in households of 1–5 (``--dask-partitions``, default 16),
with OpenDP's noise, and prints the wall time against the goal (under 60 s) and the load.

Run:  .venv/bin/python benchmarks/dp_query.py [--reps 200] [--timed 20] [--data PATH]
                                             [--opendp-python .venv-opendp/bin/python]
                                             [--dask-rows 10000000 [--dask-only]]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from synthguard.dp import Session
from synthguard.errors import PrivacyWarning

SEED = 34
def _shared_data() -> Path:
    """shared/data beside the repository (a worktree sits one level deeper)."""
    here = Path(__file__).resolve().parents[2]
    for base in (here, here.parent):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return here / "shared" / "data"


DATA = Path(os.environ.get("SYNTHGUARD_SHARED_DATA", _shared_data()))
ADULT = DATA / "synthpop_releases" / "adult_complete_cases.csv"
LEVELS = ["Male", "Female"]
QUERIES = {"count": "count", "sum": ("sum", "hours_per_week", (0, 100)),
           "mean": ("mean", "hours_per_week", (0, 100)),
           "median": ("median", "hours_per_week", (0, 100)),
           "count_distinct": "count_distinct"}


def households(path: Path, seed: int = SEED) -> pd.DataFrame:
    """Adult rows in households of 1–5 rows, reproducibly."""
    df = pd.read_csv(path).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=len(df))
    cut = np.searchsorted(np.cumsum(sizes), len(df))
    sizes = sizes[: cut + 1]
    sizes[-1] -= sizes.sum() - len(df)
    df["hid"] = np.repeat(np.arange(sizes.size), sizes)
    return df


def truth(df: pd.DataFrame) -> dict[str, np.ndarray]:
    g = df.groupby("sex")
    h = g["hours_per_week"]
    return {"count": g.size().reindex(LEVELS).to_numpy(float),
            "sum": h.sum().reindex(LEVELS).to_numpy(float),
            "mean": h.mean().reindex(LEVELS).to_numpy(float),
            "median": h.median().reindex(LEVELS).to_numpy(float),
            "count_distinct": g["hid"].nunique().reindex(LEVELS).to_numpy(float)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--timed", type=int, default=20)
    ap.add_argument("--data", type=Path, default=ADULT)
    default_odp = Path(__file__).resolve().parents[1] / ".venv-opendp" / "bin" / "python"
    ap.add_argument("--opendp-python", type=Path,
                    default=default_odp if default_odp.exists() else None,
                    help="python of an environment with opendp 0.16 and polars 1.36.1")
    ap.add_argument("--dask-rows", type=int, default=0,
                    help="also time a 5-aggregation query on a Dask frame of this many rows")
    ap.add_argument("--dask-partitions", type=int, default=16)
    ap.add_argument("--dask-only", action="store_true", help="only the Dask timing")
    args = ap.parse_args()
    if args.dask_rows:
        dask_timing(args.dask_rows, args.dask_partitions)
        if args.dask_only:
            return
    df = households(args.data)
    t = truth(df)
    by = {"sex": LEVELS}
    hours = {s: np.sort(df.loc[df["sex"] == s, "hours_per_week"].to_numpy(float))
             for s in LEVELS}
    print(f"Adult in households: {len(df):,} rows, {df['hid'].nunique():,} households of "
          f"1-5 rows; unit hid, max_rows=5; epsilon 0.2 per query; {args.reps} repetitions")

    # the ledger's charge: the five queries once on a budget of 1.0
    s = Session(df, privacy_unit="hid", max_rows=5, epsilon=1.0)
    for name, agg in QUERIES.items():
        s.query(by=by, aggregations={name: agg}, epsilon=0.2, label=name)
    charge = s.spent.epsilon
    units = {c.privacy_unit for c in s.ledger.charges}

    rows = []
    warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
    for name, agg in QUERIES.items():
        sim = Session(df, privacy_unit="hid", max_rows=5, epsilon=1e9, random_state=1,
                      noise_random_state=SEED)
        err, hit = [], 0
        for _ in range(args.reps):
            r = sim.query(by=by, aggregations={name: agg}, epsilon=0.2)
            f = r.to_frame()
            v = f[name].to_numpy(float)
            err.extend(np.abs(v - t[name]))
            if name == "median":
                rank = float(r.plan["rank_error"].iloc[0])
                cand = np.linspace(0, 100, 1001)
                for s_, val in zip(LEVELS, v):
                    # the exponential mechanism's guarantee (McSherry & Talwar 2007): the score
                    # |#{x < c} - q n| of the released candidate is within rank_error of the
                    # best candidate's (ties at 40 hours keep the best above 0)
                    x = hours[s_]
                    score = np.abs(np.searchsorted(x, cand, "left") - 0.5 * x.size)
                    got = abs(np.searchsorted(x, val, "left") - 0.5 * x.size)
                    hit += int(got <= score.min() + rank)
            else:
                lo, hi = f[f"{name}_lower"].to_numpy(), f[f"{name}_upper"].to_numpy()
                hit += int(((lo <= t[name]) & (t[name] <= hi)).sum())
        rel = Session(df, privacy_unit="hid", max_rows=5, epsilon=1e9)
        start = time.perf_counter()
        for _ in range(args.timed):
            rel.query(by=by, aggregations={name: agg}, epsilon=0.2)
        sec = (time.perf_counter() - start) / args.timed
        rows.append({"statistic": name, "truth (M, F)": ", ".join(f"{v:.6g}" for v in t[name]),
                     "MAE": float(np.mean(err)),
                     "coverage %": 100.0 * hit / (len(LEVELS) * args.reps),
                     "epsilon": 0.2, "s/query (OpenDP)": sec})
    table = pd.DataFrame(rows)
    odp = run_opendp(args.opendp_python, args.reps)
    if odp is not None:
        o = pd.DataFrame(odp["rows"]).set_index("statistic")
        table["OpenDP MAE"] = [o["MAE"].get(n, np.nan) for n in table["statistic"]]
        table["OpenDP coverage %"] = [o["coverage %"].get(n, np.nan)
                                      for n in table["statistic"]]
        table["OpenDP s/query"] = [o["s/query"].get(n, np.nan) for n in table["statistic"]]
        table["MAE ratio sg/OpenDP"] = table["MAE"] / table["OpenDP MAE"]
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))
    print(f"ledger charge of the five queries: epsilon={charge:.6g} per household "
          f"(unit-level cost 1.0; units recorded: {sorted(units)})")
    print("median coverage: share of releases whose rank score is within rank_error of the "
          "best candidate's (the exponential mechanism's 95% guarantee)")
    if odp is None:
        print("OpenDP 0.16 Context: not run (give --opendp-python, an environment with "
              "opendp 0.16 and polars 1.36.1; see dp_query_opendp.py)")
    else:
        print(f"OpenDP {odp.get('opendp')} Context (polars {odp.get('polars')}), "
              f"{args.reps} repetitions, same households, keys, bounds and epsilon 0.2 per "
              "query, truncate_per_group(5); its charge: epsilon "
              f"{0.2 * len(odp['rows']):.6g} per household (the context's privacy_loss). "
              "OpenDP coverage: its stated 95% accuracy (count, sum; NaN where it states none)")
        errs = [r for r in odp["rows"] if "error" in r]
        for r in errs:
            print(f"  OpenDP {r['statistic']}: failed: {r['error']}")


def _generated(part: int, rows: int, seed: int = SEED) -> pd.DataFrame:
    """One partition of generated households of 1-5 rows (ids unique across partitions)."""
    rng = np.random.default_rng([seed, part])
    sizes = rng.integers(1, 6, size=rows)
    cut = int(np.searchsorted(np.cumsum(sizes), rows))
    sizes = sizes[: cut + 1]
    sizes[-1] -= sizes.sum() - rows
    hid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes) + np.int64(part) * rows
    return pd.DataFrame({"hid": hid, "sex": rng.choice(np.array(LEVELS, dtype=object), rows),
                         "hours_per_week": rng.integers(0, 100, rows).astype(float)})


def dask_timing(n_rows: int, n_parts: int) -> None:
    """Wall time of one 5-aggregation query on a Dask frame of ``n_rows`` generated rows."""
    import dask.dataframe as dd

    per = -(-n_rows // n_parts)
    sizes = [min(per, n_rows - i * per) for i in range(n_parts)]
    frame = dd.from_map(_generated, list(range(n_parts)), sizes)
    s = Session(frame, privacy_unit="hid", max_rows=5, epsilon=1.0)
    aggs = {"n": "count", "households": "count_distinct",
            "total": ("sum", "hours_per_week", (0, 100)),
            "hours": ("mean", "hours_per_week", (0, 100)),
            "spread": ("variance", "hours_per_week", (0, 100))}
    start = time.perf_counter()
    r = s.query(by={"sex": LEVELS}, aggregations=aggs, epsilon=1.0)
    wall = time.perf_counter() - start
    load = os.getloadavg()
    print(f"Dask: one query of 5 aggregations over {n_rows:,} rows ({n_parts} partitions, "
          f"generated households of 1-5, unit hid, max_rows=5): {wall:.1f} s wall "
          f"(goal < 60 s: {'met' if wall < 60 else 'NOT met'}); load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores; "
          f"charge epsilon={s.spent.epsilon:g} per household")
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.float_format", "{:.6g}".format):
        print(r.to_frame().to_string(index=False))


def run_opendp(python: Path | None, reps: int) -> dict | None:
    """Run dp_query_opendp.py in OpenDP's own environment; its figures, or None."""
    if python is None or not Path(python).exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "opendp.json"
        proc = subprocess.run([str(python), str(Path(__file__).with_name("dp_query_opendp.py")),
                               "--reps", str(reps), "--out", str(out)],
                              capture_output=True, text=True,
                              env={"POLARS_MAX_THREADS": "1", **os.environ,  # 2 shared cores
                                   "SYNTHGUARD_SHARED_DATA": str(DATA)})
        if proc.returncode != 0 or not out.exists():
            print("OpenDP run failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1])
            return None
        return json.loads(out.read_text())

if __name__ == "__main__":
    main()
