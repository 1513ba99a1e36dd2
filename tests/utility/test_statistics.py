"""compare_statistics: CE mean (lecture 002), bootstrap quantiles, user functions."""

import numpy as np
import pandas as pd
import pytest

from synthguard.data import load_dataset
from synthguard.errors import ParameterError
from synthguard.utility import compare_statistics


@pytest.fixture(scope="module")
def ce():
    return load_dataset("ce")


def test_ce_mean_t_interval(ce):
    r = compare_statistics(ce, [ce, ce], ["mean"], columns=["Expenditure"], random_state=0)
    row = r.table.iloc[0]
    assert row["conf_estimate"] == pytest.approx(10197.38, abs=0.005)
    assert row["conf_lower"] == pytest.approx(9870.152, abs=1e-3)
    assert row["conf_upper"] == pytest.approx(10524.612, abs=1e-3)
    assert row["interval"] == "t"
    assert row["overlap_snoke"] == pytest.approx(1.0, abs=1e-3)


def test_quantile_bootstrap_reproducible_and_sensible(ce):
    kw = {"columns": ["Expenditure"], "n_boot": 200}
    a = compare_statistics(ce, ce, ["median", "q90"], random_state=5, **kw)
    b = compare_statistics(ce, ce, ["median", "q90"], random_state=5, **kw)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    t = a.table.set_index("statistic")
    x = ce["Expenditure"].to_numpy()
    assert t.loc["median", "conf_estimate"] == pytest.approx(np.median(x))
    assert t.loc["q90", "conf_estimate"] == pytest.approx(np.quantile(x, 0.9))
    for s in ("median", "q90"):
        assert t.loc[s, "conf_lower"] < t.loc[s, "conf_estimate"] < t.loc[s, "conf_upper"]
    # bootstrap se of the median vs asymptotic sqrt(p(1-p)/n)/f(median) order of magnitude
    assert 0.2 < t.loc["median", "conf_se"] / (np.std(x) / np.sqrt(len(x))) < 5


def test_user_function_hook_and_pairs(ce):
    def tax(df):
        return pd.Series({"revenue": 0.1 * df["Income"].sum() / 1e6,
                          "payers": float((df["Income"] > 50000).mean())})

    shifted = ce.assign(Income=ce["Income"] * 1.5)
    r = compare_statistics(
        ce, [shifted, shifted], {"tax": tax, "mean_income": ("mean", "Income")},
        n_boot=50, random_state=1,
    )
    t = r.table.set_index(["statistic", "variable"])
    assert t.loc[("tax", "revenue"), "conf_estimate"] == pytest.approx(
        0.1 * ce["Income"].sum() / 1e6
    )
    assert t.loc[("tax", "revenue"), "syn_estimate"] == pytest.approx(
        0.15 * ce["Income"].sum() / 1e6
    )
    assert t.loc[("mean_income", "Income"), "overlap_dr"] == 0.0
    assert t.loc[("mean_income", "Income"), "overlap_snoke"] < 0


def test_errors(ce):
    with pytest.raises(ParameterError, match="statistic"):
        compare_statistics(ce, ce, ["mode"], columns=["Income"])
    with pytest.raises(ParameterError, match="n_boot"):
        compare_statistics(ce, ce, ["median"], n_boot=1)
