"""``passive`` and ``nested``: exact consistency, nesting, seeds and weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import MethodError
from synthguard.synthesis.methods import NestedMethod, PassiveMethod

LABEL_NUM = {"low": 1, "mid": 5, "high": 9}
COUNTRY = {"r1": "A", "r2": "A", "r3": "B", "r4": "B", "r5": "C"}


def _frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.choice(list(LABEL_NUM), size=n, p=[0.5, 0.3, 0.2])
    region = rng.choice(list(COUNTRY), size=n)
    x = rng.normal(size=n) + np.vectorize(LABEL_NUM.get)(label)
    return pd.DataFrame({
        "label": label,
        "country": [COUNTRY[r] for r in region],
        "x": x,
        "num": [LABEL_NUM[v] for v in label],
        "region": region,
        "double_x": 2.0 * x + 1.0,
    })


def test_passive_lookup_and_formula_are_exact_in_every_implicate():
    df = _frame()
    res = Synthesizer(
        methods={"num": "passive:of=label", "double_x": "passive:formula=2 * x + 1",
                 "region": "nested:parent=country"},
        m=3, random_state=4,
    ).fit(df).sample()
    assert res.methods["num"] == "passive" and res.methods["region"] == "nested"
    for s in res.implicates:
        assert (s["num"] == s["label"].map(LABEL_NUM)).all()
        np.testing.assert_array_equal(s["double_x"].to_numpy(), 2.0 * s["x"].to_numpy() + 1.0)
        # nested: every region lies in its synthetic country
        assert (s["region"].map(COUNTRY) == s["country"]).all()
        assert s["num"].dtype == df["num"].dtype


def test_passive_callable_and_categorical_formula():
    df = _frame()
    df["big"] = np.where(df["num"] > 4, "yes", "no")
    res = Synthesizer(
        visit_sequence=["label", "x", "num", "big"],
        methods={"num": PassiveMethod(func=lambda f: f["label"].map(LABEL_NUM).astype(float)),
                 "big": "passive:formula=num > 4"},
        random_state=1,
    ).fit(df).sample()
    s = res.implicates[0]
    assert (s["num"] == s["label"].map(LABEL_NUM)).all()
    assert (s["big"] == np.where(s["num"] > 4, "yes", "no")).all()
    assert set(s["big"]) == {"yes", "no"}


def test_same_seed_same_release_and_other_seed_differs():
    df = _frame()
    spec = {"num": "passive:of=label", "region": "nested:parent=country"}
    a = Synthesizer(methods=spec, random_state=7).fit(df).sample().implicates[0]
    b = Synthesizer(methods=spec, random_state=7).fit(df).sample().implicates[0]
    c = Synthesizer(methods=spec, random_state=8).fit(df).sample().implicates[0]
    pd.testing.assert_frame_equal(a, b)
    assert not a["region"].equals(c["region"])


def test_passive_refuses_what_is_not_a_function_and_a_wrong_formula():
    df = _frame()
    with pytest.raises(MethodError, match="not a function of 'country'"):
        Synthesizer(methods={"region": "passive:of=country"}).fit(df)
    with pytest.raises(MethodError, match="does not reproduce"):
        Synthesizer(methods={"double_x": "passive:formula=2 * x"}).fit(df)
    with pytest.raises(MethodError, match="must be kept or synthesized before it"):
        Synthesizer(visit_sequence=["num", "label"], methods={"num": "passive:of=label"},
                    min_rows=0).fit(df)
    with pytest.raises(MethodError, match="exactly one of"):
        Synthesizer(methods={"num": "passive"}).fit(df)


def test_passive_keeps_missing_values_of_the_lookup():
    df = _frame()
    df["label"] = df["label"].where(df.index % 7 != 0, None)
    df["num"] = df["label"].map(LABEL_NUM)
    res = Synthesizer(methods={"num": "passive:of=label"}, random_state=2).fit(df).sample()
    s = res.implicates[0]
    assert s["label"].isna().any()
    assert (s["num"].isna() == s["label"].isna()).all()
    assert (s["num"].dropna() == s["label"].dropna().map(LABEL_NUM)).all()
    assert "num" not in res.provenance["missingness_methods"]


def test_nested_direct_draws_only_children_of_the_parent_with_their_frequencies():
    X = pd.DataFrame({"p": pd.Categorical(["A"] * 3 + ["B"] * 2)})
    y = np.array([0, 1, 1, 2, 3])
    m = NestedMethod().fit(X, y)
    Xs = pd.DataFrame({"p": pd.Categorical(["A"] * 30000, categories=["A", "B"])})
    out = m.draw(Xs, np.random.default_rng(0))
    assert set(out) == {0, 1}
    assert abs(np.mean(out == 1) - 2 / 3) < 0.01  # child 1 is 2 of A's 3 records


def test_nested_weights_zero_drops_and_integer_duplicates():
    X = pd.DataFrame({"p": pd.Categorical(["A", "A", "A", "B", "B"])})
    y = np.array([0.5, 1.5, 2.5, 3.5, 4.5])
    w = np.array([0.0, 2.0, 1.0, 1.0, 3.0])
    Xs = pd.DataFrame({"p": pd.Categorical(["A", "B"] * 500)})
    weighted = NestedMethod(parent="p").fit(X, y, weights=w).draw(Xs, np.random.default_rng(5))
    assert 0.5 not in set(weighted)  # weight 0: never drawn
    dup = np.repeat(np.arange(5), w.astype(int))
    copies = NestedMethod(parent="p").fit(X.iloc[dup].reset_index(drop=True), y[dup]).draw(
        Xs, np.random.default_rng(5))
    np.testing.assert_array_equal(weighted, copies)


def test_nested_unseen_parent_raises():
    X = pd.DataFrame({"p": pd.Categorical(["A", "A"], categories=["A", "B"])})
    m = NestedMethod(parent="p").fit(X, np.array([0, 1]))
    with pytest.raises(MethodError, match="no records"):
        m.draw(pd.DataFrame({"p": pd.Categorical(["B"], categories=["A", "B"])}),
               np.random.default_rng(0))


def test_passive_lookup_on_a_numeric_parent_refuses_unseen_values():
    X = pd.DataFrame({"a": [1.0, 2.0, 2.0, np.nan]})
    m = PassiveMethod(of="a").fit(X, np.array([10.0, 20.0, 20.0, 0.0]))
    out = m.draw(pd.DataFrame({"a": [2.0, np.nan, 1.0]}), np.random.default_rng(0))
    np.testing.assert_array_equal(out, [20.0, 0.0, 10.0])
    with pytest.raises(MethodError, match="never occur"):
        m.draw(pd.DataFrame({"a": [3.0]}), np.random.default_rng(0))


def test_passive_columns_are_not_tail_coded():
    df = _frame()
    syn = Synthesizer(methods={"double_x": "passive:formula=2 * x + 1"}, random_state=3,
                      extremes=5).fit(df)
    assert "x" in syn.tail_thresholds_ and "double_x" not in syn.tail_thresholds_


def test_saved_synthesizer_with_passive_and_nested_draws_the_same(tmp_path):
    df = _frame()
    syn = Synthesizer(methods={"num": "passive:of=label", "region": "nested:parent=country"},
                      random_state=5).fit(df)
    path = tmp_path / "syn.confidential.pkl"
    syn.save(path)
    again = Synthesizer.load(path)
    pd.testing.assert_frame_equal(syn.sample().implicates[0], again.sample().implicates[0])


def test_passive_breaks_bin_a_numeric_column_like_r_cut():
    # codes 0..2 of the levels "<=24", "25-59", "60+"; intervals closed on the right
    X = pd.DataFrame({"age": [16.0, 24.0, 25.0, 40.0, 59.0, 60.0, 80.0, np.nan]})
    y = np.array([0, 0, 1, 1, 1, 2, 2, 1])
    m = PassiveMethod(of="age", breaks="24.5,59.5").fit(X, y)
    new = pd.DataFrame({"age": [24.5, 24.6, 59.5, 59.50001, 100.0, 0.0, np.nan]})
    # 24.5 is in (-inf, 24.5]: the first bin, as R's cut(x, c(-Inf, 24.5, 59.5, Inf))
    assert m.draw(new, np.random.default_rng(0)).tolist() == [0, 1, 1, 2, 2, 0, 1]
    assert m.sources_ == ()  # any age has a bin: the guard may move the ages
    # a list works as the text does; a contradicting binning is refused
    assert PassiveMethod(of="age", breaks=[24.5, 59.5]).fit(X, y).lookup_values_.tolist() \
        == [1, 0, 1, 2]
    with pytest.raises(MethodError, match="not a binning"):
        PassiveMethod(of="age", breaks="30.5,59.5").fit(X, y)
    with pytest.raises(MethodError, match="increasing"):
        PassiveMethod(of="age", breaks="59.5,24.5").fit(X, y)
    with pytest.raises(MethodError, match="breaks"):
        PassiveMethod(formula="age", breaks="1").fit(X, y)


def test_sd2011_like_age_groups_released_exactly_consistent():
    rng = np.random.default_rng(5)
    n = 600
    age = rng.integers(16, 90, n).astype(float)
    grp = np.array(["16-24", "25-44", "45+"])[np.searchsorted([24.5, 44.5], age)]
    inc = np.round(rng.lognormal(8 + age / 40, 0.4))
    df = pd.DataFrame({"age": age, "agegr": grp, "income": inc})
    res = Synthesizer(methods={"agegr": "passive:of=age:breaks=24.5,44.5"}, m=2,
                      random_state=3).fit(df).sample()
    for s in res.implicates:
        expect = np.array(["16-24", "25-44", "45+"])[np.searchsorted([24.5, 44.5], s["age"])]
        assert (s["agegr"].astype(str).to_numpy() == expect).all()


def _hours_frame(n: int = 600, seed: int = 5) -> pd.DataFrame:
    """``hours`` (a CART target adjust='auto' would move: no point mass over half the
    records) and ``hours_per_day`` derived from it by a lookup."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 70, n).astype(float)
    hours = np.round(20 + 0.4 * age + rng.normal(0, 6, n), 2)
    return pd.DataFrame({"age": age, "hours": hours, "hours_per_day": hours / 5})


