"""The disclosure rules of the report: rounding, ranges, suppression, safe errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError
from synthguard.report.safety import (
    SUPPRESSED,
    Redactor,
    format_number,
    round_sig,
    safe_error,
    value_range,
)


@pytest.mark.parametrize(
    ("x", "digits", "expected"),
    [(987654.321, 3, 988000.0), (0.0012345, 2, 0.0012), (-45.678, 2, -46.0), (0.0, 3, 0.0)],
)
def test_round_sig(x, digits, expected):
    assert round_sig(x, digits) == pytest.approx(expected)


def test_round_sig_nan_passes():
    assert math.isnan(round_sig(float("nan")))


@pytest.mark.parametrize(
    ("x", "expected"),
    [(987654.321, "988,000"), (0.123456, "0.123"), (3.08e-32, "3.08e-32"), (12.0, "12.0"), (None, "–"), (True, "yes")],
)
def test_format_number(x, expected):
    assert format_number(x) == expected


@pytest.mark.parametrize(
    ("x", "expected"),
    [(987654.321, "500,000 – 1,000,000"), (150000, "100,000 – 200,000"),
     (-3.2, "-5.00 – -2.00"), (0, "0"), (2500, "2,000 – 5,000")],
)
def test_value_range_brackets_the_value(x, expected):
    assert value_range(x) == expected


def test_value_range_contains_value_on_random_inputs():
    rng = np.random.default_rng(3)
    for x in rng.lognormal(5, 4, size=300):
        lo, hi = (float(s.replace(",", "")) for s in value_range(float(x)).split(" – "))
        assert lo <= x < hi or math.isclose(x, lo)
        assert hi / lo <= 2.5 + 1e-9  # ranges are coarse: at most a factor 2.5 wide


def test_redactor_suppresses_small_levels_and_terms():
    df = pd.DataFrame({"region": ["a"] * 20 + ["RARELEVEL"] * 3 + ["b"] * 12, "x": range(35)})
    r = Redactor.from_data([df], min_cell=10)
    assert r.unsafe == frozenset({"RARELEVEL"})
    assert r.label("a") == "a"
    assert r.label("RARELEVEL") == SUPPRESSED
    assert r.label("C(region)[T.RARELEVEL]") == SUPPRESSED
    assert r.label("region") == "region"
    assert r.count(3) == "< 10"
    assert r.count(25) == "25"


def test_redactor_short_codes_only_in_term_positions():
    df = pd.DataFrame({"race": pd.Categorical([1] * 30 + [5] * 2, categories=[1, 5, 6])})
    r = Redactor.from_data([df], min_cell=10)
    assert r.unsafe == frozenset({"5", "6"})  # 6 has no record at all: also withheld
    assert r.label("C(race)[T.5]") == SUPPRESSED
    assert r.label("race_5") == SUPPRESSED
    assert r.label("income55") == "income55"  # a code inside a name is not a term


def test_safe_error_withholds_foreign_messages():
    assert "secret" not in safe_error(ValueError("could not convert 'secret'"))
    assert safe_error(DataError("column 'x': bad")).endswith("column 'x': bad")


def test_record_range_pools_tails_and_keeps_a_floor():
    from synthguard.report.safety import record_range

    rng = np.random.default_rng(5)
    v = np.round(rng.uniform(0, 100_000, size=2000))
    v[0] = 3.0  # the confidential income of 3 that "2.00 – 5.00" used to pin
    assert record_range(3.0, v) == "bottom 1%"
    assert record_range(float(v.max()), v) == "top 1%"
    # 1,500 has the 1-2-5 range "1,000 – 2,000", narrower than IQR / 10 (about 5,000):
    # widened to the 5,000-wide grid cell that holds it
    assert record_range(1500.0, v) == "0 – 5,000"
    # a range wide enough already is the 1-2-5 range
    assert record_range(36_123.0, v) == "20,000 – 50,000"


def test_record_range_brute_force_floor():
    from synthguard.report.safety import record_range, rounding_unit, tail_bounds

    rng = np.random.default_rng(11)
    for _ in range(20):
        scale = 10.0 ** rng.integers(-1, 6)
        v = np.round(rng.lognormal(0, 1.0, size=400) * scale, 2)
        lo_b, hi_b, _ = tail_bounds(v)
        q1, q3 = np.quantile(v, [0.25, 0.75])
        floor = max(0.1 * (q3 - q1), 2 * rounding_unit(v))
        for x in rng.choice(v, 30):
            text = record_range(float(x), v)
            if x < lo_b:
                assert text.startswith("bottom ")
            elif x > hi_b:
                assert text.startswith("top ")
            else:
                a, b = (float(t.replace(",", "")) for t in text.split(" – "))
                # the printed ends are rounded to 3 significant figures at most
                assert a <= x * (1 + 1e-9) + 1e-9 and x < b * (1 + 5e-3), (x, text)
                assert b - a >= floor * (1 - 5e-3), (x, text, floor)


def test_record_range_of_a_count_holds_two_values():
    from synthguard.report.safety import record_range

    k = np.random.default_rng(0).poisson(1.0, size=500).astype(float)
    assert record_range(0.0, k) == "0 – 2"
    assert record_range(1.0, k) == "0 – 2"


def test_redactor_text_withholds_levels_inside_messages():
    r = Redactor(unsafe=frozenset({"ZZSECRETZZ", "5"}))
    msg = r.text("regression failed: PatsyError in C(native_country)[T.ZZSECRETZZ]: singular")
    assert "ZZSECRETZZ" not in msg and "native_country" not in msg
    assert msg == "regression failed: PatsyError in (suppressed): singular"
    assert r.text("level 'ZZSECRETZZ' has 1 record") == "level '(suppressed)' has 1 record"
    short = r.text("terms C(race)[T.5], race_5 and x=5; but income55 and 5.0 stay")
    assert short == "terms (suppressed), race_(suppressed) and x=(suppressed); but income55 and 5.0 stay"


def test_winsorised_moments_hide_a_dominant_record():
    from synthguard.report.safety import tail_bounds, winsorised_moments

    rng = np.random.default_rng(1)
    v = np.round(rng.lognormal(10.5, 0.6, size=3000))
    v[7] = 77_777_777.0
    lo, hi, p = tail_bounds(v)
    mean, sd = winsorised_moments(v, lo, hi)
    assert p == 0.01 and hi < 200_000
    # the raw sd times sqrt(n) recovers the outlier; the winsorised one is nowhere near it
    assert abs(v.std() * np.sqrt(v.size) - 77_777_777) / 77_777_777 < 0.01
    assert sd * np.sqrt(v.size) < 0.05 * 77_777_777
    clipped = np.clip(v, lo, hi)
    assert mean == pytest.approx(clipped.mean()) and sd == pytest.approx(clipped.std(ddof=1))


def test_tail_bounds_of_years_stay_apart():
    """Years 2007-2009 rounded to 2 significant figures were both 2,000: every year was
    clipped to 2,000, and the report and the demo printed a mean of 2,000 and an sd of 0."""
    from synthguard.report.safety import tail_bounds, winsorised_moments

    years = np.repeat([2007.0, 2008.0, 2009.0], [110, 114, 120])
    lo, hi, _ = tail_bounds(years)
    assert (lo, hi) == (2007.0, 2009.0)
    mean, sd = winsorised_moments(years, lo, hi)
    assert mean == pytest.approx(years.mean()) and sd == pytest.approx(years.std(ddof=1))
    # bounds already apart keep their 2 significant figures
    incomes = np.linspace(1_234.0, 98_765.0, 500)
    q = np.quantile(incomes, [0.02, 0.98])  # max(1%, 10 / 500) on each side
    assert tail_bounds(incomes)[:2] == tuple(float(f"{v:.2g}") for v in q)
