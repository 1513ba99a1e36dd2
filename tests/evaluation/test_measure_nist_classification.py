"""A measure added as one module of synthguard.evaluation.measures (issue 32's "one module and
its test"): the NIST classification score appears in evaluate, thresholds and the table."""

from __future__ import annotations

import numpy as np
import pandas as pd

import synthguard
from synthguard.evaluation.metrics import METRICS


def _data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    b = np.where(rng.random(n) < 0.8, a, rng.choice(["x", "y", "z"], n))
    return pd.DataFrame({"a": a, "b": b, "v": rng.normal(size=n) + (a == "x") * 2})


def test_registered_once_with_its_direction_and_range():
    m = METRICS["nist_classification"]
    assert (m.goal, m.lower, m.upper, m.section) == ("max", 0.0, 1.0, "utility")
    assert m.compute is not None


def test_computed_by_evaluate_and_judged_by_a_threshold():
    conf = _data()
    shuffled = pd.DataFrame({c: conf[c].sample(frac=1.0, random_state=i).to_numpy()
                             for i, c in enumerate(conf.columns)})  # each column on its own
    ev = synthguard.evaluate(conf, {"copy": conf.copy(), "shuffled": shuffled},
                             keys=["a"], targets=["b"],
                             thresholds={"nist_classification": 0.99}, random_state=1)
    table = ev.to_frame()
    assert table.loc["copy", "nist_classification"] == 1.0
    assert table.loc["shuffled", "nist_classification"] < 0.99
    releases = ev.releases if isinstance(ev.releases, dict) else {
        r.name: r for r in ev.releases}
    failed = {name for name, r in releases.items() for c in r.checks
              if c.threshold.metric == "nist_classification" and not c.passed}
    assert failed == {"shuffled"}
