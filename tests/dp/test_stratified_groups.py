"""The stratified-DP article's balanced strata and 'only chosen groups' generation
(seed 003): post-processing of the noisy table, checked against the table itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger
from synthguard.dp.synthesizers import StratifiedSynthesizer
from synthguard.errors import ParameterError, PrivacyWarning

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")

CATS = {"age": ["18-29", "30-64", "65+"], "sex": ["f", "m"], "vote": ["D", "R", "O"]}


def _data(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.choice(CATS["age"], n, p=[0.2, 0.7, 0.1])          # seniors under-represented
    sex = rng.choice(CATS["sex"], n, p=[0.6, 0.4])
    p_d = np.where(age == "65+", 0.3, 0.55)
    vote = np.where(rng.random(n) < p_d, "D", np.where(rng.random(n) < 0.8, "R", "O"))
    return pd.DataFrame({"age": age, "sex": sex, "vote": vote})


def _fitted(**kw: object) -> StratifiedSynthesizer:
    return StratifiedSynthesizer(epsilon=2.0, categories=CATS, random_state=1, **kw).fit(_data())


def _noisy_shares(syn: StratifiedSynthesizer, fixed: dict[str, str]) -> pd.Series:
    t = syn.noisy_table()
    for c, v in fixed.items():
        t = t[t[c] == v]
    t = t.assign(noisy_count=t["noisy_count"].clip(lower=0))
    return t.groupby("vote")["noisy_count"].sum() / t["noisy_count"].sum()


def test_only_chosen_groups_draws_those_groups_from_their_noisy_cells() -> None:
    syn = _fitted()
    out = syn.sample(n=20000, only={"age": ["65+"]}, random_state=2).implicates[0]
    assert set(out["age"]) == {"65+"}
    shares = out["vote"].value_counts(normalize=True)
    expected = _noisy_shares(syn, {"age": "65+"})
    np.testing.assert_allclose(shares.reindex(expected.index), expected, atol=0.015)
    # the default size is the chosen cells' noisy count
    clipped = syn.noisy_table().query("age == '65+'")["noisy_count"].clip(lower=0).sum()
    assert len(syn.sample(only={"age": "65+"}, random_state=3).implicates[0]) == round(clipped)


def test_balance_gives_every_combination_the_same_rows() -> None:
    syn = _fitted()
    out = syn.sample(n=6001, balance=["age", "sex"], random_state=4).implicates[0]
    sizes = out.groupby(["age", "sex"]).size()
    assert len(sizes) == 6 and sizes.max() - sizes.min() <= 1 and sizes.sum() == 6001
    big = syn.sample(n=60000, balance=["age"], random_state=5).implicates[0]
    seniors = big[big["age"] == "65+"]["vote"].value_counts(normalize=True)
    expected = _noisy_shares(syn, {"age": "65+"})
    np.testing.assert_allclose(seniors.reindex(expected.index), expected, atol=0.015)


def test_target_variant_balances_strata() -> None:
    with pytest.warns(PrivacyWarning, match="stratum sizes"):
        syn = _fitted(target="vote")
    out = syn.sample(n=3000, balance=["age"], only={"sex": "f"}, random_state=6).implicates[0]
    assert set(out["sex"]) == {"f"}
    assert out["age"].value_counts().tolist() == [1000, 1000, 1000]


def test_plain_sampling_is_unchanged_and_nothing_is_spent() -> None:
    ledger = PrivacyLedger(epsilon=2.0)
    syn = StratifiedSynthesizer(epsilon=2.0, categories=CATS, random_state=1,
                                ledger=ledger).fit(_data())
    spent = len(ledger.charges)
    a = syn.sample(n=500, random_state=7).implicates[0]
    b = syn.sample(n=500, random_state=7, only=None, balance=None).implicates[0]
    pd.testing.assert_frame_equal(a, b)
    syn.sample(n=500, only={"age": ["65+"]}, balance=["sex"], random_state=8)
    assert len(ledger.charges) == spent == 1


def test_bad_groups_are_refused_by_name() -> None:
    syn = _fitted()
    with pytest.raises(ParameterError, match="'only': column 'region' is not synthesized"):
        syn.sample(only={"region": ["north"]})
    with pytest.raises(ParameterError, match="'only': column 'age' names 1 level"):
        syn.sample(only={"age": ["65+", "90+"]})
    with pytest.raises(ParameterError, match=r"'balance': column\(s\) \['region'\]"):
        syn.sample(balance=["region"])
