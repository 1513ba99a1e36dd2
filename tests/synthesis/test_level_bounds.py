"""Bounded work on any column: a categorical column with more levels than a model takes is
refused as a target, left out as a default predictor, before anything is fitted (issue 31:
a 15,000-level text column grew synthesize to 8.6 GB in two minutes)."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.errors import InputWarning, MethodError
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.level_bounds import MAX_MODEL_LEVELS
from synthguard.synthesis.methods.base import SynthesisMethod


@pytest.fixture(scope="module")
def wide() -> pd.DataFrame:
    """20,000 records; 'shop' holds 15,000 distinct text values (every one at least once)."""
    rng = np.random.default_rng(0)
    n = 20_000
    levels = np.array([f"shop{i:05d}" for i in range(15_000)])
    shop = np.concatenate([levels, rng.choice(levels, n - len(levels))])
    rng.shuffle(shop)
    return pd.DataFrame({"region": rng.choice(list("NSEW"), n), "shop": shop,
                         "age": rng.integers(18, 90, n),
                         "spend": np.round(rng.lognormal(5, 1, n), 2)})


def _no_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    from synthguard.synthesis import synthesizer

    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("a model was fitted before the levels were checked")

    monkeypatch.setattr(synthesizer, "fit_block", refuse)


def test_a_target_with_too_many_levels_is_refused_before_any_fit(wide, monkeypatch):
    _no_fit(monkeypatch)
    tracemalloc.start()
    try:
        with pytest.raises(MethodError) as info:
            Synthesizer(random_state=1).fit(wide)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    msg = str(info.value)
    assert "column 'shop' has 15,000 levels" in msg and "method 'cart'" in msg
    assert "--method shop=sample" in msg and "spend" not in msg
    assert peak < 300 * 2**20  # the check reads the data once; main grew past 8 GB


def test_sample_synthesizes_it_and_the_others_leave_it_out_of_their_predictors(wide):
    with pytest.warns(InputWarning, match=r"'shop' \(15,000 levels\).*left out of the other"):
        syn = Synthesizer(methods={"shop": "sample"}, random_state=1).fit(wide)
    assert all("shop" not in preds for t, preds in syn.predictors_.items())
    assert syn.predictors_["spend"] == ["region", "age"]
    out = syn.sample(random_state=2).implicates[0]
    assert len(out) == len(wide) and out["shop"].isin(set(wide["shop"])).all()


def test_a_predictor_you_name_is_refused_naming_target_and_predictor(wide, monkeypatch):
    _no_fit(monkeypatch)
    with pytest.raises(MethodError, match=r"predictor 'shop' of 'spend' has 15,000 levels"):
        Synthesizer(methods={"shop": "sample"},
                    predictor_matrix={"spend": ["shop", "age"]}).fit(wide)


def test_at_the_bound_nothing_changes():
    rng = np.random.default_rng(1)
    n = 3 * MAX_MODEL_LEVELS
    df = pd.DataFrame({"g": np.r_[np.arange(MAX_MODEL_LEVELS), rng.integers(0, 5, n - 1000)]
                       .astype(str), "x": rng.normal(size=n)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        syn = Synthesizer(schema={"g": "categorical"}, random_state=1).fit(df)
    assert syn.predictors_["x"] == ["g"]


class _Exhausted(SynthesisMethod):
    """A method that runs out of memory, named as the default method is."""

    name = "cart"

    def fit(self, X, y, weights=None, *, rng=None):  # type: ignore[no-untyped-def]
        raise MemoryError

    def draw(self, X, rng):  # type: ignore[no-untyped-def]
        raise AssertionError  # pragma: no cover


def test_a_failed_fit_does_not_suggest_the_method_that_failed():
    df = pd.DataFrame({"a": np.arange(60) % 3, "b": np.arange(60) * 1.5})
    with pytest.raises(MethodError) as info:
        Synthesizer(methods={"b": _Exhausted()}, random_state=1).fit(df)
    msg = str(info.value)
    assert "column 'b': method 'cart' failed to fit (MemoryError)" in msg
    assert "e.g. 'sample'" in msg and "'cart' or" not in msg


def test_command_line_exits_2_naming_the_column(wide, tmp_path):
    from synthguard.cli import main

    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    res = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(tmp_path / "o"),
                                    "--quiet"])
    assert res.exit_code == 2
    assert "column 'shop' has 15,000 levels" in res.output
    assert not (tmp_path / "o").exists()

