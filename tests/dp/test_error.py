"""Expected error before spending and the fit's error against its noisy measurements."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import MSTSynthesizer, StratifiedSynthesizer
from synthguard.dp.conversion import epsilon_to_rho
from synthguard.dp.synthesizers.error import (
    describe_provenance,
    fit_error,
    gaussian_mean_abs,
    planned_error,
)
from synthguard.errors import ParameterError

pytestmark = pytest.mark.filterwarnings("ignore::synthguard.errors.PrivacyWarning")


def test_planned_error_by_hand_and_by_simulation():
    # sigma = 2 on 10 cells: E||noise||_1 = 2 sqrt(2/pi) * 10 = 15.958; TV on 1000 records 0.00798
    t = planned_error([(2, gaussian_mean_abs(2.0), 10)], total=1000)
    assert t.loc[2, "expected_l1"] == pytest.approx(15.9577, abs=1e-3)
    assert t.loc[2, "expected_tv"] == pytest.approx(0.0079788, abs=1e-6)
    rng = np.random.default_rng(0)
    sim = np.abs(rng.normal(0, 2.0, size=(20000, 10))).sum(axis=1).mean()
    assert sim == pytest.approx(15.9577, rel=0.01)


def test_mst_expected_error_before_any_data_by_hand():
    syn = MSTSynthesizer(epsilon=1.0, delta=1e-6,
                         categories={"a": [0, 1], "b": [0, 1, 2], "c": [0, 1, 2, 3]})
    t = syn.expected_error(n=500)
    rho = epsilon_to_rho(1.0, 1e-6)
    s1, s2 = math.sqrt(9 / (2 * rho)), math.sqrt(6 / (2 * rho))
    assert t.loc[1, "marginals"] == 3 and t.loc[2, "marginals"] == 2
    assert t.loc[1, "expected_l1"] == pytest.approx(math.sqrt(2 / math.pi) * s1 * 3)
    assert t.loc[2, "cells"] == pytest.approx(26 / 3)  # mean of 6, 8, 12 over the pairs
    assert t.loc[2, "expected_tv"] == pytest.approx(
        0.5 * math.sqrt(2 / math.pi) * s2 * 26 / 3 / 500)
    with pytest.raises(ParameterError, match="'d'"):
        MSTSynthesizer(epsilon=1.0, delta=1e-6, columns=["a", "d"],
                       categories={"a": [0, 1]}).expected_error()


def test_stratified_noise_tv_matches_the_true_noise_and_residual_is_by_hand():
    rng = np.random.default_rng(4)
    cats = {"a": list(range(8)), "b": list(range(5)), "c": list(range(6))}  # 240 cells
    df = pd.DataFrame({k: rng.integers(0, len(v), 5000) for k, v in cats.items()})
    syn = StratifiedSynthesizer(epsilon=0.5, categories=cats, random_state=3).fit(df)
    fe = syn.fit_error_
    n_hat = float(round(syn.noisy_total_))
    truth = np.bincount(np.ravel_multi_index([df[c] for c in cats], (8, 5, 6)), minlength=240)
    noise_true = 0.5 * np.abs(syn.noisy_counts_.ravel() - truth).sum() / n_hat
    # expected: Laplace scale 2 on 240 cells -> 0.5 * 2 * 240 / n
    assert fe.loc[3, "noise_tv"] == pytest.approx(0.5 * 2 * 240 / n_hat)
    assert noise_true == pytest.approx(fe.loc[3, "noise_tv"], rel=0.15)
    resid = 0.5 * np.abs(syn.probabilities_ - syn.noisy_counts_.ravel() / n_hat).sum()
    assert fe.loc[3, "residual_tv"] == pytest.approx(resid)
    assert syn.expected_error_.loc[3, "expected_tv"] == pytest.approx(fe.loc[3, "noise_tv"])


def test_mst_fit_error_bounds_the_models_true_error_on_measured_marginals():
    rng = np.random.default_rng(7)
    n = 4000
    a = rng.integers(0, 4, n)
    df = pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, n)) % 4, "c": rng.integers(0, 3, n),
                       "d": rng.integers(0, 5, n)})
    cats = {c: sorted(df[c].unique().tolist()) for c in df}
    syn = MSTSynthesizer(epsilon=1.0, delta=1e-6, categories=cats, random_state=2,
                         iters=300).fit(df)
    fe = syn.fit_error_
    assert list(fe.index) == [1, 2] and fe.loc[2, "marginals"] == 3
    # the model's true error on each measured pair is within residual + noise (triangle ineq.)
    true = []
    for (x, y) in syn.edges_:
        p = syn._jt.project((x, y)).ravel() / syn._jt.total
        k = np.bincount(syn.mapping_[x][df[x]] * syn.compressed_sizes_[y]
                        + syn.mapping_[y][df[y]], minlength=p.size) / n
        true.append(0.5 * np.abs(p - k).sum())
    assert np.mean(true) <= fe.loc[2, "bound_tv"]
    prov = syn.sample(random_state=1).provenance
    assert prov["fit_error"][1]["order"] == 2 and prov["expected_error"][0]["order"] == 1
    line = describe_provenance(prov)
    want = syn.expected_error_.loc[2, "expected_tv"]
    assert f"2-way TV {want:.3g} (3 marginals)" in line
    assert f"bound {fe.loc[2, 'bound_tv']:.3g}" in line
    assert describe_provenance({"method": "x"}) is None


def test_fit_error_residual_brute_force():
    y = np.array([10.0, -2.0, 30.0])
    fe = fit_error(lambda c: np.array([8.0, 0.0, 32.0]), [(("x",), y, np.ones(3))], 40.0)
    assert fe.loc[1, "residual_tv"] == pytest.approx(0.5 * (2 + 2 + 2) / 40)
    assert fe.loc[1, "noise_tv"] == pytest.approx(0.5 * 3 / 40)
    assert list(itertools.chain(fe.columns)) == ["marginals", "residual_tv", "noise_tv",
                                                 "bound_tv"]
