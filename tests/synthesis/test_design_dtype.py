"""The per-method ``design_dtype`` hook: cart gets float32 designs, other methods float64, and
the results are those of the float64 path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import MethodError
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.encoding import design_matrix
from synthguard.synthesis.methods import CartMethod, NormMethod, SampleMethod
from synthguard.synthesis.methods.base import SynthesisMethod


class Cart64(CartMethod):
    """cart as before the hook: handed a float64 design, which it converts itself."""

    design_dtype = np.float64


def _frame(n: int = 400, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c", "d"], n)
    x = np.round(rng.normal(10, 3, n), 1)  # tenths: not exact in float32
    return pd.DataFrame({
        "g": g,
        "x": x,
        "k": rng.integers(0, 50, n),
        "y": np.round(x * 2 + (g == "b") * 5 + rng.normal(0, 1, n), 2),
        "h": rng.choice(["u", "v", "w"], n),
    })


def test_design_dtype_defaults_to_float64_and_cart_declares_float32():
    assert SynthesisMethod.design_dtype is np.float64
    assert NormMethod.design_dtype is np.float64
    assert SampleMethod.design_dtype is np.float64
    assert CartMethod.design_dtype is np.float32


def test_float32_design_is_the_float64_design_rounded(mixed):
    from synthguard.data.schema import infer_schema
    from synthguard.synthesis.encoding import to_working

    schema = infer_schema(mixed).columns
    arrays = {c: to_working(mixed[c], schema[c]) for c in mixed.columns}
    cols = list(mixed.columns)
    x64 = design_matrix(arrays, cols, schema)
    x32 = design_matrix(arrays, cols, schema, dtype=np.float32)
    assert x64.dtype == np.float64 and x32.dtype == np.float32 and x32.flags.f_contiguous
    np.testing.assert_array_equal(x32, x64.astype(np.float32))


def test_synthesizer_gives_cart_a_float32_design_and_cart_does_not_copy_it(monkeypatch):
    seen: list[tuple[np.dtype, bool, int]] = []
    fit = CartMethod.fit

    def spy(self, X, y, weights=None, *, rng=None, kinds=None):
        seen.append((X.dtype, X.flags.f_contiguous, id(X)))
        out = fit(self, X, y, weights, rng=rng, kinds=kinds)
        # without binning the tree's input is the given design itself, not a copy
        assert self._design(X, fortran=True) is X
        return out

    monkeypatch.setattr(CartMethod, "fit", spy)
    Synthesizer(random_state=0).fit(_frame())
    assert len(seen) == 4  # every column after the first
    assert all(dt == np.float32 and f for dt, f, _ in seen)


def test_norm_still_gets_float64_even_when_handed_float32():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = X @ [1.0, -2.0] + rng.normal(size=50)
    a = NormMethod().fit(X, y)
    b = NormMethod().fit(X.astype(np.float32).astype(np.float64), y)
    c = NormMethod().fit(X.astype(np.float32), y)
    # float32 input is converted to float64 first: same fit as its float64 equivalent
    np.testing.assert_array_equal(c.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)  # and the rounding did matter


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_float32_predictors_are_refused(bad):
    X = np.ones((10, 3), dtype=np.float32)
    X[4, 1] = bad
    with pytest.raises(MethodError, match="missing or infinite"):
        CartMethod().fit(X, np.arange(10.0))
    m = CartMethod().fit(np.ones((10, 3), dtype=np.float32), np.arange(10.0))
    with pytest.raises(MethodError, match="missing or infinite"):
        m.draw(X, np.random.default_rng(0))


@pytest.mark.parametrize("categorical", [False, True])
def test_cart_float32_and_float64_designs_give_the_same_trees(categorical):
    # values exactly representable in float32 (quarters and small integers)
    rng = np.random.default_rng(7)
    n = 3000
    X = np.column_stack([
        rng.integers(-40, 40, n) / 4.0,
        rng.integers(0, 2, n).astype(float),
        rng.integers(0, 1000, n).astype(float),
    ])
    assert np.array_equal(X.astype(np.float32).astype(np.float64), X)
    if categorical:
        y = (X[:, 0] > 0).astype(np.int64) + (X[:, 2] > 500) + rng.integers(0, 2, n)
    else:
        y = X[:, 0] * 3 + X[:, 1] + rng.normal(0, 1, n)
    a = CartMethod().fit(X, y)
    b = CartMethod().fit(np.asfortranarray(X, dtype=np.float32), y)
    ta, tb = a.tree_, b.tree_
    np.testing.assert_array_equal(ta.feature, tb.feature)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(a.leaf_index(X), b.leaf_index(X.astype(np.float32)))
    np.testing.assert_array_equal(a.donors_, b.donors_)
    np.testing.assert_array_equal(a.leaf_size_, b.leaf_size_)
    da = a.draw(X, np.random.default_rng(1))
    db = b.draw(X.astype(np.float32), np.random.default_rng(1))
    np.testing.assert_array_equal(da, db)
    assert da.dtype == (np.int64 if categorical else np.float64)


def test_cart_draw_picks_the_donor_of_the_formula():
    # brute force: row i in leaf l takes donors[start_l + min(floor(u_i * size_l), size_l - 1)]
    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 2))
    y = X[:, 0] + rng.normal(size=500)
    for smoothing in (False, True):
        m = CartMethod(smoothing=smoothing, adjust=False, draws="random").fit(X, y)
        out = m.draw(X, np.random.default_rng(5))
        g = np.random.default_rng(5)
        u = g.random(len(X))
        leaf = m.leaf_index(X)
        expect = np.empty(len(X))
        for i, lf in enumerate(leaf):
            size, start = m.leaf_size_[lf], m.leaf_start_[lf]
            expect[i] = m.donors_[start + min(int(np.floor(u[i] * size)), size - 1)]
        if smoothing:  # noise, reflection into the range, the data's decimals
            lo, hi = y.min(), y.max()
            expect = expect + m.bandwidth_[leaf] * g.standard_normal(len(X))
            expect = np.where(expect > hi, 2 * hi - expect, expect)
            expect = np.clip(np.where(expect < lo, 2 * lo - expect, expect), lo, hi)
            expect = np.round(expect, m.decimals_)
        np.testing.assert_allclose(out, expect, rtol=0, atol=0)


def test_cart_holds_categorical_donors_in_a_small_type_and_draws_int64():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0).astype(np.int64) * 2 + rng.integers(0, 2, 300)
    m = CartMethod().fit(X, y)
    assert m.donors_.dtype == np.int8
    out = m.draw(X, np.random.default_rng(0))
    assert out.dtype == np.int64 and set(np.unique(out)) <= {0, 1, 2, 3}


def test_synthesis_with_the_float32_hook_equals_the_float64_path():
    df = _frame()
    kw = {"visit_sequence": ["g", "x", "k", "y", "h"], "random_state": 42, "m": 2}
    new = Synthesizer(**kw).fit(df).sample(diagnostics=False)
    old = Synthesizer(
        methods={c: Cart64() for c in ["x", "k", "y", "h"]}, **kw
    ).fit(df).sample(diagnostics=False)
    assert new.methods == {"g": "sample", "x": "cart", "k": "cart", "y": "cart", "h": "cart"}
    for a, b in zip(new.implicates, old.implicates, strict=True):
        pd.testing.assert_frame_equal(a, b)
    again = Synthesizer(**kw).fit(df).sample(diagnostics=False)
    for a, b in zip(new.implicates, again.implicates, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_chunked_leaf_draws_equal_one_draw_on_the_whole_design(monkeypatch):
    # missing values exercise the indicator and the present-rows draw as well
    import synthguard.synthesis.engine as engine

    df = _frame(n=300)
    df.loc[df.index[::7], "y"] = np.nan
    kw = {"visit_sequence": ["g", "x", "k", "y", "h"], "random_state": 5, "m": 2}
    whole = Synthesizer(**kw).fit(df).sample(diagnostics=False)
    monkeypatch.setattr(engine, "_CHUNK_ROWS", 7)
    chunked = Synthesizer(**kw).fit(df).sample(diagnostics=False)
    assert whole.implicates[0]["y"].isna().any()
    for a, b in zip(whole.implicates, chunked.implicates, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_implicates_do_not_share_memory_with_the_synthesizer_or_each_other():
    df = _frame(n=200)
    syn = Synthesizer(keep=["x", "g"], random_state=0, m=2).fit(df)
    res = syn.sample(diagnostics=False)
    a, b = res.implicates
    kept = syn.fixed_arrays_["x"]
    assert not np.shares_memory(a["x"].to_numpy(), kept)
    assert not np.shares_memory(a["x"].to_numpy(), b["x"].to_numpy())
    a0 = a.copy()
    a.loc[a.index[0], "x"] = -1e9
    a.loc[a.index[0], "y"] = -1e9
    assert kept[0] == df["x"].iloc[0] and b["x"].iloc[0] == df["x"].iloc[0]
    again = syn.sample(diagnostics=False).implicates[0]
    pd.testing.assert_frame_equal(again, a0)  # same seed: the first implicate again


def test_rows_of_a_float32_design_stay_fortran_ordered():
    from synthguard.synthesis.engine import _select_rows

    rng = np.random.default_rng(0)
    X = np.asfortranarray(rng.normal(size=(50, 4)).astype(np.float32))
    keep = rng.random(50) < 0.6
    out = _select_rows(X, keep)
    assert out.flags.f_contiguous
    np.testing.assert_array_equal(out, X[keep])
    X64 = X.astype(np.float64, order="F")
    np.testing.assert_array_equal(_select_rows(X64, keep), X64[keep])


class _CartDrawingZeros(CartMethod):
    """Overrides draw only: the synthesizer must call it, not draw from the leaves itself."""

    def draw(self, X, rng):
        return np.zeros(len(X))


class _CartOwnLeaves(CartMethod):
    def draw_from_leaves(self, leaf, rng):
        return np.full(len(leaf), 7.0)


def test_chunked_leaf_draws_respect_subclasses_that_override_draw():
    from synthguard.synthesis.engine import _draws_from_leaves

    assert _draws_from_leaves(CartMethod()) and _draws_from_leaves(_CartOwnLeaves())
    assert not _draws_from_leaves(_CartDrawingZeros()) and not _draws_from_leaves(NormMethod())
    df = _frame(n=120)
    for method, value in ((_CartDrawingZeros(), 0.0), (_CartOwnLeaves(), 7.0)):
        res = Synthesizer(visit_sequence=["g", "x"], methods={"x": method}, extremes=0,
                          random_state=0).fit(df).sample(diagnostics=False)
        assert (res.implicates[0]["x"] == value).all()
