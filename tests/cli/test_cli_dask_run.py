"""``synthguard run PLAN --dask``: the plan's releases made by synthguard.scale and written by
the workers, measured into the same report; a plan step Dask does not run is refused, named
with its line (exit 2), before anything is made."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.data import read_manifest, read_table

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

PLAN = """\
data:
  path: conf_pq
seed: 7
output: out
releases:
  coded:
    method: sdc
    steps:
      - topcode: {{column: income, at: 50000}}
{extra}evaluation:
  keys: [region, sex]
  targets: [income]
"""


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(41)
    n = 200
    conf = pd.DataFrame({"region": rng.choice(["n", "s"], n), "sex": rng.choice(["F", "M"], n),
                         "income": rng.integers(0, 90, n).astype(float) * 1000})
    (tmp_path / "conf_pq").mkdir()
    for i, part in enumerate(np.array_split(np.arange(n), 2)):
        conf.iloc[part].to_parquet(tmp_path / "conf_pq" / f"part.{i}.parquet", index=False)
    return tmp_path, conf


def _run(tmp, extra=""):
    (tmp / "plan.yaml").write_text(PLAN.format(extra=extra), encoding="utf-8")
    return CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync", "-q"])


def test_plan_releases_and_report_on_dask(folder):
    tmp, conf = folder
    res = _run(tmp)
    assert res.exit_code in (0, 1), res.output  # every measure computed: a verdict
    assert "not computed" not in res.stderr
    manifest = read_manifest(tmp / "out" / "releases" / "coded")
    assert manifest.kind == "protected" and manifest.implicates == ("coded_1.parquet",)
    got = read_table(tmp / "out" / "releases" / "coded" / "coded_1.parquet")
    want = conf.assign(income=conf["income"].clip(upper=50000))
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
    html = (tmp / "out" / "report.html").read_text(encoding="utf-8")
    assert "What could not be computed" not in html and "repU" in html


@pytest.mark.parametrize("extra, message", [
    ("  kanon:\n    method: sdc\n    steps:\n      - suppress: {keys: [region], k: 3}\n",
     "step 1 'suppress' is not available with --dask"),
    ("  rw:\n    method: risk_weighted\n    target: income\n",
     "method 'risk_weighted' is not available with --dask"),
])
def test_a_step_dask_does_not_run_is_named_and_exits_2(folder, extra, message):
    tmp, _ = folder
    res = _run(tmp, extra)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "plan.yaml, line" in res.output
    assert not (tmp / "out").exists()


DP_PLAN = """\
data:
  path: conf_pq
seed: 7
output: out
privacy:
  epsilon: 1.0
  delta: 1.0e-5
releases:
{first}
{second}
evaluation:
  keys: [region, sex]
  targets: [income]
