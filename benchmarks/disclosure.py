"""Speed of synthpop's disclosure measures (synthguard.risk.disclosure) at scale.

Prints seconds for ``disclosure`` on n confidential x n synthetic records with 6 keys (sex,
age, region, 3 more categorical keys) and a categorical target, for one and five implicates,
and for ``multi_disclosure`` over 4 targets. Issue 12 asks for 100k x 100k with 6 keys in
under 10 s. Run: ``.venv/bin/python benchmarks/disclosure.py [--sizes 100000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from synthguard.risk import disclosure, multi_disclosure


def make(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(16, 95, n),
            "region": rng.choice([f"r{i}" for i in range(16)], n),
            "placesize": rng.integers(0, 6, n),
            "edu": rng.choice(["a", "b", "c", "d"], n),
            "marital": rng.choice(["s", "m", "w", "d"], n, p=[0.3, 0.5, 0.1, 0.1]),
            "income": np.round(rng.lognormal(7.5, 0.6, n), -1),
            "ls": rng.integers(0, 7, n),
            "workab": rng.choice(["YES", "NO"], n, p=[0.1, 0.9]),
            "depress": rng.integers(0, 21, n),
        }
    )


KEYS = ["sex", "age", "region", "placesize", "edu", "marital"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    args = ap.parse_args()
    for n in args.sizes:
        conf = make(n, 0)
        syns = [make(n, s) for s in range(1, 6)]
        t = time.perf_counter()
        r = disclosure(conf, syns[0], keys=KEYS, targets="workab")
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        disclosure(conf, syns, keys=KEYS, targets="depress")
        t5 = time.perf_counter() - t
        t = time.perf_counter()
        multi_disclosure(
            conf, syns[0], keys=KEYS, targets=["income", "ls", "workab", "depress"],
            ngroups_targets={"income": 20},
        )  # fmt: skip
        tm = time.perf_counter() - t
        print(
            f"disclosure n={n} x {n}, 6 keys: 1 implicate {t1:.2f} s (UiO {r.uio:.3f}, "
            f"repU {r.repu:.3f}, DiSCO {r.disco:.3f}); 5 implicates {t5:.2f} s; "
            f"multi_disclosure 4 targets {tm:.2f} s"
        )


if __name__ == "__main__":
    main()
