"""``synthguard dp query``: the queries file of issue 34 end to end, with its exit codes."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.dp import PrivacyLedger
from tests.dp.session.conftest import households

ISSUE_YAML = """\
data: {path: persons.csv}
privacy_unit: hid
max_rows: 5
epsilon: 1.0
queries:
  by_sex:
    by: {sex: [Male, Female]}
    aggregations: {n: count, households: count_distinct, hours: {mean: hours_per_week, bounds: [0, 100]}}
    epsilon: 0.4
"""


@pytest.fixture
def folder(tmp_path):
    households(300, seed=4).to_csv(tmp_path / "persons.csv", index=False)
    (tmp_path / "queries.yaml").write_text(ISSUE_YAML)
    return tmp_path


def _run(*args):
    return CliRunner().invoke(main, ["dp", "query", *map(str, args)], catch_exceptions=False)


def test_issue_file_end_to_end(folder):
    out = folder / "release"
    r = _run(folder / "queries.yaml", "--out", out)
    assert r.exit_code == 0, r.output
    frame = pd.read_csv(out / "by_sex.csv")
    assert list(frame["sex"]) == ["Male", "Female"]
    assert {"n", "n_lower", "n_upper", "households_upper", "hours_lower"} <= set(frame.columns)
    led = PrivacyLedger.open(out / "ledger.json")
    assert math.isclose(led.spent.epsilon, 0.4)
    assert {c.privacy_unit for c in led.charges} == {"hid"}
    info = json.loads((out / "release.json").read_text())
    assert info["privacy_unit"] == "hid (max_rows=5)" and info["files"] == ["by_sex.csv"]
    assert not (out / "metadata").exists()  # the report is where the user looks: the top
    page = (out / "report.html").read_text()
    assert "[unit: hid]" in page and "by_sex" in page
    shown = f"{frame['n'].iloc[0]:.4g} [{frame['n_lower'].iloc[0]:.4g}, "
    assert shown in page  # each value with its interval
    # the persistent ledger beside the queries file holds the same charges
    assert math.isclose(PrivacyLedger.open(folder / "queries.ledger.json").spent.epsilon, 0.4)


def test_debit_card_refuses_overspend_whole_file(folder):
    assert _run(folder / "queries.yaml", "--out", folder / "a").exit_code == 0
    assert _run(folder / "queries.yaml", "--out", folder / "b").exit_code == 0
    r = _run(folder / "queries.yaml", "--out", folder / "c")
    assert r.exit_code == 2 and "left" in r.output
    assert not (folder / "c").exists()
    assert math.isclose(PrivacyLedger.open(folder / "queries.ledger.json").spent.epsilon, 0.8)


def test_dry_run_spends_and_writes_nothing(folder):
    r = _run(folder / "queries.yaml", "--dry-run")
    assert r.exit_code == 0 and "halfwidth" in r.output
    assert not (folder / "queries.ledger.json").exists()


def test_weights_and_accuracy_split_the_budget(folder):
    (folder / "q.yaml").write_text("""\
data: {path: persons.csv}
privacy_unit: hid
max_rows: 5
epsilon: 2.0
delta: 1.0e-6
ledger: budget.json
queries:
  exact:
    aggregations: {n: count}
    accuracy: {n: 100}
  big:
    by: {sex: [Male, Female]}
    aggregations: {n: count}
    weight: 3
  small:
    by: [agegroup]
    aggregations: {hours: {median: hours_per_week, bounds: [0, 100]}}
    delta: 1.0e-6
