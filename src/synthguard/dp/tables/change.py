"""Percent change of a noisy figure against a noisy baseline, with a propagated interval.

Google's Community Mobility Reports (Aktay et al. 2020) publish each day's visits as a percent
change from a baseline, both computed from noisy counts. With the current value y₁ = x₁ + N₁
and the baseline y₀ = x₀ + N₀ (independent noise of known laws), the change is
100 (y₁/y₀ − 1). Its interval comes from each count's exact interval at level 1 − α/2:
if [l₁, u₁] ∋ x₁ and [l₀, u₀] ∋ x₀ with l₀ > 0, then x₁/x₀ lies in [min, max] of the four
ratios lᵢ/uⱼ…, and by the union bound (Bonferroni) both hold with probability ≥ 1 − α,
whatever the noise laws. When the baseline's interval reaches 0 the change is unbounded: its
interval is (−∞, ∞) and it is flagged unreliable. The computation reads noisy values and public
noise parameters only: post-processing, no privacy budget (Dwork & Roth 2014, Prop. 2.1).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard.dp.tables.noise import NoiseModel
from synthguard.errors import ParameterError

__all__ = ["percent_change"]


def percent_change(current: Any, baseline: Any, *, current_noise: NoiseModel,
                   baseline_noise: NoiseModel, confidence: float = 0.95,
                   max_margin: float | None = 20.0, baseline_periods: int = 1
                   ) -> pd.DataFrame:
    """Percent change 100 (current/baseline − 1) with an interval of level ≥ ``confidence``.

    Parameters
    ----------
    current, baseline : noisy values (scalars or arrays of the same length).
    current_noise, baseline_noise : their noise laws (e.g. ``table.noise["count"]``).
    confidence : the joint level; each count's interval is taken at 1 − (1 − confidence)/2.
    max_margin : a change is flagged reliable only if its interval is bounded and its
        half-width is at most this many percentage points (default 20; None: bounded only).
    baseline_periods : when the baseline is the median of K noisy counts (Google's weekday
        median), K. The median is 1-Lipschitz in the largest deviation, so if every one of the
        K counts lies within ±t of its truth, the median does too: each count's interval is
        taken at level 1 − α₀/K (Bonferroni over the K counts), α₀ the baseline's share.

    Returns
    -------
    DataFrame with ``change``, ``lower``, ``upper`` (percent) and ``reliable``.

    Examples
    --------
    >>> nm = NoiseModel("laplace", 0.0)
    >>> round(percent_change(120, 100, current_noise=nm, baseline_noise=nm)["change"].item(), 6)
    20.0
    """
    if not 0 < float(confidence) < 1:
        raise ParameterError("parameter 'confidence': expected a probability in (0, 1)")
    y1 = np.atleast_1d(np.asarray(current, dtype=np.float64))
    y0 = np.atleast_1d(np.asarray(baseline, dtype=np.float64))
    if y1.shape != y0.shape:
        raise ParameterError("percent_change: 'current' and 'baseline' need the same length")
    each = 1.0 - (1.0 - float(confidence)) / 2.0
    t1 = current_noise.halfwidth(each)
    k = int(baseline_periods)
    if k < 1:
        raise ParameterError("parameter 'baseline_periods': expected a count >= 1")
    t0 = baseline_noise.halfwidth(1.0 - (1.0 - each) / k)
    l1, u1, l0, u0 = y1 - t1, y1 + t1, y0 - t0, y0 + t0
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.where(y0 > 0, 100.0 * (y1 / y0 - 1.0), np.nan)
        ok = l0 > 0
        ratios = np.stack([l1 / l0, l1 / u0, u1 / l0, u1 / u0])
        lower = np.where(ok, 100.0 * (ratios.min(axis=0) - 1.0), -np.inf)
        upper = np.where(ok, 100.0 * (ratios.max(axis=0) - 1.0), np.inf)
    reliable = ok & np.isfinite(change)
    if max_margin is not None:
        reliable &= (upper - lower) / 2.0 <= float(max_margin)
    return pd.DataFrame({"change": change, "lower": lower, "upper": upper,
                         "reliable": reliable})
