"""A release depends only on its recorded seeds, for every registered method and synthesizer.

The MCMC models used to run their chain at the first ``draw`` and keep it, so
``sample(random_state=A)`` gave another release when seed B had been sampled first, while
both recorded seed A. Here each method and synthesizer samples A on one fit, and B then A on
a second fit with the same seed: the two releases of A must be equal value for value, and
B's must differ (so the check can fail). The registry drives the list, so a method
registered later (also by a test module, like ``tests.synthesis._methods``) is covered.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

from synthguard.synthesis import Synthesizer, available_methods, get_method
from tests.synthesis import _methods  # noqa: F401  (registers the test methods)

SEED_A, SEED_B = 11, 12

#: keep MCMC tiny: parameters a method's __init__ takes, set when present
_FAST = {"burn_in": 5, "n_draws": 6, "thin": 1, "n_leapfrog": 2, "n_components": 2}


def _frame(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    g = rng.choice(["a", "b"], size=n)
    return pd.DataFrame({
        "x": x,
        "g": g,
        # a count: every numeric method (bayes_negbin included) can model it
        "y": rng.poisson(np.exp(1 + 0.3 * x)).astype(float),
        "c": np.where(x + rng.normal(size=n) > 0, "yes", "no"),
    })


#: methods that need a definition to run at all (a passive column's formula)
_NEEDED = {"passive": {"formula": "2 * x", "check": False}}

#: methods whose predictors must be categorical (a saturated model over their combinations)
_PREDICTORS = {"satcat": ["g"]}


def _spec(name: str) -> tuple[str, dict]:
    cls = get_method(name)
    params = inspect.signature(cls.__init__).parameters
    return name, {**{k: v for k, v in _FAST.items() if k in params}, **_NEEDED.get(name, {})}


def _frames(release) -> list[pd.DataFrame]:
    return list(release.implicates)


def _same(a, b) -> None:
    fa, fb = _frames(a), _frames(b)
    assert len(fa) == len(fb)
    for u, v in zip(fa, fb, strict=True):
        pdt.assert_frame_equal(u, v, check_exact=True)
        # byte for byte: the stored values, not only equal ones
        assert pd.util.hash_pandas_object(u).equals(pd.util.hash_pandas_object(v))


def _differ(a, b) -> bool:
    return any(not u.equals(v) for u, v in zip(_frames(a), _frames(b), strict=True))


def _method_cases() -> list[tuple[str, str]]:
    cases = []
    for name in available_methods():
        kinds = get_method(name).target_kinds
        target = "y" if "numeric" in kinds else "c"
        cases.append((name, target))
    return cases


@pytest.mark.parametrize(("name", "target"), _method_cases())
def test_every_method_release_depends_only_on_its_seeds(name, target):
    method, params = _spec(name)
    data = _frame()

    def fitted() -> Synthesizer:
        # x and g are synthesized too, so seed B's release differs even for a method whose
        # draw is a deterministic function of its predictors
        return Synthesizer(
            visit_sequence=["x", "g", target],
            methods={target: method},
            method_params={target: params},
            predictor_matrix={target: _PREDICTORS[name]} if name in _PREDICTORS else None,
            m=2,
            random_state=5,
        ).fit(data[["x", "g", target]])

    first = fitted().sample(random_state=SEED_A, diagnostics=False)
    other = fitted()
    b = other.sample(random_state=SEED_B, diagnostics=False)
    again = other.sample(random_state=SEED_A, diagnostics=False)
    _same(first, again)
    assert again.seed == SEED_A and again.provenance["fit_random_state"] == 5
    assert _differ(first, b)
    # A, B, A on one fit as well
    _same(first, other.sample(random_state=SEED_A, diagnostics=False))


def test_unseeded_fit_records_the_seed_that_reproduces_it():
    data = _frame()
    params = _spec("bayes_mixture")[1]
    kw = {"methods": {"y": "bayes_mixture"}, "method_params": {"y": params}}
    syn = Synthesizer(**kw).fit(data)
    a = syn.sample(random_state=SEED_A, diagnostics=False)
    fit_seed = a.provenance["fit_random_state"]
    assert isinstance(fit_seed, int)
    again = Synthesizer(random_state=fit_seed, **kw).fit(data)
    _same(a, again.sample(random_state=SEED_A, diagnostics=False))


def test_fit_does_not_depend_on_n_jobs_or_strata_order():
    data = _frame()
    params = _spec("bayes_negbin")[1]
    kw = {"methods": {"y": "bayes_negbin"}, "method_params": {"y": params},
          "strata": "g", "random_state": 3}
    one = Synthesizer(n_jobs=1, **kw).fit(data).sample(random_state=SEED_A, diagnostics=False)
    two = Synthesizer(n_jobs=2, **kw).fit(data).sample(random_state=SEED_A, diagnostics=False)
    _same(one, two)


def test_risk_weighted_synthesizer_release_depends_only_on_its_seeds():
    from synthguard.bayes import RiskWeightedSynthesizer

    data = _frame()[["g", "x", "y"]]

    def fitted() -> RiskWeightedSynthesizer:
        return RiskWeightedSynthesizer(
            model="bayes_mixture", keys=["g"], targets="y", m=2,
            model_params=_spec("bayes_mixture")[1], random_state=4,
        ).fit(data)

    first = fitted().sample(random_state=SEED_A, diagnostics=False)
    other = fitted()
    b = other.sample(random_state=SEED_B, diagnostics=False)
    _same(first, other.sample(random_state=SEED_A, diagnostics=False))
    assert _differ(first, b)


def _dp_cases() -> list[str]:
    """Every DP synthesizer of the registry: one registered later is covered the day it is."""
    from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS

    return list(DP_SYNTHESIZERS)


@pytest.mark.parametrize("name", _dp_cases())
def test_dp_synthesizer_release_depends_only_on_its_seeds(name):
    from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS
    from synthguard.errors import PrivacyWarning

    cls = DP_SYNTHESIZERS[name]
    for module in getattr(cls, "requires", ()):  # an optional extra (dpsgd: torch, opacus)
        pytest.importorskip(module)
    params = inspect.signature(cls.__init__).parameters
    kw = {"epsilon": 1.0, **({"delta": 1e-6} if "delta" in params else {})}
    fast = {"iters": 20, "final_iters": 20, "rounds": 3, "epochs": 1}
    extra = {k: v for k, v in fast.items() if k in params}
    levels = {"g": ["a", "b"], "c": ["no", "yes"]}
    data = _frame()[["g", "c"]]

    def fitted():
        # a seeded DP fit is for simulation only and says so
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyWarning)
            return cls(random_state=2, categories=levels, **kw, **extra).fit(data)

    first = fitted().sample(n=60, m=2, random_state=SEED_A)
    other = fitted()
    b = other.sample(n=60, m=2, random_state=SEED_B)
    _same(first, other.sample(n=60, m=2, random_state=SEED_A))
    assert _differ(first, b)
