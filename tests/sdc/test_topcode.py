"""Top and bottom coding: exact counts, values and percentile thresholds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.sdc import bottomcode, topcode


@pytest.fixture
def incomes() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "income": [5.0, 12.0, 30.0, 45.0, 80.0, 150.0, 400.0, np.nan, 1000.0, 60.0],
            "id": range(10),
        }
    )


def test_topcode_at_value_counts_and_values(incomes):
    out = topcode(incomes, "income", at=100)
    assert out.params["n_censored"] == 3
    assert out.params["threshold"] == 100.0
    assert out.data["income"].tolist()[:7] == [5.0, 12.0, 30.0, 45.0, 80.0, 100.0, 100.0]
    assert np.isnan(out.data["income"].iloc[7])  # missing stays missing
    assert out.data["income"].iloc[8] == 100.0
    assert out.changes["income"].tolist() == [False] * 5 + [True, True, False, True, False]
    assert out.n_changed_records == 3
    assert not out.changes["id"].any()
    assert out.params["share_censored"] == pytest.approx(3 / 9)


def test_topcode_percentile_threshold_is_type7_quantile(incomes):
    obs = np.array([5.0, 12.0, 30.0, 45.0, 80.0, 150.0, 400.0, 1000.0, 60.0])
    # type-7 quantile by hand: sorted values, position h = (n-1) p
    srt = np.sort(obs)
    h = (obs.size - 1) * 0.75
    by_hand = srt[int(h)] + (h - int(h)) * (srt[int(h) + 1] - srt[int(h)])
    out = topcode(incomes, "income", percentile=75)
    assert out.params["threshold"] == pytest.approx(by_hand)  # = 150
    assert out.params["n_censored"] == 2
    # the derived threshold is confidential: summary does not print it
    assert "threshold" in out.confidential
    assert "150" not in out.summary()


def test_topcode_ce_practice_tops_about_six_percent():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"income": rng.lognormal(11, 0.8, size=5000)})
    out = topcode(df, "income", percentile=94)
    assert out.params["n_censored"] == 300  # 6% of 5000, no ties in continuous data
    assert out.data["income"].max() == pytest.approx(out.params["threshold"])


def test_topcode_mean_replacement_keeps_the_total(incomes):
    out = topcode(incomes, "income", at=100, replacement="mean")
    assert out.data["income"].sum() == pytest.approx(incomes["income"].sum())
    assert out.params["replacement_value"] == pytest.approx((150 + 400 + 1000) / 3)


def test_bottomcode_and_integer_dtype_kept():
    df = pd.DataFrame({"age": np.array([3, 15, 40, 70, 16], dtype=np.int64)})
    out = bottomcode(df, "age", at=16)
    assert out.data["age"].tolist() == [16, 16, 40, 70, 16]
    assert out.data["age"].dtype == np.int64
    assert out.params["n_censored"] == 2
    pct = bottomcode(df, "age", percentile=50)
    assert pct.params["threshold"] == 16.0
    assert pct.params["n_censored"] == 2


def test_topcode_does_not_mutate_input(incomes):
    before = incomes.copy()
    topcode(incomes, "income", at=10)
    pd.testing.assert_frame_equal(incomes, before)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({}, "'at'"),
        ({"at": 1, "percentile": 50}, "'at'"),
        ({"percentile": 100}, "percentile"),
        ({"percentile": 0}, "percentile"),
        ({"at": float("nan")}, "'at'"),
        ({"at": 1, "replacement": "median"}, "replacement"),
    ],
)
def test_topcode_bad_parameters(incomes, kwargs, param):
    with pytest.raises(ParameterError, match=param):
        topcode(incomes, "income", **kwargs)


def test_topcode_text_column_rejected_without_values():
    df = pd.DataFrame({"name": ["secret_a", "secret_b", "secret_c"]})
    with pytest.raises(ParameterError, match="column") as err:
        topcode(df, "name", at=1)
    assert "secret" not in str(err.value)
    with pytest.raises(ParameterError, match="column"):
        topcode(df, "nope", at=1)
