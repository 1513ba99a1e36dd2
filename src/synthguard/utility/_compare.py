"""Shared by the analysis-specific comparisons: combining per-implicate estimates, overlaps,
SSO and the standardised difference for a table of estimands."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from synthguard.utility.combining import combine
from synthguard.utility.overlap import ci_overlap, sso

__all__: list[str] = []


def comparison_columns(
    conf_est: np.ndarray,
    conf_se: np.ndarray,
    conf_lo: np.ndarray,
    conf_hi: np.ndarray,
    q: np.ndarray,
    v: np.ndarray,
    method: str,
    n: int,
    n_syn: int,
    level: float,
    df: np.ndarray | None = None,
) -> pd.DataFrame:
    """Columns comparing estimands: ``q`` and ``v`` have shape (m, n_estimands).

    ``df``: with ``method="none"`` (one file analysed as the data), the release fit's own
    degrees of freedom per estimand, so its interval is the one its analyst computes (a t
    interval for OLS); without it the reference is normal."""
    m = q.shape[0]
    rule = method if m > 1 or method in ("proper", "none") else "simple"
    comb = combine(q, v, method=rule, n=n, n_synthetic=n_syn)  # type: ignore[arg-type]
    if rule == "none" and df is not None:
        comb = replace(comb, df=np.asarray(df, dtype=float))
    lo, hi = comb.ci(level)
    lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
    est = np.atleast_1d(comb.estimate)
    conf_ci = np.column_stack([conf_lo, conf_hi])
    syn_ci = np.column_stack([lo, hi])
    ok = np.isfinite(syn_ci).all(axis=1) & np.isfinite(conf_ci).all(axis=1)
    ov_s = np.full(len(est), np.nan)
    ov_d = np.full(len(est), np.nan)
    if ok.any():
        ov_s[ok] = ci_overlap(conf_ci[ok], syn_ci[ok], method="snoke")
        ov_d[ok] = ci_overlap(conf_ci[ok], syn_ci[ok], method="drechsler_reiter")
    sso_rows = [
        sso(float(conf_est[i]), conf_ci[i], float(est[i]), syn_ci[i]) if ok[i] else None
        for i in range(len(est))
    ]
    with np.errstate(divide="ignore", invalid="ignore"):
        std_diff = (est - conf_est) / conf_se
    return pd.DataFrame(
        {
            "conf_estimate": conf_est,
            "conf_se": conf_se,
            "conf_lower": conf_lo,
            "conf_upper": conf_hi,
            "syn_estimate": est,
            "syn_se": np.atleast_1d(comb.se),
            "syn_df": np.atleast_1d(comb.df),
            "syn_lower": lo,
            "syn_upper": hi,
            "rule": comb.method,
            "m": m,
            "overlap_snoke": ov_s,
            "overlap_dr": ov_d,
            "sign_match": [r.sign_match if r is not None else np.nan for r in sso_rows],
            "significance_match": [r.significance_match if r is not None else np.nan for r in sso_rows],
            "overlap_match": [r.overlap_match if r is not None else np.nan for r in sso_rows],
            "sso_match": [r.match if r is not None else np.nan for r in sso_rows],
            "std_difference": std_diff,
        }
    )
