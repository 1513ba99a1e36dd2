"""A release's ledger record travels with its folder (issue 31).

Before: after a DP release folder was moved, its relative ledger link broke; stderr warned,
but the report said "No differentially private release was made, so no privacy budget was
spent" under its own DP banner, and the exit code was 0. After: the release folder keeps a
read-only copy of its ledger (``metadata/ledger_record.json``, named in the manifest);
evaluate reads it when the link is broken, and when neither can be read the terminal and the
report say the spending is not computed, and the exit code is 3.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.data import read_manifest
from synthguard.dp import PrivacyLedger
from synthguard.errors import PrivacyBudgetError

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 5
    privacy:
      epsilon: 2.0
    releases:
      dp:
        method: dp
        synthesizer: stratified
        epsilon: 0.75
        m: 1
        columns: [region, sex]
        categories: {region: [N, S, E], sex: [f, m]}
    evaluation:
      keys: [region]
      targets: [sex]
    """)
NO_BUDGET = "No differentially private release was made"


def _text(path) -> str:
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def moved(tmp_path):
    """A plan's DP release, run, then its folder moved away from the run's ledger."""
    rng = np.random.default_rng(3)
    pd.DataFrame({"region": rng.choice(["N", "S", "E"], 200), "sex": rng.choice(["f", "m"], 200),
                  "income": rng.gamma(2, 1e4, 200).round()}).to_csv(tmp_path / "conf.csv",
                                                                    index=False)
    (tmp_path / "plan.yaml").write_text(PLAN)
    res = CliRunner().invoke(main, ["run", str(tmp_path / "plan.yaml"), "--quiet"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "synthguard_output"
    folder = out / "releases" / "dp"
    man = read_manifest(folder)
    assert man.ledger == "../../ledger.json" and man.ledger_record == "metadata/ledger_record.json"
    # the record is the run's ledger, verified by its hash chain
    record = PrivacyLedger.read_record(folder / man.ledger_record)
    assert [c.label for c in record.charges] == [
        c.label for c in PrivacyLedger.open(out / "ledger.json").charges]
    assert record.spent.epsilon == pytest.approx(0.75)
    dest = tmp_path / "shared" / "dp"
    dest.parent.mkdir()
    shutil.move(str(folder), str(dest))
    return tmp_path, dest


def _evaluate(tmp_path, folder, report):
    return CliRunner().invoke(main, ["evaluate", str(tmp_path / "conf.csv"), str(folder),
                                     "--keys", "region", "--target", "sex",
                                     "--report", str(report)])


def test_a_moved_release_reads_its_ledger_record(moved):
    tmp_path, folder = moved
    res = _evaluate(tmp_path, folder, tmp_path / "r.html")
    assert res.exit_code == 0, res.output
    assert "read the ledger record kept in the release folder" in res.output
    text = _text(tmp_path / "r.html")
    assert NO_BUDGET not in text
    assert "stratified: full contingency table" in text and "spent: ε 0.75" in text
    # the record was only read: nothing written beside it
    assert sorted(p.name for p in (folder / "metadata").iterdir()) == ["ledger_record.json"]


def test_a_dp_release_without_a_readable_ledger_is_not_computed_never_zero(moved):
    tmp_path, folder = moved
    (folder / "metadata" / "ledger_record.json").unlink()  # as a release of an older synthguard
    res = _evaluate(tmp_path, folder, tmp_path / "r.html")
    assert res.exit_code == 3, res.output
    assert "dp: privacy ledger not read" in res.stdout and "not zero" in res.stdout
    text = _text(tmp_path / "r.html")
    assert NO_BUDGET not in text and "no privacy budget was spent" not in text
    assert "Not computed: the privacy ledger of this DP release could not be read" in text


def test_the_record_is_read_only_so_no_charge_forks_the_budget(moved):
    _, folder = moved
    record = PrivacyLedger.open(folder / "metadata" / "ledger_record.json")
    with pytest.raises(PrivacyBudgetError, match="read-only"):
        record.charge("a second release", 0.1)


def test_dp_synthesize_and_tabulate_with_an_outside_ledger_keep_a_record(tmp_path):
    rng = np.random.default_rng(0)
    pd.DataFrame({"sex": rng.choice(["f", "m"], 200), "vote": rng.choice(["D", "R"], 200)}
                 ).to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "levels.yaml").write_text("sex: [f, m]\nvote: [D, R]\n")
    ledger = tmp_path / "books" / "ledger.json"
    ledger.parent.mkdir()
    common = ["--levels", str(tmp_path / "levels.yaml"), "--ledger", str(ledger),
              "--budget", "3", "--epsilon", "1"]
    res = CliRunner().invoke(main, ["dp", "synthesize", str(tmp_path / "conf.csv"), "--method",
                                    "stratified", "--out", str(tmp_path / "syn"), *common])
    assert res.exit_code == 0, res.output
    man = read_manifest(tmp_path / "syn")
    assert man.ledger_record == "metadata/ledger_record.json"
    assert PrivacyLedger.open(tmp_path / "syn" / man.ledger_record).spent.epsilon == 1.0
    res = CliRunner().invoke(main, ["dp", "tabulate", str(tmp_path / "conf.csv"), "--table",
                                    "sex x vote", "--out", str(tmp_path / "tab"), *common])
    assert res.exit_code == 0, res.output
    info = json.loads((tmp_path / "tab" / "release.json").read_text())
    assert info["ledger_record"] == "ledger_record.json"
    assert PrivacyLedger.open(tmp_path / "tab" / "ledger_record.json").spent.epsilon == 2.0
