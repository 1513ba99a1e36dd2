"""Correlation fit: the course's exercise 2, DataFrames, Cramér's V."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats.contingency import association

from synthguard.utility import correlation_fit

SYN = np.array([[1.00, 0.50, 0.75], [0.50, 1.00, 0.80], [0.75, 0.80, 1.00]])
CON = np.array([[1.00, 0.35, 0.10], [0.35, 1.00, 0.90], [0.10, 0.90, 1.00]])


def test_course_exercise_matrices():
    r = correlation_fit(CON, SYN)
    assert r.mae == pytest.approx(0.3)
    assert r.rmse == pytest.approx(0.389444, abs=1e-6)
    assert r.total == pytest.approx(0.9)
    d = r.difference.to_numpy()
    assert d[1, 0] == pytest.approx(0.15) and d[2, 0] == pytest.approx(0.65)
    assert d[2, 1] == pytest.approx(-0.1)
    assert np.isnan(d[0, 1]) and np.isnan(d[0, 0])


def test_labelled_matrices_accepted():
    names = ["a", "b", "c"]
    r = correlation_fit(pd.DataFrame(CON, index=names, columns=names),
                        pd.DataFrame(SYN, index=names, columns=names))
    assert r.mae == pytest.approx(0.3)
    assert list(r.difference.columns) == names


def test_dataframes_match_numpy_corrcoef():
    rng = np.random.default_rng(1)
    a = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("wxyz"))
    b = pd.DataFrame(rng.normal(size=(150, 4)), columns=list("wxyz"))
    r = correlation_fit(a, b)
    d = np.corrcoef(b.to_numpy().T) - np.corrcoef(a.to_numpy().T)
    low = d[np.tril_indices(4, -1)]
    assert r.mae == pytest.approx(np.mean(np.abs(low)))
    assert r.rmse == pytest.approx(np.sqrt(np.mean(low**2)))
    assert r.total == pytest.approx(np.sum(np.abs(low)))
    assert correlation_fit(a, a).mae == 0.0


def test_cramers_v_matches_scipy():
    rng = np.random.default_rng(2)
    n = 300
    x = rng.choice(["a", "b", "c"], n)
    y = np.where(rng.random(n) < 0.6, x, rng.choice(["a", "b", "c"], n))
    z = rng.choice(["u", "v"], n)
    conf = pd.DataFrame({"x": x, "y": y, "z": z})
    syn = pd.DataFrame({"x": rng.choice(["a", "b", "c"], n), "y": y, "z": z})
    r = correlation_fit(conf, syn)

    def v(df, p, q):
        return association(pd.crosstab(df[p], df[q]).to_numpy(), method="cramer")

    expected = [v(syn, "y", "x") - v(conf, "y", "x"), v(syn, "z", "x") - v(conf, "z", "x"),
                v(syn, "z", "y") - v(conf, "z", "y")]
    m = r.cramers_v_difference.to_numpy()
    assert [m[1, 0], m[2, 0], m[2, 1]] == pytest.approx(expected)
    assert r.cramers_v_mae == pytest.approx(np.mean(np.abs(expected)))


def test_implicates_averaged():
    rng = np.random.default_rng(4)
    a = pd.DataFrame(rng.normal(size=(100, 3)), columns=list("xyz"))
    b1 = pd.DataFrame(rng.normal(size=(100, 3)), columns=list("xyz"))
    r = correlation_fit(a, [a, b1])
    assert r.mae == pytest.approx(correlation_fit(a, b1).mae / 2)
    assert len(r.implicates) == 2
