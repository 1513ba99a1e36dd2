"""Checks every built-in per-variable method must pass (scikit-learn's common-test idea)."""

from __future__ import annotations

import numpy as np
import pytest

from synthguard.errors import DataError, MethodError, NotFittedError
from synthguard.synthesis.registry import METHODS, available_methods, get_method, make_method

#: every registered method that reads its predictors as a design matrix, found, not listed
#: (a method registered tomorrow is checked the day it is); the methods that read named
#: columns (passive, nested, catall, ipf) and test doubles of other test files are checked
#: through the synthesizer by tests/test_extensions_common.py
BUILTIN = [n for n, cls in METHODS.items()
           if not getattr(cls, "reads_columns", False) and not cls.__module__.startswith("tests")]
FAST = {"ranger": {"ntree": 25},  # ranger's 500 trees: the same code as 25, 20x slower
        "bayes_mixture": {"burn_in": 30, "n_draws": 30}, "bayes_negbin": {"burn_in": 40, "n_draws": 40}}
#: methods whose draw is the same whatever the generator (mean imputation draws the mean)
DETERMINISTIC = {"mean"}
#: wrong input to a method: MethodError, or DataError (the Bayesian models say so of the data)
INPUT_ERRORS = (MethodError, DataError)
#: methods that read a 1-D X as one predictor instead of refusing it (the Bayesian models)
RESHAPES_1D = {"bayes_norm", "bayes_mixture", "bayes_negbin"}
#: methods over the combinations of categorical predictors (a saturated model: satcat)
CATEGORICAL_PREDICTORS = {"satcat"}
#: methods modelling a count: their numeric target is whole numbers >= 0
COUNT_TARGET = {"bayes_negbin"}
OBSERVED_CODES = np.array([0, 2, 3])  # code 1 is a level with no records: it must never be drawn


def _cases() -> list[tuple[str, str]]:
    out = []
    for name in BUILTIN:
        for kind in ("numeric", "categorical"):
            if kind in get_method(name).target_kinds:
                out.append((name, kind))
    return out


CASES = _cases()
IDS = [f"{name}-{kind}" for name, kind in CASES]


def _data(name: str, kind: str, n: int = 240, p: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    if name in CATEGORICAL_PREDICTORS:  # a few combinations, each seen in the data
        X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n),
                             rng.integers(0, 2, n)]).astype(np.float64)[:, :p]
    else:
        X = np.column_stack([rng.normal(size=n), rng.integers(0, 2, n), rng.exponential(size=n)])[:, :p]
    eta = X.sum(axis=1) if p else np.zeros(n)
    if kind == "numeric" and name in COUNT_TARGET:
        y = rng.poisson(np.exp(eta / 3)).astype(np.float64)
    elif kind == "numeric":
        y = 10.0 + eta + rng.normal(size=n)
    elif name == "logreg":
        y = (eta + rng.logistic(size=n) > 1.0).astype(np.int64)
    else:
        y = OBSERVED_CODES[np.digitize(eta + rng.normal(size=n), [0.5, 1.5])]
    return X, y


def test_every_builtin_method_is_registered():
    assert set(BUILTIN) <= set(available_methods())
    for name in BUILTIN:
        assert get_method(name).name == name


