"""Interval overlap (two definitions) and SSO against the course and the lecture."""

import numpy as np
import pytest

from synthguard.errors import ParameterError
from synthguard.utility import ci_overlap, sso


def test_identical_intervals_overlap_one():
    for method in ("snoke", "drechsler_reiter"):
        assert ci_overlap((1.0, 3.0), (1.0, 3.0), method=method) == pytest.approx(1.0)


def test_partial_overlap_by_hand():
    # intersection (1, 2): ½ (1/2 + 1/4)
    assert ci_overlap((0.0, 2.0), (1.0, 5.0)) == pytest.approx(0.375)
    assert ci_overlap((0.0, 2.0), (1.0, 5.0), method="drechsler_reiter") == pytest.approx(0.375)


def test_gap_negative_for_snoke_zero_for_drechsler_reiter():
    # lecture's slope intervals: confidential vs synthetic Expenditure ~ Income (no overlap)
    conf = (0.05716009, 0.06372054)
    syn = (0.03804092, 0.04427644)
    gap = 0.04427644 - 0.05716009
    expected = 0.5 * (gap / (conf[1] - conf[0]) + gap / (syn[1] - syn[0]))
    assert ci_overlap(conf, syn) == pytest.approx(expected)
    assert ci_overlap(conf, syn) < -2.0
    assert ci_overlap(conf, syn, method="drechsler_reiter") == 0.0


def test_vectorised():
    c = np.array([[0.0, 1.0], [0.0, 2.0]])
    s = np.array([[0.0, 1.0], [1.0, 5.0]])
    assert ci_overlap(c, s) == pytest.approx([1.0, 0.375])


def test_bad_interval():
    with pytest.raises(ParameterError, match="upper end"):
        ci_overlap((2.0, 1.0), (0.0, 1.0))
    with pytest.raises(ParameterError, match="method"):
        ci_overlap((0, 1), (0, 1), method="karr")  # type: ignore[arg-type]


def test_sso_course_exercise():
    r = sso(2.7926609008331, (2.308338, 3.276984), 2.08452909904545, (1.512416, 2.656643))
    assert r.sign_match and r.significance_match and r.overlap_match
    assert r.match and bool(r)


def test_sso_each_part_can_fail():
    r = sso(1.0, (0.5, 1.5), -1.0, (-1.5, -0.5))
    assert not r.sign_match and r.significance_match and not r.overlap_match and not r.match
    r = sso(1.0, (0.5, 1.5), 0.6, (-0.1, 1.3))
    assert r.sign_match and not r.significance_match and r.overlap_match and not r.match
    assert not r.to_frame()["sso_match"].item()
