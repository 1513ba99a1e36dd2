"""ID-like columns: inferred by name and by values, declared, kept out of plans' levels."""

import numpy as np
import pandas as pd
import pytest

from synthguard.data import Schema, id_like_columns, infer_schema
from synthguard.data.schema import identifier_reason
from synthguard.errors import SchemaError


def _frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "ID": np.arange(1_000_001, 1_000_001 + n),            # a serial number
            "PersonID": rng.permutation(n) * 7 + 3,               # distinct, spread: by name
            "household_id": np.repeat(np.arange(n // 4), 4),      # 25% distinct: by name
            "name": [f"person {i}" for i in rng.permutation(n)],  # distinct text
            "row": rng.permutation(n),                            # an integer sequence
            "age": rng.integers(18, 90, size=n),
            "KidsCount": rng.poisson(1.0, size=n),
            "income": rng.lognormal(10, 1, size=n),               # distinct floats
            "region_id": rng.integers(0, 5, size=n),              # a coded category
            "grade": pd.Categorical(rng.choice(list("abc"), size=n)),
            "flag": rng.integers(0, 2, size=n).astype(bool),
        }
    )


def test_id_like_columns_finds_identifiers_and_only_them():
    assert id_like_columns(_frame()) == ["ID", "PersonID", "household_id", "name", "row"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("ID", True), ("id", True), ("PersonID", True), ("person_id", True), ("hhid", True),
     ("Serial No", True), ("record-key", True), ("uuid", True), ("Unnamed: 0", True),
     ("KidsCount", False), ("Kids", False), ("paid", False), ("idle", False), ("valid", False),
     ("Income", False)],
)
def test_names_that_mark_an_identifier(name, expected):
    # values distinct but spread wide and not integers: only the name can flag the column
    s = pd.Series(np.random.default_rng(1).lognormal(5, 2, size=100))
    assert (identifier_reason(name, s) is not None) is expected


def test_value_rules_need_enough_distinct_values():
    # a sequence with gaps is still one; a wide spread of distinct integers is not
    assert identifier_reason("x", pd.Series(np.arange(0, 60, 2))) is not None
    assert identifier_reason("x", pd.Series(np.arange(0, 90, 3))) is None
    # repeats: not nearly all distinct
    assert identifier_reason("x", pd.Series(np.repeat(np.arange(15), 2))) is None
    # too few values to tell
    assert identifier_reason("x", pd.Series(np.arange(10))) is None
    assert identifier_reason("x", pd.Series([f"n{i}" for i in range(10)])) is None
    # an id-like name with few distinct values is a category
    assert identifier_reason("region_id", pd.Series(np.arange(200) % 5)) is None
    assert identifier_reason("ID", pd.Series(np.arange(8))) is None
    # missing values do not hide an identifier
    s = pd.Series(np.r_[np.arange(40.0), [np.nan] * 5])
    assert identifier_reason("x", s) is not None
    # an ordered categorical of many levels is a scale, not an identifier
    o = pd.Series(pd.Categorical(range(30), categories=range(30), ordered=True))
    assert identifier_reason("x", o) is None


def test_reason_names_no_value():
    df = _frame()
    for c in id_like_columns(df):
        reason = identifier_reason(c, df[c])
        assert reason is not None
        assert "1000001" not in reason and "person" not in reason


def test_infer_schema_flags_identifiers_and_overrides_declare():
    df = _frame()
    s = infer_schema(df)
    assert s.identifiers() == ["ID", "PersonID", "household_id", "name", "row"]
    assert s["ID"].kind.value == "count"  # the kind is inferred as usual
    # any override declares the column; "identifier" keeps the inferred kind
    s2 = infer_schema(df, overrides={"ID": "count", "name": {"identifier": False},
                                     "age": "identifier", "row": {"kind": "categorical",
                                                                  "identifier": True}})
    assert s2.identifiers() == ["PersonID", "household_id", "row", "age"]
    assert s2["age"].kind.value == "count"
    assert s2["name"].kind.value == "categorical" and s2["name"].levels is not None
    with pytest.raises(SchemaError, match="'identifier' must be true or false"):
        infer_schema(df, overrides={"ID": {"identifier": "yes"}})


def test_schema_dict_keeps_the_flag_but_not_the_ids():
    df = _frame()
    s = infer_schema(df)
    d = s.to_dict()
    assert d["name"] == {"kind": "categorical", "identifier": True, "has_missing": False}
    assert "identifier" not in d["age"]
    back = Schema.from_dict(d)
    assert back.identifiers() == s.identifiers()
    assert s.to_frame()["identifier"].sum() == 5
