"""Encoding predictors and targets, checked against pandas' own dummies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.data import infer_schema
from synthguard.synthesis.encoding import (
    codes_from_target,
    design_kinds,
    design_matrix,
    design_width,
    from_working,
    postprocess_numeric,
    target_codes,
    to_working,
)


def _reference_design(df: pd.DataFrame, schema) -> np.ndarray:
    """Brute force: pandas get_dummies with the schema's levels, first level dropped, a missing
    dummy for categorical columns with missing values; numeric NaN -> 0 plus an indicator."""
    blocks = []
    for c in df.columns:
        col = schema[c]
        s = df[c]
        if col.is_categorical:
            cat = pd.Categorical(s, categories=list(col.levels))
            d = pd.get_dummies(cat).to_numpy(dtype=float)[:, 1:]
            blocks.append(d)
            if col.has_missing:
                blocks.append(s.isna().to_numpy(dtype=float)[:, None])
        else:
            v = s.to_numpy(dtype=float, na_value=np.nan)
            blocks.append(np.nan_to_num(v, nan=0.0)[:, None])
            if col.has_missing:
                blocks.append(np.isnan(v).astype(float)[:, None])
    return np.hstack(blocks)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", None]), min_size=5, max_size=30),
    st.lists(st.one_of(st.floats(-1e6, 1e6), st.none()), min_size=5, max_size=30),
)
def test_design_matrix_matches_get_dummies(cats, nums):
    n = min(len(cats), len(nums))
    cats, nums = cats[:n], nums[:n]
    if all(c is None for c in cats) or all(v is None for v in nums):
        return
    df = pd.DataFrame({"c": pd.Series(cats, dtype="str"),
                       "x": pd.Series(nums, dtype="float64"),
                       "b": [i % 2 for i in range(n)]})
    schema = infer_schema(df)
    arrays = {c: to_working(df[c], schema[c]) for c in df.columns}
    X = design_matrix(arrays, list(df.columns), schema.columns)
    assert X.shape == (n, design_width(list(df.columns), schema.columns))
    np.testing.assert_array_equal(X, _reference_design(df, schema))


def test_layout_depends_on_schema_not_rows(mixed):
    schema = infer_schema(mixed)
    cols = ["region", "edu", "income"]
    arrays = {c: to_working(mixed[c], schema[c]) for c in cols}
    rows = np.flatnonzero(mixed["region"].eq("north").fillna(False).to_numpy())
    X = design_matrix(arrays, cols, schema.columns, rows)
    # region: 2 level dummies + missing, edu: 2, income: value + indicator
    assert X.shape == (len(rows), 3 + 2 + 2)
    np.testing.assert_array_equal(X[:, :3].sum(axis=1), 1.0)  # 'north' is not the first level


def test_codes_layout_gives_one_column_of_codes_per_categorical(mixed):
    schema = infer_schema(mixed)
    cols = ["region", "edu", "income"]
    arrays = {c: to_working(mixed[c], schema[c]) for c in cols}
    X = design_matrix(arrays, cols, schema.columns, layout="codes")
    levels = list(schema["region"].levels)
    expected = [levels.index(v) if isinstance(v, str) else len(levels) for v in mixed["region"]]
    np.testing.assert_array_equal(X[:, 0], expected)  # missing: a level after the last
    assert X.shape[1] == design_width(cols, schema.columns, "codes") == 1 + 1 + 2
    kinds = design_kinds(cols, schema.columns)
    assert kinds == ["nominal", "ordinal", "numeric", "numeric"]  # edu: ordered Categorical


def test_round_trip_every_kind(mixed):
    schema = infer_schema(mixed)
    for c in mixed.columns:
        w = to_working(mixed[c], schema[c])
        back = from_working(w, schema[c], mixed[c].dtype, mixed.index)
        pdt.assert_series_equal(back, mixed[c], check_names=True)


def test_round_trip_bool_and_categorical_with_override():
    df = pd.DataFrame({"flag": [True, False, True],
                       "race": pd.Categorical([1, 2, 6], categories=[1, 2, 3, 4, 5, 6])})
    schema = infer_schema(df)
    for c in df.columns:
        w = to_working(df[c], schema[c])
        pdt.assert_series_equal(from_working(w, schema[c], df[c].dtype, df.index), df[c])


def test_target_codes_put_missing_last():
    df = pd.DataFrame({"c": pd.Series(["b", None, "a", "b"], dtype="str")})
    col = infer_schema(df)["c"]
    w = to_working(df["c"], col)
    y = target_codes(w, col)
    np.testing.assert_array_equal(y, [1, 2, 0, 1])
    np.testing.assert_array_equal(codes_from_target(y, col), [1, -1, 0, 1])


def test_postprocess_rounds_counts_and_clips():
    df = pd.DataFrame({"k": np.array([0, 2, 5], dtype=np.int64)})
    col = infer_schema(df, {"k": {"kind": "count", "upper": 4.5}})["k"]
    out = postprocess_numeric(np.array([-1.2, 2.6, 9.0, 4.4]), col)
    np.testing.assert_array_equal(out, [0.0, 3.0, 4.0, 4.0])


def test_to_working_codes_match_a_per_record_lookup():
    """Codes come from one lookup per distinct value: the same as finding every record's
    value among the levels (-1 for a value not among them and for a missing value), for
    text (pandas' string dtype and object), integer and float columns."""
    from synthguard.data.schema import ColumnSchema, Kind

    rng = np.random.default_rng(3)
    pool = np.array(["b", "a", "c", "zz", None], dtype=object)
    text = pool[rng.integers(0, len(pool), 500)]
    col = ColumnSchema(name="t", kind=Kind.CATEGORICAL, levels=("a", "b", "c"), has_missing=True)
    want = np.array([{"a": 0, "b": 1, "c": 2}.get(v, -1) for v in text])
    for s in (pd.Series(text, dtype=object), pd.Series(text, dtype="str")):
        got = to_working(s, col)
        assert got.dtype == np.int8
        np.testing.assert_array_equal(got, want)
    ints = rng.integers(0, 6, 300)
    icol = ColumnSchema(name="k", kind=Kind.CATEGORICAL, levels=(1, 2, 4), has_missing=False)
    want = np.array([{1: 0, 2: 1, 4: 2}.get(int(v), -1) for v in ints])
    np.testing.assert_array_equal(to_working(pd.Series(ints), icol), want)
    floats = pd.Series(np.where(ints == 0, np.nan, ints.astype(float)))
    np.testing.assert_array_equal(to_working(floats, icol), want)
