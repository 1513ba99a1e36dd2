"""Generalisation: bins, recode maps and hierarchies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.sdc import generalize

ZIP_TO_COUNTY = {"10001": "New York County", "10002": "New York County", "11201": "Kings",
                 "07030": "Hudson", "07302": "Hudson"}
COUNTY_TO_STATE = {"New York County": "NY", "Kings": "NY", "Hudson": "NJ"}


@pytest.fixture
def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [0.0, 17.0, 17.5, 18.0, 64.0, 65.0, np.nan, 99.0],
            "zip": ["10001", "10002", "11201", "07030", "07302", "10001", "11201", None],
        }
    )


def test_bins_right_closed_by_hand(people):
    out = generalize(people, "age", bins=[0, 17, 64, 120], labels=["child", "adult", "senior"])
    assert out.data["age"].tolist()[:6] == ["child", "child", "adult", "adult", "adult", "senior"]
    assert pd.isna(out.data["age"].iloc[6])
    assert out.data["age"].iloc[7] == "senior"
    assert out.data["age"].cat.ordered
    assert out.changes["age"].sum() == 7  # every observed value is recoded
    assert out.params["n_levels_after"] == 3


def test_bins_left_closed_and_interval_labels(people):
    out = generalize(people, "age", bins=[0, 18, 65, 100], right=False)
    cats = out.data["age"].cat.categories
    assert cats[0] == pd.Interval(0, 18, closed="left")
    assert out.data["age"].iloc[3] == pd.Interval(18, 65, closed="left")  # 18 -> [18, 65)
    assert out.data["age"].iloc[5] == pd.Interval(65, 100, closed="left")  # 65 -> [65, 100)
    # counts per bin equal np.histogram's (same closure convention: left-closed, last closed)
    obs = people["age"].dropna().to_numpy()
    hist, _ = np.histogram(obs, bins=[0, 18, 65, 100])
    assert out.data["age"].value_counts(sort=False).tolist() == hist.tolist()


def test_values_outside_bins_raise_with_count_not_value(people):
    with pytest.raises(ParameterError, match="bins") as err:
        generalize(people, "age", bins=[10, 50])
    assert "4 records" in str(err.value)  # 0, 64, 65 and 99
    assert "99" not in str(err.value)


def test_mapping_recode_and_unmapped(people):
    m = {"10001": "NYC", "10002": "NYC"}
    with pytest.raises(ParameterError, match="mapping") as err:
        generalize(people, "zip", mapping=m)
    assert "4 records" in str(err.value)
    out = generalize(people, "zip", mapping=m, unmapped="keep")
    assert out.data["zip"].tolist()[:3] == ["NYC", "NYC", "11201"]
    assert out.changes["zip"].tolist() == [True, True, False, False, False, True, False, False]
    miss = generalize(people, "zip", mapping=m, unmapped="missing")
    assert miss.data["zip"].isna().sum() == 5  # 4 unmapped + 1 originally missing


def test_hierarchy_levels(people):
    h = [ZIP_TO_COUNTY, COUNTY_TO_STATE]
    county = generalize(people, "zip", hierarchy=h, level=1)
    assert county.data["zip"].tolist()[:5] == [
        "New York County", "New York County", "Kings", "Hudson", "Hudson"
    ]
    state = generalize(people, "zip", hierarchy=h, level=2)
    assert state.data["zip"].tolist()[:7] == ["NY", "NY", "NY", "NJ", "NJ", "NY", "NY"]
    assert pd.isna(state.data["zip"].iloc[7])
    assert state.params["n_levels_after"] == 2
    assert state.params["n_levels_before"] == 5
    default = generalize(people, "zip", hierarchy=h)
    pd.testing.assert_frame_equal(default.data, state.data)


def test_input_not_mutated(people):
    before = people.copy()
    generalize(people, "zip", hierarchy=[ZIP_TO_COUNTY, COUNTY_TO_STATE])
    generalize(people, "age", bins=[0, 50, 100])
    pd.testing.assert_frame_equal(people, before)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"column": "age"}, "bins"),
        ({"column": "age", "bins": [0, 100], "mapping": {}}, "bins"),
        ({"column": "age", "bins": [5, 1]}, "bins"),
        ({"column": "age", "bins": [0, 50, 100], "labels": ["a"]}, "labels"),
        ({"column": "zip", "bins": [0, 1]}, "column"),
        ({"column": "zip", "hierarchy": [ZIP_TO_COUNTY], "level": 2}, "level"),
        ({"column": "zip", "mapping": ZIP_TO_COUNTY, "level": 1}, "level"),
        ({"column": "zip", "mapping": ZIP_TO_COUNTY, "unmapped": "drop"}, "unmapped"),
    ],
)
def test_bad_parameters(people, kwargs, param):
    with pytest.raises(ParameterError, match=param):
        generalize(people, **kwargs)
