"""l_diversity against hand-computed classes and a record-by-record transcription of the rules
of sdcMicro's measure_risk C++ code (compute_group_ldiversity) on random data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError, ParameterError
from synthguard.risk import l_diversity


def test_hand_computed():
    df = pd.DataFrame(
        {
            "sex": ["f", "f", "f", "f", "f", "m", "m", "m"],
            "age": [1, 1, 1, 1, 1, 2, 2, 2],
            "disease": ["flu", "flu", "flu", "cold", None, "hiv", "hiv", "hiv"],
        }
    )
    res = l_diversity(df, ["sex", "age"], "disease")
    f = res.to_frame()
    assert list(f.columns) == ["distinct", "entropy", "recursive"]
    # class f: flu 3, cold 1, missing 1 (n = 5): distinct 2 + 1 for the missing values
    np.testing.assert_array_equal(f["distinct"], [3] * 5 + [1] * 3)
    h = -(0.6 * math.log(0.6) + 2 * 0.2 * math.log(0.2))
    np.testing.assert_allclose(f["entropy"], [math.exp(h)] * 5 + [1.0] * 3)
    # recursive (c = 2): 3 < 2 * 1? no -> 1; (c = 4): 3 < 4 * 1 -> 2
    np.testing.assert_array_equal(f["recursive"], [1] * 8)
    np.testing.assert_array_equal(
        l_diversity(df, ["sex", "age"], "disease", c=4).recursive, [2] * 5 + [1] * 3
    )
    assert res.l == 1 and res.violations(2) == 3
    table = res.summary_table()
    assert table.loc["max", "distinct"] == 3 and table.loc["mean", "distinct"] == pytest.approx(
        18 / 8
    )
    assert "l-diversity" in res.summary()


def _sdcmicro_rules(counts: dict, n_miss: int, size: int, c: float):
    used = sorted((v for v in counts.values() if v > 0), reverse=True)
    m = len(used)
    distinct = m + (1 if n_miss and m else 0)
    ent = sum(v / size * math.log(v / size) for v in used)
    if n_miss and m:
        ent += n_miss / size * math.log(n_miss / size)
    if m == 0:
        rec = 0
    elif m == 1:
        rec = 1
    else:  # sdcMicro's loop, transcribed
        total = c * sum(used[1:])
        j = 1
        while j < m and total > used[0]:
            total -= c * used[j]
            j += 1
        rec = j
    return distinct, math.exp(-ent), rec


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.sampled_from([1, 2]), st.none()),
            st.sampled_from(["x", "y", "z"]),
            st.one_of(st.sampled_from(["a", "b", "c", "d"]), st.none()),
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([0.5, 1.0, 2.0, 3.0]),
)
def test_matches_record_by_record_rules(rows, c):
    df = pd.DataFrame(rows, columns=["k1", "k2", "s"], dtype=object)
    res = l_diversity(df, ["k1", "k2"], "s", c=c)
    for i, r in enumerate(rows):
        cls = [q for q in rows if all(r[j] is None or q[j] == r[j] for j in range(2))]
        if r[0] is None and r[1] is None:
            cls = rows
        counts: dict = {}
        for q in cls:
            if q[2] is not None:
                counts[q[2]] = counts.get(q[2], 0) + 1
        d, e, rec = _sdcmicro_rules(counts, sum(q[2] is None for q in cls), len(cls), c)
        assert res.distinct[i] == d and res.recursive[i] == rec
        assert res.entropy[i] == pytest.approx(e)


def test_testdata_classes_against_groupby(shared_data):
    df = pd.read_csv(shared_data / "sdcmicro" / "testdata.csv")
    keys = ["urbrur", "roof", "walls", "water", "sex"]
    res = l_diversity(df, keys, "electcon")
    nunique = df.groupby(keys)["electcon"].transform("nunique").to_numpy()
    has_na = df.groupby(keys)["electcon"].transform(lambda s: s.isna().any()).to_numpy()
    np.testing.assert_array_equal(res.distinct, nunique + (has_na & (nunique > 0)))


def test_errors():
    df = pd.DataFrame({"a": [1, 2], "s": ["x", "y"]})
    with pytest.raises(ParameterError, match="key variable"):
        l_diversity(df, ["a", "s"], "s")
    with pytest.raises(ParameterError, match="'c'"):
        l_diversity(df, ["a"], "s", c=0)
    with pytest.raises(DataError, match="'t'"):
        l_diversity(df, ["a"], "t")
