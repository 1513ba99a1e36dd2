"""One vocabulary (issue 16): every renamed parameter or reordered signature keeps its old
spelling one release through ``synthguard._compat``. The old spelling warns
(RenamedWarning, a FutureWarning) and gives the identical result; the new one does not warn."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard import risk, sdc, utility
from synthguard._compat import renamed, reordered
from synthguard.bayes import RiskWeightedSynthesizer, compare_releases, risk_weights
from synthguard.dp.synthesizers import StratifiedSynthesizer
from synthguard.dp.tables import (
    dp_tables,
    reconstruction_attack,
    tables_accuracy,
    topdown,
    topdown_accuracy,
)
from synthguard.errors import ParameterError, PrivacyWarning, RenamedWarning


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    conf = pd.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60),
                         "g": rng.choice(["a", "b", "c"], size=60)})
    syn = pd.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60),
                        "g": rng.choice(["a", "b", "c"], size=60)})
    return conf, syn


def _same(a: object, b: object) -> None:
    """Results are frozen dataclasses holding frames and arrays: compare field by field."""
    if hasattr(a, "__dataclass_fields__"):
        assert type(a) is type(b)
        for f in a.__dataclass_fields__:  # type: ignore[attr-defined]
            _same(getattr(a, f), getattr(b, f))
    elif isinstance(a, pd.DataFrame | pd.Series):
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
        else:
            pd.testing.assert_series_equal(a, b)
    elif isinstance(a, pd.Index):
        pd.testing.assert_index_equal(a, b)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()  # type: ignore[attr-defined]
        for k in a:
            _same(a[k], b[k])  # type: ignore[index]
    elif isinstance(a, list | tuple):
        assert len(a) == len(b)  # type: ignore[arg-type]
        for x, y in zip(a, b):  # type: ignore[call-overload]
            _same(x, y)
    else:
        assert a == b


def _cases():  # type: ignore[no-untyped-def]
    conf, syn = _frames()
    q, v = [1.0, 2.0, 3.0], [0.4, 0.5, 0.6]
    # (id, new call, old call)
    return [
        ("pmse", lambda: utility.pmse(conf, synthetic=syn, random_state=0),
         lambda: utility.pmse(conf, synth=syn, random_state=0)),
        ("univariate", lambda: utility.univariate(conf, synthetic=syn),
         lambda: utility.univariate(conf, synth=syn)),
        ("correlation_fit", lambda: utility.correlation_fit(conf, synthetic=syn),
         lambda: utility.correlation_fit(conf, synth=syn)),
        ("kway_marginal_score",
         lambda: utility.kway_marginal_score(conf, synthetic=syn, k=2, n_draws=3, random_state=1),
         lambda: utility.kway_marginal_score(conf, synth=syn, k=2, n_draws=3, random_state=1)),
        ("ecdf_utility",
         lambda: utility.ecdf_utility(conf.x, synthetic_values=syn.x,
                                      synthetic_weights=np.arange(1.0, 61.0)),
         lambda: utility.ecdf_utility(conf.x, synth_values=syn.x,
                                      synth_weights=np.arange(1.0, 61.0))),
        ("ci_overlap", lambda: utility.ci_overlap((0.0, 2.0), synthetic_ci=(1.0, 3.0)),
         lambda: utility.ci_overlap((0.0, 2.0), synth_ci=(1.0, 3.0))),
        ("sso", lambda: utility.sso(1.0, (0.5, 1.5), synthetic_estimate=0.8,
                                    synthetic_ci=(0.2, 1.4)),
         lambda: utility.sso(1.0, (0.5, 1.5), synth_estimate=0.8, synth_ci=(0.2, 1.4))),
        ("combine", lambda: utility.combine(q, v, method="proper", n=100, n_synthetic=200),
         lambda: utility.combine(q, v, method="proper", n=100, n_syn=200)),
        ("identification_risk",
         lambda: risk.identification_risk(conf, syn, keys=["g"], targets="x", singletons="zero"),
         lambda: risk.identification_risk(conf, syn, keys=["g"], target="x", singletons="zero")),
        ("pairwise_identification_risk",
         lambda: risk.pairwise_identification_risk(conf, keys=["g"], targets=["x", "y"],
                                                   singletons="zero"),
         lambda: risk.pairwise_identification_risk(conf, keys=["g"], target=["x", "y"],
                                                   singletons="zero")),
        ("membership_inference(train, holdout, synthetic)",
         lambda: risk.membership_inference(conf[:30], syn, holdout=conf[30:], random_state=2),
         lambda: risk.membership_inference(conf[:30], conf[30:], syn, random_state=2)),
        ("membership_inference(train=...)",
         lambda: risk.membership_inference(conf[:30], syn, holdout=conf[30:], thresholds=[0.1]),
         lambda: risk.membership_inference(train=conf[:30], holdout=conf[30:], synthetic=syn,
                                           thresholds=[0.1])),
        ("risk_weights",
         lambda: risk_weights(conf, ["g"], targets="x", radius=0.3).weights,
         lambda: risk_weights(conf, ["g"], target="x", radius=0.3).weights),
        ("disclosure",
         lambda: risk.disclosure(conf, syn, keys=["g"], targets="x", ngroups_targets=4,
                                 use_targets_na=False),
         lambda: risk.disclosure(conf, syn, keys=["g"], target="x", ngroups_target=4,
                                 use_target_na=False)),
        ("RiskWeightedSynthesizer(target=)",
         lambda: repr(RiskWeightedSynthesizer(keys=["g"], targets="x", m=2)),
         lambda: repr(RiskWeightedSynthesizer(keys=["g"], target="x", m=2))),
        ("compare_releases",
         lambda: compare_releases(conf, {"Data": None, "Release": syn}, keys=["g"], targets="x",
                                  baseline=None, statistics=("mean",), n_boot=10,
                                  random_state=0).to_frame(),
         lambda: compare_releases(conf, {"Data": None, "Release": syn}, keys=["g"], target="x",
                                  baseline=None, statistics=("mean",), n_boot=10,
                                  random_state=0).to_frame()),
        ("swap", lambda: sdc.swap(conf, ["x"], rate=0.5, strata="g", random_state=4),
         lambda: sdc.swap(conf, ["x"], rate=0.5, within="g", random_state=4)),
        ("subsample", lambda: sdc.subsample(conf, 0.5, strata="g", random_state=4),
         lambda: sdc.subsample(conf, 0.5, within="g", random_state=4)),
        ("DP sample(n, m, random_state)",
         lambda: _dp().sample(m=2, n=40, random_state=3),
         lambda: _dp().sample(40, 2, 3)),
        ("tables_accuracy(release, data)",
         lambda: tables_accuracy(*_tables()[::-1]),
         lambda: tables_accuracy(*_tables())),
        ("tables_accuracy(data=)",
         lambda: tables_accuracy(_tables()[1], _tables()[0]),
         lambda: tables_accuracy(release=_tables()[0], data=_tables()[1])),
        ("topdown_accuracy(result, data)",
         lambda: topdown_accuracy(*_topdown()[::-1]),
         lambda: topdown_accuracy(*_topdown())),
        ("reconstruction_attack(release, data)",
         lambda: reconstruction_attack(_tables()[1], _tables()[0], random_state=0).to_frame(),
         lambda: reconstruction_attack(*_tables(), random_state=0).to_frame()),
        ("DP fit_sample(data, n)",
         lambda: _dp().fit_sample(conf[["g"]], m=1, n=40, random_state=0).implicates[0].shape,
         lambda: _dp().fit_sample(conf[["g"]], 40).implicates[0].shape),
    ]


_DP: list[StratifiedSynthesizer] = []
_TABLES: list[tuple[object, pd.DataFrame]] = []


def _tables() -> tuple[object, pd.DataFrame]:
    """(a DP tables release, its data): the old argument order of the tables' measures."""
    if not _TABLES:
        data = pd.DataFrame({"a": list("xyxxyx") * 10, "b": list("uvvuvu") * 10})
        with warnings.catch_warnings():  # seeded numpy noise: a test's release
            warnings.simplefilter("ignore", PrivacyWarning)
            rel = dp_tables(data, ["a x b"], epsilon=50.0, categories={"a": ["x", "y"],
                            "b": ["u", "v"]}, random_state=1)
        _TABLES.append((rel, data))
    return _TABLES[0]


