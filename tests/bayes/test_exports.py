"""synthguard.bayes exports what docs/bayes.md promises, and its methods are registered."""

import synthguard.bayes as bayes
from synthguard.synthesis.registry import get_method

PROMISED = {
    "BayesMixture", "BayesNegBin", "BayesNorm", "LatentClassSynthesizer", "MCMCDiagnostics", "ReleaseComparison",
    "RiskWeightedSynthesizer", "RiskWeights", "combine_weights", "compare_releases",
    "effective_sample_size", "normalize_survey_weights", "risk_weights",
}


def test_all_is_the_promised_set():
    assert set(bayes.__all__) == PROMISED
    for name in bayes.__all__:
        assert hasattr(bayes, name)


def test_weighted_methods_registered():
    for name, cls in (("bayes_norm", bayes.BayesNorm), ("bayes_mixture", bayes.BayesMixture),
                      ("bayes_negbin", bayes.BayesNegBin)):
        assert get_method(name) is cls
        assert cls.supports_weights and cls.name == name
