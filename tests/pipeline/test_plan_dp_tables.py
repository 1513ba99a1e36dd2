"""A plan's ``method: dp_tables`` release: noisy tables charged to the plan's ledger."""

from __future__ import annotations

import json
import textwrap

import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger
from synthguard.errors import PlanError
from synthguard.pipeline.pipeline import run_plan
from synthguard.pipeline.plan import parse_plan
from tests.report.conftest import make_conf

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 3
    privacy:
      epsilon: 2.0
    releases:
      tables:
        method: dp_tables
        tables: ["region x sex", "sex"]
        epsilon: 1.5
        allocation: [2, 1]
        categories:
          region: [North, South, East, West, ZZSECRETZZ]
          sex: [f, m]
        rule: {confidence: 0.9}
      synthetic:
        method: synthesis
        m: 1
    evaluation:
      keys: [region, sex]
      targets: [income]
    """)


@pytest.mark.filterwarnings("ignore::synthguard.errors.SynthguardWarning")
def test_plan_makes_a_tables_release_on_the_plans_ledger(tmp_path):
    conf = make_conf(n=400, seed=2)
    conf.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(PLAN)
    res = run_plan(tmp_path / "plan.yaml")
    out = tmp_path / "synthguard_output"
    folder = out / "releases" / "tables"
    t = pd.read_csv(folder / "region_x_sex.csv")
    assert len(t) == 10 and {"count", "count_lower", "count_upper", "reliable"} <= set(t.columns)
    info = json.loads((folder / "release.json").read_text())
    assert info["kind"] == "dp-tables" and info["ledger"] == "../../ledger.json"
    assert info["epsilon"] == 1.5 and "90%" in info["rule"].replace(" %", "%")
    ledger = PrivacyLedger.open(out / "ledger.json")
    assert ledger.spent.epsilon == pytest.approx(1.5)
    labels = [c.label for c in ledger.charges]
    assert all(lab.startswith("tables:") for lab in labels) and len(labels) == 2
    alloc = pd.read_csv(folder / "allocation.csv")
    assert alloc["epsilon"].tolist() == pytest.approx([1.0, 0.5])  # weights 2:1 of 1.5
    # the microdata release is evaluated; the tables are listed, not evaluated as records
    assert list(res.evaluation.to_frame().index) == ["synthetic"]
    assert "tables" in res.release_paths


def test_plan_checks_a_tables_release_like_any_dp_release():
    bad = PLAN.replace("epsilon: 1.5", "epsilon: 2.5").replace("allocation: [2, 1]",
                                                                 "allocaton: [2, 1]")
    with pytest.raises(PlanError) as e:
        parse_plan(bad)
    msg = str(e.value)
    assert "allocaton" in msg and "more than the budget" in msg
