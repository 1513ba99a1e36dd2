"""Coverage of the combining rules (synthguard.utility.combine) in a simulation.

Model: x ~ N(1, 2^2), y = 2 + 0.5 x + e, e ~ N(0, 1.5^2); n = 500 confidential records.
Estimands: the slope of y on x and the mean of y (true values 0.5 and 2.5).

* Partially synthetic (Reiter 2003): x is kept, y is replaced by draws from the posterior
  predictive of the normal linear model under the flat prior p(β, σ²) ∝ 1/σ²: for each
  implicate a new σ² ~ SSE/χ²_{n-2}, β ~ N(β̂, σ²(XᵀX)⁻¹), then y* = Xβ + σ z.
* Fully synthetic (Reiter 2002; Raghunathan, Reiter & Rubin 2003): for each implicate a new
  posterior draw of the x model (τ² ~ SS_x/χ²_{n-1}, μ ~ N(x̄, τ²/n)) and of the y|x model,
  then n_syn = n entirely new records (x*, y*) — the posterior predictive of non-sampled units.

Each replication estimates the slope (OLS, v = s²/S_xx) and the mean (v = s_y²/n) on every
implicate, combines them with ``combine`` and checks whether the 95% interval covers the
truth. For the fully synthetic rows the column ``proper`` gives the coverage of the normal
interval from the rule of Raab, Nowok & Dibben (2016) for synthesis from the posterior
predictive (``combine(..., method="proper")``, ``T_r = v̄_m (n_syn/n + (1 + n_syn/n)/m)``),
next to Reiter's (2002) rule. Everything is vectorised over the 500 replications. Run:

    .venv/bin/python benchmarks/validity_combining_rules.py
"""

from __future__ import annotations

import time

import numpy as np

from synthguard.utility import combine

R = 500
N = 500
BETA = np.array([2.0, 0.5])
SIGMA = 1.5
MU_X, SD_X = 1.0, 2.0
TRUE = {"slope": BETA[1], "mean_y": BETA[0] + BETA[1] * MU_X}


