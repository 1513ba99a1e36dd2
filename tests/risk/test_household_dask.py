"""Household risk and replicated households on Dask (issue 33, item 5): households kept
whole within a partition by a shuffle on the id; the figures equal sdcMicro's and the pandas
ones, whatever the partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.risk import hier_risk, individual_risk, replicated_households

dd = pytest.importorskip("dask.dataframe")

REF = "tests/reference/household/sdcmicro_hier_risk_global.csv"


@pytest.fixture
def testdata(shared_data) -> pd.DataFrame:
    return pd.read_csv(shared_data / "sdcmicro" / "testdata.csv")


@pytest.mark.parametrize("parts", [1, 3, 7])
@pytest.mark.parametrize("case", ["keys5_weighted", "keys7_weighted", "keys5_unweighted"])
def test_hier_risk_on_dask_equals_sdcmicro(testdata, parts, case):
    ref = pd.read_csv(REF).set_index("case").loc[case]
    keys = ref["keys"].split()
    w = ref["weights"] if isinstance(ref["weights"], str) and ref["weights"] else None
    got = hier_risk(dd.from_pandas(testdata, npartitions=parts), keys, "ori_hid", weights=w)
    np.testing.assert_allclose(got.expected_reidentifications, float(ref["hier_risk_ER"]),
                               rtol=1e-12)
    np.testing.assert_allclose(got.global_risk, float(ref["hier_risk"]), rtol=1e-12)
    assert got.n == len(testdata) and got.n_households == testdata["ori_hid"].nunique()
    pandas = individual_risk(testdata, keys, weights=w, household="ori_hid").household
    assert pandas is not None
    assert got.highest == pytest.approx(float(pandas.risk.max()), rel=1e-12)


def test_hier_risk_with_households_split_across_input_partitions(testdata):
    # rows of one household scattered over the input partitions: the shuffle makes it whole
    shuffled = testdata.sample(frac=1.0, random_state=3).reset_index(drop=True)
    keys = ["urbrur", "roof", "sex", "age"]
    want = hier_risk(shuffled, keys, "ori_hid", weights="sampling_weight")
    got = hier_risk(dd.from_pandas(shuffled, npartitions=6), keys, "ori_hid",
                    weights="sampling_weight")
    assert got.n_households == want.n_households == 1000
    np.testing.assert_allclose(got.expected_reidentifications,
                               want.expected_reidentifications, rtol=1e-12)


def test_replicated_households_on_dask_equals_pandas(testdata):
    rel = testdata.sample(frac=1.0, random_state=1).reset_index(drop=True)
    aged = rel["ori_hid"] % 3 == 0
    rel.loc[aged, "age"] += 1  # a third of the households changed, the rest copies
    rel["ori_hid"] = rel["ori_hid"] + 10_000  # new ids
    want = replicated_households(testdata, rel, "ori_hid")
    got = replicated_households(dd.from_pandas(testdata, npartitions=4),
                                dd.from_pandas(rel, npartitions=5), "ori_hid")
    assert got.count == want.count and got.n_unique_in_data == want.n_unique_in_data
    assert got.n_households == want.n_households == 1000
    np.testing.assert_array_equal(got.replicated, want.replicated)
    assert 0 < got.count < 1000
