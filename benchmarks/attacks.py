"""Speed of the anonymeter-style attacks (synthguard.risk) on Adult.

Confidential: ../shared/data/synthpop_releases/adult_complete_cases.csv (30,162 records) less a
control set of 1,000; release: synthpop's default CART synthesis of it
(adult_syn_default_seed1.csv). Prints seconds and risk for univariate and multivariate singling
out, linkability and inference with anonymeter's defaults (500 attacks). Issue 12 asks for the
attacks on 30k records in under a minute. Run: ``.venv/bin/python benchmarks/attacks.py``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd

from synthguard.risk import inference, linkability, singling_out

DATA = Path(
    os.environ.get(
        "SYNTHGUARD_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
)


def main() -> None:
    folder = DATA / "synthpop_releases"
    conf_all = pd.read_csv(folder / "adult_complete_cases.csv")
    syn = pd.read_csv(folder / "adult_syn_default_seed1.csv")
    control = conf_all.sample(1000, random_state=0)
    conf = conf_all.drop(control.index)
    runs = {
        "singling out (univariate)": lambda: singling_out(
            conf, syn, mode="univariate", control=control, random_state=1
        ),
        "singling out (multivariate)": lambda: singling_out(
            conf, syn, control=control, random_state=1
        ),
        "linkability": lambda: linkability(
            conf,
            syn,
            control=control,
            random_state=1,
            aux_cols=(
                ["age", "sex", "race", "workclass", "education"],
                ["marital_status", "occupation", "hours_per_week", "native_country"],
            ),
        ),
        "inference (income)": lambda: inference(
            conf,
            syn,
            control=control,
            random_state=1,
            secret="income",
            aux_cols=[c for c in conf.columns if c != "income"],
        ),
    }
    total = 0.0
    for name, run in runs.items():
        t = time.perf_counter()
        r = run()
        dt = time.perf_counter() - t
        total += dt
        lo, hi = r.ci
        print(f"{name}: {dt:.1f} s, risk {r.risk:.3f} [{lo:.3f}, {hi:.3f}]")
    print(f"all attacks on {len(conf)} records: {total:.1f} s")


if __name__ == "__main__":
    main()
