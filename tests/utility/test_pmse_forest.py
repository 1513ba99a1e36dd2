"""pMSE with a random-forest propensity model (issue 36: the course's random forest beside
CART), scored out of bag when fitted on every row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

from synthguard.utility import pmse


def _pair(seed: int, shift: float = 0.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)

    def make(n: int, s: float) -> pd.DataFrame:
        x = rng.normal(s, 1, n)
        return pd.DataFrame({"x": x, "y": x + rng.normal(0, 1, n),
                             "g": rng.choice(["a", "b", "c"], n)})
    return make(600, 0.0), make(600, shift)


def test_same_distribution_gives_a_ratio_near_one_out_of_bag() -> None:
    conf, rel = _pair(1)
    res = pmse(conf, rel, model="rf", n_permutations=5, random_state=2)
    assert res.null_method == "permutation"
    assert 0.6 < res.ratio < 1.6
    assert np.isnan(res.implicates["S_pMSE"]).all()  # synthpop has no forest figure


def test_fitted_on_every_row_each_row_is_scored_out_of_bag() -> None:
    from types import SimpleNamespace

    from synthguard.utility.discriminant import _fit_predict

    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3)).astype(np.float32)
    y = (rng.random(400) < 0.5).astype(np.int64)
    design = SimpleNamespace(X=X, categorical=None, groups=np.arange(3), variables=["a", "b", "c"])
    every = slice(None)
    p, _, _ = _fit_predict("rf", design, y, every, every, {}, 11, False)
    ref = RandomForestClassifier(n_estimators=100, min_samples_leaf=5, max_features="sqrt",
                                 oob_score=True, random_state=11).fit(X, y)
    np.testing.assert_allclose(p, ref.oob_decision_function_[:, 1])
    # on held-out rows the forest predicts as usual
    p_te, _, _ = _fit_predict("rf", design, y, np.arange(300), np.arange(300, 400), {}, 11, False)
    ref_te = RandomForestClassifier(n_estimators=100, min_samples_leaf=5, max_features="sqrt",
                                    oob_score=True, random_state=11).fit(X[:300], y[:300])
    np.testing.assert_allclose(p_te, ref_te.predict_proba(X[300:])[:, 1])


def test_a_shifted_release_is_seen() -> None:
    conf, rel = _pair(5, shift=0.8)
    res = pmse(conf, rel, model="rf", n_permutations=3, random_state=6)
    same = pmse(*_pair(5), model="rf", n_permutations=3, random_state=6)
    assert res.ratio > 2 * same.ratio
    assert res.auc > same.auc + 0.1


def test_unknown_model_lists_rf() -> None:
    conf, rel = _pair(7)
    from synthguard.errors import ParameterError
    with pytest.raises(ParameterError, match="'boosting' or 'rf'"):
        pmse(conf, rel, model="forest")  # type: ignore[arg-type]
