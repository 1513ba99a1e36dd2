"""visit_sequence="auto": the greedy normalized-mutual-information order, shown and obeyed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import normalized_mutual_info_score

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from synthguard.synthesis.visit_order import (
    normalized_mutual_information,
    propose_visit_sequence,
)


def _data(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hub = rng.choice(["h0", "h1", "h2"], n)
    x = (hub == "h1") * 2.0 + (hub == "h2") * 4.0 + rng.normal(size=n) * 0.5
    return pd.DataFrame({
        "noise": rng.choice(["u", "v"], n),
        "x": x,
        "leaf": np.where(rng.random(n) < 0.85, hub, "h0"),
        "hub": hub,
        "code": pd.Series(hub).map({"h0": 0, "h1": 1, "h2": 2}).to_numpy(),
    })


def test_nmi_equals_scikit_learns_geometric_nmi():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, 300), rng.integers(0, 3, 300)
    b = np.where(rng.random(300) < 0.5, a % 3, b)
    ref = normalized_mutual_info_score(a, b, average_method="geometric")
    assert abs(normalized_mutual_information(a, b) - ref) < 1e-12


def test_greedy_order_scores_and_waiting_for_sources():
    df = _data()
    vo = propose_visit_sequence(df)
    # the hub and its one-to-one code share the largest total NMI; noise explains nothing
    assert vo.order[0] in ("hub", "code") and vo.order[-1] == "noise"
    assert list(vo.scores["column"]) == list(vo.order)
    first = vo.scores["score"].iloc[0]
    codes = {c: pd.factorize(df[c])[0] for c in ["noise", "leaf", "hub", "code"]}
    codes["x"] = pd.qcut(df["x"].rank(method="first"), 10, labels=False).to_numpy()
    brute = sum(normalized_mutual_info_score(codes[vo.order[0]], codes[c],
                                             average_method="geometric")
                for c in codes if c != vo.order[0])
    assert abs(first - brute) < 1e-9
    assert "1." in vo.summary() and vo.order[0] in vo.summary()
    # a passive column waits for its source; a formula-defined one goes last
    vo2 = propose_visit_sequence(df, after={"hub": ["leaf"], "code": None})
    assert vo2.order.index("hub") > vo2.order.index("leaf") and vo2.order[-1] == "code"


def test_synthesizer_auto_order_is_recorded_and_reproducible():
    df = _data()
    spec = {"code": "passive:of=hub"}
    a = Synthesizer(visit_sequence="auto", methods=spec, random_state=2).fit(df)
    b = Synthesizer(visit_sequence=["auto"], methods=spec, random_state=2).fit(df)
    assert a.visit_sequence_ == list(a.visit_order_.order) == b.visit_sequence_
    assert a.visit_sequence_.index("code") > a.visit_sequence_.index("hub")
    ra, rb = a.sample(), b.sample()
    assert ra.provenance["visit_sequence"] == a.visit_sequence_
    pd.testing.assert_frame_equal(ra.implicates[0], rb.implicates[0])
    assert (ra.implicates[0]["code"] == ra.implicates[0]["hub"].map(
        {"h0": 0, "h1": 1, "h2": 2})).all()


def test_importance_order_puts_the_columns_others_depend_on_first():
    """Bowen, Liu & Su (2021): the most important variables are synthesized first. The hub
    (and its one-to-one code) predict x and leaf; the noise column predicts nothing."""
    from synthguard.synthesis.visit_order import variable_importance

    df = _data(n=1500)
    vo = propose_visit_sequence(df, rule="importance", random_state=3)
    assert vo.order[-1] == "noise" and set(vo.order[:2]) <= {"hub", "code", "x"}
    assert list(vo.scores["score"]) == sorted(vo.scores["score"], reverse=True)
    assert "variable importance" in vo.summary()
    # reproducible, and the scores are the mean forest importances
    again = propose_visit_sequence(df, rule="importance", random_state=3)
    assert again.order == vo.order
    codes = {c: pd.factorize(df[c])[0] + 1 for c in ["noise", "leaf", "hub", "code"]}
    codes["x"] = pd.qcut(df["x"].rank(method="first"), 10, labels=False).to_numpy() + 1
    imp = variable_importance({c: codes[c] for c in df.columns}, random_state=3)
    assert imp.sum() == pytest.approx(1.0)
    assert imp[vo.order[0]] == pytest.approx(vo.scores["score"].iloc[0])


def test_synthesizer_takes_the_importance_rule():
    df = _data()
    syn = Synthesizer(visit_sequence="importance", random_state=2).fit(df)
    assert syn.visit_sequence_[-1] == "noise"
    assert syn.visit_sequence_ == list(syn.visit_order_.order)
    with pytest.raises(ParameterError, match="'rule'"):
        propose_visit_sequence(df, rule="best")
