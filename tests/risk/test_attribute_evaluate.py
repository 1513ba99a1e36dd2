"""Attribute disclosure by hand, and evaluate_risk bundling the measures consistently."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.risk import (
    attribute_disclosure,
    distance_to_closest_record,
    evaluate_risk,
    identification_risk,
    k_anonymity,
    match_rates,
)


def _people():
    conf = pd.DataFrame(
        {
            "sex": ["f", "f", "f", "m", "m", "m"],
            "region": ["n", "n", "s", "n", "s", "s"],
            "disease": ["yes", "yes", "no", "no", "no", "yes"],
            "income": [10.0, 20.0, 30.0, 40.0, 50.0, 60.0],
        }
    )
    syn = pd.DataFrame(
        {
            "sex": ["f", "f", "f", "m", "m", "m"],
            "region": ["n", "n", "s", "n", "s", "s"],
            "disease": ["yes", "yes", "yes", "no", "no", "no"],
            "income": [12.0, 18.0, 35.0, 44.0, 52.0, 52.0],
        }
    )
    return conf, syn


def test_attribute_by_hand():
    conf, syn = _people()
    res = attribute_disclosure(conf, syn, keys=["sex", "region"], targets=["disease", "income"])
    t = res.table.set_index(["target", "measure"])
    # cells: (f,n) -> yes; (f,s) -> yes; (m,n) -> no; (m,s) -> no: 4 of 6 right
    assert t.loc[("disease", "accuracy"), "release"] == pytest.approx(4 / 6)
    # marginal of the release: yes 3, no 3 -> first seen ('yes'): 3 of 6 right
    assert t.loc[("disease", "accuracy"), "marginal"] == pytest.approx(3 / 6)
    assert t.loc[("disease", "accuracy"), "excess"] == pytest.approx(4 / 6 - 3 / 6)
    # income cell means: (f,n) 15, (f,s) 35, (m,n) 44, (m,s) 52
    pred = np.array([15.0, 15.0, 35.0, 44.0, 52.0, 52.0])
    truth = conf["income"].to_numpy()
    rmse = np.sqrt(np.mean((pred - truth) ** 2))
    assert t.loc[("income", "rmse"), "release"] == pytest.approx(rmse)
    within = np.mean(np.abs(pred - truth) <= 0.1 * truth)  # 40 vs 44, 50 vs 52
    assert t.loc[("income", "within_tolerance"), "release"] == pytest.approx(within)
    marginal_rmse = np.sqrt(np.mean((syn["income"].mean() - truth) ** 2))
    assert t.loc[("income", "rmse"), "marginal"] == pytest.approx(marginal_rmse)
    assert t.loc[("income", "rmse"), "excess"] == pytest.approx(marginal_rmse - rmse)
    assert res.max_excess == pytest.approx(max(4 / 6 - 3 / 6, within - 0.0))
    assert "disease accuracy" in res.summary()


def test_attribute_holdout_baseline_and_unseen_cells():
    conf, syn = _people()
    hold = conf.copy()  # an intruder holding the true records
    res = attribute_disclosure(conf, syn, ["sex", "region"], "disease", holdout=hold)
    row = res.table.iloc[0]
    # true cell modes: (f,n) yes, (f,s) no, (m,n) no, (m,s) tie -> first level seen ('yes'):
    # only record 4 is missed
    assert row["holdout"] == pytest.approx(5 / 6)
    assert row["excess"] == pytest.approx(row["release"] - row["holdout"])
    only_f = syn[syn["sex"] == "f"]  # males unseen -> marginal of the release ('yes')
    res2 = attribute_disclosure(conf, only_f, ["sex"], "disease")
    assert res2.table.iloc[0]["release"] == pytest.approx(3 / 6)
    with pytest.raises(ParameterError, match="tolerance"):
        attribute_disclosure(conf, syn, ["sex"], "income", tolerance=-1)


def test_evaluate_risk_bundles_the_measures():
    rng = np.random.default_rng(0)
    n = 300
    conf = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "educ": rng.choice(["a", "b", "c"], n),
            "income": np.round(rng.lognormal(10, 1, n)),
        }
    )
    hold = conf.sample(100, random_state=1).reset_index(drop=True)
    syn = [conf.assign(income=np.round(rng.lognormal(10, 1, n))) for _ in range(2)]
    ev = evaluate_risk(
        conf, syn, ["sex", "educ"], ["income"], holdout=hold, radius=0.2, random_state=0
    )
    ir = identification_risk(
        conf, syn, keys=["sex", "educ"], targets="income", radius=0.2, singletons="zero"
    )
    assert ev.identification is not None and ev.identification.mean == pytest.approx(ir.mean)
    mr = match_rates(conf, syn, keys=["sex", "educ"], targets="income", radius=0.2)
    assert ev.match is not None
    assert ev.match.expected_match_risk == pytest.approx(mr.expected_match_risk)
    dc = distance_to_closest_record(conf, syn, hold, warn_copies=False)
    assert ev.distance is not None and ev.distance.median_dcr == pytest.approx(dc.median_dcr)
    assert ev.k_anonymity is not None
    assert ev.k_anonymity.n_below_k == k_anonymity(conf, ["sex", "educ"]).n_below_k
    frame = ev.to_frame()
    assert {
        "identification",
        "matching",
        "attribute",
        "distance",
        "membership",
        "uniqueness",
    } <= set(frame["family"])
    assert frame.loc[frame["measure"] == "mean IR", "value"].iloc[0] == pytest.approx(ir.mean)
    assert ev.membership is not None and 0 <= ev.membership.auc <= 1
    assert "Membership inference" in ev.summary()


def test_evaluate_risk_fully_synthetic_skips_row_aligned_measures():
    rng = np.random.default_rng(1)
    conf = pd.DataFrame({"k": rng.choice(["a", "b"], 50), "y": rng.normal(size=50)})
    syn = pd.DataFrame({"k": rng.choice(["a", "b"], 80), "y": rng.normal(size=80)})
    ev = evaluate_risk(conf, syn, ["k"], ["y"])
    assert ev.identification is None and ev.match is None and ev.membership is None
    assert any("fully synthetic" in note for note in ev.notes)
    assert any("holdout" in note for note in ev.notes)
    assert ev.distance is not None and ev.attribute is not None