def _topdown() -> tuple[object, pd.DataFrame]:
    if not _TOPDOWN:  # made once: its own notes (invariants are not DP) stay out of the record
        _TOPDOWN.append(_make_topdown())
    return _TOPDOWN[0]


_TOPDOWN: list[tuple[object, pd.DataFrame]] = []


def _make_topdown() -> tuple[object, pd.DataFrame]:
    data = pd.DataFrame({"st": list("pq") * 20, "a": list("xyyx") * 10})
    with warnings.catch_warnings():  # seeded noise; invariants read without noise
        warnings.simplefilter("ignore", PrivacyWarning)
        return topdown(data, ["st"], ["a"], epsilon=50.0,
                       categories={"a": ["x", "y"], "st": ["p", "q"]}, random_state=2), data


def _dp() -> StratifiedSynthesizer:
    """One fit (unseeded OpenDP noise) shared by both spellings: sampling is seeded."""
    if not _DP:
        _DP.append(StratifiedSynthesizer(epsilon=1.0, categories={"g": ["a", "b", "c"]})
                   .fit(_frames()[0][["g"]]))
    return _DP[0]


CASES = _cases()


@pytest.mark.parametrize("new, old", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_old_spelling_warns_and_gives_the_same_result(new, old) -> None:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        expected = new()  # the new spelling does not warn
    with pytest.warns(RenamedWarning, match="now") as record:
        got = old()
    assert all(issubclass(w.category, FutureWarning) for w in record)
    _same(expected, got)


def test_overlap_value_is_the_hand_computed_one() -> None:
    # Karr et al. overlap of [0, 2] and [1, 3]: 0.5 (1/2 + 1/2) = 0.5 (not only "the same")
    assert float(utility.ci_overlap((0.0, 2.0), synthetic_ci=(1.0, 3.0))) == pytest.approx(0.5)


def test_identification_risk_has_no_data_specific_default_target() -> None:
    conf = pd.DataFrame({"sex": ["f"] * 4, "income": [10.0, 11.0, 30.0, 60.0]})
    with pytest.raises(TypeError, match="targets"):
        risk.identification_risk(conf, keys=["sex"])  # once defaulted to "income"
    # hand-computed (docstring example): 10 and 11 share a 20% ball, 30 and 60 are alone
    np.testing.assert_allclose(
        risk.identification_risk(conf, keys=["sex"], targets="income").per_record,
        [0.5, 0.5, 0.75, 0.75])


def test_dp_sample_is_keyword_only_and_reads_the_old_order() -> None:
    new = _dp().sample(m=3, n=7, random_state=1)
    assert (new.m, new.implicates[0].shape[0]) == (3, 7)
    with pytest.warns(RenamedWarning, match=r"old order \(n, m, random_state\)"):
        old = _dp().sample(7, 3, 1)  # n first, as before
    assert (old.m, old.implicates[0].shape[0]) == (3, 7)


def _fitted_synthesizer():  # type: ignore[no-untyped-def]
    from synthguard import Synthesizer

    conf = _frames()[0][["g", "x"]]
    return Synthesizer(methods={"g": "sample", "x": "cart"}, random_state=1).fit(conf)


def test_synthesizer_sample_is_keyword_only_and_reads_the_old_order() -> None:
    syn = _fitted_synthesizer()
    new = syn.sample(m=2, random_state=5)
    with pytest.warns(RenamedWarning, match=r"old order \(m, random_state\)"):
        old = syn.sample(2, 5)
    assert old.m == new.m == 2
    for a, b in zip(old.implicates, new.implicates):
        pd.testing.assert_frame_equal(a, b)
    with pytest.warns(RenamedWarning):
        again = syn.fit_sample(_frames()[0][["g", "x"]], 2)
    assert again.m == 2


def test_synthesizer_sample_takes_n_like_the_dp_synthesizers() -> None:
    syn = _fitted_synthesizer()
    assert [d.shape for d in syn.sample(m=2, n=25, random_state=3).implicates] == [(25, 2)] * 2
    assert syn.sample(random_state=3).implicates[0].shape == (60, 2)  # default: conf's rows
    with pytest.raises(ParameterError, match="parameter 'n'"):
        syn.sample(n=0)


def test_disclosure_takes_one_target_and_points_to_multi_disclosure() -> None:
    conf, syn = _frames()
    with pytest.raises(ParameterError, match=r"multi_disclosure\(targets="):
        risk.disclosure(conf, syn, keys=["g"], targets=["x", "y"])
    one = risk.disclosure(conf, syn, keys=["g"], targets=["x"])
    assert one.disco == risk.disclosure(conf, syn, keys=["g"], targets="x").disco


def test_plans_accept_the_old_names_one_release() -> None:
    from synthguard.pipeline.plan import _accepted

    names, _ = _accepted(sdc.swap)
    assert {"strata", "within"} <= names


def test_old_and_new_name_together_is_an_error() -> None:
    with pytest.raises(ParameterError, match="'synth' and 'synthetic'"):
        utility.univariate(_frames()[0], synth=_frames()[1], synthetic=_frames()[1])


def test_renamed_refuses_a_name_the_function_lacks() -> None:
    with pytest.raises(TypeError, match="does not fit"):
        renamed(old="missing")(lambda new: new)


def _order(conf, synthetic, *, holdout, thresholds=None):  # type: ignore[no-untyped-def]
    return (conf, synthetic, holdout, thresholds)


def test_reordered_reads_only_old_style_calls_the_old_way() -> None:
    f = reordered(("train", "holdout", "synthetic", "thresholds"), train="conf")(_order)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f("c", "s", holdout="h") == ("c", "s", "h", None)
        assert f(conf="c", synthetic="s", holdout="h") == ("c", "s", "h", None)
        # old positional-plus-keyword call that also fits the new signature means the same
        assert f("c", holdout="h", synthetic="s") == ("c", "s", "h", None)
    for call in (lambda: f("c", "h", "s"), lambda: f("c", "h", "s", 0.5),
                 lambda: f("c", "h", synthetic="s"),
                 lambda: f(train="c", holdout="h", synthetic="s")):
        with pytest.warns(RenamedWarning, match=r"old order \(train, holdout, synthetic"):
            out = call()
        assert out[:3] == ("c", "s", "h")
    with pytest.raises(TypeError):
        f("c")  # neither spelling binds: Python's own error


def test_every_alias_has_a_case_here() -> None:
    """A rename registered through synthguard._compat without a case in this file fails."""
    import importlib
    import inspect
    import pkgutil

    import synthguard

    aliased = set()
    for info in pkgutil.walk_packages(synthguard.__path__, "synthguard."):
        if ".cli" in info.name or ".scale" in info.name:
            continue
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            members = ([(f"{name}.{k}", v) for k, v in vars(obj).items()]
                       if inspect.isclass(obj) else [(name, obj)])
            aliased |= {n for n, f in members
                        if getattr(f, "__renamed__", None) or getattr(f, "__old_order__", None)}
    with open(__file__) as fh:
        text = fh.read()
    covered = {n for n in aliased if n.split(".")[0] + "(" in text or
               n.split(".")[-1] + "(" in text}
    assert aliased and aliased == covered, sorted(aliased - covered)


def test_result_fields_keep_their_old_names_one_release() -> None:
    """Result attributes speak the API's words (n_synthetic, targets); the old attribute and
    constructor keyword work one release with a RenamedWarning naming the new one."""
    import dataclasses

    from synthguard.risk.disclosure import Disclosure
    from synthguard.utility.ecdf import ECDFUtility

    conf, syn = _frames()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        e = utility.ecdf_utility(conf.x, synthetic_values=syn.x.iloc[:45])
        d = risk.disclosure(conf, syn, keys=["g"], targets="x")
        w = risk_weights(conf, ["g"], targets="x", radius=0.3)
        assert (e.n_conf, e.n_synthetic, d.targets, w.targets) == (60, 45, "x", ("x",))
        assert "Disclosure of 'x'" in d.summary() and "['x']" in w.summary()
        assert dataclasses.replace(d, targets="y").targets == "y"
    for obj, old, new, value in ((e, "n_syn", "n_synthetic", 45), (d, "target", "targets", "x"),
                                 (w, "target", "targets", ("x",))):
        with pytest.warns(RenamedWarning, match=rf"{type(obj).__name__}\.{old} is now called "
                                                rf"'{new}'; read \.{new}"):
            assert getattr(obj, old) == value
    fields = dict(u_max=0.1, u_avg=0.01, u_max_implicates=(0.1,), u_avg_implicates=(0.01,),
                  n_conf=5)
    with pytest.warns(RenamedWarning, match="parameter 'n_syn' is now called 'n_synthetic'"):
        assert ECDFUtility(**fields, n_syn=7) == ECDFUtility(**fields, n_synthetic=7)
    with pytest.raises(ParameterError, match="'n_syn' and 'n_synthetic'"):
        ECDFUtility(**fields, n_syn=7, n_synthetic=7)
    from synthguard.bayes.weights import RiskWeights

    for obj in (d, w):  # built with the old keyword: the same result
        kw = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name != "targets"}
        with pytest.warns(RenamedWarning, match="parameter 'target' is now called 'targets'"):
            again = (Disclosure(**kw, target="x") if isinstance(obj, Disclosure)
                     else RiskWeights(**kw, target=("x",)))
        _same(obj, again)
