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
