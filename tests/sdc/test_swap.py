"""Random swapping (exact rates, kept marginals, strata) and rank swapping (partner distance)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import ParameterError
from synthguard.sdc import swap


@pytest.fixture
def people() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 1001
    return pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east", "west"], size=n),
            "age": rng.integers(18, 90, size=n),
            "sex": rng.choice(["f", "m"], size=n),
            "income": rng.lognormal(10, 1, size=n),
            "id": np.arange(n),
        }
    )


def test_random_swap_rate_is_exact_and_marginals_are_kept(people):
    out = swap(people, ["region", "age"], rate=0.05, random_state=1)
    n = len(people)
    n_pairs = int(np.floor(0.05 * n / 2 + 0.5))
    assert out.params["n_swapped"] == 2 * n_pairs == 50
    # every swapped record got the other member's (region, age) jointly; others untouched
    moved = out.data["id"].to_numpy() == people["id"].to_numpy()
    assert moved.all()  # id is not swapped
    diff = (out.data[["region", "age"]] != people[["region", "age"]]).any(axis=1)
    assert diff.sum() <= 50
    assert out.n_changed_records == diff.sum()
    # marginals and the joint distribution of the swapped pair are unchanged
    for c in ("region", "age"):
        pd.testing.assert_series_equal(
            out.data[c].value_counts().sort_index(), people[c].value_counts().sort_index()
        )
    joint = people.groupby(["region", "age"]).size()
    pd.testing.assert_series_equal(out.data.groupby(["region", "age"]).size(), joint)
    # the other columns are untouched
    pd.testing.assert_frame_equal(out.data[["sex", "income"]], people[["sex", "income"]])


def test_random_swap_pairs_are_exchanges(people):
    out = swap(people, ["age"], rate=0.2, random_state=4)
    new, old = out.data["age"].to_numpy(), people["age"].to_numpy()
    changed = np.flatnonzero(new != old)
    # each changed value came from another record whose value went the other way
    for i in changed[:50]:
        partners = np.flatnonzero((old == new[i]) & (new == old[i]))
        assert partners.size >= 1


def test_random_swap_within_strata_keeps_stratum_marginals(people):
    out = swap(people, ["age", "income"], rate=0.1, strata="sex", random_state=2)
    for s in ("f", "m"):
        a = np.sort(out.data.loc[people["sex"] == s, "age"].to_numpy())
        b = np.sort(people.loc[people["sex"] == s, "age"].to_numpy())
        np.testing.assert_array_equal(a, b)
    sizes = people["sex"].value_counts().sort_index().to_numpy()
    pairs = out.params["pairs_by_stratum"]
    assert sum(pairs) == int(np.floor(0.1 * len(people) / 2 + 0.5))
    # proportional allocation: each stratum within one pair of its quota
    quota = sum(pairs) * sizes / sizes.sum()
    assert np.all(np.abs(np.array(pairs) - quota) < 1)


def test_rank_swap_partners_within_max_distance(people):
    p = 5.0
    out = swap(people, ["income"], method="rank", max_rank_distance=p, random_state=7)
    old = people["income"].to_numpy()
    new = out.data["income"].to_numpy()
    rank_old = np.argsort(np.argsort(old))
    pos = {v: r for v, r in zip(old, rank_old)}
    rank_new_source = np.array([pos[v] for v in new])
    gap = np.abs(rank_new_source - rank_old)
    assert gap.max() <= np.floor(p * len(people) / 100)
    assert out.params["max_rank_gap"]["income"] == gap.max()
    # a permutation of the same values: marginal kept exactly
    np.testing.assert_array_equal(np.sort(new), np.sort(old))
    # nearly everyone is paired at rate 1 (blocks of 51 ranks leave at most one out each)
    assert out.params["n_swapped"]["income"] >= len(people) - len(people) // 51 - 1


def test_rank_swap_rate_and_strata(people):
    out = swap(
        people, ["income", "age"], rate=0.5, strata="region", method="rank",
        max_rank_distance=10, random_state=3,
    )
    for c in ("income", "age"):
        assert out.params["n_swapped"][c] == 2 * int(np.floor(0.5 * len(people) / 2 + 0.5))
        for r in people["region"].unique():
            m = people["region"] == r
            np.testing.assert_array_equal(
                np.sort(out.data.loc[m, c].to_numpy()), np.sort(people.loc[m, c].to_numpy())
            )


def test_same_seed_same_output_and_input_not_mutated(people):
    before = people.copy()
    a = swap(people, ["region", "age"], rate=0.3, random_state=11)
    b = swap(people, ["region", "age"], rate=0.3, random_state=11)
    c = swap(people, ["region", "age"], rate=0.3, random_state=12)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert not a.data.equals(c.data)
    assert a.seed == 11
    pd.testing.assert_frame_equal(people, before)
    r1 = swap(people, ["income"], method="rank", max_rank_distance=3, random_state=5)
    r2 = swap(people, ["income"], method="rank", max_rank_distance=3, random_state=5)
    pd.testing.assert_frame_equal(r1.data, r2.data)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"columns": ["age"]}, "rate"),
        ({"columns": ["age"], "rate": 1.5}, "rate"),
        ({"columns": ["age"], "rate": 0}, "rate"),
        ({"columns": ["nope"], "rate": 0.1}, "columns"),
        ({"columns": ["age"], "rate": 0.1, "method": "shuffle"}, "method"),
        ({"columns": ["age"], "method": "rank"}, "max_rank_distance"),
        ({"columns": ["age"], "method": "rank", "max_rank_distance": 0}, "max_rank_distance"),
        ({"columns": ["region"], "method": "rank", "max_rank_distance": 5}, "columns"),
        ({"columns": ["age"], "rate": 0.1, "strata": "nope"}, "strata"),
        ({"columns": ["age"], "rate": 0.1, "random_state": -1}, "random_state"),
    ],
)
def test_bad_parameters(people, kwargs, param):
    with pytest.raises(ParameterError, match=param):
        swap(people, **kwargs)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 60),
    rate=st.floats(0.01, 1.0),
    n_strata=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_random_swap_properties_hold_for_any_rate_and_strata(n, rate, n_strata, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"g": rng.integers(0, n_strata, size=n), "x": rng.integers(0, 5, size=n),
                       "y": rng.normal(size=n)})
    out = swap(df, ["x", "y"], rate=rate, strata="g", random_state=seed)
    sizes = df["g"].value_counts().to_numpy()
    wanted = int(np.floor(rate * n / 2 + 0.5))
    feasible = int((sizes // 2).sum())
    assert out.params["n_pairs"] == min(wanted, feasible)
    assert out.params["n_swapped"] == 2 * out.params["n_pairs"]
    for g in df["g"].unique():
        m = df["g"] == g
        # within each stratum the (x, y) records are a permutation of the originals
        a = sorted(zip(df.loc[m, "x"], df.loc[m, "y"]))
        b = sorted(zip(out.data.loc[m, "x"], out.data.loc[m, "y"]))
        assert a == b
    assert out.n_changed_records <= out.params["n_swapped"]
