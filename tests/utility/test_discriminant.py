"""pMSE, its nulls, SPECKS, AUC and importance (Snoke et al. 2018)."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score

from synthguard.errors import ParameterError
from synthguard.utility import pmse


def make(n, rng, shift=0.0):
    return pd.DataFrame({
        "x": rng.normal(shift, 1.0, n),
        "w": rng.exponential(1.0, n),
        "g": rng.choice(list("abcdefghij"), n),
        "h": rng.choice(["u", "v", "z"], n),
    })


def test_logistic_pmse_matches_glm_reference():
    rng = np.random.default_rng(0)
    conf = make(600, rng)
    syn = make(400, rng, shift=0.3)
    r = pmse(conf, syn, random_state=0)
    both = pd.concat([conf, syn], ignore_index=True)
    X = pd.get_dummies(both, columns=["g", "h"], drop_first=True, dtype=float)
    X = sm.add_constant(X)
    y = np.r_[np.zeros(600), np.ones(400)]
    p = sm.GLM(y, X, family=sm.families.Binomial()).fit().fittedvalues.to_numpy()
    c = 0.4
    assert r.c == pytest.approx(c)
    assert r.pmse == pytest.approx(np.mean((p - c) ** 2), rel=1e-6)
    k = X.shape[1]
    assert r.k == k
    assert r.expected_null == pytest.approx((k - 1) * (1 - c) ** 2 * c / 1000)
    sd = np.sqrt(2 * (k - 1)) * (1 - c) ** 2 * c / 1000
    assert r.standardized == pytest.approx((r.pmse - r.expected_null) / sd, rel=1e-6)
    assert r.ratio == pytest.approx(r.pmse / r.expected_null)
    assert r.auc == pytest.approx(roc_auc_score(y, p), abs=1e-9)
    assert r.specks == pytest.approx(ks_2samp(p[y == 0], p[y == 1]).statistic, abs=1e-9)
    assert r.importance.index[0] == "x"  # the shifted variable


def test_random_halves_ratio_near_two_under_snoke_null_and_one_under_permutation():
    # Snoke et al.'s analytic null assumes synthesis from a model fitted to the confidential
    # data; two independent halves have E = (k-1)c(1-c)/N, i.e. ratio 1/(1-c) = 2 for c = 1/2.
    rng = np.random.default_rng(11)
    ratios = []
    for _ in range(20):
        d = make(1000, rng)
        ratios.append(pmse(d.iloc[:500], d.iloc[500:], random_state=1).ratio)
    assert 1.6 < np.mean(ratios) < 2.4
    # in-sample AUC is biased upwards by about sqrt(k/N); with N = 20000 it is close to 0.5
    d = make(20000, rng)
    assert abs(pmse(d.iloc[:10000], d.iloc[10000:]).auc - 0.5) < 0.02
    d = make(1000, rng)
    perm = [pmse(d.iloc[:500], d.iloc[500:], null="permutation", n_permutations=20,
                 random_state=s).expected_null for s in range(2)]
    analytic = pmse(d.iloc[:500], d.iloc[500:]).expected_null
    assert np.mean(perm) / analytic == pytest.approx(2.0, rel=0.25)


def test_shifted_data_auc_near_one():
    rng = np.random.default_rng(2)
    r = pmse(make(500, rng), make(500, rng, shift=5.0), random_state=0)
    assert r.auc > 0.99
    assert r.specks > 0.9
    assert r.ratio > 100


@pytest.mark.parametrize("model", ["cart", "boosting"])
def test_trees_random_halves_out_of_sample(model):
    rng = np.random.default_rng(5)
    d = make(1200, rng)
    small = {"max_iter": 30} if model == "boosting" else None
    r = pmse(d.iloc[:600], d.iloc[600:], model=model, validation="holdout", n_permutations=4,
             model_params=small, random_state=3)
    assert r.null_method == "permutation"
    assert abs(r.auc - 0.5) < 0.08
    assert 0.3 < r.ratio < 3.0
    shifted = pmse(d.iloc[:600], make(600, rng, shift=3.0), model=model, validation="cv",
                   n_folds=3, n_permutations=3, model_params=small, random_state=3)
    assert shifted.auc > 0.9


def test_histogram_cart_recovers_leaf_proportions_of_sklearn_cart():
    from sklearn.tree import DecisionTreeClassifier

    from synthguard.utility._propensity import HistCART

    rng = np.random.default_rng(12)
    X = rng.integers(0, 6, size=(4000, 3)).astype(float)  # few values: binning is exact
    y = (rng.random(4000) < 0.2 + 0.1 * X[:, 0] - 0.05 * X[:, 2]).astype(float)
    p = HistCART(0, max_depth=3).fit(X, y).predict_proba(X)[:, 1]
    for v in np.unique(p):
        assert y[p == v].mean() == pytest.approx(v, abs=1e-6)
    ref = DecisionTreeClassifier(max_depth=3, min_samples_leaf=20).fit(X, y).predict_proba(X)
    assert np.mean((p - y.mean()) ** 2) == pytest.approx(np.mean((ref[:, 1] - y.mean()) ** 2),
                                                          rel=1e-5)


def test_same_seed_same_result_and_implicates_averaged():
    rng = np.random.default_rng(6)
    conf, s1, s2 = make(300, rng), make(300, rng), make(300, rng, shift=1.0)
    a = pmse(conf, [s1, s2], model="cart", n_permutations=3, random_state=9)
    b = pmse(conf, [s1, s2], model="cart", n_permutations=3, random_state=9)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert a.seed == 9
    assert len(a.implicates) == 2
    assert a.pmse == pytest.approx(a.implicates["pmse"].mean())
    one = pmse(conf, s1)
    assert a.implicates.shape[0] == 2 and one.implicates.shape[0] == 1


def test_missing_values_and_interactions():
    rng = np.random.default_rng(7)
    conf, syn = make(300, rng), make(300, rng)
    conf.loc[:20, "x"] = np.nan
    syn.loc[:5, "h"] = None
    r = pmse(conf, syn, interactions=True)
    assert np.isfinite(r.pmse)
    assert any(":" in v for v in r.importance.index)


def test_errors():
    rng = np.random.default_rng(8)
    d = make(100, rng)
    with pytest.raises(ParameterError, match="model"):
        pmse(d, d, model="forest")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="analytic"):
        pmse(d, d, model="cart", null="analytic")
    with pytest.raises(ParameterError, match="validation"):
        pmse(d, d, validation="bootstrap")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="interactions"):
        pmse(d, d, model="cart", interactions=True)


def test_logistic_holdout_uses_permutation_null_and_scores_out_of_sample():
    rng = np.random.default_rng(13)
    d = make(2000, rng)
    r = pmse(d.iloc[:1000], d.iloc[1000:], validation="holdout", test_size=0.3,
             n_permutations=5, random_state=2)
    assert r.null_method == "permutation" and r.validation == "holdout"
    assert abs(r.auc - 0.5) < 0.06
    assert 0.2 < r.ratio < 4.0
