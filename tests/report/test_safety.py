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
