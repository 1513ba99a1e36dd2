"""Reconstruction attack on DP tables (Dinur & Nissim 2003; the Census's 2010 experiment)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthguard.dp.tables import dp_tables
from synthguard.dp.tables.reconstruction import reconstruct_table, reconstruction_attack

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def test_reconstruction_is_the_l1_closest_integer_table_by_brute_force():
    rows = np.array([3.4, 1.2])  # noisy margins of a 2 x 2 table
    cols = np.array([0.6, 4.1])
    x = reconstruct_table([(("a",), rows), (("b",), cols)], {"a": 2, "b": 2})
    assert x.shape == (2, 2) and (x >= 0).all()

    def loss(t):
        return np.abs(t.sum(axis=1) - rows).sum() + np.abs(t.sum(axis=0) - cols).sum()

    best = min(loss(np.array(v).reshape(2, 2)) for v in itertools.product(range(7), repeat=4))
    assert loss(x) == pytest.approx(best)
    # a suppressed (NaN) cell is no constraint
    y = reconstruct_table([(("a", "b"), np.array([[2.0, np.nan], [0.0, 5.0]]))],
                          {"a": 2, "b": 2})
    assert y[0, 0] == 2 and y[1, 0] == 0 and y[1, 1] == 5


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"block": rng.choice(["b1", "b2", "b3"], n),
                         "sex": rng.choice(["F", "M"], n),
                         "age": rng.choice(["0-17", "18-64", "65+"], n, p=[0.2, 0.6, 0.2]),
                         "race": rng.choice(["r1", "r2", "r3"], n, p=[0.7, 0.2, 0.1])})


CATS = {"block": ["b1", "b2", "b3"], "sex": ["F", "M"], "age": ["0-17", "18-64", "65+"],
        "race": ["r1", "r2", "r3"]}


def test_full_table_is_reconstructed_exactly_and_noise_protects():
    df = _data()
    tables = ["block x sex x age x race"]  # the full table: reconstruction is exact
    exact = dp_tables(df, tables, epsilon=1e6, categories=CATS, random_state=1)
    res = reconstruction_attack(df, exact, block="block", random_state=0)
    assert res.exact == 1.0 and res.noisy == 1.0  # ε = 10⁶: the noise is below one record
    assert res.baseline < 0.9 and res.n_blocks == 3
    noisy = dp_tables(df, tables, epsilon=0.1, categories=CATS, random_state=1)
    res = reconstruction_attack(df, noisy, block="block", random_state=0)
    assert res.exact == 1.0 and res.noisy < 0.9  # the noise protects
    assert "exact tables" in res.to_frame().index[1]


def test_marginal_tables_allow_partial_reconstruction():
    df = _data(seed=4)
    rel = dp_tables(df, ["block x sex x age", "block x age x race", "block x sex x race"],
                    epsilon=1e6, categories=CATS, random_state=2)
    res = reconstruction_attack(df, rel, block="block", random_state=0)
    # three 2-way margins per block pin most records but not all (a consistent other table
    # exists); the guess from one-way margins does worse
    assert res.baseline < res.exact <= 1.0
    assert res.noisy == pytest.approx(res.exact)
