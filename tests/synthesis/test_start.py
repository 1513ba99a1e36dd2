"""Start data: the first columns of the visit sequence given, the rest synthesized."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.errors import ParameterError
from synthguard.synthesis import check_constraints


@pytest.fixture
def people() -> pd.DataFrame:
    rng = np.random.default_rng(8)
    n = 800
    region = rng.choice(["n", "s"], size=n, p=[0.7, 0.3])
    age = rng.integers(18, 80, n)
    income = np.where(region == "n", 50.0, 20.0) + 0.5 * age + rng.normal(0, 3, n)
    return pd.DataFrame({"region": region, "age": age, "income": income})


def test_a_start_of_another_size_sets_n_and_is_released_as_given(people) -> None:
    start = pd.DataFrame({"age": np.full(250, 30), "region": ["s"] * 250})
    syn = Synthesizer(visit_sequence=["region", "age", "income"], random_state=1, m=2,
                      extremes=0).fit(people)
    res = syn.sample(start=start, start_origin="a survey of the south")
    for d in res.implicates:
        assert len(d) == 250
        assert (d["region"] == "s").all() and (d["age"] == 30).all()
        # income is drawn conditional on the start: southern 30-year-olds earn about 35
        assert abs(d["income"].mean() - 35.0) < 2.0
    info = res.provenance["start"]
    assert info["columns"] == ["region", "age"] and info["n"] == 250
    assert info["origin"] == {"kind": "frame", "description": "a survey of the south"}


def test_start_from_a_release_with_m_implicates(people) -> None:
    first = Synthesizer(visit_sequence=["region"], random_state=3, m=2, n=120).fit(people)
    start = first.sample()
    syn = Synthesizer(visit_sequence=["region", "age", "income"], random_state=1, m=2)
    res = syn.fit(people).sample(start=start)
    for d, s in zip(res.implicates, start.implicates):
        pd.testing.assert_series_equal(d["region"], s["region"])
    assert res.provenance["start"]["origin"]["kind"] == "full"


def test_a_dp_start_is_recorded_as_covering_the_start_columns_only(people) -> None:
    dp = DPSyntheticData(implicates=[pd.DataFrame({"region": ["n", "s"] * 40})],
                         method="mst", epsilon=1.0, delta=1e-6, noise="opendp")
    res = Synthesizer(random_state=2).fit(people).sample(start=dp)
    origin = res.provenance["start"]["origin"]
    assert origin["kind"] == "dp" and origin["method"] == "mst" and origin["epsilon"] == 1.0
    assert "start columns only" in origin["note"]
    assert len(res.implicates[0]) == 80


def test_seeds_reproduce_with_start_data_and_constraints(people) -> None:
    start = people[["region"]].sample(300, random_state=0).reset_index(drop=True)
    kw = dict(constraints=["income >= 10"], random_state=6, m=2)
    a = Synthesizer(**kw).fit(people).sample(start=start)
    b = Synthesizer(**kw).fit(people).sample(start=start)
    for x, y in zip(a.implicates, b.implicates):
        pd.testing.assert_frame_equal(x, y)
        assert check_constraints(x, "income >= 10")["violations"].iloc[0] == 0
        pd.testing.assert_series_equal(x["region"], start["region"])


@pytest.mark.parametrize(
    ("start", "kw", "match"),
    [
        (pd.DataFrame({"age": [30]}), {}, "first columns of the visit sequence"),
        (pd.DataFrame({"region": ["x"]}), {}, "levels the confidential data do not have"),
        (pd.DataFrame({"region": ["n"], "age": ["old"]}), {}, "holds text"),
        (pd.DataFrame({"region": ["n"]}), {"keep": ["income"]}, "full synthesis"),
        (pd.DataFrame({"region": ["n"], "age": [1], "income": [2.0]}), {}, "every synthesized"),
        ([1, 2], {}, "expected a DataFrame"),
    ],
)
def test_bad_start_data_are_named(people, start, kw, match) -> None:
    syn = Synthesizer(**kw, random_state=1).fit(people)
    with pytest.raises(ParameterError, match=match) as e:
        syn.sample(start=start)
    assert "\n" not in str(e.value) and "'old'" not in str(e.value)


def test_a_start_with_strata_is_completed_within_each_stratum(people) -> None:
    band = np.where(people["age"] < 50, 0, 1)
    # a stratum effect the other columns do not carry: band 1 earns 100 more
    people = people.assign(band=band, income=people["income"] + 100 * band)
    start = pd.DataFrame({"region": ["s"] * 100 + ["n"] * 60,
                          "band": [0] * 100 + [1] * 60, "age": [30] * 100 + [60] * 60})
    syn = Synthesizer(strata="band", visit_sequence=["region", "age", "income"],
                      random_state=4, m=2, extremes=0, min_stratum_size=0).fit(people)
    res = syn.sample(start=start)
    for d in res.implicates:
        assert len(d) == 160
        # stratum by stratum (band 0, then band 1), each stratum's records in the start's order
        assert d["band"].tolist() == [0] * 100 + [1] * 60
        assert d["region"].tolist() == ["s"] * 100 + ["n"] * 60
        assert d["age"].tolist() == [30] * 100 + [60] * 60
        # income from each stratum's own model: south 30-year-olds ~35, north 60-year-olds
        # ~180 (band 0's model, fit on ages below 50 without the 100, would give ~75)
        assert abs(d["income"][:100].mean() - 35.0) < 4
        assert abs(d["income"][100:].mean() - 180.0) < 6
    again = syn.sample(start=start)
    pd.testing.assert_frame_equal(res.implicates[1], again.implicates[1])


@pytest.mark.parametrize(
    ("start", "match"),
    [(pd.DataFrame({"region": ["n"], "band": [0], "age": [40]}), "strata column"),
     (pd.DataFrame({"region": ["n"], "band": [7], "twin": [1], "age": [40]}),
      "levels the confidential data do not have"),
     # each value seen, the combination not: no model was fit for it
     (pd.DataFrame({"region": ["n"], "band": [0], "twin": [1], "age": [40]}),
      "stratum of band, twin")],
)
def test_bad_start_with_strata_is_named(people, start, match) -> None:
    band = np.where(people["age"] < 50, 0, 1)
    people = people.assign(band=band, twin=band)
    syn = Synthesizer(strata=["band", "twin"], visit_sequence=["region", "age", "income"],
                      random_state=1, min_stratum_size=0).fit(people)
    with pytest.raises(ParameterError, match=match) as e:
        syn.sample(start=start)
    assert "\n" not in str(e.value) and "7" not in str(e.value)


def test_a_dp_start_is_named_with_its_budget_in_the_summary(people) -> None:
    dp = DPSyntheticData(implicates=[pd.DataFrame({"region": ["n", "s"] * 40})],
                         method="mst", epsilon=1.5, delta=1e-6, noise="opendp")
    text = Synthesizer(random_state=2).fit(people).sample(start=dp).summary()
    line = next(x for x in text.splitlines() if x.startswith("start:"))
    assert "region come from a differentially private synthesizer (mst, epsilon = 1.5, " \
           "delta = 1e-06)" in line
    assert "covers these columns only" in line and "not differentially private" in line
    plain = Synthesizer(random_state=2).fit(people).sample(
        start=pd.DataFrame({"region": ["n"] * 30}), start_origin="a census count")
    assert "start: region given (a census count)" in plain.summary()
