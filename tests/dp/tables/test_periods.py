"""Per-period tables on one ledger, empty periods, change against a baseline period."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp.tables import dp_tables_by_period, period_changes
from synthguard.errors import DataError, ParameterError, PrivacyWarning


def _df():
    rng = np.random.default_rng(3)
    n = 900
    return pd.DataFrame({"week": rng.choice(["w1", "w2"], n),  # w3 is declared but empty
                         "place": rng.choice(["park", "shop"], n)})


def _run(df, **kw):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        return dp_tables_by_period(df, ["place"], period="week", periods=["w1", "w2", "w3"],
                                   categories={"place": ["park", "shop"]}, random_state=4,
                                   **kw)


def test_each_period_charged_on_one_ledger_and_empty_period_tabulated():
    df = _df()
    res = _run(df, epsilon=0.5)
    ledger = res["w1"].ledger
    assert ledger is res["w3"].ledger
    assert ledger.spent.epsilon == pytest.approx(1.5)  # sequential over periods
    assert [c.label for c in ledger.charges] == [
        f"dp table [week={w}] place: count" for w in ("w1", "w2", "w3")]
    w3 = res["w3"]["place"].frame
    assert len(w3) == 2  # the empty period is released like any other
    # the noisy w1 counts are near the true w1 counts (scale 2)
    true = df[df["week"] == "w1"]["place"].value_counts().reindex(["park", "shop"])
    got = res["w1"]["place"].frame["count"].astype(float).to_numpy()
    assert np.abs(got - true.to_numpy()).max() < 40


def test_zcdp_periods_fit_a_default_ledger():
    res = _run(_df(), epsilon=1.0, delta=1e-10, mechanism="discrete_gaussian")
    assert res["w1"].ledger.spent.epsilon < 3.0  # rho adds up: less than 3 x epsilon


def test_changes_against_baseline():
    res = _run(_df(), epsilon=1.0)
    ch = period_changes(res, "w1")["place"]
    base = ch[ch["period"] == "w1"]
    assert (base["change_percent"].abs() < 1e-9).all()
    w2 = ch[ch["period"] == "w2"].reset_index(drop=True)
    c1 = res["w1"]["place"].frame["count"].astype(float)
    c2 = res["w2"]["place"].frame["count"].astype(float)
    assert w2["change_percent"].to_numpy() == pytest.approx((100 * (c2 / c1 - 1)).to_numpy())
    assert (w2["change_lower"] <= w2["change_percent"]).all()


def test_undeclared_period_is_refused_without_values():
    df = _df()
    df.loc[0, "week"] = "w9"
    with pytest.raises(DataError) as e:
        _run(df, epsilon=1.0)
    assert "w9" not in str(e.value)


def _daily(days):
    rng = np.random.default_rng(5)
    n = 4000
    return pd.DataFrame({"day": rng.choice(days, n), "place": rng.choice(["park", "shop"], n)})


def test_weekday_median_baseline_is_googles():
    """Google's baseline (Aktay et al. 2020; course §8.7): each day against the median of the
    same weekday over the baseline window. Brute force on the released noisy counts."""
    days = [str(d.date()) for d in pd.date_range("2020-01-06", periods=21)]  # three weeks
    window = days[:14]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        res = dp_tables_by_period(_daily(days), ["place"], period="day", periods=days,
                                  categories={"place": ["park", "shop"]}, epsilon=1.0,
                                  random_state=2)
    ch = period_changes(res, window)["place"]
    for p in days:
        same = [q for q in window if pd.Timestamp(q).day_name() == pd.Timestamp(p).day_name()]
        med = np.median([res[q]["place"].frame["count"].astype(float).to_numpy()
                         for q in same], axis=0)
        cur = res[p]["place"].frame["count"].astype(float).to_numpy()
        got = ch[ch["period"] == p]["change_percent"].to_numpy()
        assert got == pytest.approx(100 * (cur / med - 1))
    # a median of K=2 counts: each count's interval is taken at level 1 - alpha/(2K), so the
    # same counts give a strictly wider change interval than against one period
    from synthguard.dp.tables import NoiseModel, percent_change

    nm = NoiseModel("laplace", 2.0)
    k1 = percent_change(120, 100, current_noise=nm, baseline_noise=nm)
    k2 = percent_change(120, 100, current_noise=nm, baseline_noise=nm, baseline_periods=2)
    assert (k2["lower"] < k1["lower"]).all() and (k2["upper"] > k1["upper"]).all()
    # Laplace: halfwidth b*log(1/a); at 95 % joint, the baseline's a is 0.025/2 for K=2
    t0 = 2.0 * np.log(1 / 0.0125)
    t1 = 2.0 * np.log(1 / 0.025)
    assert k2["upper"].item() == pytest.approx(100 * ((120 + t1) / (100 - t0) - 1))


def test_weekday_baseline_needs_whole_weeks_and_dates():
    days = [str(d.date()) for d in pd.date_range("2020-01-06", periods=8)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        res = dp_tables_by_period(_daily(days), ["place"], period="day", periods=days,
                                  categories={"place": ["park", "shop"]}, epsilon=1.0,
                                  random_state=2)
    with pytest.raises(ParameterError, match="whole weeks"):
        period_changes(res, days[:3])
    with pytest.raises(ParameterError, match="weekday"):
        period_changes(res, days[:7], weekday={days[0]: "Monday"})