""")
    r = _run(folder / "q.yaml", "--out", folder / "rel")
    assert r.exit_code == 0, r.output
    info = json.loads((folder / "rel" / "release.json").read_text())
    q = info["queries"]
    assert math.isclose(q["exact"]["epsilon"], 5 * math.log(20) / 100)
    left = 2.0 - q["exact"]["epsilon"]
    assert math.isclose(q["big"]["epsilon"], 0.75 * left)
    assert math.isclose(q["small"]["epsilon"], 0.25 * left)
    assert math.isclose(PrivacyLedger.open(folder / "budget.json").spent.epsilon, 2.0)


def test_report_shows_intervals_and_a_quantiles_rank_error():
    from synthguard.report.dp_queries import _values

    frame = pd.DataFrame({"sex": ["F"], "n": [12345.6], "n_lower": [12000.0],
                          "n_upper": [12691.2], "m": [17200.0], "m_lower": [float("nan")],
                          "m_upper": [float("nan")]})
    shown = _values(frame, ["n", "m"], {"n": float("nan"), "m": 950.8})
    assert shown.loc[0, "n"] == "12,346 [12,000, 12,691]"
    assert shown.loc[0, "m"] == "17,200 (within ±951 ranks)"


@pytest.mark.parametrize("text", [
    "data: {path: persons.csv}\nepsilon: 1\nqueries: {a: {aggregations: {n: count}}}\nfoo: 1\n",
    "data: {path: persons.csv}\nepsilon: -1\nqueries: {a: {aggregations: {n: count}}}\n",
    "data: {path: persons.csv}\nepsilon: 1\nqueries: {a: {aggregations: {n: mean}}}\n",
    "data: {path: nowhere.csv}\nepsilon: 1\nqueries: {a: {aggregations: {n: count}}}\n",
    "data: {path: persons.csv}\nprivacy_unit: hid\nepsilon: 1\n"
    "queries: {a: {aggregations: {n: count}}}\n",
])
def test_bad_files_exit_2_nothing_written(folder, text):
    (folder / "bad.yaml").write_text(text)
    r = _run(folder / "bad.yaml", "--out", folder / "rel")
    assert r.exit_code == 2 and r.output.startswith("error:")
    assert not (folder / "rel").exists() and not (folder / "bad.ledger.json").exists()


def test_counts_are_non_negative_integers_unless_raw_noisy(folder):
    # a tiny epsilon on a rare group: raw noisy counts go negative, published ones never do
    (folder / "q.yaml").write_text("""\
data: {path: persons.csv}
privacy_unit: hid
max_rows: 5
epsilon: 100
queries:
  rare:
    by: {agegroup: [young, middle, old, nobody]}
    aggregations: {n: count, h: count_distinct, s: {sum: hours_per_week, bounds: [0, 100]}}
    epsilon: 0.01
""")
    r = _run(folder / "q.yaml", "--out", folder / "int", "--seed", 3)
    assert r.exit_code == 0, r.output
    f = pd.read_csv(folder / "int" / "rare.csv")
    for c in ("n", "h"):
        assert f[c].dtype.kind == "i" and (f[c] >= 0).all()
        assert (f[f"{c}_lower"] >= 0).all() and (f[f"{c}_lower"] <= f[c]).all()
        assert (f[c] <= f[f"{c}_upper"]).all()
    assert (f["s"] >= 0).all() and (f["s_lower"] >= 0).all()  # bounds [0, 100]: sum >= 0
    info = json.loads((folder / "int" / "release.json").read_text())
    assert "non-negative integers" in info["published"]
    raw = _run(folder / "q.yaml", "--out", folder / "raw", "--seed", 3, "--raw-noisy")
    assert raw.exit_code == 0, raw.output
    g = pd.read_csv(folder / "raw" / "rare.csv")
    assert (g[["n", "h", "s"]] < 0).any().any()  # the same noise, unclamped
    # same seed, same noise: the published count is the raw one rounded and clamped
    assert (f["n"] == g["n"].round().clip(lower=0)).all()
    assert ((f["n_upper"] - g["n_upper"].clip(lower=0)).abs() < 1e-9).all()


def test_existing_out_refused_without_force_like_the_other_verbs(folder):
    out = folder / "rel"
    assert _run(folder / "queries.yaml", "--out", out).exit_code == 0
    before = sorted(p.name for p in out.iterdir())
    assert before == ["by_sex.csv", "ledger.json", "release.json", "report.html"]
    spent = PrivacyLedger.open(folder / "queries.ledger.json").spent.epsilon
    r = _run(folder / "queries.yaml", "--out", out)
    assert r.exit_code == 2 and "--force" in r.output
    # nothing spent, nothing written
    assert PrivacyLedger.open(folder / "queries.ledger.json").spent.epsilon == spent
    assert sorted(p.name for p in out.iterdir()) == before
    r = _run(folder / "queries.yaml", "--out", out, "--force")
    assert r.exit_code == 0, r.output
    assert math.isclose(PrivacyLedger.open(out / "ledger.json").spent.epsilon, 0.8)
    # a folder holding the user's own files is not replaced, even with --force
    (folder / "mine").mkdir()
    (folder / "mine" / "notes.txt").write_text("mine")
    r = _run(folder / "queries.yaml", "--out", folder / "mine", "--force")
    assert r.exit_code == 2 and (folder / "mine" / "notes.txt").read_text() == "mine"
