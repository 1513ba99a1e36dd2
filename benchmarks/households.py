"""Household synthesis: accuracy, consistency, rules, replication, speed (issue 33).

Prints, for sdcMicro's ``testdata`` and simPop's ``eusilcS`` (../shared/data), seeds 1-3:
household-size total variation (goal <= 0.02), households with inconsistent household-level
values (must be 0), rule violations, the partners' age correlation against the data's
(within 0.05), the at-risk-of-poverty rate against the data's (within 1.5 pp), replicated
unique households (must be 0), time and the process's peak resident memory (so far, in run order); SDV's HMA on the same files when it is
installed; and the time for about 1M persons (eusilcS households resampled), goal < 10 min.

    python benchmarks/households.py            # everything
    python benchmarks/households.py --quick    # seed 1, no HMA, no 1M run

The figures are computed by the small local helpers below (the poverty rate as Eurostat
defines it, equal to synthguard.utility.poverty's on eusilcS); the household risk is
synthguard.risk.hier_risk (sdcMicro's hier_risk) of the data, and of each release as if it
were real data.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from synthguard import Synthesizer
from synthguard.data.constraints import check_constraints
from synthguard.synthesis.households import HouseholdSignatures

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")

FILES = {
    "testdata": dict(path=SHARED / "sdcmicro" / "testdata.csv", id="ori_hid",
                     income="income", weight="sampling_weight", relat="relat", sex="sex",
                     rules=["count(relat == 1) == 1", "relat == 2 -> age >= 16",
                            "relat == 3 -> age < head.age"],
                     keys=["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]),
    "eusilcS": dict(path=SHARED / "households" / "eusilcS.csv", id="db030",
                    income="netIncome", weight="rb050", relat=None, sex="rb090",
                    rules=["count(age >= 16) >= 1"], keys=["db040", "hsize", "rb090", "age"]),
}


# ----------------------------------------------------------------- local figures
def size_tv(a: pd.DataFrame, b: pd.DataFrame, hid: str) -> float:
    """Total variation distance between the household-size distributions."""
    pa = a.groupby(hid).size().value_counts(normalize=True)
    pb = b.groupby(hid).size().value_counts(normalize=True)
    return float(0.5 * pa.sub(pb, fill_value=0).abs().sum())


def inconsistent(df: pd.DataFrame, hid: str, cols: list[str]) -> int:
    """Households whose household-level columns take more than one value."""
    if not cols:
        return 0
    n = df.groupby(hid)[cols].nunique(dropna=False)
    return int((n > 1).any(axis=1).sum())


def partners(df: pd.DataFrame, spec: dict) -> float:
    """Correlation of the ages of the head and the partner: ``relat`` 1 and 2 (testdata);
    without a relationship column (eusilcS), the oldest member and the oldest member of the
    other sex, both 16 or more, in households with such a pair."""
    hid = spec["id"]
    if spec["relat"]:
        r = spec["relat"]
        h = df[df[r] == 1].groupby(hid)["age"].first()
        p = df[df[r] == 2].groupby(hid)["age"].first()
    else:
        d = df[df["age"] >= 16].sort_values([hid, "age"], ascending=[True, False])
        h = d.groupby(hid).first()
        first_sex = d[hid].map(h[spec["sex"]])
        other = d[d[spec["sex"]] != first_sex]
        p = other.groupby(hid)["age"].first()
        h = h["age"]
    j = pd.concat([h.rename("h"), p.rename("p")], axis=1).dropna()
    return float(np.corrcoef(j["h"], j["p"])[0, 1])


def poverty(df: pd.DataFrame, spec: dict) -> float:
    """At-risk-of-poverty rate: share of persons (weighted) whose OECD-modified equivalised
    household income is below 60 % of its weighted median (Eurostat)."""
    hid, inc, w = spec["id"], spec["income"], spec["weight"]
    g = df.groupby(hid)
    adults = g["age"].apply(lambda a: (a >= 14).sum())
    kids = g.size() - adults
    scale = 1 + 0.5 * (adults - 1).clip(lower=0) + 0.3 * kids
    scale = scale.where(adults > 0, 1 + 0.3 * (kids - 1))
    eq = (g[inc].sum() / scale).reindex(df[hid]).to_numpy()
    wt = df[w].to_numpy(dtype=float)
    order = np.argsort(eq)
    cw = np.cumsum(wt[order])
    median = eq[order][np.searchsorted(cw, cw[-1] / 2)]
    return float(wt[eq < 0.6 * median].sum() / wt.sum())


def violations(df: pd.DataFrame, spec: dict) -> int:
    return int(check_constraints(df, spec["rules"], household=spec["id"])["violations"].sum())


# ----------------------------------------------------------------- runs
def _peak() -> float:
    """The process's peak resident memory so far, MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_synthguard(data: pd.DataFrame, spec: dict, seed: int, **kw) -> tuple:
    t, c = time.perf_counter(), time.process_time()
    syn = Synthesizer(household=spec["id"], constraints=spec["rules"], allow_violations=True,
                      random_state=seed, **kw)
    res = syn.fit(data).sample(diagnostics=False)
    secs, cpu = time.perf_counter() - t, time.process_time() - c
    return res.implicates[0], secs, cpu, _peak(), syn


