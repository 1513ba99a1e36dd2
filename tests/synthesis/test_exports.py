"""synthguard.synthesis exports exactly the names the docs promise."""

import synthguard
import synthguard.synthesis as synthesis

PROMISED = {
    "SynthesisDiagnostics", "SynthesisMethod", "Synthesizer", "SyntheticData",
    "available_methods", "check_weights", "get_method", "load_synthesizer", "make_method",
    "register_method", "replicated_share", "save_synthesizer", "synthesize",
    "Constraint", "ConstraintReport", "check_constraints", "parse_constraints",
    "SDCApplied", "apply_sdc",
}


def test_synthesis_all():
    assert set(synthesis.__all__) == PROMISED
    for name in PROMISED:
        assert hasattr(synthesis, name)


def test_top_level_names_are_the_synthesis_ones():
    assert synthguard.Synthesizer is synthesis.Synthesizer
    assert synthguard.synthesize is synthesis.synthesize


def test_builtin_methods_registered():
    assert {"sample", "norm", "normrank", "logreg", "polyreg", "cart"} <= set(
        synthesis.available_methods()
    )
