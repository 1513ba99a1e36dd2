"""`synthguard init` proposes passive/nested methods for exact functional dependencies."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthguard.pipeline.plan import parse_plan
from synthguard.pipeline.scaffold import init_plan

YEARS = {"HS-grad": 9, "Bachelors": 13, "Masters": 14, "Doctorate": 16}


def test_init_writes_passive_and_nested_proposals_that_run(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    edu = rng.choice(list(YEARS), n)
    region = rng.choice(["r1", "r2", "r3", "r4"], n)
    pd.DataFrame({
        "sex": rng.choice(["f", "m"], n),
        "country": np.where(np.isin(region, ["r1", "r2"]), "A", "B"),
        "region": region,
        "education": edu,
        "education_num": [YEARS[e] for e in edu],
        "income": np.round(rng.lognormal(10, 0.5, n), 2),
    }).to_csv(tmp_path / "people.csv", index=False)
    text = init_plan(tmp_path / "people.csv", plan_dir=tmp_path)
    plan = parse_plan(text, base_dir=tmp_path)
    full = next(r for r in plan.releases if r.name == "full")
    methods = full.params["methods"]
    assert methods == {"region": "nested:parent=country", "education_num": "passive:of=education"}
    # the proposals are what the synthesizer accepts: the release is exact
    from synthguard import Synthesizer

    data = pd.read_csv(tmp_path / "people.csv")
    syn = Synthesizer(methods=methods, random_state=1).fit(data).sample().implicates[0]
    assert (syn["education_num"] == syn["education"].map(YEARS)).all()
    assert (syn.loc[syn["region"].isin(["r1", "r2"]), "country"] == "A").all()


def test_init_proposes_break_points_for_an_age_group(tmp_path):
    # SD2011's agegr is a binning of age with a few groups missing: no exact dependency, so
    # init used to propose nothing; it now proposes passive breaks at rounded midpoints
    rng = np.random.default_rng(4)
    n = 500
    age = rng.integers(16, 97, n)
    agegr = np.array(["16-24", "25-34", "35-44", "45-59", "60-64", "65+"])[
        np.searchsorted([24.5, 34.5, 44.5, 59.5, 64.5], age)].astype(object)
    agegr[7] = None
    pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": age, "agegr": agegr,
                  "income": np.round(rng.lognormal(8, 0.6, n))}).to_csv(
        tmp_path / "sd.csv", index=False)
    text = init_plan(tmp_path / "sd.csv", plan_dir=tmp_path)
    assert "public definitions" in text
    plan = parse_plan(text, base_dir=tmp_path)
    full = next(r for r in plan.releases if r.name == "full")
    assert full.params["methods"] == {"agegr": "passive:of=age:breaks=24.5,34.5,44.5,59.5,64.5"}
    from synthguard import Synthesizer

    data = pd.read_csv(tmp_path / "sd.csv")
    syn = Synthesizer(methods=full.params["methods"], random_state=2).fit(data).sample()
    s = syn.implicates[0]
    lo = s.groupby("agegr", observed=True)["age"].agg(["min", "max"]).sort_values("min")
    assert (lo["max"].to_numpy()[:-1] < lo["min"].to_numpy()[1:]).all()
