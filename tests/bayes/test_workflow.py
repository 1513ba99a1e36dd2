"""RiskWeightedSynthesizer end to end and the comparison of releases."""

import numpy as np
import pandas as pd
import pytest

from synthguard.bayes import RiskWeightedSynthesizer, compare_releases, risk_weights
from synthguard.errors import DataError, NotFittedError, ParameterError
from synthguard.risk import identification_risk


def _conf(n=300, seed=0):
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 3, n)
    x = rng.normal(size=n)
    inc = np.exp(10 + 0.3 * k + 0.5 * x + rng.normal(scale=0.7, size=n))
    return pd.DataFrame({"k": pd.Categorical(k), "x": x, "income": inc, "sw": rng.uniform(1, 5, n)})


def test_weights_reach_the_release_and_predictors_are_kept():
    conf = _conf()
    rws = RiskWeightedSynthesizer(
        model="bayes_norm", kind="pairwise", keys=["k"], targets="income", transform="log",
        predictors=["k", "x"], m=3, random_state=1,
    )
    rel = rws.fit(conf).sample()
    expected = risk_weights(conf, ["k"], "income", 0.2, "pairwise").weights
    np.testing.assert_allclose(rel.weights, expected)
    assert rel.m == 3 and rel.kind == "partial"
    for df in rel.implicates:
        assert list(df.columns) == ["k", "x", "income", "sw"]  # all kept, in the data's order
        pd.testing.assert_series_equal(df["x"], conf["x"])
        assert (df["income"] > 0).all()
        assert not np.allclose(df["income"], conf["income"])
    assert rel.provenance["risk_weights"]["kind"] == "pairwise"
    # predictors k (two dummies) and x, not the kept column sw
    assert [mod.n_features_in_ for mod in rws.models_] == [3]


def test_same_seed_same_release_and_unweighted_has_no_weights():
    conf = _conf(seed=1)
    kw = {"model": "bayes_norm", "keys": ["k"], "targets": "income", "transform": "log",
          "predictors": ["k", "x"], "m": 2}
    a = RiskWeightedSynthesizer(random_state=5, **kw).fit(conf).sample()
    b = RiskWeightedSynthesizer(random_state=5, **kw).fit(conf).sample()
    for u, v in zip(a.implicates, b.implicates, strict=True):
        pd.testing.assert_frame_equal(u, v)
    u = RiskWeightedSynthesizer(kind=None, random_state=5, **kw).fit(conf).sample()
    assert u.weights is None


def test_survey_weight_column_is_normalised_and_multiplied():
    conf = _conf(seed=2)
    rws = RiskWeightedSynthesizer(
        model="bayes_norm", kind="marginal", keys=["k"], targets="income", transform="log",
        survey_weights="sw", m=1, random_state=0,
    ).fit(conf)
    sw = conf["sw"].to_numpy()
    alpha = risk_weights(conf, ["k"], "income", 0.2).weights
    np.testing.assert_allclose(rws.weights_, alpha * sw * len(sw) / sw.sum())
    assert "sw" not in rws.sample().implicates[0].columns


def test_marginal_weighting_lowers_risk_of_the_release():
    # Algorithm 1: the downweighted synthesizer's mean record-level risk is below the
    # unweighted one's, which is below the data's (eq. 2 vs eq. 1 averaged over L)
    conf = _conf(n=400, seed=3)
    kw = {"model": "bayes_norm", "keys": ["k"], "targets": "income", "transform": "log",
          "predictors": ["k", "x"], "m": 10, "radius": 0.1}
    syn = RiskWeightedSynthesizer(kind=None, random_state=1, **kw).fit(conf).sample()
    mar = RiskWeightedSynthesizer(kind="marginal", random_state=1, **kw).fit(conf).sample()
    cmp = compare_releases(
        conf, {"Data": None, "Synthesizer": syn, "Marginal": mar}, keys=["k"], targets="income",
        radius=0.1, formula="np.log(income) ~ x", terms=["x"], n_boot=50, random_state=0,
    )
    risk = cmp.risk["mean"]
    assert risk["Data"] > risk["Synthesizer"] > risk["Marginal"]
    ref = identification_risk(conf, mar, keys=["k"], targets="income", radius=0.1)
    np.testing.assert_allclose(cmp.per_record["Marginal"], ref.per_record)
    assert cmp.utility.loc["Data", "u_max"] == 0.0
    assert cmp.utility.loc["Synthesizer", "u_max"] > 0
    up = cmp.per_record["Marginal"] - cmp.per_record["Synthesizer"]
    np.testing.assert_array_equal(cmp.whack_a_mole("Marginal"), np.flatnonzero(up >= 0.25))
    assert cmp.risk.loc["Marginal", "n_whack_a_mole"] == len(cmp.whack_a_mole("Marginal"))
    est = cmp.estimates.set_index(["release", "statistic"])
    assert set(est.index.get_level_values("statistic")) == {"mean", "median", "q90", "x"}
    row = est.loc[("Data", "mean")]
    assert row["estimate"] == pytest.approx(conf["income"].mean())
    assert row["lower"] < row["estimate"] < row["upper"]


def test_errors():
    conf = _conf()
    with pytest.raises(DataError):
        RiskWeightedSynthesizer(targets="nope", keys=["k"]).fit(conf)
    with pytest.raises(ParameterError):
        RiskWeightedSynthesizer(targets="income", keys=["k"], kind="both").fit(conf)
    with pytest.raises(NotFittedError):
        RiskWeightedSynthesizer(targets="income", keys=["k"]).sample()
    bad = conf.assign(income=conf["income"] - 1e9)
    with pytest.raises(DataError, match="signed_log"):
        RiskWeightedSynthesizer(targets="income", keys=["k"], transform="log").fit(bad)


def test_mcmc_model_release_is_reproducible_across_sample_calls():
    rng = np.random.default_rng(4)
    conf = pd.DataFrame({"g": pd.Categorical(rng.integers(0, 2, 150)),
                         "y": rng.negative_binomial(5, 5 / 45, 150)})
    rws = RiskWeightedSynthesizer(
        model="bayes_negbin", kind="marginal", keys=["g"], targets="y", m=3,
        model_params={"burn_in": 50, "n_draws": 100},
    ).fit(conf)
    a = rws.sample(random_state=3)
    b = rws.sample(random_state=3)
    for u, v in zip(a.implicates, b.implicates, strict=True):
        pd.testing.assert_frame_equal(u, v)
    assert not a.implicates[0]["y"].equals(a.implicates[1]["y"])
    assert a.implicates[0]["y"].dtype == conf["y"].dtype
    assert rws.diagnostics()[0].n_draws == 100


def test_schema_reaches_the_synthesizer_and_transformed_target_is_numeric():
    conf = _conf(seed=6).assign(k=lambda d: d["k"].astype(int))
    rws = RiskWeightedSynthesizer(
        model="bayes_norm", kind=None, targets="income", transform="log", m=1,
        predictors=["k", "x"], schema={"k": "categorical", "income": "count"}, random_state=0,
    ).fit(conf)
    assert rws.synthesizer_.schema_.kind("k") == "categorical"
    assert rws.synthesizer_.schema_.kind("income") == "numeric"
