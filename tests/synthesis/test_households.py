"""Household synthesis (issue 33): consistency, no copied household, seeds, partial
synthesis, bad input, and rules within a household."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.data.constraints import check_constraints
from synthguard.errors import DataError, ParameterError


def simulate(n_households: int = 300, seed: int = 0) -> pd.DataFrame:
    """A household-person file: region and a continuous dwelling value per household, size
    1-5 in ``hsize``; per person a relationship (1 head, 2 partner, 3 child), sex, age and a
    continuous income (so every household is unique and a copied one detectable)."""
    rng = np.random.default_rng(seed)
    rows = []
    for h in range(n_households):
        size = int(rng.choice([1, 2, 3, 4, 5], p=[0.25, 0.3, 0.2, 0.15, 0.1]))
        region = str(rng.choice(["north", "south", "east"]))
        rent = round(float(rng.gamma(4, 150)), 2)
        head_age = int(rng.integers(20, 80))
        for k in range(size):
            relat = 1 if k == 0 else (2 if k == 1 and size > 1 and rng.random() < 0.8 else 3)
            age = head_age if k == 0 else (
                int(np.clip(head_age + rng.normal(0, 4), 16, 90)) if relat == 2
                else int(rng.integers(0, max(1, head_age - 16))))
            sex = int(rng.integers(1, 3)) if k == 0 else (3 - rows[-k][3] if relat == 2
                                                          else int(rng.integers(1, 3)))
            income = round(float(rng.gamma(2, 9000)) if age >= 16 else 0.0, 2)
            rows.append((1000 + 7 * h, region, rent, sex, relat, age, income, size))
    return pd.DataFrame(rows, columns=["hid", "region", "rent", "sex", "relat", "age", "income",
                                       "hsize"])


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return simulate()


@pytest.fixture(scope="module")
def release(data):
    syn = Synthesizer(household="hid", random_state=3).fit(data)
    return syn, syn.sample(m=2)


def test_household_level_values_constant_and_size_equals_members(data, release):
    syn, res = release
    assert set(syn.households_.layout_.household_columns) == {"region", "rent", "hsize"}
    for df in res.implicates:
        assert list(df.columns) == list(data.columns)
        g = df.groupby("hid")
        assert (g[["region", "rent", "hsize"]].nunique() == 1).all().all()
        assert (g.size() == g["hsize"].first()).all()


def test_new_ids_and_no_household_copied(data, release):
    _, res = release
    conf = {tuple(sorted(map(tuple, g.drop(columns="hid").astype(str).to_numpy())))
            for _, g in data.groupby("hid")}
    for df in res.implicates:
        ids = df["hid"].to_numpy()
        assert not set(ids) & set(data["hid"])  # data ids are 1000 + 7h, new ones 1..H
        assert sorted(set(ids)) == list(range(1, len(set(ids)) + 1))
        syn = {tuple(sorted(map(tuple, g.drop(columns="hid").astype(str).to_numpy())))
               for _, g in df.groupby("hid")}
        assert not syn & conf  # brute force: no synthetic household equals a data household
        # sizes are synthesized: the distribution is near the data's, not a copy of its order
        tv = 0.5 * (df.groupby("hid").size().value_counts(normalize=True).sub(
            data.groupby("hid").size().value_counts(normalize=True), fill_value=0).abs().sum())
        assert tv < 0.1


def test_members_ordered_head_first(release):
    _, res = release
    df = res.implicates[0]
    first = df.groupby("hid")["relat"].first()
    assert (first == df.groupby("hid")["relat"].min()).all()


def test_same_seed_same_output_and_different_seed_differs(data, release):
    syn, res = release
    again = Synthesizer(household="hid", random_state=3).fit(data).sample(m=2)
    for a, b in zip(res.implicates, again.implicates):
        pd.testing.assert_frame_equal(a, b)
    other = syn.sample(m=1, random_state=4).implicates[0]
    assert not other.equals(res.implicates[0])


def test_partial_synthesis_keeps_kept_columns(data):
    res = Synthesizer(household="hid", keep=["region", "sex", "relat"],
                      random_state=1).fit(data).sample()
    df = res.implicates[0]
    assert res.kind == "partial" and len(df) == len(data)
    for c in ("region", "sex", "relat", "hsize"):
        assert df[c].tolist() == data[c].tolist()
    assert (df.groupby("hid")["rent"].nunique() == 1).all()
    assert not df["income"].equals(data["income"])


def test_declared_household_column_that_varies_is_refused(data):
    with pytest.raises(DataError, match="'household_columns': age vary"):
        Synthesizer(household="hid", household_columns=["region", "age"]).fit(data)


def test_person_level_strata_refused_and_household_strata_kept(data):
    with pytest.raises(ParameterError, match="strata"):
        Synthesizer(household="hid", strata="sex").fit(data)
    df = Synthesizer(household="hid", strata="region", min_stratum_size=0,
                     random_state=2).fit(data).sample().implicates[0]
    assert (df.groupby("hid")["region"].nunique() == 1).all()
    assert set(df["region"]) <= set(data["region"])


def test_rules_within_household_checked_and_counted(data):
    rules = ["count(relat == 1) == 1", "relat == 3 -> age < head.age",
             "relat == 2 -> age >= 16"]
    # brute force on the data: the simulation keeps every rule
    for _, g in data.groupby("hid"):
        assert (g["relat"] == 1).sum() == 1
        assert (g.loc[g["relat"] == 3, "age"] < g["age"].iloc[0]).all()
    assert check_constraints(data, rules, household="hid")["violations"].sum() == 0
    res = Synthesizer(household="hid", constraints=rules, random_state=5).fit(data).sample()
    df = res.implicates[0]
    counted = res.households.rules
    direct = check_constraints(df, rules, household="hid")["violations"]
    assert {t: v[0] for t, v in counted.items()} == direct.to_dict()
    assert direct.sum() == 0  # broken households are drawn again
    assert "rule 'count(relat == 1) == 1'" in res.summary()


def test_data_breaking_a_household_rule_is_reported_not_enforced(data):
    bad = data.copy()
    bad.loc[bad.index[1], "relat"] = 1  # a second head in one household
    rule = "count(relat == 1) == 1"
    with pytest.raises(DataError, match="rules within households"):
        Synthesizer(household="hid", constraints=[rule]).fit(bad)
    res = Synthesizer(household="hid", constraints=[rule], allow_violations=True,
                      random_state=1).fit(bad).sample()
    assert res.households.rules_data[rule] == "fewer than 10"


def test_member_rule_without_household_needs_the_id(data):
    with pytest.raises(ParameterError, match="household"):
        check_constraints(data, "relat == 3 -> age < head.age")


def test_cli_household(tmp_path, data):
    from click.testing import CliRunner

    from synthguard.cli import main

    path = tmp_path / "persons.csv"
    data.to_csv(path, index=False)
    rules = tmp_path / "rules.yaml"
    rules.write_text('- "count(relat == 1) == 1"\n- "relat == 3 -> age < head.age"\n')
    out = tmp_path / "syn"
    r = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(out), "--household",
                                  "hid", "--constraints", str(rules), "--seed", "1"])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(out / "synthetic_1.csv")
    assert (df.groupby("hid")["rent"].nunique() == 1).all()
    import json

    manifest = json.loads((out / "synthguard_manifest.json").read_text())
    assert manifest["details"]["household"]["id"] == "hid"
    r = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(tmp_path / "s2"),
                                  "--household", "hid", "--household-columns", "age"])
    assert r.exit_code == 2


def test_household_and_person_weights_reach_their_models(data):
    df = data.assign(hw=data.groupby("hid")["rent"].transform(lambda r: 1 + (r > 600)),
                     pw=np.where(data["age"] >= 16, 2.0, 1.0))
    # as for persons, likelihood weights need weighted methods (rf here)
    syn = Synthesizer(household="hid", weights="hw", default_method="rf",
                      random_state=1).fit(df)
    hm = syn.households_
    np.testing.assert_array_equal(hm.hh_syn_.weights_,
                                  df.groupby("hid", sort=False)["hw"].first().to_numpy())
    assert hm.head_syn_.weights_ is None
    syn = Synthesizer(household="hid", weights="pw", default_method="rf",
                      random_state=1).fit(df)
    hm = syn.households_
    assert hm.hh_syn_.weights_ is None
    heads = df.groupby("hid", sort=False).head(1)  # the simulation lists the head first
    np.testing.assert_array_equal(hm.head_syn_.weights_, heads["pw"].to_numpy())
    out = syn.sample().implicates[0]
    assert (out.groupby("hid")["hw"].nunique() == 1).all()


def test_a_plan_takes_household(tmp_path):
    from synthguard.errors import PlanError
    from synthguard.pipeline.plan import parse_plan

    (tmp_path / "persons.csv").write_text("hid,x\n1,2\n")
    head = "data:\n  path: persons.csv\nevaluation:\n  keys: [x]\n  targets: [x]\n"
    plan = parse_plan(head + "releases:\n  h:\n    method: synthesis\n    household: hid\n"
                      "    household_columns: [x]\n", base_dir=tmp_path)
    assert "'household': 'hid'" in repr(plan)
    with pytest.raises(PlanError, match="househld"):
        parse_plan(head + "releases:\n  h:\n    method: synthesis\n    househld: hid\n",
                   base_dir=tmp_path)


def test_an_index_that_is_not_a_range_gives_the_same_release(data):
    shuffled_index = data.set_axis(np.arange(len(data))[::-1] * 3)
    a = Synthesizer(household="hid", random_state=7).fit(data).sample().implicates[0]
    b = Synthesizer(household="hid", random_state=7).fit(shuffled_index).sample().implicates[0]
    pd.testing.assert_frame_equal(a, b)


def test_saved_household_synthesizer_draws_the_same(tmp_path, data, release):
    syn, res = release
    path = tmp_path / "hh.confidential.pkl"
    syn.save_confidential(path)
    again = Synthesizer.load(path).sample(m=2, random_state=3)
    for a, b in zip(res.implicates, again.implicates):
        pd.testing.assert_frame_equal(a, b)


def test_no_member_replicates_a_person_unique_in_the_data(data, release):
    _, res = release
    rows = data.drop(columns="hid").astype(str).apply(tuple, axis=1)
    counts = rows.value_counts()
    unique = set(counts[counts == 1].index)
    for df in res.implicates:
        released = set(df.drop(columns="hid").astype(str).apply(tuple, axis=1))
        assert not released & unique  # brute force over every released member
    assert res.households.replicated_removed == (0, 0)
