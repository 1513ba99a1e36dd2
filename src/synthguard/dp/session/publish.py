"""What a released value looks like: counts as non-negative integers unless asked otherwise.

A noisy count can be negative or fractional; users expect neither. By default
(``raw_noisy=False``), as ``synthguard dp tabulate`` does:

* a count or a count of distinct units is published as ``max(0, round(ỹ))`` and its interval
  ``[ỹ − t, ỹ + t]`` as ``[max(0, ỹ − t), max(0, ỹ + t)]``;
* a sum of values clamped to bounds that are both ≥ 0 (or both ≤ 0) is clamped at 0 on the
  side its sign makes impossible, and so is its interval.

The interval stays honest: the true statistic of the bounded data is ≥ 0 (≤ 0), so when it
lay in the raw interval it lies in the clamped one, and the coverage is unchanged. This reads
the noisy values and public bounds only, so it is post-processing and costs no privacy (Dwork &
Roth 2014, Prop. 2.1). Near 0 the published value is biased upwards; ``raw_noisy=True`` keeps
the raw noisy values (unbiased, some negative) for analysts who model the noise themselves.
Means, variances and quantiles are already held within their bounds.
"""

from __future__ import annotations

import numpy as np

from synthguard.dp.session.spec import Aggregation

__all__ = ["publish", "published_text"]


def publish(agg: Aggregation, value: np.ndarray, lower: np.ndarray, upper: np.ndarray,
            bounds: tuple[float, float] | None, raw_noisy: bool
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The published (value, lower, upper) of ``agg`` (module docstring)."""
    if raw_noisy:
        return value, lower, upper
    if agg.kind in ("count", "count_distinct"):
        shown = np.maximum(np.rint(value), 0.0).astype(np.int64)
        return shown, np.maximum(lower, 0.0), np.maximum(upper, 0.0)
    if agg.kind == "sum" and bounds is not None and (bounds[0] >= 0 or bounds[1] <= 0):
        sign = 1.0 if bounds[0] >= 0 else -1.0
        v, lo, hi = (sign * np.maximum(sign * a, 0.0) for a in (value, lower, upper))
        return v, lo, hi
    return value, lower, upper


def published_text(raw_noisy: bool) -> str:
    """What the count columns hold, in one sentence (release.json, reports)."""
    if raw_noisy:
        return ("Counts and sums are the raw noisy values (raw_noisy): unbiased, but some may "
                "be negative or fractional.")
    return ("Counts are non-negative integers: each noisy count rounded and clamped at 0, "
            "max(0, round(noisy)), its interval clamped at 0; a sum whose bounds fix its sign "
            "is clamped at 0 likewise (post-processing, no privacy cost; near 0 biased "
            "upwards; raw_noisy for the raw noisy values).")
