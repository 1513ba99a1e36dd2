"""A plan asking for AIM with a workload: the report shows spending, expected and measured error."""

from __future__ import annotations

import json
import re
import textwrap
from html import escape as html_escape

import pandas as pd
import pytest

from synthguard.pipeline.pipeline import run_plan
from synthguard.report.safety import format_number
from tests.report.conftest import SECRET_LABEL, make_conf

AIM_PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 3
    privacy:
      epsilon: 2.0
      delta: 1.0e-6
    releases:
      aim:
        method: dp
        synthesizer: aim
        epsilon: 2.0
        delta: 1.0e-6
        columns: [region, sex, kids, income]
        workload: [[region, sex], [sex, kids, income]]
        max_rounds: 3
        iters: 50
        final_iters: 100
        categories:
          region: [North, South, East, West, ZZSECRETZZ]
          sex: [f, m]
        bins:
          kids: [0, 1, 2, 3, 10]
          income: [0, 20000, 40000, 80000, 1000000]
    evaluation:
      keys: [region, sex]
      targets: [income]
    """)


def _section(html: str, table_id: str) -> list[list[str]]:
    """The text cells of one table of the report, row by row."""
    body = html[html.index(f'id="{table_id}"'):]
    body = body[: body.index("</table>")]
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)]
            for r in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]


@pytest.mark.filterwarnings("ignore::synthguard.errors.SynthguardWarning")
def test_aim_plan_with_workload_reports_spending_expected_and_measured_error(tmp_path):
    make_conf(n=400, seed=2).to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(AIM_PLAN)
    res = run_plan(tmp_path / "plan.yaml")
    html = res.report_path.read_text(encoding="utf-8")
    # spending: the ledger's zCDP line with its rho and what it is worth
    ledger = pd.read_csv(tmp_path / "synthguard_output" / "ledger.csv")
    line = ledger[ledger["kind"] == "zcdp"].iloc[0]
    assert line["rho"] > 0 and line["worth"] == "alone: epsilon=2, delta=1e-06"
    assert 'id="ledger-table"' in html and "alone: epsilon=2, delta=1e-06" in html
    assert f"(ρ {line['rho']:.4g} zCDP)" in html  # spent: ε, δ and the ρ they are worth
    # the DP error table: measured marginals, fit against the noisy measurements, true TV
    rows = {r[0]: r[1:] for r in _section(html, "dp-accuracy-1")[1:]}
    assert list(rows) == ["1-way", "2-way", "3-way"]
    fit = {int(r["order"]): r for r in res.releases["aim"].provenance["fit_error"]}
    exp = {int(r["order"]): r for r in res.releases["aim"].provenance["expected_error"]}
    # the true error on the release's own public domain (its bins: where the bound applies)
    from synthguard.evaluation.workload_error import workload_error

    prov = res.releases["aim"].provenance
    assert prov["bins"] == {"kids": [0, 1, 2, 3, 10], "income": [0, 20000, 40000, 80000, 1e6]}
    imps = res.evaluation.implicates["aim"]
    cols = list(imps[0].columns)
    true = workload_error(res.evaluation.conf[cols], imps, bins=prov["bins"])
    assert 0 < true[1] < true[2] < true[3] < 1
    for k in (1, 2, 3):
        measured, expected, resid, bound, true_tv = rows[f"{k}-way"]
        assert true_tv == format_number(true[k], 3)
        if k in fit:  # every measured order: figures from the run's own fit
            assert measured == str(int(fit[k]["marginals"]))
            assert resid == format_number(fit[k]['residual_tv'], 3)
            assert bound == format_number(fit[k]['bound_tv'], 3)
        # AIM's expectation at the noise of its planned rounds, stated with its basis
        assert expected == format_number(exp[k]["expected_tv"], 3)
    basis = res.releases["aim"].provenance["expected_error_basis"]
    shown = html_escape(basis).replace("&#x27;", "&#39;")  # Jinja's escape of "'"
    assert f"Expected error: {shown}." in html and "R = " in basis
    assert "aim (aim, ε = 2, δ = 1e-06)" in html
    assert SECRET_LABEL not in html
    # the manifest keeps the same public figures for a later `synthguard evaluate`
    doc = json.loads((res.release_paths["aim"][0].parent / "synthguard_manifest.json")
                     .read_text(encoding="utf-8"))
    stored = doc["details"]["dp error"]
    assert stored["method"] == "aim" and stored["fitted"][0]["residual_tv"] == pytest.approx(
        fit[1]["residual_tv"])
