"""The NIST challenge's regression and classification scores (course §8.5.4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.utility import gini_index, nist_classification_score, nist_regression_score


def _people(seed=0, n=2000):
    rng = np.random.default_rng(seed)
    city = rng.choice(["A", "B", "C", "D", "E"], n)
    sex = rng.choice(["F", "M"], n)
    base = pd.Series(city).map({"A": 30, "B": 40, "C": 50, "D": 60, "E": 70}).to_numpy()
    gap = pd.Series(city).map({"A": .05, "B": .1, "C": .2, "D": .3, "E": .4}).to_numpy()
    income = rng.gamma(2.0, base * 500) * np.where(sex == "F", 1 - gap, 1.0)
    return pd.DataFrame({"city": city, "sex": sex, "income": income,
                         "age": rng.integers(18, 80, n), "edu": rng.choice(list("abcd"), n)})


@pytest.mark.parametrize("seed", [1, 2])
def test_gini_equals_the_mean_absolute_difference_definition(seed):
    x = np.random.default_rng(seed).gamma(2.0, 1.0, 60)
    brute = np.abs(x[:, None] - x[None, :]).sum() / (2 * len(x) ** 2 * x.mean())
    assert gini_index(x) == pytest.approx(brute)
    # integer weights are repetitions
    w = np.random.default_rng(seed).integers(1, 4, 60)
    assert gini_index(x, w) == pytest.approx(gini_index(np.repeat(x, w)))


def test_regression_score_is_one_on_the_data_and_drops_when_the_gap_is_lost():
    df = _people()
    same = nist_regression_score(df, df, city="city", income="income", sex="sex", female="F")
    assert same.score == 1.0 and same.gini_msd == 0 and same.rank_msd == 0
    lost = df.copy()
    lost["sex"] = np.random.default_rng(9).permutation(lost["sex"].to_numpy())
    got = nist_regression_score(df, lost, city="city", income="income", sex="sex",
                                female="F")
    assert got.rank_msd > 0 and got.score < 1.0
    # brute force of the rank part from the per-city table
    t = got.cities
    want = np.mean(((t["gap_rank_conf"] - t["gap_rank_release"]) / len(t)) ** 2)
    assert got.rank_msd == pytest.approx(want)


def test_a_missing_city_is_the_largest_deviation():
    df = _people()
    rel = df[df["city"] != "E"]
    got = nist_regression_score(df, rel, city="city", income="income", sex="sex", female="F")
    row = got.cities.set_index("city").loc["E"]
    assert row["gini_release"] == 0.0 and row["gap_rank_release"] == 5


def test_classification_score_brute_force_and_identity():
    df = _people(n=500)
    assert nist_classification_score(df, df, n_queries=20, random_state=1).score == 1.0
    rel = _people(seed=5, n=500)
    got = nist_classification_score(df, rel, n_queries=25, k=2, random_state=1)
    assert got.score == pytest.approx(
        1 - np.abs(got.queries["share_conf"] - got.queries["share_release"]).mean())
    assert 0 <= got.score <= 1 and len(got.queries) == 25
    # same seed, same queries
    again = nist_classification_score(df, rel, n_queries=25, k=2, random_state=1)
    pd.testing.assert_frame_equal(got.queries, again.queries)


def test_classification_score_is_lower_for_a_worse_release():
    df = _people(n=1500)
    good = _people(seed=7, n=1500)
    bad = good.copy()
    for c in bad.columns:
        bad[c] = np.random.default_rng(3).permutation(bad[c].to_numpy())
    bad["income"] = bad["income"] * 3
    s_good = nist_classification_score(df, good, n_queries=200, k=3, random_state=2).score
    s_bad = nist_classification_score(df, bad, n_queries=200, k=3, random_state=2).score
    assert s_bad < s_good


def test_bad_input_is_named():
    df = _people(n=200)
    with pytest.raises(DataError, match="'wage'"):
        nist_regression_score(df, df, city="city", income="wage", sex="sex", female="F")
    with pytest.raises(ParameterError, match="'k'"):
        nist_classification_score(df, df, k=9)
    with pytest.raises(DataError, match="non-negative"):
        gini_index([-1.0, 2.0])


def test_row_order_does_not_matter():
    df = _people(n=600)
    shuffled = df.sample(frac=1.0, random_state=4)
    a = nist_regression_score(df, shuffled, city="city", income="income", sex="sex",
                              female="F")
    assert a.score == 1.0
