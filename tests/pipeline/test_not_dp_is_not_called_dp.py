"""Nothing that is not DP is called DP (issue 31, N4).

Before: a plan release with ``domain_from_data: not-dp`` was reported as "made with
differential privacy … bounded by the ε and δ the ledger records", its manifest said kind
``dp``, the terminal said nothing, and the ledger's "what the budget means" gave it a DP
bound (odds × 2.72). After: the report, the manifest, the terminal, the ledger and the board
table all say NOT differentially private, and no line gives it an ε bound.
"""

from __future__ import annotations

import math
import re
import textwrap

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.data import read_manifest
from synthguard.dp import PrivacyLedger, epsilon_table

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 5
    privacy:
      epsilon: 2.0
    releases:
      {name}:
        method: dp
        synthesizer: stratified
        epsilon: 1.0
        m: 1
        columns: [region, sex]
        {domain}
    evaluation:
      keys: [region]
      targets: [sex]
    """)


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(3)
    pd.DataFrame({"region": rng.choice(["N", "S", "E"], 200), "sex": rng.choice(["f", "m"], 200),
                  "income": rng.gamma(2, 1e4, 200).round()}).to_csv(tmp_path / "conf.csv",
                                                                    index=False)
    return tmp_path


def _text(html: str) -> str:
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_not_dp_plan_release_is_never_called_dp(folder):
    (folder / "plan.yaml").write_text(PLAN.format(name="leaky",
                                                  domain="domain_from_data: not-dp"))
    res = CliRunner().invoke(main, ["run", str(folder / "plan.yaml")])
    assert res.exit_code in (0, 1), res.output
    out = folder / "synthguard_output"
    # the terminal
    assert "leaky: NOT differentially private" in res.stdout
    # the manifest
    assert read_manifest(out / "releases" / "leaky").kind == "not-dp"
    # the report: no DP claim for it; says NOT differentially private
    text = _text((out / "report.html").read_text(encoding="utf-8"))
    assert "made with differential privacy" not in text
    assert "A differentially private release was made" not in text
    assert "bounded by the ε and δ the ledger records" not in text
    assert "The release leaky is NOT differentially private" in text
    assert "differentially private, fully synthetic" not in text
    # the ledger: its line is marked, worth no guarantee; the board table gives it no odds
    ledger = PrivacyLedger.open(out / "ledger.json")
    (charge,) = ledger.charges
    assert not charge.dp
    frame = pd.read_csv(out / "ledger.csv")
    assert frame.loc[0, "worth"].startswith("NOT DP: no epsilon/delta guarantee")
    assert "NOT DP" in frame.loc[1, "worth"]  # the total says what it bounds
    board = epsilon_table(ledger)
    assert math.isnan(board.loc[0, "e^epsilon"]) and "NOT differentially private" in board.loc[
        0, "meaning"]
    assert "NOT DP" in str(ledger)


def test_a_dp_plan_release_keeps_its_dp_wording(folder):
    (folder / "plan.yaml").write_text(PLAN.format(
        name="fine", domain="categories: {region: [N, S, E], sex: [f, m]}"))
    res = CliRunner().invoke(main, ["run", str(folder / "plan.yaml")])
    assert res.exit_code in (0, 1), res.output
    out = folder / "synthguard_output"
    assert "NOT differentially private" not in res.stdout
    assert read_manifest(out / "releases" / "fine").kind == "dp"
    text = _text((out / "report.html").read_text(encoding="utf-8"))
    assert "The release fine was made with differential privacy" in text
    (charge,) = PrivacyLedger.open(out / "ledger.json").charges
    assert charge.dp
    assert "factor of 2.72" in epsilon_table(PrivacyLedger.open(out / "ledger.json")).loc[
        0, "meaning"]
