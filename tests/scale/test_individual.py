"""sdcMicro's individual risk on Dask equals the pandas figures (fk and the records above a
risk exactly, the sums to rounding) with missing keys (wildcards), ties and weights; the
evaluation's sdcMicro block equals the pandas block."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.evaluation.survey_blocks import survey_measures
from synthguard.risk import individual_risk as pandas_individual

dd = pytest.importorskip("dask.dataframe")
scale_ind = pytest.importorskip("synthguard.evaluation.survey_blocks_on_dask")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

KEYS = ["sex", "region", "age"]


@pytest.mark.parametrize(("parts", "weights"), [(1, None), (4, None), (3, "w")])
def test_individual_risk_equals_pandas(parts, weights):
    conf = tied_frame(700, 4)
    conf["w"] = np.random.default_rng(1).uniform(1, 40, len(conf))
    want = pandas_individual(conf, KEYS, weights=weights)
    got = scale_ind.individual_risk(dd.from_pandas(conf, npartitions=parts), KEYS,
                                    weights=weights, gather=False)
    assert got.n == want.n
    for th in (0.05, 0.1, 0.5, 0.99):
        assert got.n_above(th) == want.n_above(th)
    np.testing.assert_allclose(got.global_risk, want.global_risk, rtol=1e-12)
    np.testing.assert_allclose(got.expected_reidentifications,
                               want.expected_reidentifications, rtol=1e-12)
    # every record's fk, Fk and risk are those of its key combination
    combos = got.combinations
    assert combos["count"].sum() == len(conf) and (combos["fk"] >= combos["count"]).all()
    assert sorted(np.repeat(combos["fk"], combos["count"])) == sorted(want.fk)
    np.testing.assert_allclose(np.sort(np.repeat(combos["Fk"], combos["count"])),
                               np.sort(want.Fk), rtol=1e-12)


def test_missing_keys_are_wildcards_as_in_pandas():
    conf = pd.DataFrame({"a": ["x", "x", None, "y"], "b": [1.0, np.nan, 1.0, 2.0]})
    got = scale_ind.individual_risk(dd.from_pandas(conf, npartitions=2), ["a", "b"],
                                    gather=False)
    want = pandas_individual(conf, ["a", "b"])
    # (x, 1), (x, NA) and (NA, 1) agree pairwise (a missing value matches any): fk 3 each
    assert list(want.fk) == [3, 3, 3, 1]
    assert got.expected_reidentifications == pytest.approx(want.expected_reidentifications,
                                                           rel=1e-14)
    assert got.n_above(0.4) == want.n_above(0.4) == 1


@pytest.mark.parametrize("weights", [None, "w"])
def test_per_record_and_summary_from_one_front_door(weights):
    conf = tied_frame(300, 7)
    conf["w"] = np.random.default_rng(2).uniform(1, 40, len(conf))
    d = dd.from_pandas(conf, npartitions=3)
    per_record = pandas_individual(d, KEYS, weights=weights)
    want = pandas_individual(conf, KEYS, weights=weights)
    np.testing.assert_array_equal(per_record.fk, want.fk)
    np.testing.assert_allclose(per_record.Fk, want.Fk, rtol=1e-12)
    np.testing.assert_allclose(per_record.risk, want.risk, rtol=1e-12)
    assert per_record.index.equals(want.index)
    # gather=False gives the same combination table on pandas and on Dask
    a = pandas_individual(conf, KEYS, weights=weights, gather=False).combinations
    b = pandas_individual(d, KEYS, weights=weights, gather=False).combinations
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)
    assert scale_ind.individual_risk is pandas_individual


def test_household_and_weight_arrays_are_refused_on_dask():
    conf = tied_frame(40, 1).assign(w=1.0, hid=np.arange(40) // 2)
    d = dd.from_pandas(conf, npartitions=2)
    with pytest.raises(ParameterError, match="household"):
        pandas_individual(d, ["sex"], household="hid")
    with pytest.raises(ParameterError, match="weight column"):
        pandas_individual(d, ["sex"], weights=np.ones(40))


def test_bad_input_is_refused():
    conf = tied_frame(40, 1).assign(w=1.0)
    d = dd.from_pandas(conf, npartitions=2)
    with pytest.raises(ParameterError, match="key variable"):
        scale_ind.individual_risk(d, [])
    with pytest.raises(DataError, match="nope"):
        scale_ind.individual_risk(d, ["nope"])
    with pytest.raises(DataError, match="positive"):
        scale_ind.individual_risk(dd.from_pandas(conf.assign(w=-1.0), npartitions=2), ["sex"],
                                  weights="w")


def test_sdc_block_equals_the_pandas_block():
    conf = tied_frame(500, 6)
    syn = [perturbed(conf, 1), perturbed(conf, 2)]
    keys, targets = ["sex", "region"], ["income", "age"]
    want = survey_measures(conf, {"syn": syn}, {"syn": "partial"}, keys, targets, schema=None)
    got = scale_ind.sdc_block(dd.from_pandas(conf, npartitions=3), len(conf),
                              {"syn": [dd.from_pandas(s, npartitions=2) for s in syn]},
                              {"syn": [len(s) for s in syn]}, keys, targets)
    assert list(got.risk.index) == ["data", "syn"] and list(got.risk.columns) == list(
        want.risk.columns)
    pd.testing.assert_frame_equal(got.risk, want.risk, check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(got.contributions, want.contributions)
    assert "suda_share" in got.risk.columns and got.risk["suda_share"].notna().all()


def test_dask_evaluation_carries_the_pandas_sdc_block():
    import synthguard
    from synthguard.evaluation.on_dask import NOT_ON_DASK, evaluate

    conf = tied_frame(300, 8)
    syn = perturbed(conf, 3)
    kw = dict(keys=["sex", "region"], targets=["income"], random_state=1)
    want = synthguard.evaluate(conf, {"syn": syn}, **kw)
    got = evaluate(dd.from_pandas(conf, npartitions=2), {"syn": dd.from_pandas(syn, 3)}, **kw)
    assert not any("sdcMicro" in part for part in NOT_ON_DASK)
    assert not any("sdcMicro" in e for e in got.releases["syn"].errors)
    pd.testing.assert_frame_equal(got.survey.risk, want.survey.risk, check_exact=False,
                                  rtol=1e-12)
    pd.testing.assert_frame_equal(got.survey.contributions, want.survey.contributions)
