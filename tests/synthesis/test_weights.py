"""Likelihood weights reach every method's fit; methods that cannot use them refuse."""

from __future__ import annotations

import numpy as np
import pytest

from synthguard.errors import MethodError
from synthguard.synthesis import Synthesizer
from tests.synthesis._methods import WeightRecorder


def test_weights_array_reach_each_fit_aligned_with_rows(mixed):
    WeightRecorder.log.clear()
    w = np.linspace(0.1, 2.0, len(mixed))
    res = Synthesizer(methods={"share": "test_weights", "kids": "test_weights"},
                      visit_sequence=["share", "kids"], weights=w, random_state=0).fit(mixed).sample()
    assert len(WeightRecorder.log) == 2
    for entry in WeightRecorder.log:
        np.testing.assert_array_equal(entry["weights"], w)
    np.testing.assert_array_equal(res.weights, w)


def test_weights_by_column_name_and_per_stratum(mixed):
    WeightRecorder.log.clear()
    data = mixed.assign(wt=np.arange(len(mixed), dtype=float) + 1.0)
    Synthesizer(methods={"share": "test_weights"}, visit_sequence=["share"], strata="urban",
                weights="wt").fit(data)
    got = np.sort(np.concatenate([e["weights"] for e in WeightRecorder.log]))
    np.testing.assert_array_equal(got, data["wt"].to_numpy())
    for entry in WeightRecorder.log:  # each stratum's fit sees its own records' weights
        assert len(entry["weights"]) in set(mixed["urban"].value_counts())


def test_weighted_draw_follows_weights(mixed):
    # weight only the records with share > 0.5: the weighted marginal draws only those
    w = (mixed["share"] > 0.5).astype(float).to_numpy()
    res = Synthesizer(methods={"share": "test_weights"}, visit_sequence=["share"], weights=w,
                      rare_values=0, random_state=1).fit(mixed).sample()
    assert (res.implicates[0]["share"] > 0.5).all()


def test_method_without_weight_support_raises_naming_column(mixed):
    w = np.linspace(0.1, 2.0, len(mixed))
    with pytest.raises(MethodError, match="column 'kids': method 'test_marginal' cannot use"):
        Synthesizer(methods={"share": "test_weights", "kids": "test_marginal"},
                    visit_sequence=["share", "kids"], weights=w).fit(mixed)


def test_unit_weights_are_accepted_by_any_method(mixed):
    Synthesizer(methods={"kids": "test_marginal"}, visit_sequence=["kids"],
                weights=np.ones(len(mixed))).fit(mixed).sample(random_state=0)
