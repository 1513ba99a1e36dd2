"""dp_tables: one budget split, the ledger charged before noise, public domains, rules."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger, epsilon_to_rho
from synthguard.dp.tables import NoiseModel, ReliabilityRule, dp_tables, percent_change
from synthguard.dp.tables.spec import parse_table
from synthguard.errors import DataError, ParameterError, PrivacyBudgetError, PrivacyWarning

CATS = {"state": ["A", "B"], "sex": ["F", "M"], "age": ["young", "old"]}


@pytest.fixture
def df():
    rng = np.random.default_rng(0)
    n = 400
    return pd.DataFrame({"state": rng.choice(["A", "B"], n), "sex": rng.choice(["F", "M"], n),
                         "age": rng.choice(["young", "old"], n),
                         "income": rng.uniform(0, 200, n)})


def _run(*args, **kw):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        return dp_tables(*args, **kw)


def test_parse_table():
    assert parse_table("county x sex x agegroup").columns == ("county", "sex", "agegroup")
    assert parse_table("state×sex").columns == ("state", "sex")
    with pytest.raises(ParameterError, match="distinct"):
        parse_table("sex x sex")


def test_allocation_weights_scales_and_one_ledger_write(df, tmp_path):
    ledger = PrivacyLedger(epsilon=2.0, path=tmp_path / "l.json")
    res = _run(df, ["state x sex x age", "state"], epsilon=1.5, ledger=ledger,
               categories=CATS, allocation=[2, 1], sums={"income": (0, 100)}, random_state=1)
    a = res.allocation_frame().set_index(["table", "statistic"])
    # 2:1 over tables, then halves for count and sum
    assert a.loc[("state_x_sex_x_age", "count"), "epsilon"] == pytest.approx(0.5)
    assert a.loc[("state", "sum:income"), "epsilon"] == pytest.approx(0.25)
    assert a.loc[("state_x_sex_x_age", "count"), "scale"] == pytest.approx(1 / 0.5)
    assert a.loc[("state", "sum:income"), "scale"] == pytest.approx(100 / 0.25)
    assert ledger.spent.epsilon == pytest.approx(1.5)
    assert len(ledger.charges) == 4
    assert res["state_x_sex_x_age"].n_cells == 8
    assert str(res["state"].frame["count"].dtype) == "Int64"
    # the sum is of values clamped to [0, 100]
    assert "sum_income_upper" in res["state"].frame


def test_zcdp_uses_the_tight_rho(df):
    res = _run(df, ["sex", "age"], epsilon=1.0, delta=1e-10, mechanism="discrete_gaussian",
               categories=CATS, random_state=2)
    rho = epsilon_to_rho(1.0, 1e-10)
    assert res.allocation.rho == pytest.approx(rho)
    assert res["sex"].noise["count"].scale == pytest.approx(1 / math.sqrt(2 * rho / 2))
    assert res.ledger.spent.epsilon == pytest.approx(1.0, rel=1e-9)


def test_refused_budget_charges_nothing(df):
    ledger = PrivacyLedger(epsilon=1.0)
    ledger.charge("earlier", 0.8)
    with pytest.raises(PrivacyBudgetError):
        _run(df, ["sex", "age"], epsilon=0.5, ledger=ledger, categories=CATS, random_state=1)
    assert [c.label for c in ledger.charges] == ["earlier"]  # all or none


def test_domain_must_be_declared_and_errors_quote_no_data(df):
    with pytest.raises(ParameterError, match="age"):
        _run(df, ["sex x age"], epsilon=1, categories={"sex": ["F", "M"]}, random_state=1)
    with pytest.raises(DataError) as e:
        _run(df, ["sex x age"], epsilon=1, categories={"sex": ["F"], "age": ["young", "old"]},
             random_state=1)
    text = str(e.value) + " ".join(map(str, getattr(e.value, "args", ())))
    assert "'M'" not in text and "M," not in text
    n_m = int((df["sex"] == "M").sum())
    assert str(n_m) not in text


def test_not_dp_domain_is_marked(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        res = dp_tables(df, ["sex"], epsilon=1, domain_from_data="not-dp", random_state=1)
    assert not res.dp
    assert res.ledger.charges[0].label.startswith("NOT DP")


def test_structural_zeros_and_suppression(df):
    res = _run(df, ["sex x age"], epsilon=1, categories=CATS, random_state=3,
               structural_zeros=[{"sex": "M", "age": "old"}],
               rule=ReliabilityRule(suppress_below=-1e9))
    f = res["sex_x_age"].frame.set_index(["sex", "age"])
    assert f.loc[("M", "old"), "count"] == 0
    assert f.loc[("M", "old"), ["count_lower", "count_upper"]].tolist() == [0.0, 0.0]
    assert bool(f.loc[("M", "old"), "structural_zero"])
    res = _run(df, ["sex x age"], epsilon=1, categories=CATS, random_state=3,
               rule=ReliabilityRule(suppress_below=1e9))
    f = res["sex_x_age"].frame
    assert f["suppressed"].all() and f["count"].isna().all() and not f["reliable"].any()
    assert "post-processing" in res.rule.describe()


def test_reliability_flag_follows_the_rule(df):
    res = _run(df, ["state x sex x age"], epsilon=0.05, categories=CATS, random_state=4,
               rule=ReliabilityRule(max_relative_margin=0.3))
    f = res["state_x_sex_x_age"].frame
    t = res["state_x_sex_x_age"].noise["count"].halfwidth(0.95)
    expect = (f["count"].astype(float) > 0) & (t <= 0.3 * f["count"].astype(float))
    assert (f["reliable"] == expect).all()


def test_same_seed_same_tables(df):
    a = _run(df, ["sex x age"], epsilon=1, categories=CATS, random_state=9)
    b = _run(df, ["sex x age"], epsilon=1, categories=CATS, random_state=9)
    pd.testing.assert_frame_equal(a["sex_x_age"].frame, b["sex_x_age"].frame)


def test_percent_change_interval_and_coverage():
    exact = NoiseModel("laplace", 0.0)
    got = percent_change([150, 50], [100, 100], current_noise=exact, baseline_noise=exact)
    assert got["change"].round(9).tolist() == [50.0, -50.0]
    nm = NoiseModel("laplace", 2.0)
    got = percent_change(110, 100, current_noise=nm, baseline_noise=nm)
    t = 2 * math.log(1 / 0.025)
    assert got["lower"].item() == pytest.approx(100 * ((110 - t) / (100 + t) - 1))
    assert got["upper"].item() == pytest.approx(100 * ((110 + t) / (100 - t) - 1))
    assert got["reliable"].item()  # half-width 15.6 points
    wide = NoiseModel("laplace", 5.0)  # half-width 40 points: unreliable unless no margin
    assert not percent_change(110, 100, current_noise=wide, baseline_noise=wide)[
        "reliable"].item()
    assert percent_change(110, 100, current_noise=wide, baseline_noise=wide,
                          max_margin=None)["reliable"].item()
    near_zero = percent_change(5, 1, current_noise=nm, baseline_noise=nm)
    assert near_zero["upper"].item() == math.inf and not near_zero["reliable"].item()
    # coverage ≥ 95 % (Bonferroni) on 2,000 seeded draws
    rng = np.random.default_rng(0)
    x1, x0 = 80.0, 60.0
    y1 = x1 + rng.laplace(0, 2.0, 2000)
    y0 = x0 + rng.laplace(0, 2.0, 2000)
    ci = percent_change(y1, y0, current_noise=nm, baseline_noise=nm)
    true = 100 * (x1 / x0 - 1)
    assert ((ci["lower"] <= true) & (true <= ci["upper"])).mean() >= 0.95


# ------------------------------------------- published counts are non-negative integers (issue 31)
def _sparse():
    """Many empty or tiny cells: at ε = 0.2 raw discrete Laplace noise makes some negative."""
    rng = np.random.default_rng(3)
    return pd.DataFrame({"a": rng.choice(list("pqrstuvw"), 40), "b": rng.choice(list("xyz"), 40),
                         "v": rng.uniform(0, 5, 40)})


LEVELS = {"a": list("pqrstuvw"), "b": list("xyz")}


def test_counts_are_non_negative_integers_by_default_and_raw_on_request():
    """Before: the published ``count`` held the raw noisy values (−2 and the like). After: the
    default is max(0, round(noisy)), post-processing of the same draw; raw_noisy=True keeps the
    raw values. Same seed, same noise: the default is the raw values clamped at 0, cell by
    cell, and reliability/suppression flags are identical."""
    raw = _run(_sparse(), ["a x b"], epsilon=0.2, categories=LEVELS, sums={"v": (0, 5)},
               raw_noisy=True, random_state=11)["a_x_b"].frame
    pub = _run(_sparse(), ["a x b"], epsilon=0.2, categories=LEVELS, sums={"v": (0, 5)},
               random_state=11)["a_x_b"].frame
    assert (raw["count"] < 0).any()  # the case the audit found
    assert (pub["count"] >= 0).all() and str(pub["count"].dtype) == "Int64"
    assert (pub["count"].to_numpy() == np.maximum(raw["count"].to_numpy(), 0)).all()
    assert (pub["count_lower"] == raw["count_lower"].clip(lower=0)).all()
    assert (pub["count_upper"] == raw["count_upper"].clip(lower=0)).all()
    assert (pub["sum_v"] >= 0).all() and (pub["sum_v"] == raw["sum_v"].clip(lower=0)).all()
    assert (pub["reliable"] == raw["reliable"]).all()


def test_the_published_rule_says_which_counts_are_published():
    res = _run(_sparse(), ["a x b"], epsilon=1.0, categories=LEVELS, random_state=1)
    assert not res.raw_noisy and "non-negative integers" in res.published()
    assert "non-negative integers" in res.summary()
    raw = _run(_sparse(), ["a x b"], epsilon=1.0, categories=LEVELS, random_state=1,
               raw_noisy=True)
    assert "raw noisy" in raw.published()
