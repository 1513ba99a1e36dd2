"""Speed of synthguard.risk at scale, against dense all-pairs references.

Prints, for n = 10k, 100k and 1M records in 40 patterns with L = 20 partially synthetic
implicates (a log-normal income as the target, relative radius 0.1):

* seconds for the confidential identification risk (eq. 2), the pairwise weights (eqs. 6-9) and
  the release's identification risk (eq. 1 averaged over L), and their total;
* the same with dense references where they finish within the time budget: every record
  compared with every record (vectorized over one side, as the R package
  IdentificationRiskCalculation's double loop but in numpy) for eqs. 1-2, and the per-pattern
  m x m inside-matrix with its Gram matrix for the pairwise sum; the speed-up; and whether the
  two agree to 1e-12;
* the same three with two targets (income and expenditure: boxes instead of intervals);
* match rates and k-anonymity at the same sizes;
* the distance to closest record for 100k x 100k records with 10 mixed columns (gower), with
  and without a holdout of 100k, and against a chunked dense reference at 10k;
* sdcMicro's measures: individual_risk for 1,000,000 records x 8 keys with sampling weights,
  and SUDA2 for 100,000 records x 8 keys.

Peak memory is the process's maximum resident set size. Run:
``.venv/bin/python benchmarks/risk.py [--sizes 10000 100000 1000000] [--budget 120]``.
"""

from __future__ import annotations

import argparse
import functools
import resource
import time
import warnings

import numpy as np
import pandas as pd

from synthguard.risk import (
    distance_to_closest_record,
    identification_risk,
    individual_risk,
    k_anonymity,
    match_rates,
    pairwise_identification_risk,
    suda2,
)

R = 0.1


def make(n: int, L: int, seed: int = 0) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    conf = pd.DataFrame(
        {
            "a": rng.integers(0, 5, n),
            "b": rng.integers(0, 8, n),
            "income": np.round(rng.lognormal(10, 1, n)),
        }
    )
    noise = [np.round(conf["income"] * rng.lognormal(0, 0.3, n)) for _ in range(L)]
    return conf, [conf.assign(income=v) for v in noise]


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


# ----------------------------------------------------------------------------- dense references


def _inside(v: np.ndarray, y: float) -> np.ndarray:
    h = R * abs(y)
    return ((v > y - h) & (v < y + h)) | (v == y)


