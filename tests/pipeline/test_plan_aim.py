"""A plan asking for AIM with a workload: the report shows spending, expected and measured error."""

from __future__ import annotations

import re
import textwrap

import pandas as pd
import pytest

from synthguard.pipeline.pipeline import run_plan
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
    # expected error (before spending) and the fit against its noisy measurements
    assert re.search(r"expected \(noise, before spending\): 1-way TV [0-9.e-]+ \(4 marginals\), "
                     r"2-way TV [0-9.e-]+ \(1 marginal\), 3-way TV [0-9.e-]+ \(1 marginal\)", html)
    assert "after fit, against its noisy measurements: 1-way residual TV" in html
    # measured error: the true workload error by marginal order in the summary table
    row = res.evaluation.to_frame().loc["aim"]
    assert 0 < row["tv_1way"] < row["tv_2way"] < row["tv_3way"] < 1
    assert "2-way TV" in html and SECRET_LABEL not in html
