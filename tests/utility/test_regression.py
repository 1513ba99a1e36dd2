"""compare_regression on the CE data (lecture 002 figures) and GLM families."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

from synthguard.data import load_dataset
from synthguard.errors import DataError, ParameterError
from synthguard.utility import combine, compare_regression


@pytest.fixture(scope="module")
def ce():
    return load_dataset("ce")


def test_ce_confidential_intervals_match_lecture(ce):
    r = compare_regression("Expenditure ~ Income", ce, ce)
    t = r.table.set_index("term")
    assert t.loc["Income", "conf_lower"] == pytest.approx(0.05716009, abs=1e-8)
    assert t.loc["Income", "conf_upper"] == pytest.approx(0.06372054, abs=1e-8)
    assert t.loc["Intercept", "conf_lower"] == pytest.approx(5152.495, abs=1e-3)
    assert t.loc["Intercept", "conf_upper"] == pytest.approx(5925.301, abs=1e-3)


def test_implicates_combined_with_partial_rule(ce):
    imps = [ce.sample(frac=1.0, replace=True, random_state=s) for s in range(4)]
    r = compare_regression("Expenditure ~ Income + UrbanRural", ce, imps, method="partial")
    fits = [smf.ols("Expenditure ~ Income + UrbanRural", d).fit() for d in imps]
    q = np.array([f.params["Income"] for f in fits])
    v = np.array([f.bse["Income"] ** 2 for f in fits])
    ref = combine(q, v, method="partial")
    row = r.table.set_index("term").loc["Income"]
    assert row["syn_estimate"] == pytest.approx(ref.estimate)
    assert row["syn_se"] == pytest.approx(np.sqrt(ref.variance))
    assert (row["syn_lower"], row["syn_upper"]) == pytest.approx(ref.ci(0.95))
    conf_fit = smf.ols("Expenditure ~ Income + UrbanRural", ce).fit()
    assert row["std_difference"] == pytest.approx(
        (ref.estimate - conf_fit.params["Income"]) / conf_fit.bse["Income"]
    )
    assert row["rule"] == "partial" and row["m"] == 4
    assert "UrbanRural[T.2]" in set(r.table["term"])


def test_release_equal_to_confidential_overlaps_fully(ce):
    r = compare_regression("Expenditure ~ Income", ce, [ce, ce])
    # b_m = 0 so T_p = v̄ with a normal reference; intervals nearly identical
    assert r.table["overlap_snoke"].to_numpy() == pytest.approx(1.0, abs=1e-3)
    assert r.sso_share == 1.0
    assert r.max_abs_std_difference == pytest.approx(0.0, abs=1e-9)


def test_proper_rule_for_posterior_predictive_full_synthesis(ce):
    imps = [ce.sample(n=len(ce) // 2, replace=True, random_state=s) for s in range(3)]
    r = compare_regression("Expenditure ~ Income", ce, imps, method="proper")
    fits = [smf.ols("Expenditure ~ Income", d).fit() for d in imps]
    v = np.array([f.bse["Income"] ** 2 for f in fits])
    row = r.table.set_index("term").loc["Income"]
    # Raab, Nowok & Dibben (2016): T_r = v̄ (k + (1 + k)/m), k = n_syn/n, normal reference
    k = (len(ce) // 2) / len(ce)
    assert row["syn_se"] ** 2 == pytest.approx(v.mean() * (k + (1 + k) / 3))
    assert row["rule"] == "proper" and np.isinf(row["syn_df"])
    one = compare_regression("Expenditure ~ Income", ce, ce, method="proper")  # m = 1: no warning
    t = one.table.set_index("term")
    assert t.loc["Income", "syn_se"] == pytest.approx(np.sqrt(3) * t.loc["Income", "conf_se"])
    with pytest.raises(ParameterError, match="'proper'"):
        compare_regression("Expenditure ~ Income", ce, ce, method="reiter")  # type: ignore[arg-type]


def test_one_implicate_uses_simple_rule(ce):
    r = compare_regression("Expenditure ~ Income", ce, ce)
    assert set(r.table["rule"]) == {"simple"}
    t = r.table.set_index("term")
    # T_s = v (1 + n_syn/n) = 2 v
    assert t.loc["Income", "syn_se"] == pytest.approx(np.sqrt(2) * t.loc["Income", "conf_se"])


@pytest.mark.parametrize("family", ["binomial", "poisson"])
def test_glm_families(ce, family):
    df = ce.assign(Rural=(ce["UrbanRural"].astype(int) == 2).astype(int))
    formula = "Rural ~ Income" if family == "binomial" else "KidsCount ~ Income"
    r = compare_regression(formula, df, [df, df.sample(frac=1.0, random_state=1)], family=family)
    fam = sm.families.Binomial() if family == "binomial" else sm.families.Poisson()
    ref = smf.glm(formula, df, family=fam).fit()
    t = r.table.set_index("term")
    assert t.loc["Income", "conf_estimate"] == pytest.approx(ref.params["Income"])
    lo, hi = ref.conf_int().loc["Income"]
    assert (t.loc["Income", "conf_lower"], t.loc["Income", "conf_upper"]) == pytest.approx((lo, hi))


def test_errors(ce):
    with pytest.raises(ParameterError, match="family"):
        compare_regression("Expenditure ~ Income", ce, ce, family="gamma")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="formula"):
        compare_regression("Expenditure ~ NoSuchColumn", ce, ce)
    with pytest.raises(DataError):
        compare_regression("Expenditure ~ Income", ce, [ce[["Expenditure"]]])
    with pytest.raises(DataError):
        compare_regression("Expenditure ~ Income", ce, "not data")
    assert isinstance(ce, pd.DataFrame)


def test_failed_sso_match_counts_as_false_not_missing():
    # Regression test: a failed SSO match used to become NaN (SSOResult is falsy when it fails),
    # so sso_share skipped it and reported 100%.
    from synthguard.utility import compare_regression, sso

    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    conf = pd.DataFrame({"x": x, "y": 2.0 * x + rng.normal(size=400)})
    flipped = conf.assign(y=-2.0 * x + rng.normal(size=400))  # slope changes sign
    res = compare_regression("y ~ x", conf, [flipped], method="partial")
    row = res.table.set_index("term").loc["x"]
    assert not pd.isna(row["sso_match"]) and not bool(row["sso_match"])
    assert res.sso_share < 1.0
    direct = sso(
        row["conf_estimate"], (row["conf_lower"], row["conf_upper"]),
        row["syn_estimate"], (row["syn_lower"], row["syn_upper"]),
    )
    assert not direct.match


def test_protected_file_equal_to_the_data_overlaps_fully_only_under_the_none_rule():
    rng = np.random.default_rng(4)
    x = rng.normal(size=300)
    conf = pd.DataFrame({"x": x, "y": 1.5 * x + rng.normal(size=300)})
    simple = compare_regression("y ~ x", conf, conf.copy())
    assert set(simple.table["rule"]) == {"simple"}
    # the synthesis rule with m = 1 doubles the variance: overlap (1 + 1/sqrt(2))/2 up to t vs z
    assert simple.mean_overlap == pytest.approx(0.5 * (1 + 1 / np.sqrt(2)), abs=2e-3)
    none = compare_regression("y ~ x", conf, conf.copy(), method="none")
    assert none.mean_overlap == pytest.approx(1.0, abs=1e-12)
    t = none.table
    np.testing.assert_allclose(t["syn_lower"], t["conf_lower"], rtol=1e-12)
    np.testing.assert_allclose(t["syn_upper"], t["conf_upper"], rtol=1e-12)
