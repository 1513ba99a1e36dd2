"""``synthguard.evaluate`` is one front door: its options are keywords, and given Dask frames it
runs the Dask evaluation (``synthguard.evaluation.on_dask``) instead of refusing them."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import synthguard
from synthguard.errors import ParameterError
from synthguard.evaluation import Evaluation

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
on_dask = pytest.importorskip("synthguard.evaluation.on_dask")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

KW = dict(keys=["sex", "region"], targets=["income"], random_state=3,
          kinds={"syn": "partial"}, default_thresholds=False)


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set({"scheduler": "synchronous"}):
        yield


def test_only_the_data_and_the_releases_are_positional():
    params = list(inspect.signature(synthguard.evaluate).parameters.values())
    assert [p.name for p in params[:2]] == ["conf", "releases"]
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[:2])
    assert all(p.kind is p.KEYWORD_ONLY for p in params[2:])
    conf = tied_frame(60, 1)
    with pytest.raises(TypeError):
        synthguard.evaluate(conf, {"syn": conf}, ["sex"], "income")  # type: ignore[misc]


def test_dask_frames_go_through_the_same_front_door():
    conf = tied_frame(300, 21)
    syn = [perturbed(conf, 22), perturbed(conf, 23)]
    dconf = dd.from_pandas(conf, npartitions=3)
    dsyn = {"syn": [dd.from_pandas(s, npartitions=2) for s in syn]}
    got = synthguard.evaluate(dconf, dsyn, **KW)
    want = on_dask.evaluate(dconf, dsyn, **KW)  # the Dask evaluation, called directly
    assert isinstance(got, Evaluation)
    a, b = got.to_frame(), want.to_frame()
    assert list(a.columns) == list(b.columns) and list(a.index) == list(b.index)
    pd.testing.assert_frame_equal(a, b)
    assert got.releases["syn"].errors == want.releases["syn"].errors
    assert got.n_records == 300
    # the measures Dask computes exactly equal the pandas evaluation's
    pand = synthguard.evaluate(conf, {"syn": syn}, **KW).releases["syn"].metrics
    for m in ("tv_1way", "tv_2way", "tv_3way", "pmse_ratio", "ecdf_umax"):
        assert got.releases["syn"].metrics[m] is not None
        assert np.isclose(got.releases["syn"].metrics[m], pand[m], rtol=1e-12), m


def test_scale_evaluate_is_the_front_door():
    scale = pytest.importorskip("synthguard.scale")
    assert scale.evaluate is synthguard.evaluate


@pytest.mark.parametrize(("option", "value"), [
    ("holdout", "conf"), ("formulas", "income ~ age"), ("household", "region"),
    ("weights", "age"), ("attacks", True),
])
def test_an_option_dask_does_not_compute_is_refused_by_name(option, value):
    conf = tied_frame(60, 5)
    dconf = dd.from_pandas(conf, npartitions=2)
    kw = dict(KW, **{option: conf if value == "conf" else value})
    with pytest.raises(ParameterError, match=option):
        synthguard.evaluate(dconf, {"syn": [dd.from_pandas(conf, npartitions=2)]}, **kw)
