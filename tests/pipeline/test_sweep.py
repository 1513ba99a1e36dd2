"""pipeline.sweep(): one release per configuration, the Pareto frontier, and the gate's choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.pipeline.sweep import expand_grid, pareto_front, sweep
from synthguard.report.frontier_section import frontier_figure


def test_expand_grid_by_hand():
    assert expand_grid({"a": [1, 2], "b": ["x", "y"], "c": 0}) == [
        {"a": 1, "b": "x", "c": 0}, {"a": 1, "b": "y", "c": 0},
        {"a": 2, "b": "x", "c": 0}, {"a": 2, "b": "y", "c": 0},
    ]
    with pytest.raises(ParameterError, match="grid"):
        expand_grid({})
    with pytest.raises(ParameterError, match="no value"):
        expand_grid({"a": []})


def test_pareto_front_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        r, u = rng.integers(0, 5, 12).astype(float), rng.integers(0, 5, 12).astype(float)
        r[rng.integers(0, 12)] = np.nan
        brute = []
        for i in range(12):
            if np.isnan(r[i]):
                brute.append(False)
                continue
            dom = any(j != i and not np.isnan(r[j]) and r[j] <= r[i] and u[j] <= u[i]
                      and (r[j] < r[i] or u[j] < u[i]) for j in range(12))
            brute.append(not dom)
        np.testing.assert_array_equal(pareto_front(r, u), brute)


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    n = 300
    return pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 0),
    })


@pytest.mark.slow
def test_gate_picks_the_passing_configuration_and_names_failures(data):
    # replicated uniques kept (judged by a relaxed threshold) so that only rare_values differs
    kw = dict(keys=["region", "kids"], targets=["income"], n_attacks=50, random_state=2,
              base={"min_rows": 0, "replicated_uniques": "keep"},
              thresholds={"replicated_uniques": 1.0, "singling_out_multivariate_risk": 1.0})
    res = sweep(data, {"rare_values": [0, 5]}, **kw)
    t = res.table
    assert list(t.index) == ["rare_values=0", "rare_values=5"]
    # plain draws hand back incomes held by one person: univariate singling out fails
    assert t.loc["rare_values=0", "singling_out_risk"] > 0.05
    assert not t.loc["rare_values=0", "passed"]
    assert "singling out ≤ 0.05 by" in t.loc["rare_values=0", "failed"]
    assert t.loc["rare_values=5", "singling_out_risk"] <= 0.05
    assert res.chosen == "rare_values=5" and res.passed
    assert res.release is res.releases["rare_values=5"]
    assert "chosen: rare_values=5" in res.verdict
    assert frontier_figure(res) is not None
    # m changes only the draw: the two configurations of each rare_values share one fit
    two = sweep(data, {"rare_values": [0], "m": [1, 2]}, **kw)
    assert list(two.table["fit_reused"]) == [False, True]
    assert [len(two.releases[k].implicates) for k in two.table.index] == [1, 2]
    # nothing passes a threshold no release can meet: the verdict says which and by how much
    plain = sweep(data, {"rare_values": [0]}, **kw)
    assert plain.chosen is None and not plain.passed
    assert plain.closest == "rare_values=0"
    assert "no configuration passes" in plain.verdict and "singling out ≤ 0.05 by" in plain.verdict
    with pytest.raises(ParameterError, match="both in 'base' and swept"):
        sweep(data, {"min_rows": [0]}, **kw)


def test_reused_fit_draws_what_a_fresh_fit_draws(data):
    from synthguard.pipeline.sweep import with_draw_settings
    from synthguard.synthesis import Synthesizer

    base = {"min_rows": 0, "random_state": 3}
    plain = Synthesizer(rare_values=0, extremes=0, replicated_uniques="keep", **base).fit(data)
    before = plain.sample(random_state=9, diagnostics=False).implicates[0]
    for settings in ({"rare_values": 5}, {"extremes": 5, "replicated_uniques": "redraw"},
                     {"rare_values": 5, "extremes": 5, "m": 2}):
        kw = {"rare_values": 0, "extremes": 0, "replicated_uniques": "keep", **settings}
        fresh = Synthesizer(**kw, **base).fit(data).sample(random_state=9, diagnostics=False)
        twin = with_draw_settings(plain, data, settings).sample(random_state=9,
                                                                diagnostics=False)
        assert len(twin.implicates) == len(fresh.implicates)
        for a, b in zip(twin.implicates, fresh.implicates):
            pd.testing.assert_frame_equal(a, b)
    # the guard changed the draw, and the fitted synthesizer it came from is untouched
    assert not twin.implicates[0].equals(before)
    pd.testing.assert_frame_equal(
        plain.sample(random_state=9, diagnostics=False).implicates[0], before)
    with pytest.raises(ParameterError, match="change the fit"):
        with_draw_settings(plain, data, {"method_params": {}})
