"""SDVSynthesizer: SDV's Gaussian copula and CTGAN wrapped as full synthesis (issue 36)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import MissingExtraError, NotFittedError, ParameterError
from synthguard.synthesis import SyntheticData
from synthguard.synthesis.external import SDVSynthesizer


def _data(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(50.0, 10.0, n)
    y = 2.0 * x + rng.normal(0.0, 5.0, n)  # correlation ≈ 0.97
    g = np.where(rng.random(n) < 0.3, "a", "b")
    return pd.DataFrame({"x": x, "y": y, "g": g})


def test_importing_synthguard_imports_no_sdv_torch_or_opacus():
    code = ("import sys, synthguard, synthguard.synthesis.external, "
            "synthguard.dp.synthesizers.registry, synthguard.pipeline; "
            "print(sorted(m for m in ('sdv', 'torch', 'opacus', 'ctgan') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_unknown_model_and_unfitted_sample_are_named_errors():
    with pytest.raises(ParameterError, match="model"):
        SDVSynthesizer("vae")
    with pytest.raises(NotFittedError):
        SDVSynthesizer().sample()


def test_gaussian_copula_keeps_margins_and_correlation_and_reproduces():
    pytest.importorskip("sdv")
    df = _data()
    syn = SDVSynthesizer("gaussian_copula", random_state=1).fit(df)
    rel = syn.sample(m=2, n=300, random_state=7)
    assert isinstance(rel, SyntheticData) and rel.kind == "full" and rel.m == 2
    out = rel.implicates[0]
    assert list(out.columns) == ["x", "y", "g"] and len(out) == 300
    assert abs(out["x"].mean() - df["x"].mean()) < 3.0
    assert abs(out["x"].corr(out["y"]) - df["x"].corr(df["y"])) < 0.1
    assert abs((out["g"] == "a").mean() - (df["g"] == "a").mean()) < 0.1
    assert set(rel.methods.values()) == {"sdv:gaussian_copula"}
    # the same seeds give the same release, another sampling seed another one
    again = SDVSynthesizer("gaussian_copula", random_state=1).fit(df).sample(
        m=2, n=300, random_state=7)
    for a, b in zip(rel.implicates, again.implicates):
        pd.testing.assert_frame_equal(a, b)
    assert not rel.implicates[0].equals(rel.implicates[1])
    assert not syn.sample(n=300, random_state=8).implicates[0].equals(out)


def test_ctgan_trains_briefly_and_reproduces_with_a_seed():
    pytest.importorskip("sdv")
    df = _data(200)
    kw = {"epochs": 2, "batch_size": 50}
    a = SDVSynthesizer("ctgan", random_state=3, **kw).fit(df).sample(n=100, random_state=4)
    b = SDVSynthesizer("ctgan", random_state=3, **kw).fit(df).sample(n=100, random_state=4)
    pd.testing.assert_frame_equal(a.implicates[0], b.implicates[0])
    assert set(a.implicates[0]["g"]) <= {"a", "b"} and len(a.implicates[0]) == 100


def test_bad_model_kwarg_is_a_parameter_error():
    pytest.importorskip("sdv")
    with pytest.raises(ParameterError, match="model_kwargs"):
        SDVSynthesizer("gaussian_copula", no_such_option=1).fit(_data(50))


def test_without_sdv_the_error_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def blocked(name, *args, **kwargs):
        if name == "sdv" or name.startswith("sdv."):
            raise ImportError("no sdv")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", blocked)
    with pytest.raises(MissingExtraError, match=r"synthguard\[sdv\]"):
        SDVSynthesizer().fit(_data(20))
