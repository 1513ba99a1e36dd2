"""AIMSynthesizer (McKenna, Mullins, Sheldon & Miklau 2022): accounting, reproducibility, sampling."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import AIMSynthesizer, PrivacyLedger, epsilon_to_rho
from synthguard.dp.synthesizers.aim import aim_candidates
from synthguard.errors import ParameterError, PrivacyBudgetError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def _data(n: int = 2000, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 4
    c = (b > 1).astype(int) ^ (rng.random(n) < 0.1)
    d = rng.integers(0, 4, n)
    e = np.where(rng.random(n) < 0.8, d % 3, rng.integers(0, 3, n))
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})  # integer columns
    cats = {"a": [0, 1, 2], "b": [0, 1, 2, 3], "c": [0, 1], "d": [0, 1, 2, 3], "e": [0, 1, 2]}
    return df, cats


def _tv2(x: pd.DataFrame, y: pd.DataFrame, cats: dict) -> float:
    errs = []
    for u, v in itertools.combinations(cats, 2):
        px = pd.crosstab(x[u], x[v], normalize=True).reindex(index=cats[u], columns=cats[v],
                                                              fill_value=0)
        py = pd.crosstab(y[u], y[v], normalize=True).reindex(index=cats[u], columns=cats[v],
                                                              fill_value=0)
        errs.append(0.5 * (px - py).abs().to_numpy().sum())
    return float(np.mean(errs))


@pytest.fixture(scope="module")
def fitted():
    df, cats = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        syn = AIMSynthesizer(epsilon=3.0, delta=1e-6, categories=cats, max_rounds=4, iters=100,
                             final_iters=300, random_state=1).fit(df)
    return df, cats, syn


def test_candidates_are_the_downward_closure_with_overlap_weights():
    got = aim_candidates([("a", "b"), ("b", "c")])
    # c_r = Σ_s |r ∩ s|: a → 1, b → 1 + 1, (a, b) → 2 + 1, (b, c) → 1 + 2
    assert got == {("a",): 1.0, ("a", "b"): 3.0, ("b",): 2.0, ("b", "c"): 3.0, ("c",): 1.0}


def test_accounting_sums_to_the_budget_by_opendp_maps(fitted):
    _df, cats, syn = fitted
    rho = epsilon_to_rho(3.0, 1e-6)
    assert syn.rho_ == rho
    assert math.fsum(r for _, r in syn.spent_) == pytest.approx(rho, rel=1e-12)
    assert syn.rounds_ == 4  # the round budget: the 4th round spent what was left
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    total = 0.0
    for kind, what, scale in syn.mechanisms_:
        if kind == "gaussian":  # one marginal: l2 sensitivity 1 under add/remove
            size = int(np.prod([len(cats[c]) for c in what]))
            m = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float, nan=False), size=size),
                                   dp.l2_distance(T=float), scale=scale)
        else:  # report-noisy-max on scores / Δ: sensitivity 1
            m = dp.m.make_noisy_max(
                dp.vector_domain(dp.atom_domain(T=float, nan=False), size=what),
                dp.linf_distance(T=float), dp.zero_concentrated_divergence(), scale=scale)
        total += m.map(1.0)
    assert total == pytest.approx(rho, rel=1e-9)
    # one zCDP line on the ledger, worth (ε, δ) by the tight conversion
    (line,) = syn.ledger_.charges
    assert line.kind == "zcdp" and line.rho == rho
    assert syn.ledger_.spent.epsilon <= 3.0
    assert syn.ledger_.spent.epsilon == pytest.approx(3.0, rel=1e-9)


def test_junction_tree_marginals_equal_mbi_and_sampling_follows_them(fitted):
    _df, cats, syn = fitted
    jt = syn._jtree
    model = syn.model_
    for cl in [*itertools.combinations(cats, 2), ("a", "c", "e"), ("b", "d", "e")]:
        want = np.asarray(model.project(cl).transpose(cl).datavector(flatten=False))
        np.testing.assert_allclose(jt.project(cl), want, rtol=1e-6, atol=1e-6 * model.total)
    codes = jt.sample(200_000, np.random.default_rng(0))
    for cl in [("a", "b"), ("b", "c"), ("d", "e")]:
        shape = tuple(len(cats[c]) for c in cl)
        freq = np.bincount(np.ravel_multi_index(tuple(codes[c] for c in cl), shape),
                           minlength=int(np.prod(shape))) / 200_000
        p = jt.project(cl).ravel() / jt.total
        assert np.abs(freq - p).max() < 5 * math.sqrt(0.25 / 200_000)


def test_integer_columns_seeds_and_accuracy(fitted):
    df, cats, syn = fitted
    one = syn.sample(random_state=5).implicates[0]
    two = syn.sample(random_state=5).implicates[0]
    pd.testing.assert_frame_equal(one, two)
    assert all(one[c].dtype.kind == "i" for c in cats)
    assert set(one["b"]) <= set(cats["b"])
    # the dependent pairs are learned: far better than independent columns
    indep = pd.DataFrame({c: df[c].sample(frac=1, random_state=i).to_numpy()
                          for i, c in enumerate(cats)})
    assert _tv2(df, one, cats) < 0.5 * _tv2(df, indep, cats)
    again = AIMSynthesizer(epsilon=3.0, delta=1e-6, categories=cats, max_rounds=4, iters=100,
                           final_iters=300, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again.fit(df)
    assert again.selected_ == syn.selected_


def test_opendp_path_and_refusals():
    df, cats = _data(400)
    df, cats = df[["a", "b", "c"]], {k: cats[k] for k in "abc"}
    syn = AIMSynthesizer(epsilon=1.0, delta=1e-6, categories=cats, max_rounds=1, iters=20,
                         final_iters=20).fit(df)
    assert syn.noise_ == "opendp" and syn.rounds_ == 1
    assert math.fsum(r for _, r in syn.spent_) == pytest.approx(syn.rho_, rel=1e-12)
    with pytest.raises(ParameterError, match="workload"):
        AIMSynthesizer(epsilon=1.0, categories=cats, workload=[("a", "zz")]).fit(df)
    with pytest.raises(ParameterError, match="delta"):
        AIMSynthesizer(epsilon=1.0, delta=0.0, categories=cats).fit(df)
    ledger = PrivacyLedger(epsilon=0.5, delta=1e-6)
    with pytest.raises(ParameterError, match="rounds"):  # 1-way alone would overspend
        AIMSynthesizer(epsilon=0.1, delta=1e-6, categories=cats, rounds=3, ledger=ledger,
                       random_state=0).fit(df)
    with pytest.raises(PrivacyBudgetError):
        AIMSynthesizer(epsilon=1.0, delta=1e-6, categories=cats, ledger=ledger,
                       random_state=0).fit(df)
    assert ledger.charges == ()


def test_junction_tree_carries_marginals_along_a_chain_of_cliques():
    from synthguard.dp.synthesizers._junction import JunctionTree
    from synthguard.dp.synthesizers.mst import _mbi

    mbi = _mbi()
    rng = np.random.default_rng(3)
    cols = ("a", "b", "c", "d", "e")
    dom = mbi.Domain(cols, (2, 3, 2, 3, 2))
    meas = []
    for u, v in itertools.pairwise(cols):  # chain a-b, b-c, c-d, d-e: four cliques on a path
        size = dom.size((u, v))
        meas.append(mbi.LinearMeasurement(rng.gamma(0.3, 100.0, size), (u, v), stddev=1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mbi.estimation.MirrorDescent().estimate(dom, meas, known_total=500.0, iters=100)
    jt = JunctionTree(mbi, model)
    assert len(jt.cliques) == 4
    for cl in [("a", "e"), ("e", "a"), ("b", "d"), ("a", "c", "e")]:
        want = np.asarray(model.project(cl).transpose(cl).datavector(flatten=False))
        np.testing.assert_allclose(jt.project(cl), want, rtol=1e-6, atol=1e-8)
        assert abs(jt.project(cl).sum() - 500.0) < 1e-6


def test_cli_dp_synthesize_method_aim(tmp_path):
    import json

    import yaml
    from click.testing import CliRunner

    from synthguard.cli import main

    df, cats = _data(300)
    df[["a", "b", "c"]].to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "levels.yaml").write_text(yaml.safe_dump({k: cats[k] for k in "abc"}))
    res = CliRunner().invoke(main, [
        "dp", "synthesize", str(tmp_path / "conf.csv"), "--method", "aim", "--epsilon", "1",
        "--levels", str(tmp_path / "levels.yaml"), "--max-rounds", "2", "--seed", "4",
        "--ledger", str(tmp_path / "l.json"), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output + str(res.exception)
    assert "aim round 2: rho" in res.output and "(100 %)" in res.output  # progress per round
    out = pd.read_csv(tmp_path / "out" / "dp_aim_1.csv")
    assert list(out.columns) == ["a", "b", "c"] and out["b"].dtype.kind == "i"
    doc = json.loads((tmp_path / "l.json").read_text())
    (line,) = doc["charges"]
    assert line["kind"] == "zcdp" and line["rho"] == pytest.approx(epsilon_to_rho(1.0, 1e-6))
    # errors speak command-line syntax: options, not Python parameters
    for args, want in [
        (["--columns", "a"], "option '--columns' names fewer"),
        (["--delta", "0"], "option '--delta': expected a number with 0 < delta < 1"),
        # issue 17: the ledger's own check answered first, "0 <= delta < 1"
        (["--delta", "2"], "option '--delta': expected a number with 0 < delta < 1"),
        # issue 17: a workload above the columns was cut silently to the 3-way marginals
        (["--workload", "4"], "option '--workload': every 4-way marginal needs 4 columns, "
                              "but 3 are synthesized"),
    ]:
        res = CliRunner().invoke(main, [
            "dp", "synthesize", str(tmp_path / "conf.csv"), "--method", "aim", "--epsilon", "1",
            "--levels", str(tmp_path / "levels.yaml"), "--max-rounds", "2", "--seed", "4",
            "--ledger", str(tmp_path / "new.json"), "--out", str(tmp_path / "refused"), *args])
        assert res.exit_code == 2 and want in res.output, res.output
        assert "parameter '" not in res.output and "={" not in res.output
        assert "0 <= delta" not in res.output
        # refused before anything is made: no ledger, no release folder
        assert not (tmp_path / "new.json").exists() and not (tmp_path / "refused").exists()


def test_stratified_draws_match_each_group_within_two_records():
    from synthguard.dp.synthesizers._junction import draw_rows, stratified_uniforms

    rng = np.random.default_rng(8)
    table = rng.dirichlet(np.full(5, 0.7), size=3)
    rows = rng.permutation(np.repeat([0, 1, 2], [1000, 37, 500]))
    k = draw_rows(table, rows, rng)
    for r, g in zip(range(3), (1000, 37, 500)):
        counts = np.bincount(k[rows == r], minlength=5)
        assert np.abs(counts - g * table[r]).max() < 2, (counts, g * table[r])
    # i.i.d. draws scatter by about √(g p (1 − p)) ≈ 10 records per level in the big group
    u = stratified_uniforms(rows, rng)
    assert ((u >= 0) & (u < 1)).all()
    one = np.sort(u[rows == 0])
    np.testing.assert_allclose(np.floor(one * 1000), np.arange(1000))  # one per stratum
