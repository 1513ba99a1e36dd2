"""``synthguard demo``: the terminal shows only what the report would print, and the exit code
says whether the demo's story ran as designed (issue 31)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import demo as demo_cli
from synthguard.cli import main
from synthguard.data.datasets import load_dataset
from synthguard.pipeline.demo import DEMO_STORY, demo_plan, unexpected_verdicts

PLANTED = 987_654_321


def _income_lines(output: str) -> list[str]:
    """The printed comparison rows of Income, confidential column only, and the correlation's."""
    rows = []
    for line in output.splitlines():
        parts = line.split()
        if parts[:1] == ["Income"]:
            rows.append(" ".join(parts[:-1]))  # without the synthetic figure
        if line.startswith("corr(Income, Expenditure)"):
            rows.append(line.split(", synthetic")[0])
    return rows


def _run_ce_step(monkeypatch: pytest.MonkeyPatch, tmp_path, data: pd.DataFrame) -> str:
    import synthguard.data.datasets as datasets

    # the demo imports load_dataset when it runs (the CLI loads its modules lazily)
    monkeypatch.setattr(datasets, "load_dataset", lambda name: data.copy())
    monkeypatch.setattr(demo_cli, "STEPS", [demo_cli.step_ce])
    res = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    return res.output


def test_terminal_never_prints_a_planted_extreme(monkeypatch, tmp_path):
    """The demo printed raw means ("Income mean 77,075.77"): one extreme record then moved
    the printed figure by its value / n. Planted into CE, the 987,654,321 income must change
    no confidential figure on the terminal, and appear nowhere (nor the raw means)."""
    ce = load_dataset("ce")
    planted = ce.copy()
    planted.loc[planted["Income"].idxmax(), "Income"] = PLANTED
    plain_out = _run_ce_step(monkeypatch, tmp_path / "a", ce)
    planted_out = _run_ce_step(monkeypatch, tmp_path / "b", planted)
    assert len(_income_lines(plain_out)) == 3  # mean, sd, correlation
    assert _income_lines(planted_out) == _income_lines(plain_out)
    digits = planted_out.replace(",", "")
    for raw in (PLANTED, planted["Income"].mean(), planted["Income"].std(),
                ce["Income"].mean(), ce["Income"].std()):
        assert f"{int(raw)}" not in digits
    csv = (tmp_path / "b" / "out" / "ce" / "metadata" / "comparison.csv").read_text()
    assert str(PLANTED) not in csv.replace(",", "")
    assert f"{int(planted['Income'].mean())}" not in csv.replace(",", "")


def test_comparison_withholds_small_levels_and_counts():
    """A level of fewer than 10 records is not named, and its share is only bounded."""
    from synthguard.report.comparison import comparison_table

    rng = np.random.default_rng(5)
    df = pd.DataFrame({"g": ["a"] * 200 + ["b"] * 95 + ["ZZ_PLANTED"] * 3,
                       "x": rng.normal(size=298)})
    df.loc[5, "x"] = np.nan
    table = comparison_table(df, [df, df])
    text = table.to_string()
    assert "ZZ_PLANTED" not in text
    share = table[table["statistic"] == "share of levels (suppressed)"].iloc[0]
    assert share["confidential"] == f"< {10 / 298:.2g}"  # below 10 records of 298
    miss = table[(table["column"] == "x") & (table["statistic"] == "share missing")].iloc[0]
    assert miss["confidential"].startswith("< ")
    a = table[table["statistic"] == "share a"].iloc[0]
    assert float(a["confidential"]) == pytest.approx(200 / 298, abs=5e-4)


def test_unexpected_verdict_is_named_and_exits_1(monkeypatch, tmp_path):
    """The demo exits 0 when every verdict is the one its story expects (failures included)
    and 1, naming the release, when one is not."""
    plan = demo_plan(tmp_path)
    assert set(plan["releases"]) <= set(DEMO_STORY)
    fails = [n for n, s in DEMO_STORY.items() if not s.passes]
    passes = [n for n, s in DEMO_STORY.items() if s.passes]
    assert fails and passes
    as_designed = [SimpleNamespace(name=n, passed=DEMO_STORY[n].passes) for n in DEMO_STORY]
    assert unexpected_verdicts(as_designed) == []
    flipped = [SimpleNamespace(name=n, passed=True) for n in DEMO_STORY]
    assert unexpected_verdicts(flipped) == fails
    assert unexpected_verdicts([SimpleNamespace(name="other", passed=True)]) == ["other"]

    def surprise(ctx: demo_cli.DemoContext) -> None:
        ctx.unexpected.append("private_full")

    monkeypatch.setattr(demo_cli, "STEPS", [surprise])
    res = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "o")])
    assert res.exit_code == 1
    assert "not as designed" in res.output and "private_full" in res.output
