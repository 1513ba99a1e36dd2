"""Bad input raises a synthguard error naming the column or parameter, never a data value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, MethodError, ParameterError, SchemaError
from synthguard.synthesis import Synthesizer

SECRET = "SECRET-7731"  # a distinctive value planted in the data; it must never be echoed
SECRET_NUM = 987654.321


def _frame(n: int = 50) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "name": pd.Series([SECRET] + ["x", "y"] * ((n - 1) // 2) + ["x"] * ((n - 1) % 2),
                              dtype="str"),
            "age": np.r_[SECRET_NUM, rng.normal(40, 10, n - 1)],
            "kids": rng.integers(0, 3, n),
        }
    )


def _raises(exc, data, match, **kw):
    with pytest.raises(exc, match=match) as info:
        Synthesizer(**kw).fit(data)
    msg = str(info.value)
    assert SECRET not in msg and "987654" not in msg
    return msg


def test_empty_frame():
    _raises(DataError, pd.DataFrame({"a": []}), "no rows")


def test_all_missing_column():
    df = _frame().assign(blank=np.nan)
    _raises(DataError, df, "column 'blank'.*missing")


def test_single_level_categorical_suggests_keep():
    df = _frame().assign(country=SECRET)
    msg = _raises(DataError, df, "column 'country'.*single level")
    assert "keep" in msg
    Synthesizer(keep=["country"], default_method="test_marginal").fit(df)  # kept: fine


def test_numbers_as_text_with_stray_strings():
    vals = [str(v) for v in range(40)] + [SECRET] * 2
    df = pd.DataFrame({"income": pd.Series(vals, dtype="str"), "k": range(42)})
    _raises(DataError, df, "column 'income'.*text")


def test_infinite_values():
    df = _frame()
    df.loc[3, "age"] = np.inf
    _raises(DataError, df, "column 'age'.*infinite")


def test_duplicate_column_names():
    df = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    _raises(DataError, df, "duplicate column names: a")


def test_unknown_method_names_column_and_choices():
    msg = _raises(MethodError, _frame(), "column 'age'.*unknown synthesis method 'nosuch'",
                  methods={"age": "nosuch"})
    assert "test_marginal" in msg


def test_method_of_wrong_kind():
    _raises(MethodError, _frame(), "column 'name' is categorical.*test_copy_x",
            methods={"name": "test_copy_x"})


def test_visit_sequence_naming_a_missing_column():
    _raises(ParameterError, _frame(), "'visit_sequence'.*income", visit_sequence=["age", "income"])


def test_column_both_kept_and_synthesized():
    _raises(ParameterError, _frame(), "both kept and synthesized: age",
            keep=["age"], visit_sequence=["age", "kids"])


def test_n_with_partial_synthesis():
    _raises(ParameterError, _frame(), "'n'.*full synthesis", keep=["name"], n=10)


def test_bad_m_and_n():
    _raises(ParameterError, _frame(), "'m'", m=0)
    _raises(ParameterError, _frame(), "'n'", n=-3)


def test_unknown_keep_strata_and_method_columns():
    _raises(ParameterError, _frame(), "'keep'.*nope", keep=["nope"])
    _raises(ParameterError, _frame(), "'strata'.*nope", strata="nope")
    _raises(ParameterError, _frame(), "'methods'.*name", keep=["name"], methods={"name": "sample"})


def test_predictor_visited_later():
    _raises(ParameterError, _frame(), "predictors of 'age'.*kids",
            visit_sequence=["age", "kids"], predictor_matrix={"age": ["kids"]})


def test_schema_override_contradicted_by_data():
    _raises(SchemaError, _frame(), "column 'name'", schema={"name": "numeric"})


def test_weights_wrong_shape_or_negative():
    kw = {"default_method": "test_marginal"}
    _raises(ParameterError, _frame(), "'weights'.*one weight per record", weights=np.ones(3), **kw)
    w = np.ones(50)
    w[0] = -1
    _raises(ParameterError, _frame(), "'weights'.*non-negative", weights=w, **kw)
    _raises(ParameterError, _frame(), "'weights'.*column 'wt'", weights="wt", **kw)


def test_not_fitted():
    from synthguard.errors import NotFittedError

    with pytest.raises(NotFittedError, match="fit"):
        Synthesizer().sample()
