"""The public names the docs promise (STYLE.md: a test checks __all__)."""

import importlib

import synthguard

PROMISED = {
    "synthguard": {"Synthesizer", "synthesize", "evaluate", "load_dataset", "__version__"},
    "synthguard.data": {
        "ColumnSchema", "Kind", "Schema", "as_implicates", "id_like_columns", "infer_schema",
        "list_datasets", "load_dataset", "read_table", "validate_frame", "write_table",
        "ReleaseManifest", "read_manifest", "write_manifest",
        # synthpop's codebook.syn, numtocat.syn and mergelevels.syn (issue 36)
        "Codebook", "codebook", "NumToCat", "numtocat", "merge_levels",
    },
}


def test_top_level_all():
    assert set(synthguard.__all__) == PROMISED["synthguard"]


def test_data_all():
    mod = importlib.import_module("synthguard.data")
    assert set(mod.__all__) == PROMISED["synthguard.data"]
    for name in mod.__all__:
        assert hasattr(mod, name)


def test_report_evaluate_is_the_function_whatever_was_imported_first():
    """The package attribute ``report.evaluate`` shares its name with the submodule
    ``report/evaluate.py``: the function must win (a lazily filled package attribute lost to
    the submodule once anything had imported it, and the docs' API page broke)."""
    import types

    import synthguard.pipeline  # noqa: F401  (imports synthguard.evaluation, the module)
    import synthguard.report as report

    assert isinstance(report.evaluate, types.FunctionType)
