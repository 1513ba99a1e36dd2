"""``run_plan(plan, dask=...)``: the Python route of ``synthguard run --dask`` (issue 32: one
plan runner). The release it writes equals the room's pandas function on the same records,
and a failure after a charge carries the note the command line prints."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import sdc
from synthguard.data import read_table
from synthguard.errors import PlanError
from synthguard.pipeline import run_plan
from synthguard.pipeline.plan import parse_plan

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
evaluation:
  keys: [region, sex]
  targets: [income]
"""


@pytest.fixture
def conf_folder(tmp_path):
    rng = np.random.default_rng(5)
    n = 120
    conf = pd.DataFrame({"region": rng.choice(["n", "s"], n), "sex": rng.choice(["F", "M"], n),
                         "income": rng.integers(0, 90, n).astype(float) * 1000})
    (tmp_path / "conf_pq").mkdir()
    for i, part in enumerate(np.array_split(np.arange(n), 3)):
        conf.iloc[part].to_parquet(tmp_path / "conf_pq" / f"part.{i}.parquet", index=False)
    return tmp_path, conf


def test_run_plan_on_dask_writes_the_pandas_release(conf_folder):
    tmp, conf = conf_folder
    plan = parse_plan(PLAN.replace("{{", "{").replace("}}", "}"), base_dir=tmp)
    result = run_plan(plan, dask="sync")
    got = read_table(tmp / "out" / "releases" / "coded" / "coded_1.parquet")
    want = sdc.topcode(conf, "income", at=50000).data
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True),
                                  check_dtype=False)
    assert result.report_path.is_file() and result.table_path is None
    assert result.lines == ("release 'coded': protected, m = 1, written by the workers",)
    assert set(result.evaluation.names) == {"coded"}


def test_a_plan_dask_cannot_run_is_refused_before_anything_is_made(conf_folder):
    tmp, _ = conf_folder
    text = PLAN.replace("{{", "{").replace("}}", "}").replace(
        "seed: 7", "seed: 7\nholdout: 0.2")
    with pytest.raises(PlanError, match="holdout: not available with --dask"):
        run_plan(parse_plan(text, base_dir=tmp), dask="sync")
    assert not (tmp / "out").exists()
