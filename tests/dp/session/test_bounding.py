"""Bounding properties and the unit-level sensitivities, checked by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.dp.session.bounding import _ID, bound
from synthguard.dp.session.measure import noise_plan
from synthguard.dp.session.spec import parse_aggregations
from synthguard.dp.session.unit import PrivacyUnit

from .conftest import households


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), r=st.integers(1, 6), g=st.one_of(st.none(), st.integers(1, 3)),
       rg=st.one_of(st.none(), st.integers(1, 4)))
def test_bounds_hold_and_rows_are_a_subset(seed, r, g, rg):
    data = households(30, seed=seed % 1000, max_size=9)
    data["row"] = np.arange(len(data))
    unit = PrivacyUnit.make("hid", r, g, rg)
    out = bound(data, unit, ["agegroup"], np.random.default_rng(seed))
    per_unit = out.groupby("hid")
    assert per_unit.size().max() <= r
    if g is not None:
        assert per_unit["agegroup"].nunique().max() <= g
    if rg is not None:
        assert out.groupby(["hid", "agegroup"]).size().max() <= min(rg, r)
    assert out["row"].is_unique and set(out["row"]) <= set(data["row"])
    # every kept row is an original row, unchanged
    orig = data.set_index("row").loc[out["row"]]
    assert (orig["hid"].to_numpy() == out["hid"].to_numpy()).all()
    assert (out[_ID] == out["hid"]).all()


def test_units_within_bounds_keep_every_row():
    data = households(60, seed=1, max_size=4)
    out = bound(data, PrivacyUnit.make("hid", 4, None, None), ["sex"], np.random.default_rng(0))
    assert len(out) == len(data)
    assert out.groupby("hid").size().equals(data.groupby("hid").size())


def _stats(frame: pd.DataFrame, levels: list[str]) -> dict[str, np.ndarray]:
    g = frame.groupby("sex")
    return {"count": g.size().reindex(levels, fill_value=0).to_numpy(float),
            "count_distinct": g["hid"].nunique().reindex(levels, fill_value=0).to_numpy(float),
            "sum": g["x"].sum().reindex(levels, fill_value=0).to_numpy(float)}


def test_sensitivity_is_the_worst_unit_removal():
    """Brute force: over bounded data in which one unit is as bad as the bounds allow, the
    largest l1 change of each per-group statistic when a unit is removed equals the planned
    sensitivity (the bound is attained, so it is not loose either)."""
    levels = ["Female", "Male", "X"]
    for r, g, rg in itertools.product([1, 3, 5], [None, 1, 2], [None, 1, 2]):
        unit = PrivacyUnit.make("hid", r, g, rg)
        ge = unit.groups(len(levels))
        rgg = unit.rows_per_group()
        # the worst unit: R rows dealt round-robin over G groups, at most Rg in each, every
        # value at the bound
        rows, per = [], dict.fromkeys(levels[:ge], 0)
        while len(rows) < r and any(v < rgg for v in per.values()):
            for lv in levels[:ge]:
                if len(rows) < r and per[lv] < rgg:
                    rows.append({"hid": 0, "sex": lv, "x": -7.0})
                    per[lv] += 1
        others = [{"hid": h, "sex": levels[h % 3], "x": 1.0} for h in range(1, 30)]
        data = pd.DataFrame(rows + others)
        bounded = bound(data, unit, ["sex"], np.random.default_rng(1))
        full = _stats(bounded, levels)
        worst = {k: 0.0 for k in full}
        for h in bounded["hid"].unique():
            less = _stats(bounded[bounded["hid"] != h], levels)
            for k in full:
                worst[k] = max(worst[k], float(np.abs(full[k] - less[k]).sum()))
        aggs = parse_aggregations({"count": "count", "count_distinct": "count_distinct",
                                   "sum": ("sum", "x", (-7, 3))})
        for a in aggs:
            planned = noise_plan(a, 1.0, unit, len(levels), 0.05).sensitivity
            assert worst[a.name] == planned, (r, g, rg, a.name)
