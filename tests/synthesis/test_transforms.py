"""Transforms of a column for its model: exact inverses, draws in range, bad input named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from synthguard.synthesis.transforms import TRANSFORMS, fit_transform


@pytest.fixture
def skewed() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    n = 1500
    age = rng.integers(18, 80, n)
    income = np.exp(8 + 0.02 * age + rng.normal(0, 1, n))
    income[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"age": age, "income": income, "gain": rng.exponential(2, n) - 1})


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_invert_exactly_on_the_confidential_column(skewed, name) -> None:
    x = skewed["income"].to_numpy()
    t = fit_transform("income", name, x)
    y = t.transform(x)
    assert np.isnan(y[np.isnan(x)]).all()
    np.testing.assert_allclose(t.inverse(y), x, rtol=1e-9)


def test_known_values_of_the_simple_transforms() -> None:
    x = np.array([1.0, np.e, 4.0])
    np.testing.assert_allclose(fit_transform("v", "log", x).transform(x), [0, 1, np.log(4)])
    np.testing.assert_allclose(fit_transform("v", "sqrt", x).transform(x),
                               [1, np.sqrt(np.e), 2])
    # Box-Cox lambda is scipy's maximum likelihood estimate
    t = fit_transform("v", "boxcox", np.array([1.0, 2.0, 3.0, 5.0, 9.0, 20.0]))
    assert t.lambda_ == pytest.approx(stats.boxcox([1.0, 2.0, 3.0, 5.0, 9.0, 20.0])[1],
                                      abs=1e-4)


@pytest.mark.parametrize("name", ["log", "boxcox", "sqrt", "yeojohnson"])
def test_norm_on_a_transformed_income_stays_in_range(skewed, name) -> None:
    res = Synthesizer(methods={"income": "norm"}, transforms={"income": name},
                      visit_sequence=["age", "income"], extremes=0,
                      random_state=2, m=2).fit(skewed).sample()
    for d in res.implicates:
        inc = d["income"].dropna().to_numpy()
        assert np.isfinite(inc).all()
        if name != "yeojohnson":
            assert (inc >= 0).all()
        if name in ("log", "boxcox"):
            assert (inc > 0).all() and stats.skew(inc) > 1
    assert res.provenance["transforms"]["income"]["transform"] == name
    # without the transform, norm draws negative incomes
    plain = Synthesizer(methods={"income": "norm"}, visit_sequence=["age", "income"],
                        extremes=0, random_state=2).fit(skewed).sample()
    assert (plain.implicates[0]["income"].dropna() < 0).any()


def test_inverse_clips_draws_outside_the_image() -> None:
    t = fit_transform("v", "sqrt", np.array([1.0, 4.0]))
    assert t.inverse(np.array([-3.0, 2.0])).tolist() == [0.0, 4.0]
    bc = fit_transform("v", "boxcox", np.array([1.0, 2.0, 3.0, 5.0, 9.0, 20.0]))
    lo, hi = bc.image()
    out = bc.inverse(np.array([-1e6, 1e6]))
    assert np.isfinite(out).all() and (out >= 0).all()
    assert lo < hi


def test_seeds_reproduce_with_transforms(skewed) -> None:
    kw = dict(methods={"income": "norm"}, transforms={"income": "yeojohnson"})
    a = Synthesizer(**kw, random_state=4).fit(skewed).sample().implicates[0]
    b = Synthesizer(**kw, random_state=4).fit(skewed).sample().implicates[0]
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    ("transforms", "match"),
    [
        ({"gain": "log"}, "column 'gain' holds values outside the domain of 'log'"),
        ({"gain": "boxcox"}, "outside the domain of 'boxcox'"),
        ({"income": "cube"}, "unknown transform"),
        ({"nope": "log"}, "not synthesized"),
        ("log", "expected a mapping"),
    ],
)
def test_bad_transforms_are_named_in_one_line(skewed, transforms, match) -> None:
    with pytest.raises(ParameterError, match=match) as e:
        Synthesizer(transforms=transforms).fit(skewed)
    assert "\n" not in str(e.value)


def test_a_categorical_column_cannot_be_transformed(skewed) -> None:
    df = skewed.assign(group=np.where(skewed["age"] > 40, "a", "b"))
    with pytest.raises(ParameterError, match="'group' is not numeric"):
        Synthesizer(transforms={"group": "log"}).fit(df)
