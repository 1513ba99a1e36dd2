"""Relative mutual information (the course's measure for categorical pairs, issue 36) against
scikit-learn's normalized mutual information with the geometric mean, and its fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import normalized_mutual_info_score

from synthguard.errors import DataError
from synthguard.utility import mutual_information_fit
from synthguard.utility.mutual_information import relative_mutual_information


def test_equals_scikit_learns_geometric_nmi() -> None:
    rng = np.random.default_rng(0)
    for _ in range(5):
        a = rng.integers(0, 4, 500)
        b = (a + rng.integers(0, 3, 500)) % 5
        tab = np.zeros((4, 5))
        np.add.at(tab, (a, b), 1)
        ref = normalized_mutual_info_score(a, b, average_method="geometric")
        assert relative_mutual_information(tab) == pytest.approx(ref, abs=1e-12)


def test_fit_by_hand_and_against_independent_release() -> None:
    rng = np.random.default_rng(1)
    n = 2000
    a = rng.choice(["x", "y", "z"], n)
    conf = pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.8, a, "w"),
                         "c": rng.choice(["p", "q"], n)})
    broken = conf.assign(b=rng.permutation(conf["b"].to_numpy()))  # the a-b link is gone
    res = mutual_information_fit(conf, [conf, broken])
    ref_ab = normalized_mutual_info_score(conf["a"], conf["b"], average_method="geometric")
    frame = res.to_frame().set_index(["variable_1", "variable_2"])
    assert frame.loc[("b", "a"), "conf_rmi"] == pytest.approx(ref_ab)
    # implicate 0 is the data (no difference), implicate 1 loses the a-b association
    assert res.implicates["mae"].iloc[0] == 0.0
    lost = normalized_mutual_info_score(broken["a"], broken["b"], average_method="geometric")
    assert frame.loc[("b", "a"), "difference"] == pytest.approx((lost - ref_ab) / 2)
    assert res.mae > 0 and "Relative mutual information fit" in res.summary()


def test_needs_two_categorical_columns() -> None:
    conf = pd.DataFrame({"a": list("xy") * 5, "x": np.arange(10.0)})
    with pytest.raises(DataError, match="at least two categorical columns"):
        mutual_information_fit(conf, conf)