def figures(conf: pd.DataFrame, syn_df: pd.DataFrame, spec: dict, hh_cols: list[str],
            sig: HouseholdSignatures) -> dict:
    hid = spec["id"]
    _, rep = sig.replicated(syn_df, hid)
    from synthguard.risk import hier_risk

    return {
        # sdcMicro's household risk of the release as if it were real data, on the keys
        # (the data's is printed once per file)
        "hier_risk_pct": hier_risk(syn_df, spec["keys"], hid,
                                   weights=spec["weight"]).global_risk_pct,
        "size_tv": size_tv(conf, syn_df, hid),
        "inconsistent": inconsistent(syn_df, hid, hh_cols),
        "rule_violations": violations(syn_df, spec),
        "partners_diff": partners(syn_df, spec) - partners(conf, spec),
        "poverty_diff_pp": 100 * (poverty(syn_df, spec) - poverty(conf, spec)),
        "replicated": int(rep.sum()),
    }


def run_hma(conf: pd.DataFrame, spec: dict, seed: int) -> tuple | None:
    try:
        from sdv.metadata import Metadata
        from sdv.multi_table import HMASynthesizer
    except ImportError:
        return None
    hid = spec["id"]
    hh_cols = [c for c in conf.columns if c != hid
               and bool((conf.groupby(hid)[c].nunique(dropna=False) <= 1).all())]
    households = conf.groupby(hid, sort=False)[hh_cols].first().reset_index()
    persons = conf.drop(columns=hh_cols).reset_index(drop=True)
    persons.insert(0, "pid", np.arange(len(persons)))
    tables = {"households": households, "persons": persons}
    meta = Metadata.detect_from_dataframes(tables)
    for t, k in (("households", hid), ("persons", "pid")):
        meta.update_column(table_name=t, column_name=k, sdtype="id")
        meta.set_primary_key(table_name=t, column_name=k)
    meta.update_column(table_name="persons", column_name=hid, sdtype="id")
    try:
        meta.add_relationship(parent_table_name="households", child_table_name="persons",
                              parent_primary_key=hid, child_foreign_key=hid)
    except Exception:
        pass
    t, c = time.perf_counter(), time.process_time()
    np.random.seed(seed)  # noqa: NPY002 - SDV draws from numpy's global state
    hma = HMASynthesizer(meta, verbose=False)
    hma.fit(tables)
    out = hma.sample(num_rows=len(households), main_table_name="households")
    secs, cpu = time.perf_counter() - t, time.process_time() - c
    peak = _peak()
    df = out["persons"].merge(out["households"], on=hid, how="left")
    return df[[c for c in conf.columns if c in df.columns]], secs, cpu, peak


