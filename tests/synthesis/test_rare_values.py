"""No near-unique value by default: rare numbers smoothed off, rare levels redrawn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer, synthesize
from synthguard.data import infer_schema
from synthguard.errors import ParameterError
from synthguard.synthesis.rare_values import RareGuard, _knn_bandwidth, _off_rare


@pytest.fixture
def data() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 600
    region = rng.choice(["A", "B", "C"], n).astype(object)
    region[:2] = "Tiny"  # a level held by 2 records
    gain = np.where(rng.random(n) < 0.8, 0.0, np.round(rng.lognormal(8, 1, n), 0))
    return pd.DataFrame({
        "region": region,
        "age": rng.integers(18, 80, n),
        "gain": gain,  # a point mass at 0, rare values above
        "wt": np.round(rng.lognormal(11, 0.5, n), 1),  # nearly every value unique
    })


def _rare(conf: pd.Series, k: int = 5) -> set:
    vc = conf.value_counts()
    return set(vc[vc < k].index)


def test_default_release_hands_back_no_rare_value_and_keeps_point_masses(data):
    off = synthesize(data, m=2, random_state=1, rare_values=0)
    res = synthesize(data, m=2, random_state=1)
    for c in ("age", "gain", "wt"):
        rare = _rare(data[c])
        assert sum(s[c].isin(rare).sum() for s in off.implicates) > 0  # plain CART does
        for s in res.implicates:
            assert not s[c].isin(rare).any()
            # at the column's precision and inside the observed range
            assert s[c].between(data[c].min(), data[c].max()).all()
    for s in res.implicates:
        assert (s["wt"] * 10 == np.round(s["wt"] * 10)).all()
        assert (s["age"] == np.round(s["age"])).all()
        # zeros of gain are a point mass: kept exact, share close to the data's
        assert abs((s["gain"] == 0).mean() - (data["gain"] == 0).mean()) < 0.05
        assert "Tiny" not in set(s["region"])
    counts = res.safeguards.rare
    assert len(counts) == 2 and all(d.get("wt", 0) > 0 for d in counts)
    assert "near-unique values" in res.safeguards.summary()
    assert "rare_wt" in res.safeguards.to_frame().columns
    # same seed, same release
    again = synthesize(data, m=2, random_state=1)
    for a, b in zip(res.implicates, again.implicates):
        pd.testing.assert_frame_equal(a, b)


def test_declared_levels_are_public(data):
    schema = {"region": {"kind": "categorical", "levels": ["A", "B", "C", "Tiny"]}}
    kw = dict(random_state=3, replicated_uniques="keep", m=5)
    declared = synthesize(data, schema=schema, **kw)
    named = synthesize(data, public_levels={"region": ["Tiny"]}, **kw)
    for res in (declared, named):
        assert any("Tiny" in set(s["region"]) for s in res.implicates)
    with pytest.raises(ParameterError, match="rare_values"):
        Synthesizer(rare_values=-1).fit(data)


def test_guard_by_hand():
    # values 1 (x1), 2 (x2), 3 (x6), 10 (x1): with k = 5, 1, 2 and 10 are rare
    x = np.array([1.0, 2, 2, 3, 3, 3, 3, 3, 3, 10])
    schema = infer_schema(pd.DataFrame({"x": x}))
    guard = RareGuard({"x": x}, schema, ["x"], 5)
    spec = guard.numeric["x"]
    np.testing.assert_array_equal(spec.rare, [1.0, 2.0, 10.0])
    assert (spec.lo, spec.hi, spec.decimals) == (1.0, 10.0, 0)
    # k-th (5th) nearest other record: from 1 -> 2,2,3,3,3 -> 2; from 2 -> 2,1,3,3,3 -> 1;
    # from 10 -> 3 (x6) -> 7
    np.testing.assert_array_equal(_knn_bandwidth(np.sort(x), spec.rare, 5), [2.0, 1.0, 7.0])
    # off the grid of rare values: 2 -> 3 (1 is rare too); 10 -> 9 (inside the bounds)
    np.testing.assert_array_equal(_off_rare(np.array([2.0, 10.0]), spec), [3.0, 9.0])
    out = {"x": np.array([1.0, 2.0, 3.0, 10.0, 3.0])}
    changed = guard.apply(out, np.random.default_rng(0))
    assert changed == {"x": 3}
    assert not np.isin(out["x"], spec.rare).any() and out["x"][2] == 3.0
    assert RareGuard({"x": x}, schema, ["x"], 0).active is False


def test_a_passive_lookup_column_leaves_the_guard_on_its_other_predictors():
    # passive 'of=g' reads g's values up in a table, so g keeps its drawn values; x is only
    # another predictor of the passive column and must stay guarded (it was excluded, so
    # Adult's near-unique fnlwgt came back exactly whenever education_num was passive)
    rng = np.random.default_rng(0)
    g = rng.choice(["a", "b", "c"], 600)
    conf = pd.DataFrame({"g": pd.Categorical(g), "x": rng.normal(50, 10, 600).round(3),
                         "gnum": pd.Series(g).map({"a": 1, "b": 2, "c": 3}).astype(int)})
    syn = Synthesizer(methods={"g": "sample", "x": "cart", "gnum": "passive:of=g"},
                      visit_sequence=["g", "x", "gnum"], random_state=1).fit(conf)
    out = syn.sample().implicates[0]
    counts = conf["x"].value_counts()
    assert not out["x"].isin(set(counts[counts < 5].index)).any()
    # ... and the passive column still follows its source exactly
    assert (out.groupby("g", observed=True)["gnum"].nunique() == 1).all()
    assert dict(zip(out["g"], out["gnum"])) == {"a": 1, "b": 2, "c": 3}


def test_values_are_compared_at_the_columns_precision():
    # planted near-unique values (3 decimals); a draw off by floating-point error (a
    # back-transformed donor) is that value, a draw between observed values is not
    rng = np.random.default_rng(4)
    x = np.r_[np.repeat([10.0, 20.0, 30.0], 20), [12.345, 17.001, 28.999]]
    schema = infer_schema(pd.DataFrame({"x": x}))
    guard = RareGuard({"x": x}, schema, ["x"], 5)
    spec = guard.numeric["x"]
    assert spec.decimals == 3
    planted = np.array([12.345, 17.001, 28.999])
    near = planted * (1 + 1e-14)
    assert not np.isin(near, x).any()  # not equal as floats ...
    out = {"x": np.r_[near, [12.3456, 15.0, 20.0]]}
    changed = guard.apply(out, rng)
    assert changed == {"x": 3}  # ... but equal at the precision: moved
    assert not spec.hits(out["x"]).any()
    # a value between the observed ones and a common value are released unchanged
    np.testing.assert_array_equal(out["x"][3:], [12.3456, 15.0, 20.0])


def test_rare_donors_move_only_within_their_neighbourhood():
    # a skewed column of nearly all distinct values: CART (no predictor) copies donors, and
    # every one is near-unique. The guard moves each by N(0, h^2) with h its 5th-nearest
    # neighbour distance (not a leaf-wide bandwidth, which spread the dense low values: the
    # 5% quantile fell from 449 to 303-337 with the leaf bandwidth on this sample)
    rng = np.random.default_rng(3)
    x = np.round(rng.lognormal(8, 1.2, 2000), 2)
    conf = pd.DataFrame({"x": x})
    kw = dict(methods={"x": "cart"}, extremes=0, replicated_uniques="keep", random_state=0)
    raw = Synthesizer(rare_values=0, **kw).fit(conf).sample().implicates[0]["x"].to_numpy()
    res = Synthesizer(**kw).fit(conf).sample()
    out = res.implicates[0]["x"].to_numpy()
    counts = pd.Series(x).value_counts()
    rare = np.sort(counts[counts < 5].index.to_numpy(dtype=float))
    assert np.isin(raw, rare).mean() > 0.99  # the first draw copies near-unique donors
    assert not np.isin(out, rare).any()
    h = _knn_bandwidth(np.sort(x), rare, 5)[np.searchsorted(rare, raw)]
    assert np.all(np.abs(out - raw) <= 5 * h + 0.01)
    # the moves are local: the release's low quantiles stay the draw's
    np.testing.assert_allclose(np.quantile(out, [0.01, 0.05, 0.5]),
                               np.quantile(raw, [0.01, 0.05, 0.5]), rtol=0.06)


@pytest.mark.parametrize("n", [0, 5, 1023, 1024, 5000])
def test_in_sorted_is_membership(n):
    # brute force: a Python set; NaN is never found (also when the set holds none), values
    # beyond both ends, below and above the 1,024 values where the searches are sorted first
    from synthguard.synthesis.rare_values import _in_sorted

    rng = np.random.default_rng(n)
    values = np.round(rng.normal(0, 30, n))
    values[::11] = np.nan
    for members in (np.unique(np.round(rng.normal(0, 10, 40))), np.array([-500.0, 7.0]),
                    np.array([]), np.unique(values[~np.isnan(values)])[::3]):
        want = np.array([v in set(members.tolist()) for v in values.tolist()], dtype=bool)
        np.testing.assert_array_equal(_in_sorted(values, members), want)
