"""Properties of the sequential synthesizer, checked with tiny test methods."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt

from synthguard.synthesis import Synthesizer, SyntheticData, synthesize
from synthguard.synthesis.engine import allocate as _allocate

ALL_MARGINAL = {c: "test_marginal" for c in ["region", "edu", "urban", "kids", "income", "share"]}


def _syn(columns=None, **kw):
    fixed = set(kw.get("keep", [])) | set([kw["strata"]] if isinstance(kw.get("strata"), str)
                                          else kw.get("strata", []))
    kw.setdefault("methods", {k: v for k, v in ALL_MARGINAL.items()
                              if k not in fixed and (columns is None or k in columns)})
    return Synthesizer(**kw)


def test_same_seed_same_implicates_and_implicates_differ(mixed):
    a = _syn(m=3, random_state=11).fit(mixed).sample()
    b = _syn(m=3, random_state=11).fit(mixed).sample()
    assert isinstance(a, SyntheticData) and a.m == 3 and len(a.implicates) == 3
    for x, y in zip(a.implicates, b.implicates):
        pdt.assert_frame_equal(x, y)
    assert not a.implicates[0]["share"].equals(a.implicates[1]["share"])
    assert not a.implicates[1]["income"].equals(a.implicates[2]["income"])
    assert a.seed == 11


def test_unseeded_run_records_a_seed_that_reproduces_it(mixed):
    a = _syn(m=2).fit(mixed).sample()
    assert isinstance(a.seed, int)
    b = _syn(m=2, random_state=a.seed).fit(mixed).sample()
    pdt.assert_frame_equal(a.implicates[1], b.implicates[1])


def test_implicate_i_does_not_depend_on_m(mixed):
    syn = _syn(random_state=3).fit(mixed)
    two = syn.sample(m=2)
    five = syn.sample(m=5)
    pdt.assert_frame_equal(two.implicates[1], five.implicates[1])


def test_full_synthesis_shapes_dtypes_and_n(mixed):
    res = _syn(m=2, n=500, random_state=1).fit(mixed).sample()
    assert res.kind == "full" and res.kept == []
    for df in res.implicates:
        assert df.shape == (500, mixed.shape[1])
        assert list(df.columns) == list(mixed.columns)
        assert df.dtypes.to_dict() == mixed.dtypes.to_dict()
        assert isinstance(df["edu"].dtype, pd.CategoricalDtype) and df["edu"].cat.ordered


def test_partial_synthesis_keeps_columns_and_rows(mixed):
    keep = ["region", "edu", "urban"]
    idx = pd.Index(np.arange(len(mixed)) * 3 + 5)
    data = mixed.set_axis(idx)
    res = _syn(keep=keep, m=2, random_state=5).fit(data).sample()
    assert res.kind == "partial" and res.kept == keep
    assert res.synthesized == ["kids", "income", "share"]
    for df in res.implicates:
        pdt.assert_frame_equal(df[keep], data[keep])
        assert df.index.equals(idx)
        assert not df["share"].equals(data["share"])


def test_levels_never_invented_bounds_hold_counts_integer(mixed):
    res = Synthesizer(
        methods={"region": "test_marginal", "edu": "test_marginal", "urban": "test_marginal",
                 "kids": "test_copy_x", "income": "test_marginal", "share": "test_copy_x"},
        method_params={"kids": {"shift": 0.4}, "share": {"shift": 0.7}},
        visit_sequence=["region", "urban", "income", "kids", "share", "edu"],
        predictor_matrix={"kids": ["income"], "share": ["kids"]},
        schema={"share": {"kind": "numeric", "lower": 0.0, "upper": 1.0}},
        replicated_uniques="keep", extremes=0, rare_values=0, random_state=2,
    ).fit(mixed).sample()
    df = res.implicates[0]
    assert set(df["region"].dropna()) <= {"north", "south", "east"}
    assert set(df["urban"]) <= {0, 1}
    # kids copies income + 0.4 (a missing income predictor is encoded 0 plus an indicator)
    assert df["kids"].dtype == np.dtype("int64")
    inc = df["income"].fillna(0.0).to_numpy()
    np.testing.assert_array_equal(df["kids"].to_numpy(), np.round(inc + 0.4))
    assert df["share"].between(0.0, 1.0).all()
    assert (df["share"] == 1.0).any()  # kids + 0.7 > 1 was clipped to the bound


def test_count_column_keeps_integer_dtype(mixed):
    res = _syn(["kids", "share"], random_state=4).fit(mixed[["kids", "share"]]).sample()
    assert res.implicates[0]["kids"].dtype == np.dtype("int64")


def test_models_fit_on_confidential_and_drawn_from_synthetic(mixed):
    mixed = mixed.assign(income=mixed["income"].fillna(1.0))
    # partial: income copies kept 'share' of the same row
    syn = Synthesizer(keep=["share"], methods={"income": "test_copy_x"},
                      visit_sequence=["income"], replicated_uniques="keep", extremes=0,
                      random_state=0).fit(mixed)
    np.testing.assert_array_equal(syn.blocks_[0].models[0].value.method.fit_X_[:, 0],
                                  mixed["share"])
    res = syn.sample()
    np.testing.assert_allclose(res.implicates[0]["income"], mixed["share"])
    # full: 'share' is drawn first, 'income' copies the synthetic share, not the confidential
    res = Synthesizer(methods={"share": "test_marginal", "income": "test_copy_x"},
                      visit_sequence=["share", "income"], extremes=0, rare_values=0,
                      random_state=0).fit(mixed).sample()
    df = res.implicates[0]
    np.testing.assert_allclose(df["income"], df["share"])
    assert not np.allclose(df["share"], mixed["share"])


def test_missing_pattern_reproduced_within_binomial_error(mixed):
    res = _syn(m=3, random_state=8).fit(mixed).sample()
    for col in ["region", "income"]:
        p = mixed[col].isna().mean()
        se = np.sqrt(p * (1 - p) / len(mixed))
        for df in res.implicates:
            assert abs(df[col].isna().mean() - p) < 4 * se, col
    assert res.provenance["missingness_methods"] == {"income": "test_marginal"}


def test_missing_numeric_value_model_fit_on_present_rows(mixed):
    from tests.synthesis._methods import WeightRecorder

    WeightRecorder.log.clear()
    Synthesizer(methods={"income": "test_weights"}, visit_sequence=["income"],
                random_state=0).fit(mixed)
    # indicator fit on all rows (codes 0/1), value on the present rows only
    ys = [e["y"] for e in WeightRecorder.log]
    assert len(ys) == 2
    assert ys[0].dtype.kind == "i" and ys[0].sum() == mixed["income"].isna().sum()
    np.testing.assert_array_equal(ys[1], mixed["income"].dropna().to_numpy())


def test_strata_sizes_kept_and_rescaled(mixed):
    res = _syn(strata="urban", random_state=3).fit(mixed).sample()
    df = res.implicates[0]
    pdt.assert_series_equal(df["urban"].value_counts().sort_index(),
                            mixed["urban"].value_counts().sort_index())
    assert res.provenance["strata"] == ["urban"] and res.provenance["n_strata"] == 2
    res = _syn(strata=["urban", "edu"], n=999, random_state=3).fit(mixed).sample()
    df = res.implicates[0]
    assert len(df) == 999
    conf = mixed.groupby(["urban", "edu"], observed=True).size()
    got = df.groupby(["urban", "edu"], observed=True).size()
    expected = conf * 999 / len(mixed)
    assert (abs(got - expected) < 1).all()


def test_strata_models_are_separate(mixed):
    # within each stratum the marginal draw only sees that stratum's values
    data = mixed.assign(share=np.where(mixed["urban"] == 1, 10.0, -10.0) + mixed["share"])
    res = _syn(strata="urban", random_state=1).fit(data).sample()
    df = res.implicates[0]
    assert (df.loc[df["urban"] == 1, "share"] > 5).all()
    assert (df.loc[df["urban"] == 0, "share"] < -5).all()


def test_allocate_is_proportional_and_sums():
    sizes = np.array([5, 3, 2])
    np.testing.assert_array_equal(_allocate(sizes, 10), [5, 3, 2])
    np.testing.assert_array_equal(_allocate(sizes, 7), [4, 2, 1])  # quotas 3.5, 2.1, 1.4
    assert _allocate(np.array([1, 1, 1]), 100).sum() == 100


def test_visit_sequence_leaves_other_columns_out_and_predictors_default(mixed):
    syn = Synthesizer(visit_sequence=["urban", "share"], keep=["edu"],
                      methods={"urban": "test_marginal", "share": "test_marginal"}).fit(mixed)
    assert syn.predictors_ == {"urban": ["edu"], "share": ["edu", "urban"]}
    res = syn.sample(random_state=1)
    assert list(res.implicates[0].columns) == ["edu", "urban", "share"]
    assert res.provenance["left_out"] == ["region", "kids", "income"]


def test_predictor_matrix_as_synthpop_dataframe(mixed):
    cols = ["urban", "kids", "share"]
    pm = pd.DataFrame(0, index=cols, columns=cols)
    pm.loc["share", "urban"] = 1
    syn = Synthesizer(visit_sequence=cols, predictor_matrix=pm,
                      methods=dict.fromkeys(cols, "test_marginal")).fit(mixed)
    assert syn.predictors_ == {"urban": [], "kids": [], "share": ["urban"]}


def test_default_methods_first_sample_then_default(mixed):
    syn = Synthesizer(default_method="test_marginal").fit(mixed)
    assert syn.methods_["region"] == "sample"
    assert set(list(syn.methods_.values())[1:]) == {"test_marginal"}
    syn = Synthesizer(keep=["urban"], default_method="test_marginal").fit(mixed)
    assert syn.methods_["region"] == "test_marginal"  # has a predictor: not 'sample'


def test_instance_method_is_not_mutated_by_fit(mixed):
    from tests.synthesis._methods import MarginalMethod

    inst = MarginalMethod()
    Synthesizer(methods={"share": inst}, visit_sequence=["share"]).fit(mixed)
    assert not hasattr(inst, "y_")


def test_input_not_mutated(mixed):
    before = mixed.copy()
    _syn(keep=["region"], random_state=1).fit(mixed).sample()
    pdt.assert_frame_equal(mixed, before)


def test_synthesize_function_and_to_frame(mixed):
    res = synthesize(mixed, m=2, random_state=9, methods=ALL_MARGINAL)
    tf = res.to_frame()
    assert list(tf.columns) == ["implicate", *mixed.columns]
    assert tf["implicate"].value_counts().to_dict() == {1: len(mixed), 2: len(mixed)}
    assert "full synthesis, m = 2" in res.summary()


def test_constant_column_within_stratum_is_copied(mixed):
    data = mixed.assign(flag=np.where(mixed["urban"] == 1, "a", "b"))
    res = Synthesizer(strata="urban", visit_sequence=["flag", "share"],
                      methods={"flag": "test_marginal", "share": "test_marginal"},
                      random_state=0).fit(data).sample()
    df = res.implicates[0]
    assert (df["flag"] == np.where(df["urban"] == 1, "a", "b")).all()


def test_methods_declaring_float32_get_float32_fortran_designs(mixed):
    from tests.synthesis._methods import Float32Recorder

    Float32Recorder.seen.clear()
    data = mixed.assign(income=mixed["income"].fillna(1.0))
    Synthesizer(methods={"share": "test_marginal", "income": "test_float32"},
                visit_sequence=["share", "income"], keep=["edu"],
                replicated_uniques="keep", random_state=0).fit(data).sample()
    fit_X, draw_X = Float32Recorder.seen
    assert fit_X.dtype == np.float32 and fit_X.flags.f_contiguous
    assert draw_X.dtype == np.float32 and draw_X.shape == (len(data), 3)
    np.testing.assert_array_equal(fit_X[:, 2], data["share"].to_numpy(dtype=np.float32))


def test_fit_block_and_draw_block_work_on_one_block(mixed):
    # the block functions a distributed engine would map over strata
    from synthguard.synthesis.encoding import to_working
    from synthguard.synthesis.engine import ColumnSpec as _ColumnSpec
    from synthguard.synthesis.engine import draw_block, fit_block
    from tests.synthesis._methods import CopyFirstPredictor, MarginalMethod

    syn = Synthesizer(keep=["share"], methods={"kids": "test_marginal"},
                      visit_sequence=["kids"]).fit(mixed)
    schema = syn.schema_.columns
    arrays = {c: to_working(mixed[c], schema[c]) for c in ["share", "kids", "urban"]}
    specs = [_ColumnSpec("urban", [], MarginalMethod(), None),
             _ColumnSpec("kids", ["share"], CopyFirstPredictor(shift=0.2), None)]
    rows = np.arange(100, 300)
    block = fit_block(arrays, rows, specs, schema, None)
    assert [m.target for m in block.models] == ["urban", "kids"]
    out = draw_block(block, len(rows), {"share": arrays["share"][rows]}, schema,
                     np.random.default_rng(0))
    np.testing.assert_array_equal(out["kids"], np.round(arrays["share"][rows] + 0.2))
    assert set(np.unique(out["urban"])) <= {0, 1}
