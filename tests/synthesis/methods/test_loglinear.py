"""``catall`` and ``ipf``: margins to 1e-8, the saturated table, blocks in the synthesizer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import MethodError
from synthguard.synthesis.methods import CatAllMethod, IPFMethod
from synthguard.synthesis.methods.loglinear import ipf


def _block(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["a0", "a1", "a2"], n, p=[0.5, 0.3, 0.2])
    b = np.where(rng.random(n) < np.where(a == "a0", 0.8, 0.3), "b0", "b1")
    c = np.where((a == "a2") & (b == "b1"), rng.choice(["c0", "c1"], n), "c0")
    return pd.DataFrame({"a": a, "b": b, "c": c})


def _frame_of(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Categorical(df[c]) for c in cols})


def _counts(df: pd.DataFrame) -> np.ndarray:
    return pd.crosstab([df["a"], df["b"]], df["c"]).reindex(
        pd.MultiIndex.from_product([["a0", "a1", "a2"], ["b0", "b1"]]), fill_value=0
    ).to_numpy().reshape(3, 2, 2).astype(float)


def test_ipf_twoway_margins_match_to_1e_8_and_equal_the_loglinear_mle():
    import statsmodels.api as sm

    rng = np.random.default_rng(9)
    cell = rng.choice(12, size=800, p=rng.dirichlet(np.full(12, 5.0)))
    ia, ib, ic = np.unravel_index(cell, (3, 2, 2))
    df = pd.DataFrame({"a": np.array(["a0", "a1", "a2"])[ia], "b": np.array(["b0", "b1"])[ib],
                       "c": np.array(["c0", "c1"])[ic]})
    counts = _counts(df)
    assert counts.min() > 0
    N = counts.sum()
    X = _frame_of(df, ["a", "b"])
    y = pd.Categorical(df["c"]).codes.astype(np.int64)
    m = IPFMethod(block="a+b+c", priorn=0).fit(X, y)
    fitted = m.table_ * N
    for axes in [(0, 1), (0, 2), (1, 2)]:
        other = tuple({0, 1, 2} - set(axes))
        np.testing.assert_allclose(fitted.sum(axis=other), counts.sum(axis=other), atol=1e-8)
    # the no-three-way-interaction log-linear model by Poisson GLM (statsmodels) agrees
    cells = pd.DataFrame(list(np.ndindex(3, 2, 2)), columns=["a", "b", "c"]).astype(str)
    design = pd.get_dummies(cells, drop_first=True).astype(float)
    for u, v in [("a", "b"), ("a", "c"), ("b", "c")]:
        for cu in [k for k in design.columns if k.startswith(u + "_") and "*" not in k]:
            for cv in [k for k in design.columns if k.startswith(v + "_") and "*" not in k]:
                design[f"{cu}*{cv}"] = design[cu] * design[cv]
    glm = sm.GLM(counts.ravel(), sm.add_constant(design), family=sm.families.Poisson()).fit(
        tol=1e-12)
    np.testing.assert_allclose(fitted.ravel(), glm.fittedvalues, rtol=1e-6, atol=1e-6)


def test_ipf_with_prior_matches_its_smoothed_margins_and_oneway_is_independence():
    counts = _counts(_block())
    shape = counts.shape
    targets = [counts.sum(axis=2) + 1.0 / 6, counts.sum(axis=1) + 1.0 / 6,
               counts.sum(axis=0) + 1.0 / 4]
    table, sweeps = ipf(shape, [(0, 1), (0, 2), (1, 2)], targets, tol=1e-12)
    np.testing.assert_allclose(table.sum(axis=2), targets[0], atol=1e-8)
    np.testing.assert_allclose(table.sum(axis=1), targets[1], atol=1e-8)
    np.testing.assert_allclose(table.sum(axis=0), targets[2], atol=1e-8)
    assert sweeps > 1
    X = _frame_of(_block(), ["a", "b"])
    y = pd.Categorical(_block()["c"]).codes.astype(np.int64)
    ind = IPFMethod(block="a+b+c", margins="oneway", priorn=0).fit(X, y).table_
    pa, pb, pc = ind.sum(axis=(1, 2)), ind.sum(axis=(0, 2)), ind.sum(axis=(0, 1))
    np.testing.assert_allclose(ind, np.einsum("i,j,k->ijk", pa, pb, pc), atol=1e-12)
    with pytest.raises(MethodError, match="leave out"):
        IPFMethod(block="a+b+c", margins="a*b").fit(X, y)


def test_catall_is_the_smoothed_saturated_table():
    df = _block()
    X = _frame_of(df, ["a", "b"])
    y = pd.Categorical(df["c"]).codes.astype(np.int64)
    m = CatAllMethod(block="a+b+c", priorn=3.0).fit(X, y)
    counts = _counts(df)
    np.testing.assert_allclose(m.table_, (counts + 3.0 / 12) / (counts.sum() + 3.0), atol=1e-15)
    # conditional of c given (a, b) = the table's
    cond = (counts + 0.25) / (counts + 0.25).sum(axis=2, keepdims=True)
    np.testing.assert_allclose(m.conditional_, cond.reshape(6, 2), atol=1e-15)


def test_block_in_the_synthesizer_draws_the_joint_table_and_reproduces_by_seed():
    df = _block(n=3000)
    spec = {"a": "catall:priorn=0", "b": "catall:priorn=0", "c": "catall:priorn=0"}
    one = Synthesizer(methods=spec, random_state=3, replicated_uniques="keep").fit(df).sample()
    two = Synthesizer(methods=spec, random_state=3, replicated_uniques="keep").fit(df).sample()
    s = one.implicates[0]
    pd.testing.assert_frame_equal(s, two.implicates[0])
    # priorn=0: only combinations of the data, at its frequencies
    conf = df.value_counts(normalize=True)
    syn = s.value_counts(normalize=True)
    assert set(syn.index) <= set(conf.index)
    assert (syn.reindex(conf.index, fill_value=0) - conf).abs().max() < 0.03
    # ipf in the same way, margins named
    r = Synthesizer(methods={c: "ipf:margins=a*b+a*c+b*c" for c in "abc"},
                    random_state=1).fit(df).sample().implicates[0]
    assert set(r["a"]) == {"a0", "a1", "a2"}


def test_weights_zero_drop_and_integer_weights_duplicate():
    df = _block(n=300)
    X = _frame_of(df, ["a", "b"])
    y = pd.Categorical(df["c"]).codes.astype(np.int64)
    w = np.random.default_rng(1).integers(0, 3, len(df)).astype(float)
    weighted = CatAllMethod(block="a+b+c").fit(X, y, weights=w)
    dup = np.repeat(np.arange(len(df)), w.astype(int))
    copies = CatAllMethod(block="a+b+c").fit(X.iloc[dup].reset_index(drop=True), y[dup])
    np.testing.assert_allclose(weighted.table_, copies.table_, atol=1e-15)
    Xn = X.iloc[:50]
    np.testing.assert_array_equal(weighted.draw(Xn, np.random.default_rng(2)),
                                  copies.draw(Xn, np.random.default_rng(2)))


def test_block_needs_categorical_columns():
    df = _block()
    df["x"] = np.random.default_rng(0).normal(size=len(df))
    with pytest.raises(MethodError, match="categorical"):
        Synthesizer(visit_sequence=["x", "a"], methods={"a": "catall:block=x+a"}).fit(df)
