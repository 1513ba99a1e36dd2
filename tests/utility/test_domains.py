"""domain_estimates: hand-computed weighted values, the unweighted special case, R survey on
ANES (tests/reference/survey_anes.json, made by tests/reference/survey_anes.R) and errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.utility import combine, domain_estimates

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "survey_anes.json"


@pytest.fixture
def small() -> pd.DataFrame:
    return pd.DataFrame({
        "g": ["a", "a", "a", "b", "b"],
        "y": [1.0, 2.0, 4.0, 3.0, 5.0],
        "c": ["x", "y", "x", "x", "y"],
        "w": [1.0, 2.0, 1.0, 2.0, 2.0],
    })


def _row(table: pd.DataFrame, **eq: object) -> pd.Series:
    sel = np.ones(len(table), dtype=bool)
    for k, v in eq.items():
        sel &= (table[k] == v).to_numpy()
    assert sel.sum() == 1, eq
    return table[sel].iloc[0]


def test_hand_computed_weighted_values(small: pd.DataFrame) -> None:
    t = domain_estimates(small, small, ["y", "c"], ["g"], weights="w").table
    # domain a: W = 4, total 1 + 4 + 4 = 9, mean 2.25
    assert _row(t, g="a", statistic="total")["conf_estimate"] == pytest.approx(9.0)
    assert _row(t, g="a", statistic="mean")["conf_estimate"] == pytest.approx(2.25)
    assert _row(t, g="b", statistic="mean")["conf_estimate"] == pytest.approx(4.0)
    # total: z = (1, 4, 4, 0, 0), mean 1.8, sum of squares 16.8, times n/(n-1) = 5/4
    assert _row(t, g="a", statistic="total")["conf_se"] == pytest.approx(np.sqrt(21.0))
    # mean: z = w (y - 2.25)/4 in a = (-0.3125, -0.125, 0.4375), squares 0.3046875, times 5/4
    assert _row(t, g="a", statistic="mean")["conf_se"] == pytest.approx(np.sqrt(0.380859375))
    # proportion of 'x' in a: (1 + 1)/4
    assert _row(t, g="a", level="x")["conf_estimate"] == pytest.approx(0.5)
    assert _row(t, g="b", level="y")["conf_estimate"] == pytest.approx(0.5)
    # median of a: cumulative weights 1, 3, 4 reach 2 = 0.5 W at y = 2
    assert _row(t, g="a", statistic="q50")["conf_estimate"] == pytest.approx(2.0)
    # the release is the data itself: no difference, identical intervals
    assert np.allclose(t["difference"].to_numpy(dtype=float), 0.0)
    assert np.allclose(t["n_conf"], t["n_syn"])


def test_weights_of_one_give_unweighted_results() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({
        "g": rng.choice(["p", "q", "r"], 400),
        "y": rng.gamma(2.0, 3.0, 400).round(1),
        "c": rng.choice(["u", "v"], 400),
    })
    df["one"] = 1.0
    a = domain_estimates(df, df, ["y", "c"], ["g"], weights="one", quantiles=(0.25, 0.5)).table
    b = domain_estimates(df, df, ["y", "c"], ["g"], quantiles=(0.25, 0.5)).table
    pd.testing.assert_frame_equal(a, b)
    means = df.groupby("g")["y"].mean()
    for g, m in means.items():
        assert _row(a, g=g, statistic="mean")["conf_estimate"] == pytest.approx(m)
        vals = df.loc[df.g == g, "y"].to_numpy()
        assert _row(a, g=g, statistic="q25")["conf_estimate"] == pytest.approx(
            np.quantile(vals, 0.25, method="inverted_cdf"))
        share = float((df.loc[df.g == g, "c"] == "u").mean())
        assert _row(a, g=g, level="u")["conf_estimate"] == pytest.approx(share)
    # the whole file: the mean's standard error is s / sqrt(n), a share's sqrt(p(1-p)/(n-1))
    w = domain_estimates(df, df, ["y", "c"]).table
    assert _row(w, statistic="mean")["conf_se"] == pytest.approx(
        df.y.std(ddof=1) / np.sqrt(len(df)))
    p = float((df.c == "u").mean())
    assert _row(w, level="u")["conf_se"] == pytest.approx(np.sqrt(p * (1 - p) / (len(df) - 1)))


def test_implicates_are_combined_with_the_combining_rules(small: pd.DataFrame) -> None:
    s1 = small.assign(y=[2.0, 2.0, 5.0, 3.0, 4.0])
    s2 = small.assign(y=[1.0, 3.0, 3.0, 2.0, 6.0])
    r = domain_estimates(small, [s1, s2], ["y"], ["g"], weights="w", quantiles=(),
                         method="partial")
    row = _row(r.table, g="a", statistic="mean")
    imp = r.implicates[r.implicates.row == row.name].sort_values("implicate")
    # implicate 1, domain a: (2 + 4 + 5)/4; implicate 2: (1 + 6 + 3)/4
    assert imp.estimate.tolist() == pytest.approx([11 / 4, 10 / 4])
    c = combine(imp.estimate.to_numpy(), imp.se.to_numpy() ** 2, method="partial", n=5, n_synthetic=5)
    assert row.syn_estimate == pytest.approx(c.estimate)
    assert row.syn_se == pytest.approx(float(c.se))
    assert row.difference == pytest.approx(c.estimate - 2.25)
    assert row.m == 2


def test_release_without_weights_gets_equal_weights_on_the_confidential_scale(
    small: pd.DataFrame,
) -> None:
    syn = small.drop(columns="w")
    t = domain_estimates(small, syn, ["y"], ["g"], weights="w", quantiles=()).table
    # sum of weights 8 over 5 records: each synthetic record weighs 1.6; domain a total 7 * 1.6
    assert _row(t, g="a", statistic="total")["syn_estimate"] == pytest.approx(7 * 1.6)
    assert _row(t, g="a", statistic="mean")["syn_estimate"] == pytest.approx(7 / 3)


def test_domain_missing_from_release_gives_nan_release_figures(small: pd.DataFrame) -> None:
    syn = small[small.g == "a"]
    t = domain_estimates(small, syn, ["y"], ["g"], quantiles=()).table
    assert np.isnan(_row(t, g="b", statistic="mean")["syn_estimate"])
    assert np.isfinite(_row(t, g="a", statistic="mean")["syn_estimate"])


def test_strata_and_clusters_hand_computed() -> None:
    # two strata of two PSUs; estimate the total of y (weights 1)
    df = pd.DataFrame({"h": [1, 1, 1, 2, 2, 2], "c": [1, 1, 2, 1, 2, 2],
                       "y": [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]})
    t = domain_estimates(df, df, ["y"], strata="h", clusters="c", quantiles=(),
                         statistics=("total",)).table
    # stratum 1: PSU totals 3, 3 -> 0; stratum 2: 4, 12 -> 2/1 * (16 + 16) = 64
    assert t.iloc[0]["conf_estimate"] == pytest.approx(22.0)
    assert t.iloc[0]["conf_se"] == pytest.approx(8.0)


def test_errors(small: pd.DataFrame) -> None:
    with pytest.raises(ParameterError, match="both"):
        domain_estimates(small, small, ["y", "g"], ["g"])
    with pytest.raises(ParameterError, match="quantiles"):
        domain_estimates(small, small, ["y"], quantiles=(1.5,))
    with pytest.raises(ParameterError, match="statistics"):
        domain_estimates(small, small, ["y"], statistics=("median",))
    with pytest.raises(DataError, match="weights"):
        domain_estimates(small, small, ["y"], weights="nope")
    bad = small.assign(w=[1.0, -1.0, 1.0, 1.0, 1.0])
    with pytest.raises(DataError, match="negative"):
        domain_estimates(bad, small, ["y"], weights="w")
    lonely = small.assign(h=[1, 1, 1, 1, 2])
    with pytest.raises(DataError, match="single primary sampling unit"):
        domain_estimates(lonely, small, ["y"], strata="h")
    r = domain_estimates(lonely, small, ["y"], strata="h", lonely_psu="certainty",
                         quantiles=())
    # mean 3, z = (y - 3)/5; stratum 1: z = (-.4, -.2, .2, 0), centred squares 0.2, times 4/3;
    # the lonely stratum 2 adds nothing
    assert _row(r.table, statistic="mean")["conf_se"] == pytest.approx(np.sqrt(0.2 * 4 / 3))


def _anes_table(anes: pd.DataFrame, design: dict[str, str], by: list[str], var: str,
                stat: str) -> pd.DataFrame:
    return domain_estimates(anes, anes, [var], by, quantiles=(0.25, 0.5, 0.9), **design).table


def test_against_r_survey_on_anes(shared_data: Path) -> None:
    anes = pd.read_csv(shared_data / "anes" / "anes_2020_srvyrexploR.csv")
    ref = json.loads(REFERENCE.read_text())["estimates"]
    designs = {
        "full": {"weights": "Weight", "strata": "Stratum", "clusters": "VarUnit"},
        "strata_only": {"weights": "Weight", "strata": "Stratum"},
        "weights_only": {"weights": "Weight"},
    }
    cache: dict[tuple[str, str, str], pd.DataFrame] = {}
    checked = 0
    for e in ref:
        by = e["by"].split("+")
        var, stat, key = e["variable"], e["statistic"], e["key"]
        ck = (e["design"], e["by"], var)
        if ck not in cache:
            cache[ck] = _anes_table(anes, designs[e["design"]], by, var, stat)
        t = cache[ck]
        if stat == "proportion":
            dom, lev = key.split(":" + var)
            row = _row(t, **{by[0]: dom}, level=lev)
        elif stat == "quantile":
            dom, q = key.split(":" + var + ".")
            row = _row(t, **{by[0]: dom}, statistic=f"q{100 * float(q):g}")
        else:
            parts = key.split(".", 1) if len(by) == 2 else [key]
            row = _row(t, statistic=stat, **dict(zip(by, parts, strict=True)))
        assert row.conf_estimate == pytest.approx(e["estimate"], rel=1e-10), key
        assert row.conf_se == pytest.approx(e["se"], rel=1e-9), key
        if e["lower"] is not None:
            assert row.conf_lower == pytest.approx(e["lower"], rel=1e-9), key
            assert row.conf_upper == pytest.approx(e["upper"], rel=1e-9), key
        checked += 1
    assert checked >= 150
