"""`synthguard evaluate` of a `synthguard run` output folder (the seam between the two
commands): the run made its releases from a training part and set a holdout aside; given
the full data file, evaluate cuts it again as the run did (the manifests record the plan's
seed and holdout share) and gives the run's figures and exit code. A release whose rows are
confidential records (partial, protected) measured against another file has its
record-level risk *not computed* (exit 3), never "not applicable" (a PASS that hid a FAIL)."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main

PLAN = textwrap.dedent("""\
    data: {path: conf.csv}
    seed: 11
    holdout: 0.2
    releases:
      top:
        method: sdc
        steps:
          - topcode: {column: income, percentile: 90}
      part:
        method: synthesis
        m: 1
        keep: [region, kids]
        methods: {income: cart, spend: cart}
    evaluation:
      keys: [region, kids]
      targets: [income]
      thresholds: {max_identification_risk: 0.5}
    """)

ARGS = ["--keys", "region,kids", "--target", "income", "--threshold",
        "max_identification_risk=0.5"]


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    rng = np.random.default_rng(0)
    n = 250
    pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
        "spend": np.round(rng.lognormal(9, 0.5, n), 2),
    }).to_csv(folder / "conf.csv", index=False)
    (folder / "plan.yaml").write_text(PLAN)
    res = CliRunner().invoke(main, ["run", str(folder / "plan.yaml"), "--quiet"])
    assert res.exit_code == 1, res.output  # topcoding keeps every record's key pattern
    return folder


def _evaluate(folder, *extra):
    return CliRunner().invoke(main, ["evaluate", str(folder / "conf.csv"),
                                     str(folder / "synthguard_output" / "releases"), *ARGS,
                                     "--seed", "1", "--table", str(folder / "ev.csv"), *extra])


def test_the_full_file_is_cut_as_the_run_cut_it(run_folder):
    res = _evaluate(run_folder)
    assert res.exit_code == 1, res.output  # the run's verdict: top fails max IR, not exit 3
    assert "training part of CONF (holdout share 0.2, plan seed 11" in res.output
    assert "against 200 confidential records (holdout 50)" in res.output
    assert "not computed" not in res.output
    ran = pd.read_csv(run_folder / "synthguard_output" / "evaluation.csv").set_index("release")
    again = pd.read_csv(run_folder / "ev.csv").set_index("release")
    for name in ("top", "part"):  # exact measures: the same records, so the same numbers
        for col in ("mean_identification_risk", "max_identification_risk", "disco",
                    "replicated_uniques"):
            assert again.loc[name, col] == pytest.approx(ran.loc[name, col], abs=0), (name, col)
    assert ran.loc["top", "max_identification_risk"] > 0.5


def test_without_the_split_the_record_level_risk_is_not_computed(run_folder):
    # an explicit --holdout keeps CONF whole: 250 records, releases of 200 rows (a copy of
    # CONF: CONF itself is refused as its own holdout)
    import shutil

    shutil.copy(run_folder / "conf.csv", run_folder / "copy.csv")
    res = _evaluate(run_folder, "--holdout", str(run_folder / "copy.csv"))
    assert res.exit_code == 3, res.output
    for name, what in (("part", "partially synthetic"), ("top", "protected (SDC)")):
        assert (f"not computed: release '{name}': identification risk: the release is declared "
                f"{what}") in res.output
    assert "full data file without --holdout" in res.output
    assert "max IR ≤ 0.5: not applicable" not in res.output  # before: top PASSed on it
    assert res.output.count("max IR ≤ 0.5: FAIL (could not be computed)") == 2
    assert "incomplete: 2 requested measure(s)" in res.output


def test_terminal_states_the_closer_to_data_baseline(run_folder):
    res = _evaluate(run_folder)
    # training / (training + holdout) = 200 / 250
    assert "closer to data: share of released records nearer the training records than the " \
           "holdout's; about 0.8 when nothing is memorized" in res.output
    res = CliRunner().invoke(main, ["evaluate", str(run_folder / "conf.csv"),
                                    str(run_folder / "conf.csv"), "--kind", "conf=full", *ARGS])
    assert "closer to data, membership AUC: not computed, they need a holdout" in res.output
