"""bayes.compare_releases and the report measure record-level risk in one place
(risk/profile.py): the same release gives the same IR_i, profile and whack-a-mole count."""

import numpy as np
import pandas as pd

from synthguard.bayes import RiskWeightedSynthesizer, compare_releases
from synthguard.report import evaluate
from synthguard.risk.profile import risk_profile


def test_compare_releases_and_evaluate_agree_on_record_risk():
    rng = np.random.default_rng(4)
    n = 200
    k = rng.integers(0, 3, n)
    conf = pd.DataFrame({"k": pd.Categorical(k), "x": rng.normal(size=n),
                         "income": np.exp(10 + 0.3 * k + rng.normal(scale=0.7, size=n))})
    kw = {"model": "bayes_norm", "keys": ["k"], "targets": "income", "transform": "log",
          "predictors": ["k", "x"], "m": 3}
    syn = RiskWeightedSynthesizer(kind=None, random_state=1, **kw).fit(conf).sample()
    mar = RiskWeightedSynthesizer(kind="marginal", random_state=1, **kw).fit(conf).sample()
    cmp = compare_releases(conf, {"Synthesizer": syn, "Marginal": mar}, keys=["k"],
                           targets="income", radius=0.1, statistics=("mean",), n_boot=10,
                           random_state=0)
    ev = evaluate(conf, {"Synthesizer": syn, "Marginal": mar}, keys=["k"], targets=["income"],
                  radius=0.1, random_state=0, default_thresholds=False)
    for name in ("Synthesizer", "Marginal"):
        np.testing.assert_allclose(ev[name].record_risk, cmp.per_record[name].to_numpy())
        p = risk_profile(ev[name].record_risk, 0.5)
        assert cmp.risk.loc[name, "mean"] == p.mean and cmp.risk.loc[name, "iqr"] == p.iqr
        assert cmp.risk.loc[name, "n_above"] == p.n_above
        assert ev[name].metrics["max_identification_risk"] == cmp.risk.loc[name, "max"]
    up = ev["Marginal"].record_risk - ev["Synthesizer"].record_risk >= 0.25
    assert cmp.risk.loc["Marginal", "n_whack_a_mole"] == int(up.sum())