"""
DP = """\
  dp:
    method: dp
    synthesizer: mst
    epsilon: 1.0
    columns: [region, sex]
    categories:
      region: [n, s]
      sex: [F, M]"""
CODED = """\
  coded:
    method: sdc
    steps:
      - topcode: {column: income, at: 50000}"""


def _fail(*args, **kwargs):
    raise RuntimeError("injected failure")


@pytest.mark.parametrize("where", ["synthguard.sdc.topcode",
                                   "synthguard.evaluation.on_dask.evaluate",
                                   "synthguard.report.html.write_report"])
def test_a_failure_after_the_charge_keeps_the_paid_release_and_says_so(folder, monkeypatch,
                                                                        where):
    import json

    tmp, _ = folder
    (tmp / "plan.yaml").write_text(DP_PLAN.format(first=DP, second=CODED), encoding="utf-8")
    monkeypatch.setattr(where, _fail)
    res = CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync", "-q"])
    assert res.exit_code != 0 and isinstance(res.exception, RuntimeError)
    assert "the DP release(s) 'dp' are kept" in res.stderr
    releases = tmp / "out" / "releases"
    assert sorted(p.name for p in releases.iterdir()) == ["dp"]  # the unpaid one is not kept
    manifest = read_manifest(releases / "dp")
    assert manifest.kind == "dp" and manifest.spent["epsilon"] > 0
    kept = read_table(releases / "dp" / "dp_1.parquet")
    assert list(kept.columns) == ["region", "sex"] and len(kept) > 0
    charges = json.loads((tmp / "out" / "ledger.json").read_text())["charges"]
    assert len(charges) == 1
    assert pd.read_csv(tmp / "out" / "ledger.csv")["rho"].iloc[0] == charges[0]["rho"]
    assert not [p for p in (tmp / "out").iterdir() if p.name.startswith(".releases")]


def test_a_failure_before_any_charge_leaves_nothing(folder, monkeypatch):
    tmp, _ = folder
    (tmp / "plan.yaml").write_text(DP_PLAN.format(first=CODED, second=DP), encoding="utf-8")
    monkeypatch.setattr("synthguard.sdc.topcode", _fail)
    res = CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync", "-q"])
    assert res.exit_code != 0 and isinstance(res.exception, RuntimeError)
    assert "note:" not in res.stderr
    assert not (tmp / "out").exists()  # no ledger file fixing an unspent budget


@pytest.mark.parametrize("synthesizer, extra, label", [
    ("stratified", "", "stratified: full contingency table"),
    ("aim", "\n    max_rounds: 2\n    iters: 30\n    final_iters: 60",
     "aim: 1-way + adaptive marginals"),
])
def test_a_stratified_or_aim_dp_release_runs_on_dask_and_charges_the_plan_once(
        folder, synthesizer, extra, label):
    import json

    tmp, conf = folder
    release = DP.replace("synthesizer: mst", f"synthesizer: {synthesizer}").replace(
        "epsilon: 1.0", "epsilon: 0.5").replace("[region, sex]", "[region, sex, income]") + (
        "\n    bins:\n      income: [0, 30000, 60000, 90000]") + extra
    (tmp / "plan.yaml").write_text(DP_PLAN.format(first=release, second=""),
                                   encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync", "-q"])
    assert res.exit_code in (0, 1), res.output  # every measure computed: a verdict
    manifest = read_manifest(tmp / "out" / "releases" / "dp")
    assert manifest.kind == "dp" and manifest.details["method"] == synthesizer
    got = read_table(tmp / "out" / "releases" / "dp" / "dp_1.parquet")
    assert list(got.columns) == ["region", "sex", "income"]
    assert set(got["region"]) <= {"n", "s"} and set(got["sex"]) <= {"F", "M"}
    assert got["income"].between(0, 90000).all()
    assert abs(len(got) - len(conf)) < 120  # a noisy count of the records
    charges = json.loads((tmp / "out" / "ledger.json").read_text())["charges"]
    assert [c["label"] for c in charges] == [label]
    assert "report.html" in {p.name for p in (tmp / "out").iterdir()}


def test_a_charge_whose_records_cannot_be_written_is_said(folder, monkeypatch):
    tmp, _ = folder
    (tmp / "plan.yaml").write_text(DP_PLAN.format(first=DP, second=CODED), encoding="utf-8")
    monkeypatch.setattr("synthguard.pipeline.dask_run._write", _fail)
    res = CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync", "-q"])
    assert res.exit_code != 0
    assert "privacy budget of release 'dp' is charged" in res.stderr
    assert (tmp / "out" / "ledger.json").exists() and not (tmp / "out" / "releases").exists()


SWAP = """\
  swapped:
    method: sdc
    steps:
      - topcode: {{column: income, at: 50000}}
      - swap: {{columns: [income], rate: 0.6{strata}}}
"""


def test_sdc_steps_within_strata_keep_the_input_order_and_equal_the_pandas_strata(folder):
    from synthguard import sdc

    tmp, conf = folder
    plan = PLAN.replace("  coded:\n    method: sdc\n    steps:\n      - topcode: "
                        "{{column: income, at: 50000}}\n", SWAP)
    (tmp / "plan.yaml").write_text(plan.format(extra="", strata=", strata: [region]"),
                                   encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync"])
    assert res.exit_code in (0, 1), res.output  # every measure computed on Dask: a verdict
    assert "each partition is a stratum" not in res.stderr
    got = read_table(tmp / "out" / "releases" / "swapped" / "swapped_1.parquet")
    # the records in the input's order: the unswapped columns are the data's, row for row
    pd.testing.assert_frame_equal(got[["region", "sex"]].reset_index(drop=True),
                                  conf[["region", "sex"]], check_dtype=False)
    # the release of the plan's seed: topcoding, then swapping within each region with the
    # step's seed (release 1 of seed 7, step 2), per stratum as sdc.swap on Dask does
    release_seed = np.random.SeedSequence(7).spawn(2)[0].generate_state(1, dtype=np.uint32)[0]
    step_seed = np.random.SeedSequence(int(release_seed)).spawn(2)[1].generate_state(
        1, dtype=np.uint32)[0]
    coded = sdc.topcode(conf, "income", at=50000).data
    want = sdc.swap(dd.from_pandas(coded, npartitions=1), ["income"], rate=0.6,
                    strata=["region"], random_state=int(step_seed)).data.compute().sort_index()
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True),
                                  check_dtype=False)
    assert (got["income"].to_numpy() != coded["income"].to_numpy()).any()  # swapped
    for rows in coded.groupby("region").groups.values():  # partners within a region
        assert sorted(got.loc[rows, "income"]) == sorted(coded.loc[rows, "income"])


def test_a_swap_without_strata_is_refused_on_dask(folder):
    """Swap partners may be any two records of the file, which no partition holds: the
    step asks for strata instead of swapping within partitions."""
    tmp, _ = folder
    plan = PLAN.replace("  coded:\n    method: sdc\n    steps:\n      - topcode: "
                        "{{column: income, at: 50000}}\n", SWAP)
    (tmp / "plan.yaml").write_text(plan.format(extra="", strata=""), encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(tmp / "plan.yaml"), "--dask", "sync"])
    assert res.exit_code == 2, res.output
    assert "'strata'" in res.output + res.stderr
