"""suda2 against the scores written in sdcMicro 5.8's test_suda2.R (held in
tests/reference/sdcmicro.json with file and lines) and against a brute-force enumeration of
minimal sample uniques and sdcMicro's DIS formula on small random data."""

from __future__ import annotations

import json
import math
import time
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError, ParameterError
from synthguard.risk import suda2

REF = json.loads((Path(__file__).resolve().parents[1] / "reference" / "sdcmicro.json").read_text())
CASES = REF["suda2"]


@pytest.mark.parametrize("case", CASES, ids=[c["source"].split(" ")[0] for c in CASES])
def test_sdcmicro_reference(case, shared_data):
    if "file" in case:
        df = pd.read_csv(shared_data / "sdcmicro" / case["file"])
    else:
        df = pd.DataFrame(case["data"])
    res = suda2(df, case["keys"])
    frame = res.to_frame()
    assert list(frame.columns) == ["suda_score", "dis_score"]
    if "suda_score" in case:
        rows = case.get("rows", list(range(len(df))))
        np.testing.assert_array_equal(frame["suda_score"].to_numpy()[rows], case["suda_score"])
    if "contributions" in case:
        assert list(res.contributions.index) == case["keys"]
        np.testing.assert_allclose(res.contributions, case["contributions"])


def _msus(rows, r):
    n, m_keys = len(rows), len(rows[0])

    def unique(subset):
        if any(rows[r][j] is None for j in subset):
            return False
        return sum(all(rows[s][j] == rows[r][j] for j in subset) for s in range(n)) == 1

    out = []
    for k in range(1, m_keys + 1):
        for subset in combinations(range(m_keys), k):
            if unique(subset) and not any(
                unique(sub) for kk in range(1, k) for sub in combinations(subset, kk)
            ):
                out.append(subset)
    return out


def _brute(rows, m_keys, f):
    n = len(rows)
    m = max(m_keys, 3)
    score = np.zeros(n)
    raw = np.zeros((n, m_keys))

    def unique(r, subset):
        if any(rows[r][j] is None for j in subset):
            return False
        return sum(all(rows[s][j] == rows[r][j] for j in subset) for s in range(n)) == 1

    for r in range(n):
        for k in range(1, m_keys + 1):
            for subset in combinations(range(m_keys), k):
                if not unique(r, subset):
                    continue
                if any(unique(r, sub) for kk in range(1, k) for sub in combinations(subset, kk)):
                    continue
                w = math.factorial(m - k)
                score[r] += w
                raw[r, list(subset)] += w
    counts = [sum(a == b for b in rows) for a in rows]
    u = sum(c == 1 for c in counts)
    p = sum(c == 2 for c in counts)
    dis = np.zeros(n)
    if score.sum() > 0:
        d = u * f / (u * f + p * (1 - f))
        q = 1 + (8 - m) / 20
        adj = sum(s**-q for s in score if s > 0)
        for r in range(n):
            if score[r] > 0:
                dis[r] = 1 / (1 + (u / d - u) / (score[r] ** q * adj))
    contrib = 100 * raw.sum(axis=0) / score.sum() if score.sum() > 0 else np.zeros(m_keys)
    return score, dis, contrib


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda m: st.lists(
            st.tuples(*[st.one_of(st.sampled_from([1, 2, 3]), st.none()) for _ in range(m)]),
            min_size=1,
            max_size=14,
        )
    ),
    st.sampled_from([0.01, 0.1, 0.5]),
)
def test_matches_brute_force_msu_enumeration(rows, f):
    m = len(rows[0])
    cols = [f"k{j}" for j in range(m)]
    df = pd.DataFrame(rows, columns=cols, dtype=object)
    res = suda2(df, cols, dis_fraction=f)
    score, dis, contrib = _brute(rows, m, f)
    np.testing.assert_allclose(res.suda_score, score)
    np.testing.assert_allclose(res.dis_score, dis, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.contributions, contrib)
    lv = res.level_contributions
    for j, col in enumerate(cols):
        raw_j = np.array(
            [
                sum(math.factorial(max(m, 3) - len(sub)) for sub in _msus(rows, i) if j in sub)
                for i in range(len(rows))
            ]
        )
        if raw_j.sum() > 0:
            for value, got in lv.loc[lv["variable"] == col, ["value", "contribution"]].to_numpy():
                mask = np.array([r[j] == value for r in rows])
                assert got == pytest.approx(100 * raw_j[mask].sum() / raw_j.sum())
    share = res.record_contributions.to_numpy()
    np.testing.assert_allclose(
        (share * res.suda_score[:, None]).sum(axis=0), contrib / 100 * score.sum()
    )


def test_missing_code_and_dis_table():
    df = pd.DataFrame({"a": [1, 1, 2, -999], "b": [1, 2, 1, 1], "c": [0, 0, 0, 0]})
    coded = suda2(df, ["a", "b", "c"], missing=-999)
    na = suda2(df.replace(-999, np.nan), ["a", "b", "c"])
    np.testing.assert_allclose(coded.suda_score, na.suda_score)
    # record 4 is unique on (a, b) only through its missing a: no MSU of its own
    assert coded.suda_score[3] == 0
    # M = 3: a 1-MSU scores 2! = 2, a 2-MSU 1! = 1. Row 0: {a,b} = (1,1); row 1: {b} (b=2
    # once); row 2: {a} (a=2 once); the constant c never helps.
    np.testing.assert_allclose(coded.suda_score, [1.0, 2.0, 2.0, 0.0])
    table = coded.dis_table()
    assert table.sum() == 4 and table["== 0"] == 1
    assert "minimal sample unique" in coded.summary()


def test_hundred_thousand_records_eight_keys_fast():
    # the full benchmark figure is printed by benchmarks/risk.py
    rng = np.random.default_rng(1)
    n = 100_000
    cards = [2, 3, 5, 8, 10, 4, 6, 12]
    df = pd.DataFrame({f"k{j}": rng.integers(0, c, n) for j, c in enumerate(cards)})
    t0 = time.perf_counter()
    res = suda2(df, list(df.columns))
    assert time.perf_counter() - t0 < 15
    assert res.n_with_msu > 0 and np.all((res.dis_score >= 0) & (res.dis_score <= 1))


def test_errors():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(ParameterError, match="dis_fraction"):
        suda2(df, ["a"], dis_fraction=0)
    with pytest.raises(ParameterError, match="dis_fraction"):
        suda2(df, ["a"], dis_fraction=1.5)
    with pytest.raises(DataError, match="'b'"):
        suda2(df, ["b"])
    with pytest.raises(ParameterError, match="keys"):
        suda2(df, [])
