"""synthpop's data-preparation helpers (issue 36): codebook.syn, numtocat.syn and
mergelevels.syn, checked by hand, against R's definitions (type-7 quantiles, cut's
left-closed groups) and on SD2011."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.data import codebook, merge_levels, numtocat
from synthguard.errors import DataError, ParameterError


def test_codebook_by_hand() -> None:
    df = pd.DataFrame({"age": [23, 41, None, 67], "region": ["a", "b", "c", "d"],
                       "sex": ["f", "m", "f", None]})
    cb = codebook(df, max_levels=3)
    t = cb.table.set_index("variable")
    assert t.loc["age", "nmiss"] == 1 and t.loc["age", "perctmiss"] == 25.0
    assert t.loc["age", "details"] == "Range: 23 - 67"
    assert t.loc["sex", "details"] == "'f' 'm'" and t.loc["sex", "ndistinct"] == 2
    assert t.loc["region", "details"] == "See table in labels"
    assert cb.labels == {"region": ["a", "b", "c", "d"]}
    with pytest.raises(ParameterError, match="max_levels"):
        codebook(df, max_levels=0)


def test_numtocat_quantile_groups_follow_r() -> None:
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, 10.0, 500).round(1)
    df = pd.DataFrame({"x": x, "g": rng.choice(["a", "b"], 500)})
    out = numtocat(df, groups=4)
    b = np.quantile(x, [0, 0.25, 0.5, 0.75, 1.0])  # R: quantile(x, type = 7)
    np.testing.assert_allclose(out.breaks["x"], b)
    # cut(x, b, right = FALSE, include.lowest = TRUE): [a, b) and the last [a, b]
    idx = np.clip(np.digitize(x, b) - 1, 0, 3)
    expected = np.asarray(out.levels["x"])[idx]
    assert (out.data["x"].astype(str).to_numpy() == expected).all()
    assert out.levels["x"][-1].endswith("]") and out.levels["x"][0].startswith("[")
    assert list(out.data.columns) == ["x", "g"] and out.original["x"].equals(df["x"])
    counts = out.data["x"].value_counts()
    assert counts.min() >= 0.2 * 500  # quantile groups are about equal


def test_numtocat_keeps_missing_and_special_codes_and_falls_back_to_equal() -> None:
    df = pd.DataFrame({"inc": [-8.0, 1, 2, 3, 4, 5, 6, 7, np.nan, -8.0]})
    out = numtocat(df, groups=2, cont_na={"inc": [-8]})
    assert out.data["inc"].tolist()[0] == "-8" and pd.isna(out.data["inc"].iloc[8])
    assert out.levels["inc"] == ["[1,4)", "[4,7]", "-8"]
    heaped = pd.DataFrame({"h": [0.0] * 90 + list(np.arange(1.0, 11.0))})  # quantiles tie
    eq = numtocat(heaped, groups=5)
    np.testing.assert_allclose(eq.breaks["h"], np.linspace(0, 10, 6))
    with pytest.raises(DataError, match=r"\['name'\] are not numeric"):
        numtocat(pd.DataFrame({"name": ["a"]}), ["name"])


def test_merge_levels_like_fct_lump() -> None:
    df = pd.DataFrame({"job": ["a"] * 12 + ["b"] * 11 + ["c"] * 3 + ["d"] * 1,
                       "x": range(27)})
    # c and d (4 records) stay below 5: merged with the next smallest level, b
    out = merge_levels(df, min_size=5, new_label=True)
    assert out["job"].value_counts().to_dict() == {"c d b": 15, "a": 12}
    # d alone (1 < 3) is merged; "Other" (1) is still below 3, so the smallest other level, c,
    # joins it
    lumped = merge_levels(df, min_size=3)["job"].value_counts().to_dict()
    assert lumped == {"a": 12, "b": 11, "Other": 4}
    hand = merge_levels(df, by_hand={"job": ["cd", "c", "d"]})
    assert hand["job"].value_counts().to_dict() == {"a": 12, "b": 11, "cd": 4}
    with pytest.raises(DataError, match="1 level"):
        merge_levels(df, by_hand={"job": ["z", "c", "zz"]})


def test_on_sd2011(shared_data) -> None:
    sd = pd.read_csv(shared_data / "sd2011" / "SD2011.csv")
    cb = codebook(sd)
    assert len(cb.table) == sd.shape[1]
    assert (cb.table["nmiss"].to_numpy() == sd.isna().sum().to_numpy()).all()
    merged = merge_levels(sd, ["eduspec"], min_size=20)
    assert merged["eduspec"].value_counts().min() >= 20
