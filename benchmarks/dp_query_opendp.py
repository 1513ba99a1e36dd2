"""OpenDP 0.16's ``Context`` on the household-grouped Adult of ``benchmarks/dp_query.py``.

Runs in its OWN environment (OpenDP's polars front end needs polars pinned), not synthguard's:

    python3.11 -m venv .venv-opendp
    .venv-opendp/bin/pip install "opendp[polars]==0.16.0" "polars==1.36.1" numpy pandas
    .venv-opendp/bin/python benchmarks/dp_query_opendp.py [--reps 200] [--out FILE.json]

``benchmarks/dp_query.py --opendp-python .venv-opendp/bin/python`` runs it in the same run and
reads the figures it writes to ``--out`` (JSON: one record per statistic).

Same households (same seed and construction as ``dp_query.py``), same queries by sex over the
public keys, ε = 0.2 each, privacy unit ``hid`` with ``truncate_per_group(5)``
(``truncate_num_groups`` is not used: it fails in 0.16). For each statistic it prints the noise
scale OpenDP reports (``summarize``), its 95% accuracy, the expected absolute error of that noise
(the scale, for Laplace noise), the absolute error of ``--reps`` releases against the truth,
the coverage of the interval ± its 95% accuracy around each release (count and sum: OpenDP
states it; mean and median: it does not, NaN), the charge (the context's ε, unit level) and the
seconds per query (building the context and calibrating its measurement, plus one release).
The ``--reps`` releases invoke the calibrated measurement again and again (each an independent
release at ε 0.2): recalibrating it for every repetition takes seconds and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import opendp.prelude as dp
import pandas as pd
import polars as pl

SEED = 34
def _shared_data() -> Path:
    """shared/data beside the repository (a worktree sits one level deeper)."""
    here = Path(__file__).resolve().parents[2]
    for base in (here, here.parent):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return here / "shared" / "data"


DATA = Path(os.environ.get("SYNTHGUARD_SHARED_DATA", _shared_data()))
LEVELS = ["Male", "Female"]


def households(path: Path, seed: int = SEED) -> pd.DataFrame:
    """The same households as benchmarks/dp_query.py."""
    df = pd.read_csv(path).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=len(df))
    cut = np.searchsorted(np.cumsum(sizes), len(df))
    sizes = sizes[: cut + 1]
    sizes[-1] -= sizes.sum() - len(df)
    df["hid"] = np.repeat(np.arange(sizes.size), sizes)
    return df


def _first(summary: pl.DataFrame, column: str) -> float:
    """The first value of a summary column as a float (NaN when absent or null)."""
    if column not in summary.columns or summary[column][0] is None:
        return float("nan")
    return float(summary[column][0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--out", type=Path, default=None, help="write the figures here (JSON)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    dp.enable_features("contrib")
    df = households(DATA / "synthpop_releases" / "adult_complete_cases.csv")
    g = df.groupby("sex")
    truth = {"count": g.size(), "sum": g["hours_per_week"].sum(),
             "mean": g["hours_per_week"].mean(), "median": g["hours_per_week"].median(),
             "count_distinct": g["hid"].nunique()}
    lf = pl.LazyFrame(df[["hid", "sex", "hours_per_week"]]).with_columns(
        pl.col("hours_per_week").cast(pl.Float64))
    keys = pl.LazyFrame({"sex": LEVELS})
    h = pl.col("hours_per_week").fill_null(0.0).fill_nan(0.0)
    aggs = {"count": lambda: dp.len(), "sum": lambda: h.dp.sum((0.0, 100.0)),
            "mean": lambda: h.dp.mean((0.0, 100.0)),
            "median": lambda: h.dp.median(candidates=list(np.linspace(0, 100, 1001))),
            "count_distinct": lambda: pl.col("hid").dp.n_unique()}
    rows = []
    for name, agg in aggs.items():
        errs, hit = [], 0
        try:
            start = time.perf_counter()
            ctx = dp.Context.compositor(
                data=lf, privacy_unit=dp.unit_of(
                    contributions=[dp.polars.Bound(per_group=5)], identifier="hid"),
                privacy_loss=dp.loss_of(epsilon=0.2), split_evenly_over=1,
                margins=[dp.polars.Margin(by=["sex"], invariant="keys", max_length=40_000)])
            q = ctx.query().truncate_per_group(5).group_by("sex").agg(
                agg().alias(name)).with_keys(keys)
            m = q.resolve()  # the measurement the context releases with (calibrated once)
            resolve = time.perf_counter() - start
            s = q.summarize(alpha=0.05)
            scale = _first(s, "scale")
            acc = _first(s, "accuracy")
            one = len(s) == 1  # one noisy statistic: its stated accuracy is the interval's
            invoke = []
            for _ in range(args.reps):  # each invocation: an independent release at ε 0.2
                t0 = time.perf_counter()
                out = m(lf).collect().to_pandas().set_index("sex")
                invoke.append(time.perf_counter() - t0)
                err = np.abs(out.loc[LEVELS, name].to_numpy(float)
                             - truth[name].loc[LEVELS].to_numpy(float))
                errs.extend(err)
                hit += int((err <= acc).sum()) if one and np.isfinite(acc) else 0
            rows.append({"statistic": name, "scale": scale,
                         "95% accuracy": acc if one else np.nan, "MAE": float(np.mean(errs)),
                         "coverage %": 100.0 * hit / (len(LEVELS) * args.reps)
                         if one and np.isfinite(acc) else np.nan,
                         "epsilon": 0.2, "runs": args.reps,
                         "s/query": resolve + float(np.mean(invoke))})
        except Exception as e:
            rows.append({"statistic": name, "error": str(e).strip().splitlines()[0][:90]})
    print(pd.DataFrame(rows).to_string(index=False))
    if args.out is not None:
        args.out.write_text(json.dumps({"opendp": dp.__version__ if hasattr(dp, "__version__")
                                        else "0.16", "polars": pl.__version__, "rows": rows},
                                       indent=2, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