def one_million(seed: int = 1) -> tuple[float, int]:
    spec = FILES["eusilcS"]
    conf = pd.read_csv(spec["path"])
    rng = np.random.default_rng(seed)
    ids = conf[spec["id"]].unique()
    per = len(conf) / len(ids)
    pick = rng.choice(ids, size=int(1_000_000 / per), replace=True)
    grp = conf.groupby(spec["id"]).indices
    rows = np.concatenate([grp[i] for i in pick])
    big = conf.iloc[rows].copy()
    big[spec["id"]] = np.repeat(np.arange(len(pick)), [len(grp[i]) for i in pick])
    t, c = time.perf_counter(), time.process_time()
    res = Synthesizer(household=spec["id"], random_state=seed, n_jobs=2).fit(big).sample(
        diagnostics=False)
    return time.perf_counter() - t, time.process_time() - c, len(res.implicates[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3])
    ap.add_argument("--no-hma", action="store_true")
    ap.add_argument("--hma-seeds", type=int, default=3, help="HMA runs per file (slow)")
    ap.add_argument("--no-million", action="store_true")
    args = ap.parse_args()
    seeds = [1] if args.quick else args.seeds
    warnings.simplefilter("ignore")
    rows = []
    for name, spec in FILES.items():
        if not Path(spec["path"]).is_file():
            print(f"{name}: data absent ({spec['path']}); skipped")
            continue
        conf = pd.read_csv(spec["path"])
        from synthguard.risk import hier_risk

        data_risk = hier_risk(conf, spec["keys"], spec["id"], weights=spec["weight"])
        print(f"{name}: the data's household risk (hier_risk) on {', '.join(spec['keys'])}: "
              f"{data_risk.global_risk_pct:.2f}% ({data_risk.expected_reidentifications:.1f} "
              f"expected re-identifications)", flush=True)
        for seed in seeds:
            syn_df, secs, cpu, peak, syn = run_synthguard(conf, spec, seed)
            hm = syn.households_
            hh_cols = list(hm.layout_.household_columns)
            f = figures(hm.partial_members_ if hasattr(hm, "partial_members_") else conf,
                        syn_df, spec, hh_cols, hm.signatures_)
            rows.append({"file": name, "method": "synthguard", "seed": seed, **f,
                         "seconds": secs, "cpu_s": cpu, "peak_MiB": peak})
            print(rows[-1], flush=True)  # each run as it ends (HMA runs are long)
        if not (args.quick or args.no_hma):
            for seed in seeds[:args.hma_seeds]:
                got = run_hma(conf, spec, seed)
                if got is None:
                    print("SDV is not installed: HMA skipped (pip install sdv)")
                    break
                df, secs, cpu, peak = got
                f = figures(conf, df, spec, hh_cols, hm.signatures_)
                rows.append({"file": name, "method": "sdv-hma", "seed": seed, **f,
                             "seconds": secs, "cpu_s": cpu, "peak_MiB": peak})
                print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.round(4).to_string(index=False))
        if len(table):
            print("\nmeans by file and method")
            print(table.drop(columns="seed").groupby(["file", "method"]).mean().round(4))
    if (table["method"] == "sdv-hma").any():
        for col in ("seconds", "cpu_s"):
            mean = table.groupby(["file", "method"])[col].mean().unstack()
            print(f"\nspeed ratio HMA / synthguard ({col}):")
            print((mean["sdv-hma"] / mean["synthguard"]).round(1).to_string())
    if not (args.quick or args.no_million):
        secs, cpu, n = one_million()
        print(f"\n1M persons (eusilcS households resampled): {n} persons synthesized in "
              f"{secs:.1f} s wall, {cpu:.1f} s CPU (goal < 600 s; ratio {secs / 600:.2f})")


if __name__ == "__main__":
    main()