def test_cases_cover_both_kinds():
    assert ("cart", "categorical") in CASES and ("norm", "numeric") in CASES
    assert ("norm", "categorical") not in CASES and ("logreg", "numeric") not in CASES


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_same_seed_same_draws_and_different_seeds_differ(name, kind):
    X, y = _data(name, kind)
    m = make_method(name, **FAST.get(name, {})).fit(X, y)
    a = m.draw(X, np.random.default_rng(11))
    b = m.draw(X, np.random.default_rng(11))
    c = m.draw(X, np.random.default_rng(12))
    np.testing.assert_array_equal(a, b)
    assert np.array_equal(a, c) is (name in DETERMINISTIC)


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_fit_and_draw_do_not_mutate_inputs(name, kind):
    X, y = _data(name, kind)
    X0, y0 = X.copy(), y.copy()
    X.flags.writeable = False  # any in-place write raises
    y.flags.writeable = False
    m = make_method(name, **FAST.get(name, {})).fit(X, y)
    m.draw(X, np.random.default_rng(1))
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_draws_have_the_right_length_dtype_and_support(name, kind):
    X, y = _data(name, kind)
    m = make_method(name, **FAST.get(name, {})).fit(X, y)
    X_new = _data(name, kind, n=97, seed=5)[0]
    out = m.draw(X_new, np.random.default_rng(2))
    assert out.shape == (97,)
    if kind == "numeric":
        assert out.dtype == np.float64
        assert np.all(np.isfinite(out))
    else:
        assert out.dtype == np.int64
        assert set(np.unique(out)) <= set(np.unique(y))


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_drawing_no_rows(name, kind):
    X, y = _data(name, kind)
    out = make_method(name, **FAST.get(name, {})).fit(X, y).draw(np.empty((0, X.shape[1])), np.random.default_rng(0))
    assert out.shape == (0,)
    assert out.dtype == (np.float64 if kind == "numeric" else np.int64)


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_fitting_twice_gives_the_same_model(name, kind):
    # a random fit (rf, bag) is the same model for the same fit generator
    X, y = _data(name, kind)
    m = make_method(name, **FAST.get(name, {})).fit(X, y, rng=np.random.default_rng(0))
    first = m.draw(X, np.random.default_rng(3))
    again = m.fit(X, y, rng=np.random.default_rng(0)).draw(X, np.random.default_rng(3))
    other = make_method(name, **FAST.get(name, {})).fit(X, y, rng=np.random.default_rng(0)).draw(
        X, np.random.default_rng(3))
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, other)


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_non_unit_weights_raise_and_unit_weights_do_not(name, kind):
    X, y = _data(name, kind)
    cls = get_method(name)
    if cls.supports_weights:
        w = np.ones(len(y))
        w[::2] = 0.0
        out = make_method(name, **FAST.get(name, {})).fit(X, y, weights=w).draw(X, np.random.default_rng(4))
        plain = make_method(name, **FAST.get(name, {})).fit(X, y).draw(X, np.random.default_rng(4))
        # a donor method (its draws are observed values; counts are whole numbers anyway):
        # a record of weight 0 is never drawn
        if name not in COUNT_TARGET and np.isin(plain, y).all():
            assert np.isin(out, y[w > 0]).all()
        else:  # a model: the weights enter the fit
            assert not np.array_equal(out, plain)
        return
    with pytest.raises(MethodError, match=name):
        make_method(name, **FAST.get(name, {})).fit(X, y, weights=np.linspace(0.5, 2.0, len(y)))
    unit = make_method(name, **FAST.get(name, {})).fit(X, y, weights=np.ones(len(y))).draw(X, np.random.default_rng(4))
    plain = make_method(name, **FAST.get(name, {})).fit(X, y).draw(X, np.random.default_rng(4))
    np.testing.assert_array_equal(unit, plain)


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_no_predictors(name, kind):
    X, y = _data(name, kind, p=0)
    assert X.shape == (240, 0)
    m = make_method(name, **FAST.get(name, {})).fit(X, y)
    out = m.draw(np.empty((500, 0)), np.random.default_rng(5))
    assert out.shape == (500,)
    if kind == "categorical":
        # Without predictors every method draws from (a model of) the observed shares:
        # each observed level appears, and no other.
        assert set(np.unique(out)) == set(np.unique(y))
    else:
        # Mean of 500 draws within 5 standard errors of the observed mean (sd ~ 1).
        assert abs(out.mean() - y.mean()) < 5 * y.std() * np.sqrt(1 / 500 + 1 / len(y))


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_draw_before_fit_and_wrong_shapes_raise(name, kind):
    X, y = _data(name, kind)
    with pytest.raises(NotFittedError, match=name):
        make_method(name, **FAST.get(name, {})).draw(X, np.random.default_rng(0))
    m = make_method(name, **FAST.get(name, {})).fit(X, y)
    with pytest.raises(INPUT_ERRORS, match="predictor column"):
        m.draw(X[:, :2], np.random.default_rng(0))
    with pytest.raises(INPUT_ERRORS, match="row"):
        make_method(name, **FAST.get(name, {})).fit(X[:10], y)
    if name not in RESHAPES_1D:
        with pytest.raises(INPUT_ERRORS, match="2-D"):
            make_method(name, **FAST.get(name, {})).fit(X[:, 0], y)
    bad = X.copy()
    bad[3, 0] = np.nan
    with pytest.raises(INPUT_ERRORS, match="missing or infinite"):
        make_method(name, **FAST.get(name, {})).fit(bad, y)


@pytest.mark.parametrize(("name", "kind"), CASES, ids=IDS)
def test_params_round_trip(name, kind):
    m = make_method(name, **FAST.get(name, {}))
    clone = make_method(name, **m.get_params())
    assert clone.get_params() == m.get_params()
    X, y = _data(name, kind)
    m.fit(X, y)
    assert m.get_params() == clone.get_params()  # fitting adds only trailing-underscore state


@pytest.mark.parametrize("name", ["norm", "normrank"])
def test_numeric_only_methods_refuse_categorical_targets(name):
    X, y = _data("polyreg", "categorical")
    with pytest.raises(MethodError, match="categorical target"):
        make_method(name, **FAST.get(name, {})).fit(X, y)


@pytest.mark.parametrize("name", ["logreg", "polyreg"])
def test_categorical_only_methods_refuse_numeric_targets(name):
    X, y = _data("norm", "numeric")
    with pytest.raises(MethodError, match="numeric target"):
        make_method(name, **FAST.get(name, {})).fit(X, y)


@pytest.mark.parametrize("name", [n for n, k in CASES if k == "categorical"])
def test_single_observed_level_is_always_drawn(name):
    X, _ = _data(name, "categorical")
    y = np.full(len(X), 1, dtype=np.int64)
    out = make_method(name, **FAST.get(name, {})).fit(X, y).draw(X, np.random.default_rng(6))
    np.testing.assert_array_equal(out, 1)
