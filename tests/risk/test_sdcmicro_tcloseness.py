"""t_closeness against hand-computed earth mover's distances (Li, Li & Venkatasubramanian
2007's salary example) and the dense formulas on random data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError, ParameterError
from synthguard.risk import t_closeness


def test_li_li_venkatasubramanian_salary_example():
    # Li et al. (2007), section 4: salaries 3k..11k, class {3k, 4k, 5k} -> 0.375,
    # class {6k, 8k, 11k} -> 0.167 under the ordered distance
    salary = [3, 4, 5, 6, 7, 8, 9, 10, 11]
    cls = [1, 1, 1, 2, 3, 2, 3, 3, 2]
    df = pd.DataFrame({"zip": cls, "salary": salary})
    res = t_closeness(df, ["zip"], "salary")
    assert res.ordered
    assert res.emd[0] == pytest.approx(0.375)
    assert res.emd[3] == pytest.approx(1 / 6)
    assert res.t == pytest.approx(0.375)
    # class {7k, 9k, 10k}: cumulative differences 1,2,3,4,2,3,1,1 (/9) -> 17/72
    assert res.emd[4] == pytest.approx(17 / 72)
    assert res.violations(0.2) == 6 and res.violations(0.3) == 3
    assert list(res.to_frame().columns) == ["emd"]


def test_equal_distance_hand_computed():
    df = pd.DataFrame({"k": [1, 1, 2, 2], "disease": ["flu", "flu", "flu", "cold"]})
    res = t_closeness(df, ["k"], "disease")
    assert not res.ordered
    # Q = (cold 1/4, flu 3/4); class 1 P = (0, 1): 1/2 (1/4 + 1/4); class 2 P = (1/2, 1/2)
    np.testing.assert_allclose(res.emd, [0.25, 0.25, 0.25, 0.25])
    ordered = pd.Categorical(
        ["lo", "hi", "mid", "lo"], categories=["lo", "mid", "hi"], ordered=True
    )
    res2 = t_closeness(pd.DataFrame({"k": [1, 1, 2, 2], "s": ordered}), ["k"], "s")
    # Q = (1/2, 1/4, 1/4); class 1 (lo, hi): P = (1/2, 0, 1/2): cum diff 0, -1/4, 0 -> 1/8
    assert res2.ordered and res2.emd[0] == pytest.approx(0.125)
    assert "t-closeness" in res.summary()


def _dense(rows, ordered):
    vals = sorted({r[1] for r in rows if r[1] is not None})
    allv = [r[1] for r in rows if r[1] is not None]
    q = np.array([allv.count(v) for v in vals]) / max(len(allv), 1)
    out = []
    for r in rows:
        cls = [x[1] for x in rows if (r[0] is None or x[0] == r[0]) and x[1] is not None]
        if not cls:
            out.append(np.nan)
            continue
        p = np.array([cls.count(v) for v in vals]) / len(cls)
        if ordered:
            out.append(np.abs(np.cumsum(p - q)).sum() / (len(vals) - 1) if len(vals) > 1 else 0.0)
        else:
            out.append(0.5 * np.abs(p - q).sum())
    return np.array(out)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.sampled_from([1, 2, 3]), st.none()),
            st.one_of(st.integers(0, 7), st.none()),
        ),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),
)
def test_matches_dense_formulas(rows, ordered):
    df = pd.DataFrame(rows, columns=["k", "s"], dtype=object)
    df["s"] = pd.to_numeric(df["s"])
    res = t_closeness(df, ["k"], "s", ordered=ordered)
    np.testing.assert_allclose(res.emd, _dense(rows, ordered), equal_nan=True, atol=1e-12)


def test_errors():
    df = pd.DataFrame({"a": [1, 2], "s": ["x", "y"]})
    with pytest.raises(ParameterError, match="key variable"):
        t_closeness(df, ["a", "s"], "s")
    with pytest.raises(DataError, match="'t'"):
        t_closeness(df, ["a"], "t")
