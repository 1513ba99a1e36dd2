"""Common checks every registered extension passes, whatever its kind (issue 32, item 4).

Like scikit-learn's ``parametrize_with_checks`` over ``all_estimators()``, the cases are the
registries' ``available()``, not a list: a synthesis method, SDC step, DP synthesizer, DP
mechanism or release maker registered tomorrow (in the package or by a plug-in's entry
point) is tested here the day it is, with no edit. The ``*_NEEDS`` tables only say what a
case needs beyond the defaults (a formula, a binary target, fewer MCMC draws); an extension
missing from its table is still tested, with the defaults, and fails loudly if those do not
fit it: it is never skipped.

Entries that other test files register as test doubles (their module is under ``tests``)
are left out: some are broken on purpose, and whether they are registered depends on which
test files were collected first.

The checks, per kind: the same seed gives the same output; the input is not mutated; fitting
twice gives the same model; bad input raises a named synthguard error; a DP mechanism's
empirical privacy loss stays within its declared bound; a Dask path is compared with pandas
by ``tests/test_backends_common.py``, which must know it.
"""

from __future__ import annotations

import math
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from synthguard._registry import Registry
from synthguard.data import infer_schema
from synthguard.data._backend import has_dask_backend
from synthguard.dp.accountant import PrivacyLedger
from synthguard.dp.mechanism_registry import DP_MECHANISMS, Mechanism
from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS
from synthguard.errors import MethodError, PlanError, PrivacyWarning, SynthguardError
from synthguard.pipeline.makers import make_release
from synthguard.pipeline.plan import DP_METHODS, parse_plan
from synthguard.pipeline.release_maker import MAKERS
from synthguard.sdc.steps import SDC_STEPS
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.registry import METHODS


def registered(registry: Registry[Any]) -> list[str]:
    """The registry's names, without the test doubles other test files register."""
    out = []
    for name, obj in registry.items():
        target = getattr(obj, "make", getattr(obj, "apply", obj))
        if not str(getattr(target, "__module__", "")).startswith("tests"):
            out.append(name)
    return out


def test_every_registry_has_the_three_verbs_and_an_entry_point_group():
    groups = {"synthguard.methods": METHODS, "synthguard.sdc_steps": SDC_STEPS,
              "synthguard.dp_synthesizers": DP_SYNTHESIZERS,
              "synthguard.dp_mechanisms": DP_MECHANISMS, "synthguard.makers": MAKERS}
    for group, registry in groups.items():
        assert registry.entry_point_group == group
        names = registry.available()
        assert names and all(registry.get(n) is registry[n] for n in names)
        with pytest.raises(SynthguardError, match=f"unknown {registry.kind} 'no_such'"):
            registry.get("no_such")
        assert registry.get("no_such", None) is None


def _frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "region": rng.choice(["n", "s", "e"], n),
        "sex": rng.choice(["f", "m"], n),
        "age": rng.integers(18, 80, n).astype(float),
        "children": rng.poisson(1.5, n).astype(float),
        "income": np.round(rng.lognormal(10, 0.5, n), 0),
    })


# -- synthesis methods ---------------------------------------------------------------------
#: what a method needs beyond the defaults (target 'income' for a numeric method, else
#: 'region'; the method's default options): its ``column``, its ``spec`` with options, a
#: ``data`` recipe adding the columns it reads, ``synth`` options of the Synthesizer
METHOD_NEEDS: dict[str, dict[str, Any]] = {
    "passive": {"column": "age2", "spec": "passive:formula=age * 2",
                "data": lambda d: d.assign(age2=d["age"] * 2)},
    "logreg": {"column": "sex"},  # a binary target
    "bayes_negbin": {"column": "children", "spec": "bayes_negbin:burn_in=40:n_draws=40"},
    "bayes_mixture": {"spec": "bayes_mixture:burn_in=30:n_draws=30:n_components=2"},
    "ranger": {"spec": "ranger:ntree=10"},
    # a saturated model over categorical predictors' combinations
    "satcat": {"column": "income", "synth": {"predictor_matrix": {"income": ["region", "sex"]}}},
    "rf": {"spec": "rf:ntree=10"},
    "bag": {"spec": "bag:ntree=10"},
}


