"""Every measure with a Dask path gives the pandas result on a Dask frame of several partitions.

The measures are found, not listed: a room marks its front door with
:func:`synthguard.data._backend.dask_backend`, and this test collects every marked public
function of the rooms. CASES says how to call each one (its arguments); a marked function
without a case fails :func:`test_every_dask_measure_has_a_case`, so a new Dask path cannot
go untested.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from synthguard import risk, sdc, utility
from synthguard.data import infer_schema
from synthguard.data._backend import has_dask_backend, is_dask_collection

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

ROOMS = (risk, utility, sdc)


def _marked() -> dict[str, Callable[..., Any]]:
    """Every marked function of the rooms' public modules, by its defining module and name."""
    out = {}
    for room in ROOMS:
        for info in pkgutil.walk_packages(room.__path__, room.__name__ + "."):
            if any(part.startswith("_") for part in info.name.split(".")[1:]):
                continue
            module = importlib.import_module(info.name)
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name)
                if callable(obj) and has_dask_backend(obj):
                    out[f"{obj.__module__}.{obj.__name__}"] = obj
    return out


MARKED = _marked()

CONF = tied_frame(900, 3)
SYN = [perturbed(CONF, 4), perturbed(CONF, 5)]

#: per measure, the calls to compare: (label, call(fn, conf, release), exact)
Call = Callable[[Callable[..., Any], Any, Any], Any]
CASES: dict[str, list[tuple[str, Call, bool]]] = {
    "synthguard.risk.identification.identification_risk": [
        ("confidential", lambda f, c, s: f(c, keys=["sex", "region"], targets="income",
                                           singletons="zero"), True),
        ("release", lambda f, c, s: f(c, s, keys=["sex", "region"], targets="income",
                                      singletons="one"), True),
        ("two targets", lambda f, c, s: f(c, s, keys=["sex"], targets=["income", "age"],
                                          radius=0.1, singletons="exclude"), True),
        ("summaries only", lambda f, c, s: f(c, s, keys=["sex", "region"], targets="income",
                                             singletons="zero", gather=False), False),
    ],
    "synthguard.risk.household_risk.hier_risk": [  # age as the household id: 12 households
        ("unweighted", lambda f, c, s: f(c, ["sex", "region"], "age"), False),
    ],
    "synthguard.risk.replicated_households.replicated_households": [
        ("age as households", lambda f, c, s: f(c, s[0], "age"), True),
        ("a release of the data's own households", lambda f, c, s: f(c, c, "age"), True),
    ],
    "synthguard.risk.pairwise.pairwise_identification_risk": [
        ("confidential", lambda f, c, s: f(c, keys=["sex", "region"], targets="income",
                                           singletons="zero"), True),
    ],
    "synthguard.risk.uniqueness.k_anonymity": [
        ("per record", lambda f, c, s: f(c, ["sex", "region", "age"], k=3), True),
        ("summaries only", lambda f, c, s: f(c, ["sex", "region"], k=5, gather=False), True),
    ],
    "synthguard.risk.matching.match_rates": [
        ("keys and a target", lambda f, c, s: f(c, s, keys=["sex", "region"],
                                                targets="income",
                                                radius={"region": 0.0, "income": 0.1}), True),
    ],
    "synthguard.risk.release_disclosure.release_disclosure": [
        ("repU and DiSCO", lambda f, c, s: f(c, s, ["sex", "region"], ["age", "income"]), True),
    ],
    "synthguard.risk.attribute.attribute_disclosure": [
        ("categorical target", lambda f, c, s: f(c, s, ["region", "age"], "sex"), True),
        ("numeric target", lambda f, c, s: f(c, s, ["sex", "region"], "age"), False),
    ],
    "synthguard.utility.univariate.univariate": [
        ("every column", lambda f, c, s: f(c, s), False),
    ],
    "synthguard.utility.ecdf.ecdf_utility": [
        ("income", lambda f, c, s: f(c["income"], [x["income"] for x in s]), True),
    ],
    "synthguard.utility.correlation.correlation_fit": [
        ("numeric and categorical", lambda f, c, s: f(c, s, schema=infer_schema(CONF)), False),
    ],
    "synthguard.utility.marginals.kway_marginal_score": [
        ("k = 2", lambda f, c, s: f(c, s, k=2, n_draws=10, random_state=3), True),
    ],
    "synthguard.utility.discriminant.pmse": [  # the whole data when under sample_size
        ("logistic", lambda f, c, s: f(c, s[0], sample_size=10_000, random_state=1), True),
    ],
    "synthguard.sdc.topcode.topcode": [
        ("public threshold", lambda f, c, s: f(c, "income", at=12), True),
        ("percentile", lambda f, c, s: f(c, "income", percentile=94), True),
    ],
    "synthguard.sdc.topcode.bottomcode": [
        ("public threshold", lambda f, c, s: f(c, "income", at=-5), True),
        ("percentile", lambda f, c, s: f(c, "age", percentile=5), True),
    ],
    "synthguard.risk.distance.distance_to_closest_record": [
        ("gower", lambda f, c, s: f(c, s, columns=["sex", "region", "age"]), False),
    ],
}


