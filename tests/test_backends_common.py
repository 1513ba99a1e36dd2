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
    "synthguard.risk.individual_risk.individual_risk": [
        ("unweighted", lambda f, c, s: f(c, ["sex", "region"]), True),
        ("weighted", lambda f, c, s: f(c, ["sex", "region"], weights="age"), False),
        ("combinations", lambda f, c, s: f(c, ["sex", "region"], gather=False), True),
    ],
    "synthguard.risk.release_disclosure.release_disclosure": [
        ("repU and DiSCO", lambda f, c, s: f(c, s, ["sex", "region"], ["age", "income"]), True),
    ],
    "synthguard.risk.attribute.attribute_disclosure": [
        ("categorical target", lambda f, c, s: f(c, s, ["region", "age"], "sex"), True),
        ("numeric target", lambda f, c, s: f(c, s, ["sex", "region"], "age"), False),
    ],
    "synthguard.utility.statistics.compare_statistics": [
        ("means", lambda f, c, s: f(c, s, ("mean",), random_state=1), False),
        ("two labels", lambda f, c, s: f(c, s[0], {"m": "mean", "avg": "mean"},
                                         columns=["income"], method="full", random_state=1),
         False),
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
    "synthguard.sdc.generalize.generalize": [
        ("bins", lambda f, c, s: f(c, "age", bins=[-np.inf, 20, 40, np.inf]), True),
        ("mapping", lambda f, c, s: f(c, "sex", mapping={"f": "x", "m": "x"},
                                      unmapped="keep"), True),
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


#: random release makers: on Dask equal to pandas in distribution, not draw for draw. Per
#: maker, a call (fn, data, seed) and the released column whose mean and standard deviation
#: are compared with the pandas release's (within ``tol`` standard errors of the mean)
RANDOM: dict[str, tuple[Callable[[Callable[..., Any], Any, int], Any], str]] = {
    "synthguard.sdc.noise.add_noise": (
        lambda f, c, seed: f(c, ["income", "age"], scale=0.5, random_state=seed), "income"),
    "synthguard.sdc.pram.pram": (
        lambda f, c, seed: f(c.assign(sex=c["sex"].fillna("f")), "sex",
                             np.array([[0.7, 0.3], [0.2, 0.8]]), levels=["f", "m"],
                             random_state=seed), "sex"),
    "synthguard.sdc.swap.swap": (
        lambda f, c, seed: f(c, "income", rate=0.5, strata="sex", random_state=seed), "income"),
}


def test_every_dask_measure_has_a_case():
    assert MARKED, "no room function is marked as having a Dask path"
    assert sorted(MARKED) == sorted([*CASES, *RANDOM]), (
        "give every marked function a case in CASES (or RANDOM for a random release maker)")


def _summary(frame: pd.DataFrame, column: str) -> np.ndarray:
    x = frame[column]
    if not pd.api.types.is_numeric_dtype(x):
        x = (x == "m").astype(float)
    return np.array([x.mean(), x.std()])


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_maker_on_dask_is_reproducible_and_equal_in_distribution(name):
    """The same seed gives the same Dask release, another seed another one; the released
    column's mean and sd over 20 seeds match the pandas releases' within the Monte Carlo
    error (the mean of 20 means within 4 standard errors)."""
    fn = MARKED[name]
    call, column = RANDOM[name]
    data = _on_dask(CONF)
    first = call(fn, data, 1).data.compute().sort_index()
    again = call(fn, data, 1).data.compute().sort_index()
    other = call(fn, data, 2).data.compute().sort_index()
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)
    on_dask = np.array([_summary(call(fn, data, i).data.compute(), column) for i in range(20)])
    on_pandas = np.array([_summary(call(fn, CONF, i).data, column) for i in range(20)])
    se = np.sqrt(on_dask.var(axis=0, ddof=1) / 20 + on_pandas.var(axis=0, ddof=1) / 20)
    gap = np.abs(on_dask.mean(axis=0) - on_pandas.mean(axis=0))
    assert (gap <= 4 * se + 1e-12).all(), (gap, se)
    assert set(first.columns) == set(CONF.columns) and len(first) == len(CONF)


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
SCALE_ADAPTERS: set[str] = set()


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


# --- the DP synthesizers: one class fits pandas and Dask -------------------------------------

def _dp_classes() -> dict[str, type]:
    """Every DP synthesizer class of the room (found by subclassing, not listed)."""
    from synthguard.dp.synthesizers._base import DPSynthesizer

    out: dict[str, type] = {}
    todo = list(DPSynthesizer.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("synthguard.") and not cls.__name__.startswith("_"):
            out[cls.__name__] = cls
    return out


def _has_dask_fit(cls: type) -> bool:
    from synthguard.dp.synthesizers._base import DPSynthesizer

    return cls._fit_dask is not DPSynthesizer._fit_dask  # type: ignore[attr-defined]


DP_DATA = CONF.iloc[5:].assign(sex=CONF["sex"].iloc[5:].fillna("f"),
                               region=CONF["region"].iloc[5:].fillna(0.0))
DP_DECLARED = dict(columns=["sex", "region", "age"],
                   categories={"sex": ["f", "m"], "region": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]},
                   bins={"age": [18, 22, 26, 30]})
#: per DP synthesizer with a Dask path, its options besides the declared domain and budget
DP_OPTIONS: dict[str, dict[str, Any]] = {
    "MSTSynthesizer": dict(iters=50),
    "AIMSynthesizer": dict(max_rounds=2, iters=20, final_iters=30),
    "StratifiedSynthesizer": dict(target="sex"),
}
DP_WITH_DASK = sorted(n for n, c in _dp_classes().items() if _has_dask_fit(c))


def test_every_dp_synthesizer_with_a_dask_path_has_options():
    assert DP_WITH_DASK, "no DP synthesizer has a Dask path"
    assert DP_WITH_DASK == sorted(DP_OPTIONS)


@pytest.mark.filterwarnings("ignore::synthguard.errors.PrivacyWarning")  # seeded noise, target=
@pytest.mark.parametrize("name", DP_WITH_DASK)
def test_dp_synthesizer_fitted_on_dask_gives_the_pandas_release(name):
    """Same seed: the Dask fit (4 partitions) charges the ledger once, as pandas does, and
    its release drawn in one partition equals the pandas release; more partitions keep the
    columns and the row count."""
    cls = _dp_classes()[name]
    from synthguard import dp

    def make(ledger: Any) -> Any:
        return cls(epsilon=2.0, random_state=3, ledger=ledger, **DP_DECLARED, **DP_OPTIONS[name])

    on_pandas, on_dask = dp.PrivacyLedger(epsilon=2.0, delta=1e-5), dp.PrivacyLedger(
        epsilon=2.0, delta=1e-5)
    want = make(on_pandas).fit(DP_DATA).sample(n=400, random_state=5).implicates[0]
    fitted = make(on_dask).fit(_on_dask(DP_DATA))
    assert [c.epsilon for c in on_dask.charges] == [c.epsilon for c in on_pandas.charges]
    got = fitted.sample(n=400, random_state=5).implicates[0]
    assert is_dask_collection(got)
    pd.testing.assert_frame_equal(got.compute(), want)
    split = fitted.sample(n=400, random_state=5, partition_rows=150).implicates[0]
    assert split.npartitions == 3 and list(split.columns) == list(want.columns)
    assert len(split.compute()) == 400


@pytest.mark.parametrize("name", sorted(set(_dp_classes()) - set(DP_WITH_DASK)))
def test_dp_synthesizer_without_a_dask_path_refuses_a_dask_frame(name):
    from synthguard.errors import ParameterError

    cls = _dp_classes()[name]
    with pytest.raises(ParameterError, match="no Dask path"):
        cls(epsilon=1.0, **DP_DECLARED).fit(_on_dask(DP_DATA))
