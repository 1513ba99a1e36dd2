"""run_plan end to end on a small file: outputs written, reproducible, safe."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest

from synthguard.data.manifest import read_manifest
from synthguard.errors import PlanError
from synthguard.pipeline.pipeline import run_plan, split_holdout
from synthguard.pipeline.plan import load_plan
from tests.report.conftest import SECRET_LABEL, make_conf

PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 11
    holdout: 0.2
    releases:
      partial:
        method: synthesis
        m: 2
        keep: [region, sex, kids]
        methods: {income: cart, spend: cart}
      topcoded:
        method: sdc
        steps:
          - topcode: {column: income, percentile: 95}
    evaluation:
      keys: [region, sex, kids]
      targets: [income]
      thresholds: {max_identification_risk: 0.99}
    report:
      title: Small test
    """)


@pytest.fixture(scope="module")
def plan_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    make_conf(n=300, seed=4).to_csv(d / "conf.csv", index=False)
    (d / "plan.yaml").write_text(PLAN)
    return d


@pytest.fixture(scope="module")
def result(plan_dir):
    return run_plan(plan_dir / "plan.yaml")


def test_outputs_written(result, plan_dir):
    out = plan_dir / "synthguard_output"
    assert result.output == out
    assert sorted(p.name for p in (out / "releases" / "partial").iterdir()) == [
        "partial_1.csv", "partial_2.csv", "synthguard_manifest.json"]
    assert (out / "releases" / "topcoded" / "topcoded_1.csv").exists()
    assert read_manifest(out / "releases" / "partial").kind == "partial"
    assert read_manifest(out / "releases" / "topcoded").kind == "protected"
    assert sorted(p.name for p in (out / "releases").iterdir()) == ["partial", "topcoded"]
    assert (out / "plan.yaml").read_text() == PLAN
    html = result.report_path.read_text(encoding="utf-8")
    assert "Small test" in html and SECRET_LABEL not in html
    table = pd.read_csv(result.table_path).set_index("release")
    ref = result.evaluation.to_frame()
    assert list(table.index) == ["partial", "topcoded"]
    pd.testing.assert_series_equal(table["pmse_ratio"], ref["pmse_ratio"], check_names=False)


def test_holdout_split_and_training_size(result):
    ev = result.evaluation
    assert ev.n_records == 240 and ev.n_holdout == 60
    # the partially synthetic release keeps the training rows' key values in order
    syn = pd.read_csv(result.release_paths["partial"][0])
    assert len(syn) == 240
    assert (syn["kids"].to_numpy() == ev.conf["kids"].to_numpy()).all()
    assert ev["partial"].kind == "partial" and ev["topcoded"].kind == "protected"


def test_same_seed_same_releases(result, plan_dir, tmp_path):
    (tmp_path / "conf.csv").write_bytes((plan_dir / "conf.csv").read_bytes())
    (tmp_path / "plan.yaml").write_text(PLAN.replace("seed: 11", "seed: 11\noutput: again"))
    again = run_plan(tmp_path / "plan.yaml")
    for name in ("partial", "topcoded"):
        for a, b in zip(result.release_paths[name], again.release_paths[name]):
            assert a.read_bytes() == b.read_bytes()
    # the evaluation's random parts (pMSE trees, k-way draws) are seeded from the plan too
    pd.testing.assert_frame_equal(result.evaluation.to_frame(), again.evaluation.to_frame())


def test_plan_that_does_not_fit_the_data(plan_dir, tmp_path):
    (tmp_path / "conf.csv").write_bytes((plan_dir / "conf.csv").read_bytes())
    (tmp_path / "plan.yaml").write_text(PLAN.replace("keys: [region, sex, kids]",
                                                     "keys: [region, age]"))
    with pytest.raises(PlanError, match=r"plan.yaml, line 16, evaluation.keys: columns age"):
        run_plan(load_plan(tmp_path / "plan.yaml"))


