"""``synthguard evaluate`` of DP release folders: every ledger, their composed total, and each
release's error before spending, after fitting and against the data."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.dp.conversion import rho_to_epsilon


def _cells(html: str, table_id: str) -> list[list[str]]:
    body = html[html.index(f'id="{table_id}"'):]
    body = body[: body.index("</table>")]
    return [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def _categorical(tmp_path):
    """A confidential file of three categorical columns and its public levels."""
    rng = np.random.default_rng(4)
    n = 400
    sex = rng.choice(["f", "m"], n)
    df = pd.DataFrame({"sex": sex, "vote": np.where(rng.random(n) < 0.8, sex, "x"),
                       "region": rng.choice(["a", "b", "c"], n)})
    df["vote"] = df["vote"].map({"f": "D", "m": "R", "x": "I"})
    data = tmp_path / "conf.csv"
    df.to_csv(data, index=False)
    levels = tmp_path / "levels.yaml"
    levels.write_text(yaml.safe_dump({"sex": ["f", "m"], "vote": ["D", "I", "R"],
                                      "region": ["a", "b", "c"]}))
    return data, levels


@pytest.mark.filterwarnings("ignore::synthguard.errors.SynthguardWarning")
def test_evaluate_dp_folders_shows_each_ledger_total_and_errors(tmp_path):
    data, levels = _categorical(tmp_path)
    runner = CliRunner()
    for method, eps in (("mst", "1"), ("aim", "0.5")):
        res = runner.invoke(main, ["dp", "synthesize", str(data), "--method", method,
                                   "--epsilon", eps, "--seed", "1", "--max-rounds", "3",
                                   "--levels", str(levels), "--out", str(tmp_path / method)])
        assert res.exit_code == 0, res.output
    report = tmp_path / "r.html"
    res = runner.invoke(main, ["evaluate", str(data), str(tmp_path / "mst"), str(tmp_path / "aim"),
                               "--keys", "sex,region", "--target", "vote", "--seed", "0",
                               "--report", str(report)])
    assert res.exit_code == 0, res.output
    html = report.read_text(encoding="utf-8")
    # both ledgers, then their sequential composition (ρ's add, converted at the summed δ)
    assert 'id="ledger-table"' in html and 'id="ledger-table-2"' in html
    rho = sum(json.loads((tmp_path / m / "metadata" / "ledger.json").read_text())["charges"][0]
              ["rho"] for m in ("mst", "aim"))
    total = re.search(r"bounded by <b>ε ([0-9.]+), δ ([0-9.e-]+)</b>", html)
    assert total is not None
    assert float(total.group(1)) == pytest.approx(rho_to_epsilon(rho, 2e-6), rel=1e-3)
    assert float(total.group(2)) == pytest.approx(2e-6)
    # each release's error table, from its manifest (AIM's expectation with its basis)
    for i, method in enumerate(("mst", "aim"), start=1):
        prov = json.loads((tmp_path / method / "metadata" / "provenance.json").read_text())
        exp = {r["order"]: r["expected_tv"] for r in prov["provenance"]["expected_error"]}
        fit = {r["order"]: r["residual_tv"] for r in prov["provenance"]["fit_error"]}
        rows = {r[0]: r[1:] for r in _cells(html, f"dp-accuracy-{i}")[1:]}
        assert float(rows["1-way"][1]) == pytest.approx(exp[1], rel=5e-3)
        assert float(rows["1-way"][2]) == pytest.approx(fit[1], rel=5e-3)
    mst = {r[0]: r[1:] for r in _cells(html, "dp-accuracy-1")[1:]}
    aim = {r[0]: r[1:] for r in _cells(html, "dp-accuracy-2")[1:]}
    assert "Expected error: 1-way marginals at the initial noise" in html  # AIM's basis
    # the true error: the evaluation's own 2-way TV of each release
    assert float(mst["2-way"][4]) > 0 and float(aim["2-way"][4]) > 0
    assert "mst (mst, ε = 1, δ = 1e-06)" in html and "aim (aim, ε = 0.5, δ = 1e-06)" in html


@pytest.mark.filterwarnings("ignore::synthguard.errors.SynthguardWarning")
def test_evaluate_without_target_skips_target_measures_and_says_so(tmp_path):
    data, levels = _categorical(tmp_path)
    runner = CliRunner()
    res = runner.invoke(main, ["dp", "synthesize", str(data), "--method", "mst", "--epsilon", "1",
                               "--seed", "1", "--levels", str(levels), "--out",
                               str(tmp_path / "mst")])
    assert res.exit_code == 0, res.output
    base = ["evaluate", str(data), str(tmp_path / "mst"), "--keys", "sex,region", "--seed", "0"]
    res = runner.invoke(main, base)
    # not asked for: exit 0, one line says which measures were not computed and why
    assert res.exit_code == 0, res.output
    assert ("release 'mst': no target given: identification risk, match rates, attribute "
            "disclosure, repU, DiSCO and replicated uniques not computed") in res.output
    assert "2-way TV" in res.output and "DiSCO" not in res.output.split("no target")[0]
    # the target defaults are not applied; usefulness is still judged (issue 31)
    verdict = next(t for t in res.output.splitlines() if t.startswith("mst: PASS"))
    assert "DiSCO" not in verdict and "replicated uniques" not in verdict
    assert "pMSE ratio ≤ 5" in verdict
    # asked for (a threshold on DiSCO): exit 3, named with why
    res = runner.invoke(main, [*base, "--threshold", "disco=0.1"])
    assert res.exit_code == 3, res.output
    assert "not computed: release 'mst': disco: not computed: no target was given" in res.output


def test_library_targets_must_be_named_or_explicitly_empty(tmp_path):
    from synthguard.errors import ParameterError
    from synthguard.report import evaluate

    data, _ = _categorical(tmp_path)
    conf = pd.read_csv(data)
    syn = conf.sample(frac=1.0, replace=True, random_state=0).reset_index(drop=True)
    with pytest.raises(ParameterError, match="targets=\\[\\] to skip"):
        evaluate(conf, {"s": syn}, keys=["sex"], targets=None)
    ev = evaluate(conf, {"s": syn}, keys=["sex"], targets=[], random_state=0,
                  kinds={"s": "full"})
    r = ev["s"]
    assert r.metrics["disco"] is None and r.metrics["replicated_uniques"] is None
    assert r.metrics["tv_2way"] is not None and r.metrics["exact_copies"] is not None
    # without a target only the defaults that need none judge it: usefulness, and (not
    # judged here, no holdout) membership and DCR
    assert {c.threshold.metric for c in r.checks} == {"pmse_ratio", "membership_auc",
                                                     "closer_to_data_excess"}
    assert ev.status == "passed"