def ols(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise simple regression over the last axis: intercept, slope, s², S_xx."""
    n = x.shape[-1]
    xb = x.mean(-1, keepdims=True)
    yb = y.mean(-1, keepdims=True)
    sxx = ((x - xb) ** 2).sum(-1)
    slope = ((x - xb) * (y - yb)).sum(-1) / sxx
    icpt = yb[..., 0] - slope * xb[..., 0]
    resid = y - icpt[..., None] - slope[..., None] * x
    s2 = (resid**2).sum(-1) / (n - 2)
    return icpt, slope, s2, sxx


def posterior_y_given_x(x, y, m, rng):
    """m posterior draws (β0, β1, σ) per replication under p(β, σ²) ∝ 1/σ²."""
    b0, b1, s2, sxx = ols(x, y)
    n = x.shape[-1]
    sig2 = s2[:, None] * (n - 2) / rng.chisquare(n - 2, size=(x.shape[0], m))
    xb = x.mean(-1)
    # Cov(β̂) = σ² (XᵀX)⁻¹ for X = [1, x]
    v00 = 1.0 / n + xb**2 / sxx
    v01 = -xb / sxx
    v11 = 1.0 / sxx
    z0 = rng.standard_normal((x.shape[0], m))
    z1 = rng.standard_normal((x.shape[0], m))
    l00 = np.sqrt(v00)
    l10 = v01 / l00
    l11 = np.sqrt(v11 - l10**2)
    s = np.sqrt(sig2)
    beta0 = b0[:, None] + s * l00[:, None] * z0
    beta1 = b1[:, None] + s * (l10[:, None] * z0 + l11[:, None] * z1)
    return beta0, beta1, s


def estimates(x, y):
    """Per implicate: (q, v) for the slope and the mean of y; arrays (R, m)."""
    n = x.shape[-1]
    _, slope, s2, sxx = ols(x, y)
    return {
        "slope": (slope, s2 / sxx),
        "mean_y": (y.mean(-1), y.var(-1, ddof=1) / n),
    }


def simulate(kind: str, m: int, n_syn: int, reps: int, rng: np.random.Generator):
    """(q, v) arrays of shape (m, reps) for each estimand."""
    x = rng.normal(MU_X, SD_X, size=(reps, N))
    y = BETA[0] + BETA[1] * x + rng.normal(0, SIGMA, size=(reps, N))
    b0, b1, s = posterior_y_given_x(x, y, m, rng)
    if kind == "partial":
        xs = np.broadcast_to(x[:, None, :], (reps, m, N))
    else:
        xbar = x.mean(-1)
        ssx = ((x - xbar[:, None]) ** 2).sum(-1)
        tau2 = ssx[:, None] / rng.chisquare(N - 1, size=(reps, m))
        mu = xbar[:, None] + np.sqrt(tau2 / N) * rng.standard_normal((reps, m))
        xs = mu[..., None] + np.sqrt(tau2)[..., None] * rng.standard_normal((reps, m, n_syn))
    ys = b0[..., None] + b1[..., None] * xs + s[..., None] * rng.standard_normal(xs.shape)
    return {k: (q.T, v.T) for k, (q, v) in estimates(xs, ys).items()}


def coverage(kind: str, m: int, n_syn: int, rng: np.random.Generator) -> dict[str, dict]:
    chunk = max(1, 5_000_000 // (m * n_syn))
    parts: dict[str, list] = {}
    for start in range(0, R, chunk):
        for k, qv in simulate(kind, m, n_syn, min(chunk, R - start), rng).items():
            parts.setdefault(k, []).append(qv)
    out = {}
    for name, qv in parts.items():
        q = np.concatenate([a for a, _ in qv], axis=1)
        v = np.concatenate([b for _, b in qv], axis=1)
        r = combine(q, v, method=kind, n=N, n_synthetic=n_syn)  # type: ignore[arg-type]
        lo, hi = r.ci(0.95)
        z = 1.959964 * np.sqrt(r.variance)
        proper = np.nan
        if kind == "full":
            rp = combine(q, v, method="proper", n=N, n_synthetic=n_syn)
            lo_p, hi_p = rp.ci(0.95)
            proper = float(np.mean((lo_p <= TRUE[name]) & (TRUE[name] <= hi_p)))
        out[name] = {
            "coverage": float(np.mean((lo <= TRUE[name]) & (TRUE[name] <= hi))),
            "normal": float(np.mean(np.abs(r.estimate - TRUE[name]) <= z)),
            "width": float(np.median(hi - lo)),
            "df": float(np.median(r.df)),
            "adjusted": float(np.mean(r.adjusted)) if kind == "full" else 0.0,
            "proper": proper,
            # is the variance right? mean of T against the Monte Carlo variance of q̄_m
            "t_ratio": float(np.mean(r.variance) / np.mean((r.estimate - TRUE[name]) ** 2)),
        }
    return out


def main() -> None:
    rng = np.random.default_rng(20260301)
    t0 = time.perf_counter()
    print(f"Coverage of 95% intervals from synthguard.utility.combine, {R} replications, n = {N}")
    print("coverage: t reference with the rule's df; normal: same variance, normal reference;")
    print("E[T]/Var: mean combined variance over the Monte Carlo variance of the estimate;")
    print("proper: coverage of Raab, Nowok & Dibben's (2016) rule for posterior-predictive full")
    print("synthesis (normal reference); ok/MISS judges the issue's default rule (Reiter)")
    head = (f"{'synthesis':<9} {'m':>3} {'n_syn':>6} {'estimand':<8} {'coverage':>9} "
            f"{'normal':>7} {'median width':>13} {'median df':>10} {'T_f<0':>6} {'E[T]/Var':>9} "
            f"{'proper':>7}")
    print(head)
    settings = [("partial", 5, N), ("partial", 20, N), ("full", 5, N), ("full", 20, N),
                ("full", 5, 5 * N), ("full", 20, 5 * N)]
    for kind, m, n_syn in settings:
        for name, c in coverage(kind, m, n_syn, rng).items():
            ok = "ok" if 0.93 <= c["coverage"] <= 0.97 else "MISS"
            print(f"{kind:<9} {m:>3} {n_syn:>6} {name:<8} {c['coverage']:>9.3f} "
                  f"{c['normal']:>7.3f} {c['width']:>13.4f} {c['df']:>10.2f} "
                  f"{c['adjusted']:>6.3f} {c['t_ratio']:>9.3f} "
                  f"{'' if np.isnan(c['proper']) else format(c['proper'], '.3f'):>7}  {ok}")
    print(f"Monte Carlo s.e. of a 95% coverage over {R} replications: "
          f"{np.sqrt(0.95 * 0.05 / R):.3f}; {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
