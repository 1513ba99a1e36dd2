"""``scale.evaluate`` computes the k-way marginals, the workload error and the comparison of
means that the pandas ``evaluate`` reports, with the pandas figures: the workload error bit for
bit, the means table to rounding; none of them is left as "not computed"."""

from __future__ import annotations

import numpy as np
import pytest

import synthguard

dd = pytest.importorskip("dask.dataframe")
scale_eval = pytest.importorskip("synthguard.evaluation.on_dask")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402


def test_dask_evaluation_reports_the_marginal_and_mean_measures():
    conf = tied_frame(400, 21)
    syn = [perturbed(conf, 22), perturbed(conf, 23)]
    kw = dict(keys=["sex", "region"], targets=["income"], random_state=3,
              kinds={"syn": "partial"}, default_thresholds=False)
    want = synthguard.evaluate(conf, {"syn": syn}, **kw).releases["syn"]
    got = scale_eval.evaluate(dd.from_pandas(conf, npartitions=3),
                              {"syn": [dd.from_pandas(s, npartitions=2) for s in syn]},
                              **kw).releases["syn"]
    for m in ("tv_1way", "tv_2way", "tv_3way"):
        assert got.metrics[m] is not None and got.metrics[m] == want.metrics[m], m
    assert 0 < got.metrics["kway_tv"] < 1
    assert got.utility.kway.n_draws == 100 and got.utility.kway.k == 3
    for part in ("k-way marginals and workload error", "comparison of means"):
        assert part not in got.errors
    g, w = got.utility.statistics.table, want.utility.statistics.table
    assert list(g["variable"]) == list(w["variable"]) == ["region", "income", "age"]
    assert list(g["rule"]) == list(w["rule"]) == ["partial"] * 3
    for c in ("conf_estimate", "conf_se", "syn_estimate", "syn_se", "overlap_snoke"):
        np.testing.assert_allclose(g[c].to_numpy(float), w[c].to_numpy(float), rtol=1e-10,
                                   err_msg=c)


def test_dask_evaluation_holds_counts_never_records(monkeypatch):
    """No measure of the Dask evaluation expands value counts into records, nor gathers
    k-anonymity's per-record fk; the univariate, ECDF and k-anonymity figures are the pandas
    ones."""
    from synthguard.data.counts import ValueCounts
    from synthguard.risk.uniqueness import KAnonymitySummary

    def refuse(self):
        raise AssertionError("value counts expanded into records")

    monkeypatch.setattr(ValueCounts, "expand", refuse)
    conf = tied_frame(500, 31)
    syn = [perturbed(conf, 32)]
    kw = dict(keys=["sex", "region"], targets=["income"], random_state=4,
              default_thresholds=False)
    want = synthguard.evaluate(conf, {"syn": syn}, **kw).releases["syn"]
    got = scale_eval.evaluate(dd.from_pandas(conf, npartitions=3),
                              {"syn": [dd.from_pandas(s, npartitions=2) for s in syn]},
                              **kw).releases["syn"]
    assert not {"utility", "risk"} & set(got.errors)
    kanon = got.risk.k_anonymity
    assert isinstance(kanon, KAnonymitySummary)
    assert kanon.summary() == want.risk.k_anonymity.summary()
    assert len(want.utility.ecdf) >= 2
    for c, e in want.utility.ecdf.items():
        assert got.utility.ecdf[c] == e
    pd_cat = want.utility.univariate.categorical
    assert len(pd_cat) and got.utility.univariate.categorical.equals(pd_cat)


def test_dask_evaluation_progress_moves_by_measure():
    conf = tied_frame(300, 41)
    syn = {"a": [perturbed(conf, 42)], "b": [perturbed(conf, 43)]}
    calls = []
    scale_eval.evaluate(dd.from_pandas(conf, npartitions=2),
                        {k: [dd.from_pandas(f, npartitions=2) for f in v]
                         for k, v in syn.items()},
                        keys=["sex", "region"], targets=["income"], random_state=5,
                        kinds={"a": "partial", "b": "partial"}, default_thresholds=False,
                        progress=lambda *a: calls.append(a))
    steps = len(scale_eval._STEPS)
    totals = {t for _, _, t in calls}
    assert totals == {2 * steps + 1}
    done = [d for _, d, _ in calls]
    assert done == sorted(done) and done[-1] == 2 * steps + 1
    # one step per measure, named, within each release's share of the bar
    a_steps = [(st, d) for st, d, _ in calls if st.startswith("'a': ")]
    assert len(a_steps) >= 8 and all(d < steps for _, d in a_steps)
    assert {"'a': k-way marginals", "'a': univariate", "'a': pMSE", "'a': match rates"} <= {
        st for st, _ in a_steps}
    ecdf = [d for st, d in a_steps if st == "'a': ECDF"]
    assert len(ecdf) == 3 and len(set(ecdf)) == 1  # three numeric columns, one step
    assert ("'a' measured", steps, 2 * steps + 1) in calls
