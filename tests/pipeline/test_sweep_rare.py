"""Issue 31, N3: a sweep over the guards' settings is judged by what those settings change."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.pipeline.sweep import sweep
from synthguard.risk.rare_released import rare_released

PLANTED_LEVEL = "ZZ_PLANTED"
PLANTED_INCOMES = (987_654_321.0, 525_986_018.0)


@pytest.fixture(scope="module")
def planted() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(31)
    n = 400
    df = pd.DataFrame({
        "occupation": rng.choice(["clerk", "driver", "nurse"], n),
        "sex": rng.choice(["F", "M"], n),
        "income": np.round(rng.lognormal(10, 0.6, n), 0),
    })
    df.loc[7, "occupation"] = PLANTED_LEVEL  # one record holds it
    df.loc[11, "income"], df.loc[12, "income"] = PLANTED_INCOMES
    return df.iloc[:320].reset_index(drop=True), df.iloc[320:].reset_index(drop=True)


def test_rare_released_by_hand():
    conf = pd.DataFrame({"c": ["a"] * 6 + ["b"], "x": [1.0, 2, 3, 4, 5, 6, 7]})
    # rare: level 'b' (1 record) and every x value (1 record each); tails with k=2:
    # u = 3rd largest = 5, l = 3rd smallest = 3
    rel = pd.DataFrame({"c": ["a", "b", "a", "a"], "x": [1.0, 2.5, 6.0, 4.0]})
    r = rare_released(conf, [rel], k=2)
    # rare cells: 'b', x=1, x=6, x=4 -> 4 of 8 cells; tails: 1 < 3, 2.5 < 3, 6 > 5 -> 3 of 4
    assert r.rare_values == pytest.approx(4 / 8)
    assert r.extremes == pytest.approx(3 / 4)


@pytest.mark.slow
def test_sweep_over_the_guards_no_longer_releases_planted_values(planted):
    train, holdout = planted
    res = sweep(train, {"rare_values": [0, 5], "extremes": [0, 5]}, keys=["occupation", "sex"],
                targets=["income"], holdout=holdout, attacks=False, random_state=3,
                base={"min_rows": 0})
    t = res.table
    # every configuration that switches a guard off hands back what it guards
    assert t.loc["rare_values=0, extremes=5", "rare_values_released"] > 0
    assert t.loc["rare_values=5, extremes=0", "extremes_released"] > 0
    for label in ("rare_values=0, extremes=0", "rare_values=0, extremes=5",
                  "rare_values=5, extremes=0"):
        assert not t.loc[label, "passed"], label
    assert t.loc["rare_values=5, extremes=5", "rare_values_released"] == 0
    assert t.loc["rare_values=5, extremes=5", "extremes_released"] == 0
    assert res.chosen == "rare_values=5, extremes=5"
    # the summary says how the most useful was chosen, and a far-off ratio in words
    text = res.summary()
    assert "closest to 1 (|log ratio|), not the lowest" in text
    ratio = float(t.loc[res.chosen, "pmse_ratio"])
    assert (ratio < 0.5 or ratio > 3) == ("far below 1" in text or "far above 1" in text)
    for imp in res.release.implicates:
        assert PLANTED_LEVEL not in set(imp["occupation"].astype(str))
        assert imp["income"].max() < min(PLANTED_INCOMES)


def _planted_plan(planted, folder, name: str, release: str) -> object:
    """The planted training data as a CSV and a plan ``name`` with the given release block."""
    train, _ = planted
    train.to_csv(folder / "planted.csv", index=False)
    path = folder / name
    path.write_text(
        "data: {path: planted.csv, schema: {occupation: categorical}}\nseed: 1\n"
        f"{release}"
        "evaluation:\n  keys: [occupation, sex]\n  targets: [income]\n", encoding="utf-8")
    return path


def _no_planted_values(release) -> None:
    for imp in release.implicates:
        assert PLANTED_LEVEL not in set(imp["occupation"].astype(str))
        assert imp["income"].max() < min(PLANTED_INCOMES)


@pytest.mark.slow
def test_plan_sweep_does_not_declare_the_datas_levels_public(planted, tmp_path):
    # the plan route passed the schema inferred from the data to the synthesizer: it lists
    # every level, so the one-record level counted as declared public and came back
    from synthguard.pipeline import run_sweep

    plan = _planted_plan(planted, tmp_path, "sweep.yaml",
                         "holdout: 0.2\noutput: out\nreleases:\n  syn:\n    method: synthesis\n"
                         "    min_rows: 0\n    sweep:\n      rare_values: [0, 5]\n"
                         "      extremes: [0, 5]\n")
    s = run_sweep(plan).sweep
    assert s.chosen == "rare_values=5, extremes=5"
    _no_planted_values(s.releases[s.chosen])


@pytest.mark.slow
def test_plan_run_does_not_declare_the_datas_levels_public(planted, tmp_path):
    # the same leak on the run route (makers._synthesis): the inferred schema's level list made
    # the one-record level 'declared public', and the default rare-values guard let it out
    from synthguard.pipeline import run_plan

    plan = _planted_plan(planted, tmp_path, "plan.yaml",
                         "output: out\nreleases:\n  syn: {method: synthesis, m: 3}\n")
    _no_planted_values(run_plan(plan).releases["syn"])
