"""Exact functional dependencies and the passive/nested methods proposed for them."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from synthguard.synthesis.dependencies import Dependency, functional_dependencies, propose_methods


def _brute(df: pd.DataFrame, a: str, b: str) -> bool:
    return bool((df.groupby(a, dropna=False)[b].nunique(dropna=False) == 1).all())


def test_dependencies_match_brute_force_on_random_data():
    rng = np.random.default_rng(0)
    n = 600
    a = rng.integers(0, 6, n)
    df = pd.DataFrame({
        "a": a.astype(str),
        "code_a": a * 10,             # one-to-one with a
        "coarse": (a // 3).astype(str),  # function of a, not the other way
        "noise": rng.integers(0, 4, n).astype(str),
        "x": rng.normal(size=n),      # continuous: never a determinant
    })
    found = functional_dependencies(df)
    assert Dependency("a", "code_a", True) in found
    assert Dependency("a", "coarse", False) in found
    assert Dependency("code_a", "coarse", False) in found
    got = {(d.determinant, d.dependent) for d in found} | {
        (d.dependent, d.determinant) for d in found if d.one_to_one}
    for u, v in itertools.permutations(["a", "code_a", "coarse", "noise"], 2):
        assert ((u, v) in got) == _brute(df, u, v), (u, v)
    assert not any("x" == d.determinant for d in found)


def test_proposals_follow_the_visit_order():
    rng = np.random.default_rng(1)
    region = rng.integers(0, 8, 800)
    df = pd.DataFrame({"country": (region // 4).astype(str), "region": region.astype(str),
                       "label": region.astype(str), "code": region + 100})
    # region after country: nested; label and code are codings of region: passive
    p = propose_methods(df[["country", "region", "code"]])
    assert p == {"region": "nested:parent=country", "code": "passive:of=region"}
    # country after region: a function of it, so passive
    p = propose_methods(df, visit_sequence=["region", "country"])
    assert p == {"country": "passive:of=region"}


def test_too_few_records_per_level_is_not_evidence():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": np.arange(50) % 25, "b": rng.integers(0, 2, 50)})
    assert functional_dependencies(df) == []  # 2 records per level: chance, not a rule


def test_public_breaks_are_rounded_midpoints_strictly_inside_the_gap():
    from synthguard.synthesis.dependencies import public_break

    assert public_break(24, 25) == 24.5  # whole ages: no whole number inside
    assert public_break(29_400, 35_100) == 30_000  # midpoint 32,250 -> 1 significant digit
    assert public_break(0.97, 1.03) == 1.0
    assert public_break(-3, -1) == -2
    assert public_break(59, 60) == 59.5


def test_interval_binnings_found_with_a_few_missing_groups_and_brute_force_ranges():
    from synthguard.synthesis.dependencies import interval_binnings

    rng = np.random.default_rng(2)
    n = 800
    age = rng.integers(16, 95, n).astype(float)
    edges = [24.5, 34.5, 59.5]
    labels = np.array(["16-24", "25-34", "35-59", "60+"])
    group = labels[np.searchsorted(edges, age)].astype(object)
    group[:3] = None  # a few records with the group missing (as SD2011's agegr)
    income = np.round(rng.lognormal(10, 1, n))
    noise = rng.choice(["a", "b"], n)  # not a binning of anything
    df = pd.DataFrame({"age": age, "group": group, "income": income, "noise": noise})
    found = interval_binnings(df)
    assert [(b.source, b.binned) for b in found] == [("age", "group")]
    # brute force: each group's observed range, in order; breaks are the rounded midpoints
    rng_ = df.dropna().groupby("group")["age"].agg(["min", "max"]).sort_values("min")
    assert found[0].levels == tuple(rng_.index)
    mids = (rng_["max"].to_numpy()[:-1] + rng_["min"].to_numpy()[1:]) / 2
    assert found[0].breaks == tuple(mids) == (24.5, 34.5, 59.5)
    assert propose_methods(df) == {"group": "passive:of=age:breaks=24.5,34.5,59.5"}
    # group visited before age: no proposal (passive reads columns synthesized before it)
    assert propose_methods(df, visit_sequence=["group", "age", "income"]) == {}
    # overlapping ranges (one record moved to the wrong group) are not a binning
    bad = df.copy()
    bad.loc[bad.index[bad["age"] == 30][0], "group"] = "60+"
    assert interval_binnings(bad) == []
    # more than 1% of the groups missing where the age is known: not proposed
    many = df.copy()
    many.loc[many.index[:20], "group"] = None
    assert interval_binnings(many) == []
