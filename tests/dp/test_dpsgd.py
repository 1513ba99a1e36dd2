"""DPSGDSynthesizer: a tabular VAE trained by DP-SGD with Opacus (issue 36)."""

from __future__ import annotations

import builtins

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger
from synthguard.dp.synthesizers.dpsgd import DPSGDSynthesizer
from synthguard.dp.synthesizers.registry import get_dp_synthesizer
from synthguard.errors import MissingExtraError, ParameterError, PrivacyBudgetError, PrivacyWarning

pytestmark = [
    pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning"),
    pytest.mark.filterwarnings("ignore:DPSGDSynthesizer. DP-SGD:synthguard.errors.PrivacyWarning"),
]

CATS = {"g": ["a", "b", "c"], "s": ["f", "m"]}


def _data(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], size=n, p=[0.6, 0.3, 0.1])
    s = np.where(rng.random(n) < 0.7, "f", "m")
    return pd.DataFrame({"g": g, "s": s})


def _syn(**kw):
    base = {"epsilon": 3.0, "delta": 1e-5, "categories": CATS, "epochs": 3, "batch_size": 100,
            "random_state": 1}
    base.update(kw)
    return DPSGDSynthesizer(**base)


def test_registered_as_a_dp_synthesizer():
    assert get_dp_synthesizer("dpsgd") is DPSGDSynthesizer


def test_accountant_epsilon_within_target_and_charged_before_training():
    pytest.importorskip("opacus")
    ledger = PrivacyLedger(epsilon=3.0, delta=1e-5)
    syn = _syn(ledger=ledger).fit(_data())
    eps_count = 0.02 * 3.0
    # the engine's accountant after training reports the planned ε that was charged
    assert syn.epsilon_engine_ == pytest.approx(syn.epsilon_accountant_, rel=1e-9)
    assert syn.epsilon_accountant_ <= 3.0 - eps_count + 1e-9
    assert syn.epsilon_accountant_ > 0.9 * (3.0 - eps_count)  # σ is not wastefully large
    labels = [c.label for c in ledger.charges]
    assert any("record count" in lb for lb in labels) and any("RDP" in lb for lb in labels)
    assert ledger.spent.epsilon == pytest.approx(eps_count + syn.epsilon_accountant_)
    assert ledger.spent.epsilon <= 3.0


def test_overspend_is_refused_before_training():
    pytest.importorskip("opacus")
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-5)
    syn = _syn(ledger=ledger)
    with pytest.raises(PrivacyBudgetError):
        syn.fit(_data())
    assert not hasattr(syn, "weights_") and not hasattr(syn, "domain_")
    # only the record count's ε (charged before its noise) was spent; training was refused
    assert ledger.spent.epsilon == pytest.approx(0.02 * 3.0)


def test_sampling_reproducible_and_marginals_roughly_kept():
    pytest.importorskip("opacus")
    df = _data()
    syn = _syn(epochs=5).fit(df)
    a = syn.sample(n=3000, random_state=5).implicates[0]
    b = syn.sample(n=3000, random_state=5).implicates[0]
    pd.testing.assert_frame_equal(a, b)
    refit = _syn(epochs=5).fit(df).sample(n=3000, random_state=5).implicates[0]
    pd.testing.assert_frame_equal(a, refit)
    for col in ("g", "s"):
        p = df[col].value_counts(normalize=True)
        q = a[col].astype(str).value_counts(normalize=True).reindex(p.index, fill_value=0.0)
        assert 0.5 * float((p - q).abs().sum()) < 0.08, col
    assert abs(syn._default_n() - len(df)) < 200  # the Laplace count at ε = 0.06


def test_training_noise_source_is_stated():
    pytest.importorskip("opacus")
    with pytest.warns(PrivacyWarning, match="PyTorch's generator"):
        _syn(epochs=1).fit(_data(300))


def test_bad_parameters_are_named():
    with pytest.raises(ParameterError, match="accountant"):
        _syn(accountant="gdp").fit(_data(50))
    with pytest.raises(ParameterError, match="privacy_unit"):
        _syn(privacy_unit="hh", max_rows=2).fit(_data(50).assign(hh=1))


def test_without_opacus_the_error_names_the_extra(monkeypatch):
    real = builtins.__import__

    def blocked(name, *args, **kwargs):
        if name in ("opacus", "torch") or name.startswith(("opacus.", "torch.")):
            raise ImportError("absent")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", blocked)
    ledger = PrivacyLedger(epsilon=3.0, delta=1e-5)
    with pytest.raises(MissingExtraError, match=r"synthguard\[dpsgd\]") as err:
        _syn(ledger=ledger).fit(_data(50))
    assert isinstance(err.value, ImportError)
    assert ledger.spent.epsilon == 0.0  # refused before any charge
