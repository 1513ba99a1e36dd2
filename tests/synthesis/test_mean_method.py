"""``mean``: the course's mean-imputation illustration (§2.3.1) as a registered method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import MethodError
from synthguard.synthesis.methods import MeanMethod


def test_draws_the_weighted_mean_for_every_row() -> None:
    y = np.array([20.0, 30.0, 40.0, 70.0])
    w = np.array([1.0, 1.0, 2.0, 4.0])
    m = MeanMethod().fit(np.zeros((4, 1)), y, weights=w)
    out = m.draw(np.ones((7, 1)), np.random.default_rng(0))
    assert out.shape == (7,)
    assert np.all(out == (20 + 30 + 80 + 280) / 8)


def test_refuses_a_categorical_target() -> None:
    with pytest.raises(MethodError, match="'mean' cannot synthesize a categorical target"):
        MeanMethod().fit(np.empty((3, 0)), np.array([0, 1, 1]))


def test_a_mean_imputed_column_keeps_the_mean_and_loses_the_spread() -> None:
    rng = np.random.default_rng(5)
    conf = pd.DataFrame({"g": rng.choice(["a", "b"], 300), "x": rng.normal(10, 3, 300).round(3)})
    rel = Synthesizer(methods={"g": "sample", "x": "mean"}, visit_sequence=["g", "x"],
                      random_state=2).fit(conf).sample().implicates[0]
    assert rel["x"].nunique() == 1
    assert rel["x"].iloc[0] == pytest.approx(conf["x"].mean(), abs=5e-4)  # data's 3 decimals
