"""A release method registered in a test file is validated by plans and made by run_plan,
with no other edit (the makers registry, issue 16)."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import PlanError
from synthguard.pipeline import parse_plan, register_maker, run_plan
from synthguard.pipeline.plan import MAKERS
from tests.report.conftest import make_conf


def jitter(data: pd.DataFrame, *, column: str, scale: float = 0.1,
           random_state: np.random.Generator | None = None) -> pd.DataFrame:
    """Multiplicative noise on one column (a toy SDC step of a plug-in)."""
    out = data.copy()
    out[column] = data[column] * (1 + scale * random_state.standard_normal(len(data)))
    return out


def _make(spec, data, schema, plan, rng, ledger):
    return jitter(data, **spec.params, random_state=rng)


@pytest.fixture
def toy_maker():
    register_maker("jitter", _make, calls=jitter, reserved=("random_state",))
    yield
    MAKERS.unregister("jitter")


PLAN = textwrap.dedent("""\
    data: {path: conf.csv}
    seed: 3
    releases:
      noisy: {method: jitter, column: income, scale: 0.2}
    evaluation: {keys: [region, sex], targets: [income], default_thresholds: false}
    """)


def test_plan_validates_a_registered_method_against_its_signature(toy_maker, tmp_path):
    (tmp_path / "conf.csv").write_text("region,income\nA,1\n")
    plan = parse_plan(PLAN, base_dir=tmp_path)
    assert plan.releases[0].method == "jitter"
    with pytest.raises(PlanError, match=r"releases\.noisy\.sigma.*unknown parameter of jitter"):
        parse_plan(PLAN.replace("scale: 0.2", "sigma: 0.2"), base_dir=tmp_path)
    with pytest.raises(PlanError, match="set by the pipeline"):
        parse_plan(PLAN.replace("scale: 0.2", "random_state: 1"), base_dir=tmp_path)
    with pytest.raises(PlanError, match="already registered"):
        register_maker("jitter", _make, calls=jitter)


def test_unregistered_method_is_refused_with_the_choices(tmp_path):
    (tmp_path / "conf.csv").write_text("region,income\nA,1\n")
    with pytest.raises(PlanError, match="expected one of synthesis, risk_weighted, sdc, dp"):
        parse_plan(PLAN, base_dir=tmp_path)


def test_run_plan_makes_and_evaluates_a_registered_release(toy_maker, tmp_path):
    conf = make_conf(n=150, seed=2)
    conf.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(PLAN)
    res = run_plan(tmp_path / "plan.yaml")
    noisy = res.releases["noisy"]
    # jitter's output: income times 1 + 0.2 z, the other columns as they were
    ratio = noisy["income"] / conf["income"]
    assert 0.15 < ratio.std() < 0.25
    pd.testing.assert_frame_equal(noisy.drop(columns="income"), conf.drop(columns="income"))
    assert "noisy" in res.evaluation.to_frame().index
    assert "noisy" in res.report_path.read_text(encoding="utf-8")
