"""k-anonymity: sdcMicro's francdat by hand and the missing-value wildcard against the pairwise
rule of sdcMicro's classic frequency count (a pair agrees when every key is equal or missing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError, ParameterError
from synthguard.risk import k_anonymity

KEYS = ["Key1", "Key2", "Key3", "Key4"]


def test_francdat(shared_data):
    df = pd.read_csv(shared_data / "sdcmicro" / "francdat.csv")
    res = k_anonymity(df, KEYS, k=2)
    # keys: (1,2,5,1) x2, (1,2,1,1) x2, and four unique combinations
    np.testing.assert_array_equal(res.fk, [2, 2, 2, 1, 1, 1, 1, 2])
    assert res.n_sample_uniques == 4 and res.n_below_k == 4
    assert res.violations(3) == 8 and res.n_classes == 6 and res.min_class_size == 1
    assert not res.is_k_anonymous


def test_francdat_with_missing_values_as_wildcards(shared_data):
    df = pd.read_csv(shared_data / "sdcmicro" / "francdat.csv")
    df.loc[5, "Key4"] = np.nan  # (4, 3, 1, NA) now agrees with row 4's (4, 3, 1, 4)
    df.loc[3, "Key1"] = np.nan  # (NA, 3, 1, 5) agrees with row 5 only (both wildcards)
    res = k_anonymity(df, KEYS, k=2)
    # agreement is not transitive: row 5 agrees with rows 3 and 4, which disagree
    np.testing.assert_array_equal(res.fk, [2, 2, 2, 2, 2, 3, 1, 2])


def _brute(rows):
    def agree(a, b):
        return all(x is None or y is None or x == y for x, y in zip(a, b))

    return np.array([sum(agree(a, b) for b in rows) for a in rows])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(*[st.one_of(st.sampled_from([1, 2, 3]), st.none()) for _ in range(3)]),
        min_size=1,
        max_size=30,
    )
)
def test_wildcard_counts_match_brute_force(rows):
    df = pd.DataFrame(rows, columns=["a", "b", "c"], dtype=object)
    res = k_anonymity(df, ["a", "b", "c"], k=2)
    np.testing.assert_array_equal(res.fk, _brute(rows))


def test_free1_sample_uniques_against_groupby(shared_data):
    df = pd.read_csv(shared_data / "sdcmicro" / "free1.csv")
    keys = ["REGION", "SEX", "AGE", "MARSTAT"]
    res = k_anonymity(df, keys, k=3)
    size = df.groupby(keys)["REGION"].transform("size").to_numpy()
    assert df[keys].notna().all().all()
    np.testing.assert_array_equal(res.fk, size)
    assert res.n_below_k == int((size < 3).sum())
    frame = res.to_frame()
    assert frame["sample_unique"].sum() == res.n_sample_uniques
    assert "violating 3-anonymity" in res.summary()


def test_errors():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(ParameterError, match="'k'"):
        k_anonymity(df, ["a"], k=0)
    with pytest.raises(DataError, match="'b'"):
        k_anonymity(df, ["b"])
    with pytest.raises(ParameterError, match="keys"):
        k_anonymity(df, [])
