"""Interval coverage by simulation (seeded numpy noise: simulation only).

The households are within the bounds, so the bounded data equal the data and the truth is
the plain statistic of the file. 400 queries × 6 groups = 2,400 intervals per statistic: the
standard error of a 95% coverage is 0.44 points, the tolerance of 1.5 points about 3.4 of it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from synthguard.dp import Session
from synthguard.dp.session.intervals import laplace_halfwidth, laplace_sum_halfwidth
from synthguard.errors import PrivacyWarning

from .conftest import households

AGGS = {"n": "count", "d": "count_distinct", "s": ("sum", "hours_per_week", (0, 100)),
        "m": ("mean", "hours_per_week", (0, 100)), "v": ("variance", "hours_per_week", (0, 100))}


@pytest.mark.slow
def test_interval_coverage_within_one_and_a_half_points():
    data = households(3000, seed=5)
    by = {"sex": ["Male", "Female"], "agegroup": ["young", "middle", "old"]}
    g = data.groupby(["sex", "agegroup"])
    truth = {"n": g.size(), "d": g["hid"].nunique(), "s": g["hours_per_week"].sum(),
             "m": g["hours_per_week"].mean(), "v": g["hours_per_week"].var(ddof=0)}
    s = Session(data, privacy_unit="hid", max_rows=5, epsilon=1e9, noise_random_state=11,
                random_state=3)
    hits = dict.fromkeys(AGGS, 0)
    total = 0
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        for _ in range(400):
            f = s.query(by=by, aggregations=AGGS, epsilon=1.0).to_frame()
            idx = list(zip(f["sex"], f["agegroup"]))
            for k in AGGS:
                t = truth[k].loc[idx].to_numpy()
                hits[k] += int(((f[f"{k}_lower"] <= t) & (t <= f[f"{k}_upper"])).sum())
            total += len(f)
    coverage = {k: v / total for k, v in hits.items()}
    for k, c in coverage.items():
        assert abs(c - 0.95) <= 0.015, (k, coverage)


def test_halfwidths_match_their_noise_law():
    rng = np.random.default_rng(0)
    b = 3.0
    assert laplace_halfwidth(b, 0.05) == pytest.approx(b * np.log(20))
    for a, c in [(1.0, 2.0), (1.5, 1.5), (0.2, 5.0)]:
        t = laplace_sum_halfwidth([a, c], 0.1)
        z = np.abs(rng.laplace(0, a, 400_000) + rng.laplace(0, c, 400_000))
        assert np.mean(z > t) == pytest.approx(0.1, abs=0.003)
    t3 = laplace_sum_halfwidth([1.0, 2.0, 0.5], 0.05)
    z = np.abs(rng.laplace(0, 1, 400_000) + rng.laplace(0, 2, 400_000)
               + rng.laplace(0, 0.5, 400_000))
    assert np.mean(z > t3) == pytest.approx(0.05, abs=0.003)
    assert laplace_sum_halfwidth([0.0, 2.0], 0.05) == pytest.approx(2 * np.log(20))
