"""Noise infusion (means and variances), subsampling (fractions per stratum), PRAM (unbiased)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.sdc import add_noise, pram, pram_frequencies, subsample


@pytest.fixture
def incomes() -> pd.DataFrame:
    rng = np.random.default_rng(8)
    n = 20000
    return pd.DataFrame(
        {
            "income": rng.lognormal(10, 0.7, size=n),
            "age": rng.integers(18, 90, size=n),
            "region": rng.choice(["a", "b", "c"], size=n, p=[0.6, 0.3, 0.1]),
        }
    )


# ----------------------------------------------------------------------------- noise
@pytest.mark.parametrize("kind", ["additive", "multiplicative"])
def test_noise_keeps_means_and_inflates_variance_as_stated(incomes, kind):
    s = 0.3
    x = incomes["income"].to_numpy()
    out = add_noise(incomes, "income", kind=kind, scale=s, random_state=1)
    y = out.data["income"].to_numpy()
    n = x.size
    # mean kept within 4 standard errors of the added noise
    noise_sd = s * x.std(ddof=1) if kind == "additive" else s * np.sqrt(np.mean(x**2))
    assert abs(y.mean() - x.mean()) < 4 * noise_sd / np.sqrt(n)
    # variance grows by the stated amount (relative error of a variance estimate ~ 2-3%)
    expected = x.var(ddof=1) * (1 + s**2) if kind == "additive" else x.var(ddof=1) + s**2 * np.mean(x**2)
    assert y.var(ddof=1) == pytest.approx(expected, rel=0.06)
    assert out.n_changed_cells == n
    pd.testing.assert_series_equal(out.data["age"], incomes["age"])


@pytest.mark.parametrize("kind", ["additive", "multiplicative"])
def test_noise_keep_variance(incomes, kind):
    x = incomes["income"].to_numpy()
    out = add_noise(incomes, ["income", "age"], kind=kind, scale=0.5, keep_variance=True,
                    random_state=2)
    for c in ("income", "age"):
        x = incomes[c].to_numpy(dtype=float)
        y = out.data[c].to_numpy()
        assert y.var(ddof=1) == pytest.approx(x.var(ddof=1), rel=0.06)
        assert abs(y.mean() - x.mean()) < 4 * x.std() / np.sqrt(x.size)
    assert out.params["factor"]["income"] < 1


def test_noise_keeps_missing_and_seed(incomes):
    df = incomes.copy()
    df.loc[:9, "income"] = np.nan
    before = df.copy()
    a = add_noise(df, "income", scale=0.1, random_state=5)
    b = add_noise(df, "income", scale=0.1, random_state=5)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.data["income"].iloc[:10].isna().all()
    assert not a.changes["income"].iloc[:10].any()
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize(
    ("kwargs", "err", "param"),
    [
        ({"columns": "income", "scale": 0}, ParameterError, "scale"),
        ({"columns": "income", "kind": "laplace"}, ParameterError, "kind"),
        ({"columns": "region"}, ParameterError, "columns"),
    ],
)
def test_noise_bad_parameters(incomes, kwargs, err, param):
    with pytest.raises(err, match=param):
        add_noise(incomes, **kwargs)


def test_noise_needs_two_values():
    with pytest.raises(DataError, match="income"):
        add_noise(pd.DataFrame({"income": [1.0, np.nan]}), "income")


# ----------------------------------------------------------------------------- subsample
def test_subsample_fraction_per_stratum(incomes):
    out = subsample(incomes, 0.1, strata="region", weight_column="w", random_state=3)
    sizes = incomes["region"].value_counts().sort_index()
    got = out.data["region"].value_counts().sort_index()
    expected = np.floor(0.1 * sizes + 0.5).astype(int)
    pd.testing.assert_series_equal(got, expected, check_names=False)
    # design weights reproduce the population stratum sizes
    np.testing.assert_allclose(out.data.groupby("region")["w"].sum().sort_index(), sizes)
    assert len(out.removed) == len(incomes) - len(out.data)
    assert set(out.removed).isdisjoint(out.data.index)
    # released records are untouched copies of input records
    pd.testing.assert_frame_equal(out.data.drop(columns="w"), incomes.loc[out.data.index])


def test_subsample_min_per_stratum_and_seed():
    df = pd.DataFrame({"g": ["a"] * 100 + ["b"] * 3, "x": range(103)})
    out = subsample(df, 0.05, strata="g", min_per_stratum=2, random_state=1)
    assert out.data["g"].value_counts().to_dict() == {"a": 5, "b": 2}
    again = subsample(df, 0.05, strata="g", min_per_stratum=2, random_state=1)
    pd.testing.assert_frame_equal(out.data, again.data)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"fraction": 0}, "fraction"),
        ({"fraction": 1.2}, "fraction"),
        ({"fraction": 0.5, "min_per_stratum": -1}, "min_per_stratum"),
        ({"fraction": 0.5, "weight_column": "age"}, "weight_column"),
        ({"fraction": 0.5, "strata": "nope"}, "strata"),
    ],
)
def test_subsample_bad_parameters(incomes, kwargs, param):
    with pytest.raises(ParameterError, match=param):
        subsample(incomes, **kwargs)


# ----------------------------------------------------------------------------- PRAM
LEVELS = ["a", "b", "c"]
P = np.array([[0.8, 0.1, 0.1], [0.05, 0.9, 0.05], [0.2, 0.2, 0.6]])


def test_pram_transition_frequencies_match_the_matrix(incomes):
    out = pram(incomes, "region", P, levels=LEVELS, random_state=4)
    tab = pd.crosstab(incomes["region"], out.data["region"], normalize="index")
    # each row of the empirical transition table within 4 binomial SEs of P
    n_by = incomes["region"].value_counts()
    for i, a in enumerate(LEVELS):
        se = np.sqrt(P[i] * (1 - P[i]) / n_by[a])
        assert np.all(np.abs(tab.loc[a, LEVELS].to_numpy() - P[i]) < 4 * se)
    assert out.params["n_changed"] == int((out.data["region"] != incomes["region"]).sum())


def test_pram_estimator_unbiased_in_simulation(incomes):
    """Mean of (P')^-1 f~ over replications is within sampling error of the true counts."""
    df = incomes.iloc[:2000]
    truth = df["region"].value_counts().reindex(LEVELS).to_numpy(dtype=float)
    rng = np.random.default_rng(10)
    reps = np.array([
        pram_frequencies(pram(df, "region", P, levels=LEVELS, random_state=rng)).to_numpy()
        for _ in range(200)
    ])
    mean = reps.mean(axis=0)
    se = reps.std(axis=0, ddof=1) / np.sqrt(reps.shape[0])
    assert np.all(np.abs(mean - truth) < 4 * se)
    # while the naive released counts are biased (rare level c gains from a and b)
    naive = P.T @ truth
    assert naive[2] > truth[2] + 50


def test_pram_with_labelled_matrix_and_missing():
    df = pd.DataFrame({"g": ["a", "b", None, "a"] * 50})
    pm = pd.DataFrame(P, index=LEVELS, columns=LEVELS)
    out = pram(df, "g", pm, random_state=1)
    assert out.data["g"].isna().sum() == 50
    est = pram_frequencies(out.data, pm, column="g")
    assert est.sum() == pytest.approx(150)  # P rows sum to one: totals are kept exactly
    same = pram(df, "g", pm, random_state=1)
    pd.testing.assert_frame_equal(out.data, same.data)


@pytest.mark.parametrize(
    ("matrix", "levels", "param"),
    [
        (np.array([[0.5, 0.6], [0.5, 0.5]]), ["a", "b"], "transition_matrix"),
        (P, None, "levels"),
        (P, ["a", "b"], "transition_matrix"),
        (np.array([[0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), ["a", "b", "zz"],
         "transition_matrix"),
    ],
)
def test_pram_bad_parameters(incomes, matrix, levels, param):
    with pytest.raises(ParameterError, match=param):
        pram(incomes, "region", matrix, levels=levels)


def test_pram_singular_matrix_estimator_raises():
    singular = np.array([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ParameterError, match="singular"):
        pram_frequencies(pd.Series(["a", "b"]), singular, levels=["a", "b"])


def test_invariant_pram_keeps_frequencies_in_expectation(incomes):
    from synthguard.sdc import invariant_transition_matrix

    df = incomes.iloc[:3000]
    r = invariant_transition_matrix(df, "region", retain=0.7)
    pi = df["region"].value_counts(normalize=True).reindex(r.index).to_numpy()
    np.testing.assert_allclose(r.to_numpy().sum(axis=1), 1.0)
    np.testing.assert_allclose(pi @ r.to_numpy(), pi, atol=1e-12)  # Gouweleeuw et al. (1998)
    assert (r.to_numpy() >= 0).all()
    truth = df["region"].value_counts().reindex(r.index).to_numpy(dtype=float)
    rng = np.random.default_rng(3)
    reps = np.array([
        pram(df, "region", r, random_state=rng).data["region"].value_counts()
        .reindex(r.index).to_numpy(dtype=float)
        for _ in range(100)
    ])
    se = reps.std(axis=0, ddof=1) / np.sqrt(len(reps))
    assert np.all(np.abs(reps.mean(axis=0) - truth) < 4 * se + 1e-9)
    with pytest.raises(ParameterError, match="retain"):
        invariant_transition_matrix(df, "region", retain=0.2)
