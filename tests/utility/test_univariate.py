"""Univariate comparison table."""

import numpy as np
import pandas as pd
import pytest

from synthguard.utility import univariate


def test_numeric_and_categorical_figures():
    conf = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, np.nan], "g": ["a", "a", "b", None, "b"]})
    s1 = pd.DataFrame({"x": [0.0, 0.0, 5.0, 5.0, 5.0], "g": ["a", "b", "b", "b", "b"]})
    s2 = pd.DataFrame({"x": [1.0, 1.0, 1.0, 1.0, 1.0], "g": ["a", "a", "a", "a", "b"]})
    r = univariate(conf, [s1, s2])
    num = r.numeric
    assert num.loc[("x", "mean"), "confidential"] == pytest.approx(1.5)
    assert num.loc[("x", "sd"), "confidential"] == pytest.approx(np.std([0, 1, 2, 3], ddof=1))
    assert num.loc[("x", "share_missing"), "confidential"] == pytest.approx(0.2)
    assert num.loc[("x", "share_zero"), "confidential"] == pytest.approx(0.25)
    assert num.loc[("x", "p50"), "confidential"] == pytest.approx(1.5)
    assert num.loc[("x", "mean"), "synthetic"] == pytest.approx((3.0 + 1.0) / 2)
    assert num.loc[("x", "skewness"), "confidential"] == pytest.approx(
        pd.Series([0.0, 1, 2, 3]).skew()
    )
    cat = r.categorical
    assert cat.loc[("g", "a"), "share_conf"] == pytest.approx(0.4)
    assert cat.loc[("g", "<missing>"), "share_conf"] == pytest.approx(0.2)
    assert cat.loc[("g", "a"), "share_syn"] == pytest.approx((0.2 + 0.8) / 2)
    assert cat.loc[("g", "b"), "count_syn"] == pytest.approx((4 + 1) / 2)
    assert r.max_share_difference == pytest.approx(0.2)
    long = r.to_frame()
    assert {"variable", "kind", "statistic", "confidential", "synthetic", "difference"} <= set(
        long.columns
    )


def test_identical_data_zero_differences():
    df = pd.DataFrame({"x": np.arange(10.0), "g": list("ab" * 5)})
    r = univariate(df, df)
    assert np.allclose(r.numeric["difference"].fillna(0), 0)
    assert r.max_share_difference == 0.0
