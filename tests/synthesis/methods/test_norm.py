"""``norm``: the course's regression figures, its standard errors, and its draws."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from synthguard.data import load_dataset
from synthguard.errors import MethodError
from synthguard.synthesis.methods.norm import NormMethod


@pytest.fixture(scope="module")
def adelie() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Adelie rows with sex, bill length and flipper length all present (146 rows)."""
    df = load_dataset("penguins")
    a = df[df["species"] == "Adelie"].dropna(subset=["sex", "bill_length_mm", "flipper_length_mm"])
    male = (a["sex"] == "male").to_numpy(dtype=float)
    return (
        male,
        a["bill_length_mm"].to_numpy(dtype=float),
        a["flipper_length_mm"].to_numpy(dtype=float),
    )


def test_adelie_rows(adelie):
    assert len(adelie[0]) == 146


def test_course_figures_bill_on_sex(adelie):
    # Course / shared data README: lm(bill_length_mm ~ sex) on the 146 complete Adelie rows.
    male, bill, _ = adelie
    m = NormMethod().fit(male[:, None], bill)
    np.testing.assert_allclose(m.coef_, [37.2575, 3.1329], atol=5e-5)
    np.testing.assert_allclose(m.se_, [0.2524, 0.3570], atol=5e-5)
    assert round(m.sigma_, 3) == 2.157
    assert m.df_resid_ == 144


def test_course_figures_flipper_on_sex_and_bill(adelie):
    male, bill, flipper = adelie
    m = NormMethod().fit(np.column_stack([male, bill]), flipper)
    np.testing.assert_allclose(m.coef_, [170.6183, 3.1721, 0.4610], atol=5e-5)
    assert round(m.sigma_, 3) == 6.058
    assert m.df_resid_ == 143


def test_matches_statsmodels_ols_on_random_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4)) * [1.0, 100.0, 0.01, 5.0] + [0.0, 1e4, 3.0, -2.0]
    y = 2.0 + X @ [1.0, 0.02, 30.0, -0.5] + rng.normal(size=300)
    ref = sm.OLS(y, sm.add_constant(X)).fit()
    m = NormMethod().fit(X, y)
    np.testing.assert_allclose(m.coef_, ref.params, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(m.se_, ref.bse, rtol=1e-9)
    assert m.sigma_ == pytest.approx(np.sqrt(ref.scale), rel=1e-12)
    assert m.df_resid_ == ref.df_resid


def test_rank_deficient_design_gives_the_same_fitted_values():
    # A duplicated predictor: the fit is still the projection of y on the column space.
    rng = np.random.default_rng(4)
    x = rng.normal(size=(200, 1))
    y = 1.0 + 2.0 * x[:, 0] + rng.normal(size=200)
    full = NormMethod().fit(np.hstack([x, x]), y)
    single = NormMethod().fit(x, y)
    assert full.rank_ == 2 and full.df_resid_ == 198
    assert full.sigma_ == pytest.approx(single.sigma_, rel=1e-10)
    np.testing.assert_allclose(full.coef_[1] + full.coef_[2], single.coef_[1], rtol=1e-10)


def test_no_residual_degrees_of_freedom_raise():
    with pytest.raises(MethodError, match="norm"):
        NormMethod().fit(np.array([[0.0], [1.0]]), np.array([1.0, 2.0]))


def test_draws_have_fitted_mean_and_sd():
    # y* = b0 + b1 x + sigma z at a fixed x: mean b0 + b1 x, sd sigma. With N draws the sample
    # mean has standard error sigma / sqrt(N) and the sample sd about sigma / sqrt(2N);
    # 4 standard errors leave a false-alarm rate below 1e-4.
    rng = np.random.default_rng(5)
    x = rng.normal(size=(500, 1))
    y = 3.0 - 1.5 * x[:, 0] + 2.0 * rng.normal(size=500)
    m = NormMethod().fit(x, y)
    n_draw = 20_000
    draws = m.draw(np.full((n_draw, 1), 0.5), np.random.default_rng(6))
    mean = m.coef_[0] + 0.5 * m.coef_[1]
    assert abs(draws.mean() - mean) < 4 * m.sigma_ / np.sqrt(n_draw)
    assert abs(draws.std(ddof=1) - m.sigma_) < 4 * m.sigma_ / np.sqrt(2 * n_draw)


def test_proper_draws_spread_by_the_posterior():
    # Under the noninformative prior, Var(b0* + b1* x | data) = E[sigma*^2] * h(x) with
    # E[sigma*^2] = RSS / (df - 2); each implicate's mean at x moves by that much.
    rng = np.random.default_rng(7)
    x = rng.normal(size=(30, 1))
    y = 1.0 + x[:, 0] + rng.normal(size=30)
    m = NormMethod(proper=True).fit(x, y)
    gen = np.random.default_rng(8)
    n_rep = 4000
    x0 = np.array([[2.0]])
    # Mean of many draws at x0 with one posterior draw each = the posterior-drawn line at x0
    # plus noise; compare the total variance with its expectation.
    draws = np.array([m.draw(x0, gen)[0] for _ in range(n_rep)])
    d = np.array([1.0, 2.0])
    h = float(d @ m.cov_root_ @ m.cov_root_.T @ d)
    expected_var = m.rss_ / (m.df_resid_ - 2) * (1.0 + h)
    # Sample variance of n_rep draws: relative SE about sqrt(2 / n_rep) (heavier-tailed t
    # makes it a little larger), so allow 5 of those.
    assert abs(draws.var(ddof=1) / expected_var - 1) < 5 * np.sqrt(2 / n_rep)
    improper = NormMethod().fit(x, y).draw(np.repeat(x0, n_rep, axis=0), gen)
    assert draws.var() > improper.var()


@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_draws_are_released_at_the_datas_precision(decimals):
    # a column recorded in whole numbers (or 1 or 2 decimals) comes back at that precision,
    # and each draw is the unrounded draw rounded (same random numbers)
    rng = np.random.default_rng(decimals)
    x = rng.normal(size=(300, 1))
    y = np.round(50 + 7 * x[:, 0] + rng.normal(0, 3, 300), decimals)
    m = NormMethod().fit(x, y)
    assert m.decimals_ == decimals
    out = m.draw(x, np.random.default_rng(9))
    raw = m.draw_unrounded(x, np.random.default_rng(9))
    np.testing.assert_array_equal(out, np.round(raw, decimals))
    assert not np.array_equal(out, raw)  # rounding did something
    scaled = out * 10**decimals
    np.testing.assert_allclose(scaled, np.round(scaled), atol=1e-6)


def test_a_continuous_column_is_left_as_drawn():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 1))
    y = x[:, 0] + rng.normal(size=100)  # 16-17 significant digits: not a grid
    m = NormMethod().fit(x, y)
    assert m.decimals_ is None
    np.testing.assert_array_equal(m.draw(x, np.random.default_rng(1)),
                                  m.draw_unrounded(x, np.random.default_rng(1)))
