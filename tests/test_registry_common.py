"""Registries drive Python, plans and the command line alike (issue 16): an SDC step or a
DP synthesizer registered in a test file validates in plans and runs on the command line
with no other edit, and the common tests cover every registered entry."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.dp.synthesizers import StratifiedSynthesizer
from synthguard.dp.synthesizers.registry import (
    DP_SYNTHESIZERS,
    get_dp_synthesizer,
    register_dp_synthesizer,
)
from synthguard.errors import ParameterError, PlanError
from synthguard.pipeline import parse_plan
from synthguard.sdc import ProtectedData
from synthguard.sdc.steps import SDC_STEPS, register_sdc_step


def round_to(data: pd.DataFrame, column: str, *, base: float = 10.0,
             random_state: np.random.Generator | None = None) -> ProtectedData:
    """Round a numeric column to a multiple of ``base`` (a plug-in's toy SDC step)."""
    out = data.copy()
    out[column] = np.round(data[column] / base) * base
    changes = pd.DataFrame(False, index=data.index, columns=data.columns)
    changes[column] = out[column].to_numpy() != data[column].to_numpy()
    return ProtectedData(data=out, changes=changes, method="round_to",
                         params={"column": column, "base": base})


@pytest.fixture
def toy_step():
    register_sdc_step("round_to", round_to)
    yield
    SDC_STEPS.unregister("round_to")


def _plan(step: str) -> str:
    return textwrap.dedent(f"""\
        data: {{path: conf.csv}}
        releases:
          rounded: {{method: sdc, steps: [{step}]}}
        evaluation: {{keys: [region], targets: [income]}}
        """)


def test_a_registered_sdc_step_validates_in_plans_and_runs_on_the_command_line(toy_step, tmp_path):
    conf = pd.DataFrame({"region": list("ababab") * 5, "income": np.arange(30) * 7.0 + 3})
    conf.to_csv(tmp_path / "conf.csv", index=False)
    plan = parse_plan(_plan("{round_to: {column: income, base: 100}}"), base_dir=tmp_path)
    assert plan.releases[0].params["steps"][0] == {"round_to": {"column": "income", "base": 100}}
    with pytest.raises(PlanError, match=r"round_to\.step.*unknown parameter of sdc\.round_to"):
        parse_plan(_plan("{round_to: {column: income, step: 100}}"), base_dir=tmp_path)
    out = tmp_path / "rounded.csv"
    res = CliRunner().invoke(main, ["protect", str(tmp_path / "conf.csv"), "--out", str(out),
                                    "--step", "round_to: {column: income, base: 100}",
                                    "--quiet", "--seed", "1"])
    assert res.exit_code == 0, res.output
    released = pd.read_csv(out)
    np.testing.assert_array_equal(released["income"], np.round((np.arange(30) * 7 + 3) / 100) * 100)
    assert released["region"].tolist() == conf["region"].tolist()
    bad = CliRunner().invoke(main, ["protect", str(tmp_path / "conf.csv"), "--out", str(out),
                                    "--step", "round_to: {column: income, step: 5}"])
    assert bad.exit_code == 2 and "--step" in bad.output and "step" in bad.output


def test_an_unregistered_step_is_refused_with_the_registry(tmp_path):
    res = CliRunner().invoke(main, ["protect", "x.csv", "--out", str(tmp_path / "o.csv"),
                                    "--step", "round_to: {column: income}"])
    assert res.exit_code == 2
    assert "unknown SDC step 'round_to'" in res.output and "topcode" in res.output
    with pytest.raises(ParameterError, match="already registered"):
        register_sdc_step("topcode", round_to)


class ToyDP(StratifiedSynthesizer):
    """A plug-in's DP synthesizer (the stratified one under another name)."""


@pytest.fixture
def toy_dp():
    register_dp_synthesizer("toy", ToyDP)
    yield
    DP_SYNTHESIZERS.unregister("toy")


def test_a_registered_dp_synthesizer_is_a_cli_choice_and_a_plan_synthesizer(toy_dp, tmp_path):
    assert get_dp_synthesizer("toy") is ToyDP
    res = CliRunner().invoke(main, ["dp", "synthesize", "--help"])
    assert res.exit_code == 0 and "toy" in res.output
    (tmp_path / "conf.csv").write_text("region,income\na,1\n")
    plan = parse_plan(textwrap.dedent("""\
        data: {path: conf.csv}
        privacy: {epsilon: 2.0}
        releases:
          noisy: {method: dp, synthesizer: toy, epsilon: 1.0, mechanism: laplace}
        evaluation: {keys: [region], targets: [income]}
        """), base_dir=tmp_path)
    assert plan.releases[0].params["synthesizer"] == "toy"
    with pytest.raises(ParameterError, match=r"unknown DP synthesizer 'nope'.*toy"):
        get_dp_synthesizer("nope")


def test_the_command_lines_own_step_options_are_registry_steps():
    # the common tests (tests/test_extensions_common.py) run over the registries themselves,
    # so no list has to follow them; the command line's own options must name registry steps
    from synthguard.cli.protect import ORDER

    named = {"noise": "add_noise", "rank_swap": "swap"}
    assert {named.get(o, o) for o in ORDER} <= set(SDC_STEPS)
