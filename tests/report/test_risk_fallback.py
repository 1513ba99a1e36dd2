"""A target with missing values cannot carry the record-level identification risk (a ball
around a missing value), but it must not take the other risk measures down with it: before,
one failure left a partial release of SD2011 (income missing for some records) without
DiSCO, repU and replicated uniques, and its DiSCO threshold 'could not be computed'."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthguard import evaluate, risk


def test_a_missing_target_costs_only_the_record_level_risk() -> None:
    rng = np.random.default_rng(5)
    n = 120
    conf = pd.DataFrame({"region": rng.choice(["a", "b", "c"], n),
                         "kids": rng.integers(0, 3, n),
                         "income": rng.lognormal(10, 0.5, n).round(-2)})
    conf.loc[::7, "income"] = np.nan
    release = conf.copy()
    release["income"] = conf["income"].sample(frac=1, random_state=1).to_numpy()
    ev = evaluate(conf, {"p": [release]}, keys=["region", "kids"], targets=["income"],
                  kinds={"p": "partial"}, random_state=0)
    r = ev["p"]
    assert "risk" not in r.errors
    assert "missing or infinite" in r.errors["identification risk"]
    assert r.metrics["max_identification_risk"] is None
    expected = risk.disclosure(conf, [release], keys=["region", "kids"], targets="income")
    assert r.metrics["disco"] == expected.disco and r.metrics["repu"] == expected.repu
    assert r.metrics["replicated_uniques"] is not None
    assert ("p", "identification risk", r.errors["identification risk"]) in ev.not_computed
    assert not any("fully synthetic" in n for n in r.notes)
    checks = {c.threshold.metric: c for c in r.checks}
    assert checks["disco"].passed is not None and checks["disco"].value == expected.disco
