"""``synthguard dp tabulate``: tables and TopDown releases, the ledger, refusals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.dp import PrivacyLedger


@pytest.fixture
def conf(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    st = rng.choice(["A", "B"], n)
    df = pd.DataFrame({"state": st, "county": [f"{s}{i}" for s, i in
                                               zip(st, rng.integers(0, 3, n))],
                       "sex": rng.choice(["F", "M"], n), "age": rng.choice(["y", "o"], n),
                       "income": rng.uniform(0, 90, n).round(1)})
    p = tmp_path / "conf.csv"
    df.to_csv(p, index=False)
    (tmp_path / "levels.yaml").write_text("sex: [F, M]\nage: [y, o]\nstate: [A, B]\n")
    df[["state", "county"]].drop_duplicates().to_csv(tmp_path / "units.csv", index=False)
    return tmp_path


def _run(args, cwd):
    return CliRunner().invoke(main, ["dp", "tabulate", *args], catch_exceptions=False)


def test_tables_release(conf):
    out = conf / "tables"
    r = _run([str(conf / "conf.csv"), "--table", "state x sex x age", "--table", "sex",
              "--levels", str(conf / "levels.yaml"), "--sum", "income=0,100", "--epsilon", "1",
              "--allocation", "3,1", "--ledger", str(conf / "ledger.json"), "--out", str(out),
              "--report", str(conf / "report.html"), "--seed", "1"], conf)
    assert r.exit_code == 0, r.output
    t = pd.read_csv(out / "state_x_sex_x_age.csv")
    assert len(t) == 8 and {"count", "count_lower", "reliable", "sum_income"} <= set(t.columns)
    alloc = pd.read_csv(out / "allocation.csv")
    assert alloc["epsilon"].sum() == pytest.approx(1.0)
    assert alloc.loc[alloc["table"] == "sex", "epsilon"].sum() == pytest.approx(0.25)
    info = json.loads((out / "release.json").read_text())
    assert info["kind"] == "dp-tables" and info["spent"]["epsilon"] == pytest.approx(1.0)
    assert PrivacyLedger.open(conf / "ledger.json").spent.epsilon == pytest.approx(1.0)
    html = (conf / "report.html").read_text()
    assert "Accuracy against the confidential tables" in html and "factor of" in html
    assert "<h3>state_x_sex_x_age</h3>" in html and "count_lower" in html  # the tables


def test_topdown_release(conf):
    out = conf / "td"
    r = _run([str(conf / "conf.csv"), "--hierarchy", "state>county", "--by", "sex x age",
              "--units", str(conf / "units.csv"), "--invariant", "state",
              "--levels", str(conf / "levels.yaml"), "--epsilon", "1", "--mechanism",
              "discrete_gaussian", "--out", str(out), "--seed", "2"], conf)
    assert r.exit_code == 0, r.output
    county = pd.read_csv(out / "level_county.csv", dtype={"county": str})
    state = pd.read_csv(out / "level_state.csv")
    got = county.groupby(["state", "sex", "age"])["count"].sum()
    want = state.set_index(["state", "sex", "age"])["count"]
    assert (got.reindex(want.index) == want).all()
    df = pd.read_csv(conf / "conf.csv")
    assert (state.groupby("state")["count"].sum() == df.groupby("state").size()).all()
    assert "NOT differentially private" in r.output  # the invariant is stated
    assert (out / "ledger.json").exists()  # the release's own ledger


def test_refusals_spend_nothing(conf):
    ledger = conf / "ledger.json"
    r = _run([str(conf / "conf.csv"), "--table", "state x county", "--levels",
              str(conf / "levels.yaml"), "--epsilon", "1", "--ledger", str(ledger),
              "--out", str(conf / "x")], conf)
    assert r.exit_code == 2 and "county" in r.output
    assert not ledger.exists()
    r = _run([str(conf / "conf.csv"), "--table", "sex", "--hierarchy", "state",
              "--epsilon", "1", "--out", str(conf / "x")], conf)
    assert r.exit_code == 2


def test_periods_with_baseline(conf):
    df = pd.read_csv(conf / "conf.csv")
    df["week"] = np.where(np.arange(len(df)) % 2 == 0, "w1", "w2")
    df.to_csv(conf / "weekly.csv", index=False)
    out = conf / "weekly"
    r = _run([str(conf / "weekly.csv"), "--table", "sex", "--levels",
              str(conf / "levels.yaml"), "--period", "week", "--periods", "w1,w2,w3",
              "--baseline", "w1", "--epsilon", "0.5", "--out", str(out), "--seed", "3",
              "--report", str(conf / "weekly.html")], conf)
    assert r.exit_code == 0, r.output
    t = pd.read_csv(out / "sex.csv")
    assert t["week"].tolist() == ["w1", "w1", "w2", "w2", "w3", "w3"]
    assert (t.loc[t["week"] == "w1", "change_percent"].abs() < 1e-9).all()
    assert PrivacyLedger.open(out / "ledger.json").spent.epsilon == pytest.approx(1.5)


def test_weekday_median_baseline_from_the_command_line(conf):
    """--baseline with several dates: Google's baseline, each day against the median of the
    same weekday over the window (course §8.7)."""
    df = pd.read_csv(conf / "conf.csv")
    days = [str(d.date()) for d in pd.date_range("2020-01-06", periods=14)]
    df["day"] = [days[i % 14] for i in range(len(df))]
    df.to_csv(conf / "daily.csv", index=False)
    out = conf / "daily"
    r = _run([str(conf / "daily.csv"), "--table", "sex", "--levels", str(conf / "levels.yaml"),
              "--period", "day", "--periods", ",".join(days), "--baseline",
              ",".join(days[:7]), "--epsilon", "0.5", "--out", str(out), "--seed", "3"], conf)
    assert r.exit_code == 0, r.output
    t = pd.read_csv(out / "sex.csv")
    # a window of one week: each weekday's median is that day itself, so the window's days
    # change by 0 and the next week's days against their weekday
    assert (t.loc[t["day"].isin(days[:7]), "change_percent"].abs() < 1e-9).all()
    first, second = t[t["day"] == days[0]], t[t["day"] == days[7]]
    want = 100 * (second["count"].to_numpy() / first["count"].to_numpy() - 1)
    assert second["change_percent"].to_numpy() == pytest.approx(want)
    r = _run([str(conf / "daily.csv"), "--table", "sex", "--levels", str(conf / "levels.yaml"),
              "--period", "day", "--periods", ",".join(days), "--baseline",
              f"{days[0]},2019-01-01", "--epsilon", "0.5", "--out", str(conf / "bad")], conf)
    assert r.exit_code == 2 and "weekday-median" in r.output
    assert not (conf / "bad").exists()


def test_undeclared_levels_are_asked_for_in_command_line_syntax(conf):
    # the library's hint names categories={...} / domain_from_data=...; a CLI user needs options
    res = _run([str(conf / "conf.csv"), "--table", "sex x age", "--epsilon", "1",
                "--ledger", str(conf / "l.json"), "--out", str(conf / "t")], conf)
    assert res.exit_code == 2
    assert "--levels FILE.yaml" in res.output and "--levels-from-data" in res.output
    assert "categories=" not in res.output and "domain_from_data" not in res.output
    assert not (conf / "t").exists()


@pytest.mark.filterwarnings("ignore::synthguard.errors.PrivacyWarning")
def test_reconstruction_attack_in_the_report(conf):
    from synthguard.dp.tables import dp_tables, reconstruction_attack

    out = conf / "rec"
    args = [str(conf / "conf.csv"), "--table", "state x sex", "--table", "state x age",
            "--levels", str(conf / "levels.yaml"), "--epsilon", "0.5",
            "--out", str(out), "--report", str(conf / "rec.html"), "--seed", "3"]
    r = _run([*args, "--reconstruct", "--reconstruct-block", "state"], conf)
    assert r.exit_code == 0, r.output
    # the same seeded release attacked in Python gives the figures the CLI and report show
    df = pd.read_csv(conf / "conf.csv")
    res = dp_tables(df, ["state x sex", "state x age"], epsilon=0.5,
                    categories={"sex": ["F", "M"], "age": ["y", "o"], "state": ["A", "B"]},
                    random_state=3)
    attack = reconstruction_attack(df, res, block="state", random_state=3)
    assert str(attack) in r.output and "2 block(s)" in r.output
    html = (conf / "rec.html").read_text()
    assert "id='reconstruction'" in html
    for share in (attack.noisy, attack.exact, attack.baseline):
        assert f"{100 * share:.1f} %" in html
    assert attack.exact >= attack.noisy  # noise can only hide records here
    # bad input is refused before any budget is spent
    r = _run([*args, "--force", "--reconstruct", "--reconstruct-block", "sex"], conf)
    assert r.exit_code == 2 and "must be in every --table" in r.output  # checked before spending
    r = _run([*args[:-4], "--out", str(out), "--force", "--reconstruct"], conf)
    assert r.exit_code == 2 and "needs --report" in r.output


def test_published_counts_are_non_negative_unless_raw_noisy(conf):
    """Before: ``dp tabulate`` published negative counts unless --suppress-below was given.
    After: non-negative integers by default; --raw-noisy gives the raw values of the same draw,
    and release.json says which."""
    args = [str(conf / "conf.csv"), "--table", "state x county x sex x age", "--levels",
            str(conf / "levels.yaml"), "--levels-from-data", "--epsilon", "0.05",
            "--seed", "4"]
    r = _run([*args, "--out", str(conf / "pub")], conf)
    assert r.exit_code == 0, r.output
    r = _run([*args, "--raw-noisy", "--out", str(conf / "raw")], conf)
    assert r.exit_code == 0, r.output
    pub = pd.read_csv(conf / "pub" / "state_x_county_x_sex_x_age.csv")
    raw = pd.read_csv(conf / "raw" / "state_x_county_x_sex_x_age.csv")
    assert (raw["count"] < 0).any()
    assert (pub["count"] >= 0).all() and pub["count"].dtype.kind == "i"
    assert (pub["count"] == raw["count"].clip(lower=0)).all()
    assert "non-negative integers" in json.loads((conf / "pub" / "release.json").read_text())[
        "rule"]
    assert "raw noisy" in json.loads((conf / "raw" / "release.json").read_text())["rule"]


def test_topdown_publishes_measured_columns_only_on_request(conf):
    args = [str(conf / "conf.csv"), "--hierarchy", "state>county", "--units",
            str(conf / "units.csv"), "--levels", str(conf / "levels.yaml"), "--epsilon", "1",
            "--seed", "2"]
    assert _run([*args, "--out", str(conf / "td")], conf).exit_code == 0
    assert _run([*args, "--raw-noisy", "--out", str(conf / "tdraw")], conf).exit_code == 0
    pub = pd.read_csv(conf / "td" / "level_county.csv")
    raw = pd.read_csv(conf / "tdraw" / "level_county.csv")
    assert "measured" not in pub.columns and (pub["count"] >= 0).all()
    assert "measured" in raw.columns