def test_split_holdout_is_a_partition():
    import numpy as np

    df = pd.DataFrame({"x": np.arange(100)})
    train, hold = split_holdout(df, 0.25, np.random.default_rng(0))
    assert hold is not None and len(hold) == 25 and len(train) == 75
    assert sorted(np.concatenate([train["x"], hold["x"]]).tolist()) == list(range(100))
    assert train["x"].is_monotonic_increasing  # original order kept
    with pytest.raises(PlanError, match="holdout"):
        split_holdout(df.head(2), 0.9, np.random.default_rng(0))


DP_PLAN = textwrap.dedent("""\
    data:
      path: conf.csv
    seed: 5
    privacy:
      epsilon: 1.0
    releases:
      dp:
        method: dp
        synthesizer: stratified
        epsilon: 1.0
        m: 2
        columns: [region, sex]
        categories:
          region: [North, South, East, West, ZZSECRETZZ]
          sex: [f, m]
    evaluation:
      keys: [region]
      targets: [income]
    """)


def test_dp_release_charges_a_persistent_ledger(plan_dir, tmp_path):
    (tmp_path / "conf.csv").write_bytes((plan_dir / "conf.csv").read_bytes())
    (tmp_path / "plan.yaml").write_text(DP_PLAN)
    first = run_plan(tmp_path / "plan.yaml")
    assert first.ledger_path == tmp_path / "synthguard_output" / "ledger.json"
    assert first.ledger_path.exists()
    ledger = pd.read_csv(tmp_path / "synthguard_output" / "ledger.csv")
    assert ledger["epsilon"].iloc[0] == pytest.approx(1.0)
    man = read_manifest(tmp_path / "synthguard_output" / "releases" / "dp")
    assert man.kind == "dp" and man.m == 2 and man.ledger == "../../ledger.json"
    assert man.spent["epsilon"] == pytest.approx(1.0)
    ev = first.evaluation
    assert ev["dp"].kind == "full" and ev["dp"].m == 2
    assert "income" in ev["dp"].errors["risk"]  # the DP release holds region and sex only
    html = first.report_path.read_text(encoding="utf-8")
    assert 'id="ledger-table"' in html and SECRET_LABEL not in html
    assert 'id="epsilon-table"' in html and "factor of 2.72" in html  # ε for a board
    # the budget is spent: running the plan again would overspend, and stops before any noise
    with pytest.raises(PlanError, match=r"release 'dp' could not be made: .*refused"):
        run_plan(tmp_path / "plan.yaml", force=True)


def test_risk_weighted_release_in_a_plan(plan_dir, tmp_path):
    import warnings

    from synthguard.errors import DisclosureWarning

    (tmp_path / "conf.csv").write_bytes((plan_dir / "conf.csv").read_bytes())
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        data:
          path: conf.csv
        seed: 2
        releases:
          weighted:
            method: risk_weighted
            model: bayes_norm
            kind: marginal
            m: 2
            transform: log
            predictors: [region, sex]
        evaluation:
          keys: [region, sex]
          targets: [income]
          radius: 0.2
        """))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisclosureWarning)  # singleton patterns, if any
        res = run_plan(tmp_path / "plan.yaml")
    r = res.evaluation["weighted"]
    assert r.kind == "partial" and r.m == 2
    assert r.record_risk is not None and len(r.record_risk) == 300
    # the plan's keys, target and radius reached the weights (the defaults of the maker)
    weights = res.releases["weighted"].weights
    assert weights is not None and weights.min() < 1.0


def test_plan_attacks_reach_the_evaluation(plan_dir, tmp_path, monkeypatch):
    import synthguard.pipeline.pipeline as pipe

    seen = {}
    real = pipe.evaluate

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipe, "evaluate", spy)
    text = PLAN.replace("  targets: [income]\n", "  targets: [income]\n  attacks: true\n")
    text = text.replace("""  topcoded:
    method: sdc
    steps:
      - topcode: {column: income, percentile: 95}
""", "").replace("thresholds: {max_identification_risk: 0.99}",
                 "thresholds: {max_identification_risk: 0.99, singling_out_risk: 1.0}")
    (plan_dir / "attacks.yaml").write_text(text + "output: out_attacks\n")
    res = run_plan(plan_dir / "attacks.yaml")
    assert seen["attacks"] is True and seen["holdout"] is not None
    assert res.evaluation["partial"].attacks is not None
