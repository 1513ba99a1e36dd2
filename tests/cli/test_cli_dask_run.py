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

pytest.importorskip("dask.dataframe")
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
    assert res.exit_code == 3, res.output  # repU/DiSCO are not computed on Dask: said, exit 3
    assert "not computed: release 'coded': repU, DiSCO and replicated uniques" in res.stderr
    manifest = read_manifest(tmp / "out" / "releases" / "coded")
    assert manifest.kind == "protected" and manifest.implicates == ("coded_1.parquet",)
    got = read_table(tmp / "out" / "releases" / "coded" / "coded_1.parquet")
    want = conf.assign(income=conf["income"].clip(upper=50000))
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
    html = (tmp / "out" / "report.html").read_text(encoding="utf-8")
    assert "What could not be computed" in html


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