def _method_case(name: str) -> tuple[pd.DataFrame, str, str, dict[str, Any]]:
    needs = METHOD_NEEDS.get(name, {})
    default = "income" if "numeric" in METHODS.get(name).target_kinds else "region"
    data = needs.get("data", lambda d: d)(_frame()[["region", "sex", "age", "income", "children"]])
    return data, needs.get("column", default), needs.get("spec", name), needs.get("synth", {})


@pytest.mark.parametrize("name", registered(METHODS))
def test_method_same_seed_same_release_refit_same_model_input_untouched(name):
    data, column, spec, synth = _method_case(name)
    before = data.copy()
    syn = Synthesizer(methods={column: spec}, random_state=7, **synth)
    first = syn.fit(data).sample(random_state=3, diagnostics=False).implicates[0]
    again = syn.fit(data).sample(random_state=3, diagnostics=False).implicates[0]
    fresh = Synthesizer(methods={column: spec}, random_state=7, **synth).fit(data).sample(
        random_state=3, diagnostics=False).implicates[0]
    pd.testing.assert_frame_equal(data, before)
    pd.testing.assert_frame_equal(first, again)
    pd.testing.assert_frame_equal(first, fresh)
    assert list(first.columns) == list(data.columns) and len(first) == len(data)


@pytest.mark.parametrize("name", registered(METHODS))
def test_method_bad_option_and_bad_input_raise_named_errors(name):
    data, column, spec, synth = _method_case(name)
    with pytest.raises(MethodError, match=rf"method '{name}': unknown option 'no_such_option'"):
        Synthesizer(methods={column: f"{spec}:no_such_option=1"}, **synth).fit(data)
    bad = data.copy()
    bad.loc[bad.index[3], "age"] = np.inf  # not a value any method can model
    with pytest.raises(SynthguardError, match="age"):
        Synthesizer(methods={column: spec}, random_state=1, **synth).fit(bad)


# -- SDC steps -----------------------------------------------------------------------------
P = np.full((3, 3), 0.1) + np.eye(3) * 0.7

#: a step's arguments beyond the data (default: none but random_state)
SDC_NEEDS: dict[str, dict[str, Any]] = {
    "add_noise": {"columns": "income"},
    "bottomcode": {"column": "age", "at": 20},
    "generalize": {"column": "age", "bins": [0, 30, 60, 120]},
    "pram": {"column": "region", "transition_matrix": P, "levels": ["e", "n", "s"]},
    "subsample": {"fraction": 0.3, "strata": "sex"},
    "suppress": {"keys": ["region", "sex", "age"], "k": 3},
    "swap": {"columns": ["region", "age"], "rate": 0.2},
    "topcode": {"column": "income", "percentile": 90},
}
#: a call each step must refuse with a named error: the same arguments on a column the frame
#: does not hold (default), or these
SDC_BAD: dict[str, dict[str, Any]] = {
    "subsample": {"fraction": 1.5},
}


def _takes_random_state(fn: Callable[..., Any]) -> bool:
    import inspect

    return "random_state" in inspect.signature(fn).parameters


def _step(name: str, data: pd.DataFrame, seed: int | None, **override: Any) -> Any:
    fn = SDC_STEPS.get(name)
    kw = {**SDC_NEEDS.get(name, {}), **override}
    if _takes_random_state(fn):
        kw["random_state"] = seed
    return fn(data, **kw)


def _first_arg(name: str) -> str:
    import inspect

    return list(inspect.signature(SDC_STEPS.get(name)).parameters)[1]


@pytest.mark.parametrize("name", registered(SDC_STEPS))
def test_sdc_step_same_seed_same_output_and_input_untouched(name):
    data = _frame(200)
    before = data.copy()
    a, b = _step(name, data, 42), _step(name, data, 42)
    pd.testing.assert_frame_equal(data, before)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.changes.shape == a.data.shape


