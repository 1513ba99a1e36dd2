import numpy as np
import pandas as pd
import pytest

from synthguard.data import Kind, Schema, infer_schema, validate_frame
from synthguard.errors import DataError, SchemaError


def _frame():
    return pd.DataFrame(
        {
            "region": ["a", "b", "c", "a"],
            "sex": ["f", "m", "m", None],
            "flag": [0, 1, 1, 0],
            "kids": np.array([0, 2, 1, 3], dtype=np.int64),
            "income": [1.5, 2.0, np.nan, 4.0],
            "edu": pd.Categorical(["lo", "hi", "mid", "lo"], categories=["lo", "mid", "hi"], ordered=True),
        }
    )


def test_inference_kinds():
    s = infer_schema(_frame())
    assert [s.kind(c) for c in s] == [
        Kind.CATEGORICAL, Kind.BINARY, Kind.BINARY, Kind.COUNT, Kind.NUMERIC, Kind.ORDINAL,
    ]
    assert s["region"].levels == ("a", "b", "c")
    assert s["edu"].levels == ("lo", "mid", "hi")
    assert s["sex"].has_missing and s["income"].has_missing and not s["kids"].has_missing
    assert s["kids"].lower == 0.0
    assert s.categorical() == ["region", "sex", "flag", "edu"]
    assert s.numeric() == ["kids", "income"]


def test_overrides_and_roundtrip():
    s = infer_schema(_frame(), overrides={"kids": "categorical", "income": {"kind": "numeric", "lower": 0, "upper": 10}})
    assert s.kind("kids") is Kind.CATEGORICAL and s["kids"].levels == (0, 1, 2, 3)
    assert (s["income"].lower, s["income"].upper) == (0, 10)
    assert Schema.from_dict(s.to_dict()) == s


def test_override_errors_collected():
    with pytest.raises(SchemaError) as e:
        infer_schema(_frame(), overrides={"region": "numeric", "nope": "numeric"})
    assert "nope" in str(e.value)
    with pytest.raises(SchemaError) as e:
        infer_schema(_frame(), overrides={"region": "numeric", "kids": "weird"})
    assert len(e.value.problems) == 2
    assert "region" in str(e.value) and "weird" in str(e.value)


def test_validate_against_schema_counts_not_values():
    s = infer_schema(_frame(), overrides={"income": {"kind": "numeric", "upper": 3}})
    other = _frame()
    other.loc[0, "region"] = "zzz_secret"
    with pytest.raises(SchemaError) as e:
        s.validate(other)
    msg = str(e.value)
    assert "zzz_secret" not in msg and "region" in msg and "income" in msg
    assert len(e.value.problems) == 2


@pytest.mark.parametrize(
    "frame, fragment",
    [
        (pd.DataFrame(), "no columns"),
        (pd.DataFrame({"a": []}), "no rows"),
        (pd.DataFrame({"a": [np.nan, np.nan]}), "every value is missing"),
        (pd.DataFrame({"a": [1.0, np.inf, 2.0]}), "infinite"),
        (pd.DataFrame({"a": ["1", "2", "3", "4", "5", "6", "n/a?"]}), "looks numeric"),
    ],
)
def test_validate_frame_rejects(frame, fragment):
    with pytest.raises(DataError, match=fragment):
        validate_frame(frame)


def test_validate_frame_duplicates_and_message_has_no_values():
    df = pd.DataFrame([[1, 2, "x"]], columns=["a", "a", "b"])
    with pytest.raises(DataError, match="duplicate column names: a"):
        validate_frame(df)
    secret = pd.DataFrame({"v": ["10", "20", "30", "40", "50", "SECRET-77"]})
    with pytest.raises(DataError) as e:
        validate_frame(secret)
    assert "SECRET-77" not in str(e.value)
    # declared categorical: exempt
    assert validate_frame(secret, text_overrides=["v"]) is secret


def test_validate_frame_does_not_mutate():
    df = _frame()
    before = df.copy()
    validate_frame(df)
    pd.testing.assert_frame_equal(df, before)
