"""TopDown: consistency, non-negative integers, exact invariants and zeros, better than raw noise;
the rounder against brute force."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from synthguard.dp import PrivacyLedger
from synthguard.dp.tables import (
    controlled_round,
    least_squares_fit,
    topdown,
    topdown_accuracy,
)
from synthguard.errors import DataError, ParameterError, PrivacyWarning

ATTR = {"sex": ["F", "M"], "age": ["0-17", "18-64", "65+"]}


def _hierarchy(seed: int, n: int = 3000, states: int = 4):
    rng = np.random.default_rng(seed)
    st = rng.integers(0, states, n)
    co = rng.integers(0, int(rng.integers(1, 5)), n)
    tr = rng.integers(0, 3, n)
    df = pd.DataFrame({"state": st.astype(str), "county": (st * 10 + co).astype(str),
                       "tract": (st * 100 + co * 10 + tr).astype(str),
                       "sex": rng.choice(ATTR["sex"], n),
                       "age": rng.choice(["0-17", "18-64"], n)})  # 65+ M is a structural zero
    df.loc[rng.random(n) < 0.1, "age"] = "65+"
    df.loc[df["age"] == "65+", "sex"] = "F"
    return df, df[["state", "county", "tract"]].drop_duplicates()


def _td(df, units, **kw):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        return topdown(df, ["state", "county", "tract"], ["sex", "age"], units=units,
                       categories=ATTR, **kw)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_consistent_integer_invariant_and_zero(seed):
    df, units = _hierarchy(seed)
    res = _td(df, units, epsilon=0.3, random_state=seed, invariants=["county"],
              structural_zeros=[{"sex": "M", "age": "65+"}],
              mechanism="discrete_gaussian" if seed % 2 else "discrete_laplace",
              delta=1e-10 if seed % 2 else 0.0)
    hier = ["state", "county", "tract"]
    for lvl in range(1, 4):
        child = res.levels[lvl].frame
        parent = res.levels[lvl - 1].frame
        assert child["count"].dtype.kind == "i" and (child["count"] >= 0).all()
        sums = child.groupby([*hier[:lvl - 1], "sex", "age"])["count"].sum()
        par = parent.set_index([*hier[:lvl - 1], "sex", "age"])["count"] if lvl > 1 else \
            parent.set_index(["sex", "age"])["count"]
        assert (sums.reindex(par.index) == par).all()
        assert (child.loc[child["structural_zero"], "count"] == 0).all()
    # invariants: county totals (and hence state and total) exact
    for lvl, cols in ((0, []), (1, ["state"]), (2, ["state", "county"])):
        got = res.levels[lvl].frame.groupby(cols)["count"].sum() if cols else \
            res.levels[0].frame["count"].sum()
        want = df.groupby(cols).size() if cols else len(df)
        if cols:
            assert (got.reindex(want.index) == want).all()
        else:
            assert got == want
    assert any("NOT differentially private" in n for n in res.notes)


def test_topdown_error_no_worse_than_independent_noise():
    rng = np.random.default_rng(7)
    n = 60000
    st = rng.integers(0, 10, n)
    co = rng.integers(0, 5, n)
    tr = rng.integers(0, 6, n)
    df = pd.DataFrame({"state": st.astype(str), "county": (st * 10 + co).astype(str),
                       "tract": (st * 100 + co * 10 + tr).astype(str),
                       "sex": rng.choice(ATTR["sex"], n), "age": rng.choice(ATTR["age"], n)})
    units = df[["state", "county", "tract"]].drop_duplicates()
    res = _td(df, units, epsilon=0.5, random_state=3)
    acc = topdown_accuracy(df, res).set_index(["level", "estimate"])
    for level in ("county", "tract"):
        assert acc.loc[(level, "topdown"), "rmse"] <= acc.loc[(level, "measured"), "rmse"]
        assert acc.loc[(level, "topdown"), "mae"] <= acc.loc[(level, "measured"), "mae"] * 1.01


def test_ledger_one_line_per_level():
    df, units = _hierarchy(0)
    ledger = PrivacyLedger(epsilon=1.0)
    res = _td(df, units, epsilon=1.0, ledger=ledger, level_shares=[1, 1, 2, 4],
              random_state=0)
    eps = [c.epsilon for c in ledger.charges]
    assert eps == pytest.approx([0.125, 0.125, 0.25, 0.5])
    assert res.levels[3].noise.scale == pytest.approx(2.0)


def test_unknown_unit_and_bad_invariant_are_refused():
    df, units = _hierarchy(0)
    with pytest.raises(DataError, match="units") as e:
        _td(df, units.iloc[1:], epsilon=1, random_state=0)
    dropped = units.iloc[0]
    assert dropped["tract"] not in str(e.value)  # no unit and no count is quoted
    n_dropped = int((df["tract"] == dropped["tract"]).sum())
    assert f" {n_dropped} " not in str(e.value)
    with pytest.raises(ParameterError, match="invariants"):
        _td(df, units, epsilon=1, invariants=["sex"], random_state=0)


def _brute_round(x, parent, totals):
    k, m = x.shape
    best = np.inf
    ranges = [range(int(np.floor(v)) - 1, int(np.ceil(v)) + 2) for v in x.ravel()]
    for cand in itertools.product(*ranges):
        c = np.array(cand).reshape(k, m)
        if (c < 0).any() or (c.sum(axis=0) != parent).any():
            continue
        if totals is not None and (c.sum(axis=1) != totals).any():
            continue
        obj = np.abs(c - x).sum()
        if obj < best - 1e-9:
            best = obj
    return best


@pytest.mark.parametrize("seed", range(6))
def test_controlled_round_is_optimal_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 6, (2, 3))
    parent, totals = truth.sum(axis=0), truth.sum(axis=1)
    x = least_squares_fit(truth + rng.normal(0, 1.5, truth.shape), parent, totals)
    got = controlled_round(x, parent, totals)
    assert (got.sum(axis=0) == parent).all() and (got.sum(axis=1) == totals).all()
    assert np.abs(got - x).sum() == pytest.approx(_brute_round(x, parent, totals), abs=1e-9)
    x1 = least_squares_fit(truth + rng.normal(0, 1.5, truth.shape), parent)
    got1 = controlled_round(x1, parent)
    assert np.abs(got1 - x1).sum() == pytest.approx(_brute_round(x1, parent, None), abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_least_squares_matches_a_generic_solver(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 8, (3, 3)).astype(float)
    parent, totals = truth.sum(axis=0), truth.sum(axis=1)
    y = truth + rng.normal(0, 3, truth.shape)
    got = least_squares_fit(y, parent, totals)
    cons = [{"type": "eq", "fun": lambda v: v.reshape(3, 3).sum(axis=0) - parent},
            {"type": "eq", "fun": lambda v: v.reshape(3, 3).sum(axis=1)[:-1] - totals[:-1]}]
    ref = optimize.minimize(lambda v: ((v - y.ravel()) ** 2).sum(), np.maximum(y, 0).ravel(),
                            jac=lambda v: 2 * (v - y.ravel()), constraints=cons,
                            bounds=[(0, None)] * 9, method="SLSQP",
                            options={"ftol": 1e-12, "maxiter": 500})
    assert got == pytest.approx(ref.x.reshape(3, 3), abs=1e-4)


def test_measurements_carry_their_exact_interval():
    df, units = _hierarchy(4)
    res = _td(df, units, epsilon=1.0, random_state=1, confidence=0.9)
    f = res.levels[2].frame
    t = res.levels[2].noise.halfwidth(0.9)
    live = ~f["structural_zero"]
    assert (f.loc[live, "measured_upper"] - f.loc[live, "measured"]).eq(t).all()
    assert (f.loc[live, "measured"] - f.loc[live, "measured_lower"]).eq(t).all()