def dense_conf(codes: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty(y.size)
    for i in range(y.size):
        same = codes == codes[i]
        out[i] = 1 - np.sum(same & _inside(y, y[i])) / np.sum(same)
    return out


def dense_syn(codes: np.ndarray, y: np.ndarray, zs: list[np.ndarray]) -> np.ndarray:
    out = np.zeros(y.size)
    for z in zs:
        for i in range(y.size):
            same = codes == codes[i]
            ins = same & _inside(z, y[i])
            out[i] += (1 - np.sum(ins) / np.sum(same)) * ins[i]
    return out / len(zs)


def dense_pairwise(codes: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.zeros(y.size)
    for p in np.unique(codes):
        idx = np.flatnonzero(codes == p)
        v = y[idx]
        h = R * np.abs(v)
        ins = ((v[None, :] > (v - h)[:, None]) & (v[None, :] < (v + h)[:, None])) | (
            v[None, :] == v[:, None]
        )
        m = idx.size
        a = ins.astype(np.float64)
        both = a @ a.T  # |B_i ∩ B_j|
        cnt = a.sum(axis=1)
        outside = m - cnt[:, None] - cnt[None, :] + both
        np.fill_diagonal(outside, 0.0)
        out[idx] = outside.sum(axis=1) / m / (m - 1)
    return out


def dense_dcr(conf: np.ndarray, syn: np.ndarray, chunk: int = 500) -> np.ndarray:
    out = np.empty(syn.shape[0])
    for s in range(0, syn.shape[0], chunk):
        d = np.abs(syn[s : s + chunk, None, :] - conf[None, :, :]).sum(axis=2)
        out[s : s + chunk] = d.min(axis=1)
    return out


# ----------------------------------------------------------------------------- runs


def identification(n: int, L: int, budget: float) -> None:
    conf, impl = make(n, L)
    kw = dict(keys=["a", "b"], targets="income", radius=R, singletons="zero")
    ir_c, t_c = timed(lambda: identification_risk(conf, **kw))
    pw, t_p = timed(lambda: pairwise_identification_risk(conf, **kw))
    ir_s, t_s = timed(lambda: identification_risk(conf, impl, **kw))
    total = t_c + t_p + t_s
    print(
        f"n={n:>9,}  L={L}  confidential IR {t_c:7.2f} s  pairwise {t_p:7.2f} s  "
        f"release IR {t_s:7.2f} s  total {total:7.2f} s"
    )
    codes = conf.groupby(["a", "b"]).ngroup().to_numpy()
    y = conf["income"].to_numpy(float)
    zs = [f["income"].to_numpy(float) for f in impl]
    fast = {
        "confidential": (t_c, ir_c.per_record),
        "pairwise": (t_p, pw.per_record),
        "release": (t_s, ir_s.per_record),
    }
    refs = {
        "confidential": (2, lambda m: dense_conf(codes[:m], y[:m])),
        "pairwise": (3, lambda m: dense_pairwise(codes[:m], y[:m])),
        "release": (2, lambda m: dense_syn(codes[:m], y[:m], [z[:m] for z in zs])),
    }
    parts = []
    for name, (power, run_m) in refs.items():
        if name not in _MEASURED and n > _CALIBRATION:
            # no smaller size ran first: time the reference on a prefix so the estimate exists
            _, t_cal = timed(functools.partial(run_m, _CALIBRATION))
            _MEASURED[name] = (_CALIBRATION, t_cal)
        est = _estimate(name, n, power)
        if est is not None and est > budget:
            parts.append(f"{name} skipped (est. {est:,.0f} s)")
            continue
        ref, t = timed(functools.partial(run_m, n))
        _MEASURED[name] = (n, t)
        ok = bool(np.max(np.abs(ref - fast[name][1])) < 1e-12)
        parts.append(f"{name} {t:7.2f} s ({t / fast[name][0]:5.0f}x, agree {ok})")
    print(f"{'':13}dense: " + "  ".join(parts))


_MEASURED: dict[str, tuple[int, float]] = {}
_CALIBRATION = 10_000


def _estimate(name: str, n: int, power: int) -> float | None:
    """Time of a dense reference extrapolated from its last run (O(n^power))."""
    if name not in _MEASURED:
        return None
    n0, t0 = _MEASURED[name]
    return t0 * (n / n0) ** power


def two_targets(n: int, L: int) -> None:
    """Income and expenditure together: the ball is a box, counted exactly with a merge-sort
    tree in O(n log^2 n)."""
    conf, impl = make(n, L)
    rng = np.random.default_rng(9)
    conf = conf.assign(exp=np.round(conf["income"] * rng.lognormal(-1, 0.5, n)))
    impl = [f.assign(exp=conf["exp"]) for f in impl]
    kw = dict(keys=["a", "b"], targets=["income", "exp"], radius=R, singletons="zero")
    _, t_c = timed(lambda: identification_risk(conf, **kw))
    _, t_p = timed(lambda: pairwise_identification_risk(conf, **kw))
    _, t_s = timed(lambda: identification_risk(conf, impl, **kw))
    print(
        f"n={n:>9,}  L={L}  two targets: confidential IR {t_c:6.2f} s  pairwise {t_p:6.2f} s  "
        f"release IR {t_s:6.2f} s"
    )


def other_identity(n: int, L: int) -> None:
    conf, impl = make(n, L)
    mr, t_m = timed(
        lambda: match_rates(
            conf,
            impl,
            keys=["a", "b"],
            targets="income",
            radius=R,
            schema={"a": "categorical", "b": "categorical"},
        )
    )
    ka, t_k = timed(lambda: k_anonymity(conf, ["a", "b", "income"], k=3))
    print(
        f"n={n:>9,}  match rates (L={L}) {t_m:6.2f} s (expected match risk "
        f"{mr.expected_match_risk:,.1f})  k-anonymity {t_k:5.2f} s "
        f"({ka.n_sample_uniques:,} sample uniques)"
    )


def mixed(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = {f"x{j}": rng.normal(size=n) for j in range(5)}
    d.update({f"c{j}": rng.choice(list("abcd"), n) for j in range(5)})
    return pd.DataFrame(d)


def distance(n: int, check: int) -> None:
    conf, syn, hold = mixed(n, 1), mixed(n, 2), mixed(n, 3)
    res, t = timed(lambda: distance_to_closest_record(conf, syn, metric="gower"))
    res_h, t_h = timed(lambda: distance_to_closest_record(conf, syn, hold, metric="gower"))
    print(
        f"DCR gower {n:,} x {n:,}, 10 mixed columns: {t:6.2f} s; with a {n:,} holdout "
        f"{t_h:6.2f} s (median DCR {res.median_dcr:.4f}, share closer to training "
        f"{res_h.share_closer_to_conf:.3f} vs baseline {res_h.baseline_share:.3f})"
    )
    c, s = mixed(check, 1), mixed(check, 2)
    fast, t_f = timed(lambda: distance_to_closest_record(c, s, metric="gower"))

    # dense reference on the same gower encoding: numeric / range + one-hot / 2, over p
    def enc(df: pd.DataFrame) -> np.ndarray:
        cols = []
        for j in range(5):
            v = c[f"x{j}"].to_numpy()
            cols.append((df[f"x{j}"].to_numpy() - v.min()) / (v.max() - v.min()))
        for j in range(5):
            for lev in "abcd":
                cols.append((df[f"c{j}"].to_numpy() == lev) * 0.5)
        return np.column_stack(cols) / 10

    dense, t_d = timed(lambda: dense_dcr(enc(c), enc(s)))
    print(
        f"DCR gower {check:,} x {check:,}: blocked trees {t_f:5.2f} s, dense chunked "
        f"{t_d:6.2f} s ({t_d / t_f:5.1f}x); agree to 1e-12: "
        f"{bool(np.max(np.abs(dense - fast.dcr)) < 1e-12)}"
    )


def sdcmicro(n_risk: int, n_suda: int) -> None:
    rng = np.random.default_rng(5)
    cards = [2, 3, 5, 8, 10, 4, 6, 12]

    def keys(n: int) -> pd.DataFrame:
        return pd.DataFrame({f"k{j}": rng.integers(0, c, n) for j, c in enumerate(cards)})

    df = keys(n_risk).assign(w=rng.uniform(1, 500, n_risk))
    ir, t_i = timed(lambda: individual_risk(df, [f"k{j}" for j in range(8)], weights="w"))
    print(
        f"individual_risk {n_risk:,} x 8 keys, weighted: {t_i:6.2f} s (expected "
        f"re-identifications {ir.expected_reidentifications:,.1f}, global risk "
        f"{ir.global_risk_pct:.3f}%)"
    )
    ds = keys(n_suda)
    su, t_s = timed(lambda: suda2(ds, list(ds.columns)))
    print(
        f"SUDA2 {n_suda:,} x 8 keys: {t_s:6.2f} s ({su.n_with_msu:,} records with an MSU, "
        f"{int(su.n_msu.sum()):,} MSUs)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--implicates", type=int, default=20)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds for dense references")
    ap.add_argument("--dcr", type=int, default=100_000)
    ap.add_argument("--risk-n", type=int, default=1_000_000, help="records for individual_risk")
    ap.add_argument("--suda-n", type=int, default=100_000, help="records for SUDA2")
    ap.add_argument("--only-sdcmicro", action="store_true", help="run only sdcMicro's measures")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.only_sdcmicro:
        sdcmicro(args.risk_n, args.suda_n)
        return
    print("identification risk (40 patterns, relative radius 0.1)")
    for n in args.sizes:
        identification(n, args.implicates, args.budget)
    for n in args.sizes:
        two_targets(n, args.implicates)
    print("\nmatch rates and k-anonymity")
    for n in args.sizes:
        other_identity(n, args.implicates)
    print()
    distance(args.dcr, 5_000)
    print("\nsdcMicro's measures")
    sdcmicro(args.risk_n, args.suda_n)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory {peak:,.0f} MB")


if __name__ == "__main__":
    main()