def _fitted(syn: Synthesizer, column: str):
    return next(cm.value.method for cm in syn.blocks_[0].models if cm.target == column)


def test_cart_default_adjusts_but_not_a_column_a_lookup_reads():
    df = _hours_frame()
    alone = Synthesizer(random_state=2).fit(df[["age", "hours"]])
    assert _fitted(alone, "hours").adjusts_  # the default moves donors along the slopes
    new_values = ~alone.sample().implicates[0]["hours"].isin(df["hours"])
    assert new_values.any()
    syn = Synthesizer(methods={"hours_per_day": "passive:of=hours"}, random_state=2).fit(df)
    assert not _fitted(syn, "hours").adjusts_
    out = syn.sample(m=2).implicates
    for s in out:
        assert s["hours"].isin(df["hours"]).all()
        np.testing.assert_allclose(s["hours_per_day"], s["hours"] / 5)


@pytest.mark.parametrize("option", ["cart:adjust=scaled", "cart:smoothing=density"])
def test_an_asked_for_adjustment_of_a_lookup_source_is_refused(option):
    df = _hours_frame()
    with pytest.raises(MethodError, match="'hours_per_day' looks 'hours' up"):
        Synthesizer(methods={"hours": option, "hours_per_day": "passive:of=hours"},
                    random_state=2).fit(df)