@pytest.mark.parametrize("name", registered(SDC_STEPS))
def test_sdc_step_bad_input_raises_a_named_error(name):
    data = _frame(200)
    if name in SDC_BAD:
        with pytest.raises(SynthguardError):
            _step(name, data, 1, **SDC_BAD[name])
        return
    arg = _first_arg(name)
    value = SDC_NEEDS.get(name, {}).get(arg, "age")
    missing = ["no_such_column"] if isinstance(value, list) else "no_such_column"
    with pytest.raises(SynthguardError, match="no_such_column"):
        _step(name, data, 1, **{arg: missing})


# -- DP synthesizers -----------------------------------------------------------------------
DP_LEVELS = {"region": ["e", "n", "s"], "sex": ["f", "m"]}
#: options beyond epsilon, delta (when taken), categories and the seeded simulation path
DP_NEEDS: dict[str, dict[str, Any]] = {
    "mst": {"iters": 20},
    "aim": {"iters": 20, "final_iters": 20, "rounds": 3},
    "fieldgroups": {"groups": [["region", "sex"]]},
    "dpsgd": {"epochs": 1},
}


def _dp(name: str, **over: Any) -> Any:
    import inspect

    cls = DP_SYNTHESIZERS.get(name)
    params = inspect.signature(cls.__init__).parameters
    kw: dict[str, Any] = {"epsilon": 1.0, "random_state": 2, "categories": DP_LEVELS}
    if "delta" in params:
        kw["delta"] = 1e-6
    kw.update(DP_NEEDS.get(name, {}))
    kw.update(over)
    return cls(**kw)


def _dp_sample(model: Any, data: pd.DataFrame) -> pd.DataFrame:
    with warnings.catch_warnings():  # a seeded DP fit is a simulation and says so
        warnings.simplefilter("ignore", PrivacyWarning)
        fitted = model.fit(data)
    fitted = fitted if fitted is not None else model
    out = fitted.sample(n=50, m=1, random_state=5)
    frames = getattr(out, "implicates", [out])
    return frames[0].reset_index(drop=True)


@pytest.mark.parametrize("name", registered(DP_SYNTHESIZERS))
def test_dp_synthesizer_seeded_refit_same_and_input_untouched(name):
    for module in getattr(DP_SYNTHESIZERS.get(name), "requires", ()):  # an optional extra
        pytest.importorskip(module)
    data = _frame(150)[["region", "sex"]]
    before = data.copy()
    model = _dp(name)
    first = _dp_sample(model, data)
    again = _dp_sample(model, data)  # the same object fitted twice
    fresh = _dp_sample(_dp(name), data)
    pd.testing.assert_frame_equal(data, before)
    pd.testing.assert_frame_equal(first, again)
    pd.testing.assert_frame_equal(first, fresh)
    assert set(first.columns) == {"region", "sex"} and len(first) == 50


@pytest.mark.parametrize("name", registered(DP_SYNTHESIZERS))
def test_dp_synthesizer_bad_budget_raises_a_named_error(name):
    with pytest.raises(SynthguardError, match="epsilon"):
        _dp_sample(_dp(name, epsilon=-1.0), _frame(150)[["region", "sex"]])


# -- DP mechanisms -------------------------------------------------------------------------
EPSILON, DELTA, DRAWS = 0.9, 1e-6, 200_000


def _apply(mechanism: Mechanism, value: int, seed: int, n: int = DRAWS) -> np.ndarray:
    with warnings.catch_warnings():  # seeded noise is for simulation and says so
        warnings.simplefilter("ignore", PrivacyWarning)
        return mechanism.apply(np.full(n, value, dtype=np.int64), epsilon=EPSILON, delta=DELTA,
                               random_state=seed)


