"""Session: the interface of issue 34, unit-level charges, refusal, accuracy before spending."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger, Session
from synthguard.dp.session.selection import selection_threshold
from synthguard.errors import DataError, ParameterError, PrivacyBudgetError, PrivacyWarning

from .conftest import households

AGGS = {"n": "count", "households": "count_distinct",
        "hours": ("mean", "hours_per_week", (0, 100))}


def test_issue_example_interface(persons, tmp_path):
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0, delta=1e-9,
                ledger=tmp_path / "ledger.json")
    r = s.query(by={"sex": ["Male", "Female"]}, aggregations=AGGS, epsilon=0.4, alpha=0.05)
    f = r.to_frame()
    assert list(f.columns) == ["sex", "n", "n_lower", "n_upper", "households",
                               "households_lower", "households_upper", "hours", "hours_lower",
                               "hours_upper"]
    assert list(f["sex"]) == ["Male", "Female"]
    assert (f["n_lower"] < f["n"]).all() and (f["n"] < f["n_upper"]).all()
    assert (f["hours_lower"] <= f["hours"]).all() and (f["hours"] <= f["hours_upper"]).all()
    assert math.isclose(s.spent.epsilon, 0.4) and s.spent.delta == 0
    # the ledger persists: a new session on the same file sees the spend
    s2 = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0, delta=1e-9,
                 ledger=tmp_path / "ledger.json")
    assert math.isclose(s2.spent.epsilon, 0.4)


def test_household_cost_recorded_not_row_cost(persons, tmp_path):
    """The issue's case: five statistics at epsilon 0.2 each cost 1.0 per household, and the
    ledger records 1.0 (the hand-built query recorded 0.36), every line naming the unit."""
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0,
                ledger=tmp_path / "l.json")
    stats = {"n": "count", "total": ("sum", "hours_per_week", (0, 100)),
             "mean": ("mean", "hours_per_week", (0, 100)),
             "median": ("median", "hours_per_week", (0, 100)),
             "households": "count_distinct"}
    for name, agg in stats.items():
        s.query(by={"sex": ["Male", "Female"]}, aggregations={name: agg}, epsilon=0.2,
                label=name)
    assert math.isclose(s.spent.epsilon, 1.0)
    doc = json.loads((tmp_path / "l.json").read_text())
    assert [c["privacy_unit"] for c in doc["charges"]] == ["hid"] * 5
    assert math.isclose(sum(c["epsilon"] for c in doc["charges"]), 1.0)
    with pytest.raises(PrivacyBudgetError, match="left"):
        s.query(by={"sex": ["Male"]}, aggregations={"n": "count"}, epsilon=1e-3)


def test_overspend_refused_nothing_charged(persons):
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=0.5)
    s.query(aggregations={"n": "count"}, epsilon=0.3)
    with pytest.raises(PrivacyBudgetError, match=r"only epsilon=0\.2, delta=0 is left"):
        s.query(aggregations=AGGS, by={"sex": ["Male", "Female"]}, epsilon=0.3)
    assert len(s.ledger.charges) == 1 and math.isclose(s.spent.epsilon, 0.3)


def test_split_by_weights_and_plan_before_spending(persons):
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0)
    aggs = {"n": {"count": None, "weight": 3}, "hours": {"sum": "hours_per_week",
                                                        "bounds": [0, 100]}}
    plan = s.plan(by={"sex": ["Male", "Female"]}, aggregations=aggs, epsilon=0.4)
    assert s.spent.epsilon == 0  # planning spends nothing
    eps = dict(zip(plan["aggregation"], plan["epsilon"]))
    assert math.isclose(eps["n"], 0.3) and math.isclose(eps["hours"], 0.1)
    # count: a household changes the two counts by at most 5 rows in all: b = 5/0.3
    row = plan.set_index("aggregation").loc["n"]
    assert row["sensitivity"] == 5
    assert math.isclose(row["halfwidth"], 5 / 0.3 * math.log(20))
    # sum of hours in [0, 100]: 5 rows x 100
    assert plan.set_index("aggregation").loc["hours", "sensitivity"] == 500
    r = s.query(by={"sex": ["Male", "Female"]}, aggregations=aggs, epsilon=0.4, dry_run=True)
    assert s.spent.epsilon == 0 and r.frame.empty


def test_accuracy_target_sets_epsilon(persons):
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=5.0)
    by = {"sex": ["Male", "Female"]}
    plan = s.plan(by=by, aggregations={"n": "count"}, accuracy={"n": 50.0}, alpha=0.05)
    eps = float(plan["epsilon"].iloc[0])
    assert math.isclose(eps, 5 * math.log(20) / 50)  # half-width = (5/eps) ln(1/alpha)
    r = s.query(by=by, aggregations={"n": "count"}, accuracy={"n": 50.0})
    assert math.isclose(r.plan["halfwidth"].iloc[0], 50.0)
    assert math.isclose(s.spent.epsilon, eps)
    with pytest.raises(ParameterError, match="accuracy"):
        s.plan(by=by, aggregations={"m": ("mean", "hours_per_week", (0, 100))},
               accuracy={"m": 1.0})


def test_max_groups_lowers_sensitivity(persons):
    by = {"agegroup": ["young", "middle", "old"]}
    free = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0)
    one = Session(persons, privacy_unit="hid", max_rows=5, max_groups=1,
                  max_rows_per_group=2, epsilon=1.0)
    aggs = {"n": "count", "d": "count_distinct"}
    p_free = free.plan(by=by, aggregations=aggs, epsilon=1).set_index("aggregation")
    p_one = one.plan(by=by, aggregations=aggs, epsilon=1).set_index("aggregation")
    assert (p_free.loc["n", "sensitivity"], p_free.loc["d", "sensitivity"]) == (5, 3)
    assert (p_one.loc["n", "sensitivity"], p_one.loc["d", "sensitivity"]) == (2, 1)


def test_row_unit_matches_row_level_sensitivity(persons):
    s = Session(persons, epsilon=1.0)
    p = s.plan(by={"sex": ["Male", "Female"]}, aggregations={"n": "count"}, epsilon=1)
    assert p["sensitivity"].iloc[0] == 1 and p["privacy_unit"].iloc[0] == "row"
    with pytest.raises(ParameterError, match="max_rows"):
        Session(persons, privacy_unit="hid", epsilon=1.0)  # no bound on the rows


def test_ledger_of_another_unit_refused(persons, tmp_path):
    path = tmp_path / "l.json"
    PrivacyLedger(epsilon=1.0, path=path).charge("row-level count", 0.1)
    with pytest.raises(ParameterError, match="unit"):
        Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0, ledger=path)
    Session(persons, epsilon=1.0, ledger=path)  # the row unit: the same unit, accepted


def test_bad_input_named(persons):
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0)
    with pytest.raises(DataError, match="'income'"):
        s.query(aggregations={"x": ("mean", "income", (0, 1))}, epsilon=0.1)
    with pytest.raises(ParameterError, match="bounds"):
        s.query(aggregations={"x": ("mean", "hours_per_week")}, epsilon=0.1)
    with pytest.raises(ParameterError, match="delta"):
        s.query(by=["sex"], aggregations={"n": "count"}, epsilon=0.1)
    bad = persons.assign(hid=persons["hid"].astype(float))
    bad.loc[0, "hid"] = np.nan
    with pytest.raises(DataError, match="'hid'"):
        Session(bad, privacy_unit="hid", max_rows=5, epsilon=1.0)
    assert s.spent.epsilon == 0


def test_private_key_selection(persons):
    """Keys held by many households are released; a key held by one household is released
    with probability delta/G at most (here: never in 200 tries)."""
    rare = pd.DataFrame({"hid": [10**6], "sex": ["Other"], "agegroup": ["young"],
                         "hours_per_week": [40.0]})
    data = pd.concat([persons, rare], ignore_index=True)
    b, tau = selection_threshold(0.5, 1e-6, 5)
    assert math.isclose(0.5 * math.exp(-(tau - 1) / b), 1e-6 / 5)
    s = Session(data, privacy_unit="hid", max_rows=5, epsilon=1000.0, delta=0.5,
                noise_random_state=3)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        for _ in range(200):
            r = s.query(by=["sex"], aggregations={"n": "count"}, epsilon=1.0, delta=1e-6)
            assert list(r.to_frame()["sex"]) == ["Female", "Male"]
    assert math.isclose(s.spent.delta, 200e-6)


def test_estimated_bounds_charged(persons):
    s = Session(persons, privacy_unit="hid", max_rows=5, epsilon=1.0, random_state=1)
    aggs = {"m": {"mean": "hours_per_week", "bounds": {"estimate": [0, 1000], "epsilon": 0.1}}}
    r = s.query(aggregations=aggs, epsilon=0.5)
    lo, hi = r.bounds["m"]
    assert 0 <= lo < hi <= 1000
    assert math.isclose(s.spent.epsilon, 0.5)
    labels = [c.label for c in s.ledger.charges]
    assert any("bounds" in lbl for lbl in labels) and len(labels) == 2
    assert math.isclose(sum(c.epsilon for c in s.ledger.charges), 0.5)


def test_old_ledger_file_without_unit_still_verifies(tmp_path):
    """A file written before charges carried a unit reads and verifies unchanged."""
    path = tmp_path / "old.json"
    PrivacyLedger(epsilon=1.0, path=path).charge("a", 0.2)
    doc = json.loads(path.read_text())
    assert "privacy_unit" not in doc["charges"][0]
    assert PrivacyLedger.open(path).charges[0].privacy_unit is None
    led = PrivacyLedger.open(path)
    led.charge("b", 0.1, privacy_unit="hid")
    assert [c.privacy_unit for c in PrivacyLedger.open(path).charges] == [None, "hid"]
    assert "[unit: hid]" in str(PrivacyLedger.open(path))


def test_same_bounding_seed_same_bounded_truth():
    data = households(50, seed=2, max_size=8)  # households above max_rows: truncated
    by = {"sex": ["Male", "Female"]}
    outs = []
    for _ in range(2):
        s = Session(data, privacy_unit="hid", max_rows=3, epsilon=1e6, random_state=7,
                    noise_random_state=1)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
            outs.append(s.query(by=by, aggregations={"n": "count"}, epsilon=1e5).to_frame())
    pd.testing.assert_frame_equal(outs[0], outs[1])
    assert outs[0]["n"].sum() == pytest.approx(data.groupby("hid").size().clip(upper=3).sum(),
                                               abs=1.0)


def test_missing_values_left_out_of_their_aggregation(persons):
    data = persons.copy()
    data.loc[: len(data) // 2, "hours_per_week"] = np.nan
    s = Session(data, privacy_unit="hid", max_rows=5, epsilon=1e7, noise_random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        f = s.query(aggregations={"m": ("mean", "hours_per_week", (0, 100)),
                                  "n": "count"}, epsilon=1e6).to_frame()
    assert f["m"].iloc[0] == pytest.approx(data["hours_per_week"].mean(), abs=1e-3)
    assert f["n"].iloc[0] == pytest.approx(len(data), abs=1e-2)  # the count keeps every row


def test_integer_levels_match_a_code_column_read_as_floats():
    data = pd.DataFrame({"hid": [1, 1, 2, 3], "status": [1.0, np.nan, 2.0, 1.0]})
    s = Session(data, privacy_unit="hid", max_rows=2, epsilon=1e7, noise_random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        f = s.query(by={"status": [1, 2]}, aggregations={"n": "count"}, epsilon=1e6).to_frame()
    assert f["n"].round().tolist() == [2, 1]
