"""A plan's ``method: sdc`` route reads the SDC step registry (sdc/steps.py), not the
``synthguard.sdc`` module: a registered step validates, runs in ``run_plan`` and is
refused once unregistered."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import PlanError
from synthguard.pipeline import parse_plan, run_plan
from synthguard.pipeline.plan import MAKERS, resolve_maker, resolve_step
from synthguard.sdc import ProtectedData
from synthguard.sdc.steps import SDC_STEPS, register_sdc_step


def halve(data: pd.DataFrame, column: str) -> ProtectedData:
    """A toy step with no random_state: the column divided by two."""
    out = data.copy()
    out[column] = data[column] / 2
    changes = pd.DataFrame(False, index=data.index, columns=data.columns)
    changes[column] = True
    return ProtectedData(data=out, changes=changes, method="halve", params={"column": column})


PLAN = textwrap.dedent("""\
    data: {path: conf.csv}
    seed: 2
    releases:
      halved: {method: sdc, steps: [{halve: {column: income}}, {topcode: {column: income, percentile: 50}}]}
    evaluation: {keys: [region], targets: [income]}
    """)


def test_the_sdc_maker_is_the_step_registry() -> None:
    assert MAKERS["sdc"].calls is SDC_STEPS
    assert resolve_maker("sdc", {}) is SDC_STEPS
    assert resolve_step("topcode") is SDC_STEPS["topcode"]
    with pytest.raises(PlanError, match=r"unknown SDC step 'halve'.*topcode"):
        resolve_step("halve")


def test_a_registered_step_runs_in_a_plan(tmp_path) -> None:
    income = np.arange(1.0, 41.0) * 10  # 10, 20, ..., 400
    pd.DataFrame({"region": list("ab") * 20, "income": income}).to_csv(
        tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(PLAN)
    with pytest.raises(PlanError, match="unknown SDC function"):
        parse_plan(PLAN, base_dir=tmp_path)
    register_sdc_step("halve", halve)
    try:
        result = run_plan(tmp_path / "plan.yaml")
    finally:
        SDC_STEPS.unregister("halve")
    released = pd.read_csv(result.release_paths["halved"][0])
    # halved: 5, 10, ..., 200; then top-coded at its median, (100 + 105) / 2 = 102.5 (the
    # default replacement is the threshold itself)
    np.testing.assert_allclose(released["income"], np.minimum(income / 2, 102.5))