def empirical_loss_excess(mechanism: Mechanism, *, epsilon: float, delta: float,
                          seed: int = 0, z: float = 4.5, min_count: int = 400) -> float:
    """Largest ``|log(P̂(M(1) ∈ S)/P̂(M(0) ∈ S))| − sampling tolerance − bound`` over the bins S.

    For (ε, δ)-DP, P(M(1) ∈ S) ≤ e^ε P(M(0) ∈ S) + δ for every S (Dwork & Roth 2014, Def.
    2.4), so the log-ratio is at most log(e^ε + δ / P(M(0) ∈ S)). Outputs are binned (each
    value for integer and category outputs, 40 equal-count bins of the pooled draws for real
    ones); bins with fewer than ``min_count`` draws on either side are left out, and each
    log-ratio gets a tolerance of ``z`` standard errors, √(1/c₀ + 1/c₁) (delta method). A
    positive result means the mechanism leaked more than it declares.
    """
    a, b = _apply(mechanism, 0, seed), _apply(mechanism, 1, seed + 1)
    if mechanism.output == "real":
        edges = np.quantile(np.concatenate([a, b]), np.linspace(0, 1, 41)[1:-1])
        ca = np.bincount(np.searchsorted(edges, a), minlength=40)
        cb = np.bincount(np.searchsorted(edges, b), minlength=40)
    else:
        values = np.union1d(a, b)
        ca = np.array([(a == v).sum() for v in values])
        cb = np.array([(b == v).sum() for v in values])
    keep = (ca >= min_count) & (cb >= min_count)
    assert keep.sum() >= 2, "too few populated bins to measure the privacy loss"
    ca, cb = ca[keep].astype(float), cb[keep].astype(float)
    loss = np.abs(np.log(ca / cb))
    tolerance = z * np.sqrt(1 / ca + 1 / cb)
    bound = np.log(math.exp(epsilon) + delta / (np.minimum(ca, cb) / DRAWS))
    return float(np.max(loss - tolerance - bound))


@pytest.mark.parametrize("name", registered(DP_MECHANISMS))
def test_mechanism_empirical_privacy_loss_within_its_bound(name):
    mechanism = DP_MECHANISMS.get(name)
    delta = 0.0 if mechanism.guarantee in ("pure", "local") else DELTA
    assert empirical_loss_excess(mechanism, epsilon=EPSILON, delta=delta) <= 0


def test_the_loss_check_catches_a_mechanism_with_half_the_noise():
    from synthguard.dp.mechanisms import laplace

    def leaky(values, *, epsilon, delta=0.0, random_state=None):  # Laplace at scale 1/(2ε)
        return np.asarray(laplace(np.asarray(values, dtype=float), 1.0, 2 * epsilon,
                                  random_state))

    broken = Mechanism(laplace, leaky, "pure", "real")
    assert empirical_loss_excess(broken, epsilon=EPSILON, delta=0.0) > 0.3


@pytest.mark.parametrize("name", registered(DP_MECHANISMS))
def test_mechanism_same_seed_same_noise_and_input_untouched(name):
    mechanism = DP_MECHANISMS.get(name)
    values = np.array([0, 1, 1, 0, 1] * 20, dtype=np.int64)
    values.flags.writeable = False  # any in-place write raises
    a, b = _apply(mechanism, 1, 9, 100), _apply(mechanism, 1, 9, 100)
    np.testing.assert_array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        out = mechanism.apply(values, epsilon=EPSILON, delta=DELTA, random_state=1)
    assert out.shape == values.shape
    np.testing.assert_array_equal(values, [0, 1, 1, 0, 1] * 20)


@pytest.mark.parametrize("name", registered(DP_MECHANISMS))
@pytest.mark.parametrize("epsilon", [0.0, -1.0, math.inf, math.nan])
def test_mechanism_bad_budget_raises_a_named_error(name, epsilon):
    mechanism = DP_MECHANISMS.get(name)
    with pytest.raises(SynthguardError, match="epsilon"):
        mechanism.apply(np.zeros(3, dtype=np.int64), epsilon=epsilon, delta=DELTA,
                        random_state=1)


# -- release makers ------------------------------------------------------------------------
#: a release's parameters in a plan, per maker (default: none)
MAKER_NEEDS: dict[str, dict[str, Any]] = {
    "synthesis": {"methods": {"income": "norm"}},
    "risk_weighted": {},
    "sdc": {"steps": [{"topcode": {"column": "income", "percentile": 90}}]},
    "dp": {"synthesizer": "stratified", "epsilon": 0.5, "columns": ["region", "sex"],
           "categories": DP_LEVELS},
    "dp_tables": {"tables": [["region", "sex"]], "epsilon": 0.5, "categories": DP_LEVELS},
    "dp_queries": {"epsilon": 0.5, "queries": {"by_sex": {
        "by": {"sex": DP_LEVELS["sex"]},
        "aggregations": {"n": "count", "income": {"mean": "income", "bounds": [0, 100000]}}}}},
}