@pytest.fixture(autouse=True)
def _synchronous():
    # object columns stay object (not Dask's string[pyarrow]), so released frames compare
    # with their dtypes
    with dask.config.set({"scheduler": "synchronous", "dataframe.convert-string": False}):
        yield


def _on_dask(frame: pd.DataFrame) -> Any:
    return dd.from_pandas(frame, npartitions=4)


def assert_same(a: Any, b: Any, exact: bool, where: str = "result") -> None:
    """Equal field by field: arrays bit for bit (NaN equal to NaN) when ``exact``, else to
    floating-point rounding (rtol 1e-12). A Dask frame inside the result is computed first."""
    if is_dask_collection(a):
        a = a.compute()
    if isinstance(a, pd.Index):  # a RangeIndex and the Index of the same values are equal
        assert isinstance(b, pd.Index) and a.equals(b), where
        return
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), exact, f"{where}.{f.name}")
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=exact, rtol=1e-12, obj=where)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_exact=exact, rtol=1e-12, obj=where)
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape, where
        if exact or a.dtype.kind not in "fc":
            assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), where
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg=where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], exact, f"{where}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, exact, f"{where}[{i}]")
    elif isinstance(a, float) and not exact:
        assert a == pytest.approx(b, rel=1e-12, nan_ok=True), where
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, where


def test_every_dask_measure_has_a_case():
    assert MARKED, "no room function is marked as having a Dask path"
    assert sorted(MARKED) == sorted(CASES), "give every marked function a case in CASES"


@pytest.mark.parametrize(
    ("name", "label"), [(n, label) for n in sorted(MARKED) for label, _, _ in CASES.get(n, [])]
)
def test_dask_equals_pandas(name, label):
    fn = MARKED[name]
    (call, exact), = [(c, e) for lab, c, e in CASES[name] if lab == label]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # disclosure warnings are the same on both paths
        expected = call(fn, CONF, SYN)
        got = call(fn, _on_dask(CONF), [_on_dask(s) for s in SYN])
    assert_same(got, expected, exact, name)


#: scale names that keep their own call form and hand over to the room's code:
#: ``scale.ecdf_utility(conf, synthetic, column)`` for ``utility.ecdf_utility(values, ...)``,
#: ``scale.topcode``/``bottomcode`` return the coded frame (the room returns ProtectedData)
SCALE_ADAPTERS = {"ecdf_utility", "topcode", "bottomcode"}


@pytest.mark.parametrize("name", sorted(MARKED))
def test_the_scale_name_is_the_rooms_function(name):
    scale = pytest.importorskip("synthguard.scale")
    short = name.rsplit(".", 1)[1]
    if short in scale.__all__ and short not in SCALE_ADAPTERS:
        assert getattr(scale, short) is MARKED[name]


def test_pandas_users_never_import_dask():
    code = (
        "import sys, pandas as pd, synthguard, synthguard.risk as r, synthguard.utility, "
        "synthguard.sdc\n"
        "df = pd.DataFrame({'k': ['a', 'a', 'b'], 'y': [1.0, 2.0, 3.0]})\n"
        "r.identification_risk(df, keys=['k'], targets='y', singletons='zero')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
