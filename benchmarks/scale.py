"""Dask at scale (issue 17): synthesis, identification risk and DP marginals of a Parquet folder.

Generates a Parquet folder of ``--rows`` records x 10 columns with 50 strata (``state``), one
file per 500,000 records, then on ``LocalCluster(n_workers=2, memory_limit="2GiB")``:

1. ``synthguard.scale.synthesize`` with ``strata="state"``, m = 1, written as a Parquet folder
   by the workers (each stratum fitted and drawn on a worker, CART for every column but the
   first);
2. ``synthguard.scale.identification_risk`` of the release, keys ``sex x region x race``
   (2 x 4 x 5 = 40 patterns), target ``income``;
3. ``synthguard.scale.dp_marginal`` of three two-way marginals (epsilon 1 each).

Prints seconds per stage, the peak resident memory of each worker (polled every 0.5 s), and,
with ``--pandas`` (default at <= 1M rows), the same stages on pandas in this process and the
ratio Dask / pandas. Run: ``.venv/bin/python benchmarks/scale.py --rows 1000000``.
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

STRATA = 50
CHUNK = 500_000
KEYS = ["sex", "region", "race"]  # 2 x 4 x 5 = 40 patterns
LEVELS = {
    "sex": ["F", "M"],
    "region": ["NE", "MW", "S", "W"],
    "race": ["A", "B", "C", "D", "E"],
    "educ": ["<HS", "HS", "SC", "BA", "MA", "PhD"],
    "marital": ["single", "married", "divorced", "widowed"],
}
MARGINALS = [("sex", "race"), ("region", "educ"), ("race", "marital")]


def generate(folder: Path, rows: int, seed: int = 20261124) -> None:
    """``rows`` records in files of ``CHUNK`` records: 50 states, 5 categorical, 4 numeric."""
    folder.mkdir(parents=True, exist_ok=True)
    ss = np.random.SeedSequence(seed)
    for i, start in enumerate(range(0, rows, CHUNK)):
        n = min(CHUNK, rows - start)
        rng = np.random.default_rng(ss.spawn(1)[0])
        state = rng.integers(0, STRATA, n)
        age = rng.integers(18, 90, n)
        educ = np.minimum(rng.poisson(2.0, n), 5)
        income = np.round(np.exp(9.5 + 0.15 * educ + 0.01 * (age - 18)
                                 + rng.normal(0, 0.6, n)), 0)
        df = pd.DataFrame({
            "state": pd.Series([f"S{s:02d}" for s in state]),
            "sex": rng.choice(LEVELS["sex"], n),
            "region": rng.choice(LEVELS["region"], n),
            "race": rng.choice(LEVELS["race"], n, p=[0.6, 0.15, 0.12, 0.08, 0.05]),
            "age": age,
            "educ": np.asarray(LEVELS["educ"], dtype=object)[educ],
            "marital": rng.choice(LEVELS["marital"], n),
            "income": income,
            "hours": np.clip(rng.normal(38, 10, n).round(0), 0, 80),
            "kids": rng.poisson(1.1, n),
        })
        df.to_parquet(folder / f"part-{i:04d}.parquet", index=False)


class PeakMemory:
    """Poll each worker's resident memory (``psutil`` on the worker) and keep the maximum;
    :meth:`cpu` sums the workers' CPU seconds (user + system), the figure that extrapolates
    to idle machines and to more workers (wall time on a shared machine does not)."""

    def __init__(self, client: Any, every: float = 0.5) -> None:
        self.client, self.every, self.peak = client, every, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _rss() -> int:
        import psutil

        return int(psutil.Process().memory_info().rss)

    @staticmethod
    def _cpu_seconds() -> float:
        import psutil

        t = psutil.Process().cpu_times()
        return float(t.user + t.system)

    def cpu(self) -> float:
        return float(sum(self.client.run(self._cpu_seconds).values()))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for addr, rss in self.client.run(self._rss).items():
                    self.peak[addr] = max(self.peak.get(addr, 0), rss)
            except Exception:  # a worker restarting: skip this poll
                pass
            self._stop.wait(self.every)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _target_kw(fn: Any) -> str:
    return "targets" if "targets" in inspect.signature(fn).parameters else "target"


def dask_stages(folder: Path, out: Path, workers: int, memory: str) -> dict[str, float]:
    from distributed import Client, LocalCluster

    from synthguard import scale

    times: dict[str, float] = {}
    with LocalCluster(n_workers=workers, threads_per_worker=1, memory_limit=memory,
                      dashboard_address=":0", silence_logs=40) as cluster, \
            Client(cluster) as client, PeakMemory(client) as mem:
        conf = scale.read_dataset(folder)
        t, c = time.perf_counter(), mem.cpu()
        release = scale.synthesize(conf, strata="state", m=1, random_state=1)
        release.to_parquet(out)
        times["synthesize (m=1, 50 strata)"] = time.perf_counter() - t
        print(f"  synthesis: {mem.cpu() - c:.0f} worker CPU seconds")
        syn = scale.read_dataset(out / "synthetic_1.parquet")
        ident = getattr(scale, "identification_risk", None)
        if ident is None:
            print("identification risk: synthguard.scale.identification_risk not available")
        else:
            t, c = time.perf_counter(), mem.cpu()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = ident(conf, syn, keys=KEYS, **{_target_kw(ident): "income"})
            times["identification risk (40 patterns)"] = time.perf_counter() - t
            print(f"  identification risk: {mem.cpu() - c:.1f} worker CPU seconds")
            print(f"  dask identification risk: {_headline(res)}")
        marg = getattr(scale, "dp_marginal", None)
        if marg is None:
            print("DP marginals: synthguard.scale.dp_marginal not available")
        else:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for cols in MARGINALS:
                    marg(conf, list(cols), categories={c: LEVELS[c] for c in cols},
                         epsilon=1.0)
            times["DP marginals (3 two-way, eps=1 each)"] = time.perf_counter() - t
    times["_peak_gib"] = max(mem.peak.values()) / 2**30 if mem.peak else float("nan")
    for addr, rss in sorted(mem.peak.items()):
        print(f"  peak memory {addr}: {rss / 2**30:.2f} GiB")
    return times


def _headline(res: Any) -> str:
    for name in ("expected", "mean", "average"):
        v = getattr(res, name, None)
        if isinstance(v, float | np.floating):
            return f"{name} = {float(v):.4f}"
    return type(res).__name__


def pandas_stages(folder: Path) -> dict[str, float]:
    from synthguard.dp.queries import dp_histogram
    from synthguard.risk import identification_risk
    from synthguard.synthesis import Synthesizer

    conf = pd.read_parquet(folder)
    times: dict[str, float] = {}
    t, c = time.perf_counter(), time.process_time()
    release = Synthesizer(strata="state", m=1, random_state=1).fit(conf).sample(
        diagnostics=False)
    times["synthesize (m=1, 50 strata)"] = time.perf_counter() - t
    print(f"  pandas synthesis: {time.process_time() - c:.0f} CPU seconds")
    t, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = identification_risk(conf, release.implicates[0], keys=KEYS,
                                  **{_target_kw(identification_risk): "income"})
    times["identification risk (40 patterns)"] = time.perf_counter() - t
    print(f"  pandas identification risk: {_headline(res)}; "
          f"{time.process_time() - c:.1f} CPU seconds")
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a, b in MARGINALS:
            cells = [f"{x}|{y}" for x in LEVELS[a] for y in LEVELS[b]]
            dp_histogram(conf[a].astype(str) + "|" + conf[b].astype(str), categories=cells,
                         epsilon=1.0)
    times["DP marginals (3 two-way, eps=1 each)"] = time.perf_counter() - t
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory", default="2GiB")
    ap.add_argument("--pandas", action=argparse.BooleanOptionalAction, default=None,
                    help="also time the pandas path (default: when --rows <= 1,000,000)")
    args = ap.parse_args()
    with_pandas = args.rows <= 1_000_000 if args.pandas is None else args.pandas
    work = Path(tempfile.mkdtemp(prefix="synthguard-scale-"))
    try:
        t = time.perf_counter()
        generate(work / "conf", args.rows)
        print(f"generated {args.rows:,} x 10 Parquet ({STRATA} strata) in "
              f"{time.perf_counter() - t:.1f} s")
        d = dask_stages(work / "conf", work / "syn", args.workers, args.memory)
        p = pandas_stages(work / "conf") if with_pandas else {}
        peak = d.pop("_peak_gib")
        print(f"\nDask: LocalCluster(n_workers={args.workers}, memory_limit={args.memory!r}), "
              f"{args.rows:,} rows; peak worker memory {peak:.2f} GiB")
        print(f"{'stage':40s} {'dask s':>9s} {'pandas s':>9s} {'ratio':>6s} {'us/row':>7s}")
        for stage, secs in d.items():
            ps = p.get(stage)
            ratio = f"{secs / ps:6.2f}" if ps else "     -"
            pss = f"{ps:9.1f}" if ps else "        -"
            print(f"{stage:40s} {secs:9.1f} {pss} {ratio} {1e6 * secs / args.rows:7.2f}")
        total = sum(d.values())
        print(f"{'end to end (Dask)':40s} {total:9.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
