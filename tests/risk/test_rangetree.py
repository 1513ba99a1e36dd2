"""The merge-sort tree's weighted 2-d range sums against a direct sum."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.risk._rangetree import range_sums


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 70), st.integers(1, 40), st.integers(0, 2**31 - 1), st.booleans())
def test_range_sums_match_direct_sum(n, q, seed, weighted):
    rng = np.random.default_rng(seed)
    kmax = 12
    ycode = rng.integers(0, kmax, n)
    w = rng.integers(-3, 4, n) if weighted else None
    start = rng.integers(0, n + 1, q)
    stop = rng.integers(0, n + 1, q)
    ylo = rng.integers(0, kmax, q)
    yhi = rng.integers(-1, kmax, q)
    got = range_sums(ycode, w, start, stop, ylo, yhi, kmax)
    ww = np.ones(n, dtype=int) if w is None else w
    for i in range(q):
        sel = slice(start[i], max(stop[i], start[i]))
        y = ycode[sel]
        assert got[i] == int(np.sum(ww[sel] * ((y >= ylo[i]) & (y <= yhi[i]))))


def test_many_queries_take_the_sorted_search_path():
    rng = np.random.default_rng(5)
    n, q, kmax = 300, 6000, 50
    ycode = rng.integers(0, kmax, n)
    w = rng.integers(-2, 3, n)
    start = rng.integers(0, n + 1, q)
    stop = rng.integers(0, n + 1, q)
    ylo, yhi = rng.integers(0, kmax, q), rng.integers(0, kmax, q)
    got = range_sums(ycode, w, start, stop, ylo, yhi, kmax)
    pos = np.arange(n)
    inside = (
        (pos[None, :] >= start[:, None])
        & (pos[None, :] < stop[:, None])
        & (ycode[None, :] >= ylo[:, None])
        & (ycode[None, :] <= yhi[:, None])
    )
    np.testing.assert_array_equal(got, inside @ w)