def _plan(name: str, params: dict[str, Any], where: Any) -> Any:
    import yaml

    release = {"method": name, **params}
    text = textwrap.dedent(f"""\
        data: {{path: conf.csv}}
        seed: 4
        privacy: {{epsilon: 1.0, delta: 1.0e-6}}
        releases:
          r: {yaml.safe_dump(release, default_flow_style=True).strip()}
        evaluation: {{keys: [region, sex], targets: [income]}}
        """)
    data = where / "conf.csv"
    if not data.exists():
        _frame(30)[["region", "sex", "age", "income"]].to_csv(data, index=False)
    return parse_plan(text, base_dir=where)


def _make(name: str, data: pd.DataFrame, seed: int, where: Any) -> Any:
    plan = _plan(name, MAKER_NEEDS.get(name, {}), where)
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-6) if name in DP_METHODS else None
    return make_release(plan.releases[0], data, infer_schema(data, plan.schema), plan,
                        np.random.default_rng(seed), ledger), ledger


def _frames(release: Any) -> list[pd.DataFrame]:
    from synthguard.data.implicates import as_implicates

    return [f.reset_index(drop=True) for f in as_implicates(release)]


@pytest.mark.parametrize("name", registered(MAKERS))
def test_maker_refuses_an_unknown_parameter_by_name(name, tmp_path):
    maker = MAKERS.get(name)
    if maker.calls is not None and callable(maker.calls):
        import inspect

        try:
            params = inspect.signature(maker.calls).parameters.values()
        except (TypeError, ValueError):
            params = []
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            pytest.fail(f"maker '{name}' takes **kwargs: plans cannot check its parameters")
    with pytest.raises(PlanError, match="no_such_parameter"):
        _plan(name, {**MAKER_NEEDS.get(name, {}), "no_such_parameter": 1}, tmp_path)


@pytest.mark.parametrize("name", registered(MAKERS))
def test_maker_input_untouched_and_same_seed_same_release_or_budget_charged(name, tmp_path):
    data = _frame(150)[["region", "sex", "age", "income"]]
    before = data.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        first, ledger = _make(name, data, 1, tmp_path)
        again, _ = _make(name, data, 1, tmp_path)
    pd.testing.assert_frame_equal(data, before)
    if name in DP_METHODS:
        # its noise comes from OpenDP, unseeded by design: what must hold is the charge
        assert ledger is not None and ledger.spent.epsilon == pytest.approx(0.5)
        return
    for a, b in zip(_frames(first), _frames(again), strict=True):
        pd.testing.assert_frame_equal(a, b)


# -- Dask: compared with pandas in tests/test_backends_common.py ---------------------------
def _dask_paths() -> list[tuple[str, str, Any]]:
    out = []
    for kind, registry in (("SDC step", SDC_STEPS), ("DP synthesizer", DP_SYNTHESIZERS),
                           ("release maker", MAKERS)):
        for name in registered(registry):
            obj = registry.get(name)
            target = getattr(obj, "make", obj)
            if has_dask_backend(target):
                out.append((kind, name, target))
    return out


@pytest.mark.parametrize(("kind", "name", "target"), _dask_paths() or [("none", "", None)])
def test_every_registered_dask_path_is_compared_with_pandas(kind, name, target):
    if target is None:
        return  # no registered extension has a Dask path yet
    pytest.importorskip("dask")
    from tests.test_backends_common import CASES, MARKED, RANDOM

    key = f"{target.__module__}.{target.__name__}"
    # an exact step equals pandas (CASES); a random one is reproducible and equal in
    # distribution (RANDOM)
    assert key in MARKED and (key in CASES or key in RANDOM), (
        f"{kind} '{name}' has a Dask path; add its case to tests/test_backends_common.py")
