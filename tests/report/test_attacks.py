"""The anonymeter attacks in evaluate / the report / the CLI, with an honest control set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.errors import ParameterError
from synthguard.evaluation import evaluate
from synthguard.report.html import build_report
from synthguard.risk import ReleaseAttacks, release_attacks


def population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 91, n),
        "sex": rng.choice(["f", "m"], n),
        "region": rng.choice(["N", "S", "E", "W"], n),
        "income": np.round(rng.lognormal(10, 0.8, n), 0),
    })


@pytest.fixture(scope="module")
def parts() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    pop = population(2400, 3)
    return pop.iloc[:800].reset_index(drop=True), pop.iloc[800:1600].reset_index(drop=True), \
        pop.iloc[1600:].reset_index(drop=True)


KW = dict(keys=["age", "sex", "region"], targets=["income"], random_state=1, n_attacks=100)


def test_copy_is_caught_and_an_independent_sample_is_not(parts):
    conf, holdout, other = parts
    ev = evaluate(conf, {"copy": conf, "other": other}, holdout=holdout, attacks=True, **KW)
    copy, indep = ev["copy"].attacks, ev["other"].attacks
    assert isinstance(copy, ReleaseAttacks)
    # a copy hands back every income held by one person: the queries single out the training
    # records far more often than the holdout's
    assert copy.singling_out_risk > 0.5
    assert copy.singling_out.attack_rate > 0.9
    # records drawn from the same population but not the training data: no excess over control
    assert indep.singling_out_risk < 0.1
    assert indep.singling_out.ci[0] <= 0.05
    # the headline metric is the attack's risk, and the default attack threshold judges it
    assert ev["copy"].metrics["singling_out_risk"] == pytest.approx(copy.singling_out.risk)
    check = {c.threshold.metric: c for c in ev["copy"].checks}["singling_out_risk"]
    assert check.threshold.limit == 0.05 and check.passed is False
    assert {c.threshold.metric: c for c in ev["other"].checks}["singling_out_risk"].passed
    # linkability splits the keys from the other columns; inference guesses the target
    assert copy.linkability.details["aux_cols"] == (("age", "sex", "region"), ("income",))
    assert set(copy.inference) == {"income"}
    frame = copy.to_frame()
    assert list(frame.index)[:2] == ["singling out (univariate)", "singling out (multivariate)"]
    assert (frame["control_rate"] >= 0).all()
    html = build_report(ev)
    assert 'id="attacks-table"' in html and "control (holdout)" in html
    assert html.count("singling out (univariate)") == 2  # one row per release


def test_without_a_holdout_the_attacks_are_not_computed(parts):
    conf, _, other = parts
    ev = evaluate(conf, {"other": other}, attacks=True, **KW)
    assert ev["other"].attacks is None
    assert [p for _, p, _ in ev.not_computed] == ["anonymeter attacks"]
    assert "control set" in ev.not_computed[0][2]
    assert ev.status == "incomplete"  # exit 3, not a pass
    with pytest.raises(Exception, match="control set"):
        release_attacks(conf, other, None)


def test_a_holdout_of_training_records_is_refused(parts):
    conf, _, other = parts
    ev = evaluate(conf, {"other": other}, holdout=conf.sample(300, random_state=0),
                  attacks=True, **KW)
    assert ev["other"].attacks is None
    assert "repeats the training records" in ev["other"].errors["anonymeter attacks"]


def test_attack_threshold_needs_the_attacks(parts):
    conf, holdout, other = parts
    with pytest.raises(ParameterError, match="attacks=True"):
        evaluate(conf, {"other": other}, holdout=holdout,
                 thresholds={"singling_out_risk": 0.1}, **KW)


def test_grid_size_correction_recovers_a_known_curve():
    import sys

    so = sys.modules["synthguard.risk.singling_out"]
    # successes exactly a * integral(n, w): the grid fit gives back f(N_conf) / f(N_control)
    w, a = 2e-3, 900.0
    x = np.repeat(np.linspace(100, 1000, 10), 5)
    y = a * so._so_integral(x, w)
    expected = float(so._so_integral(np.array([4000.0]), w)[0] / so._so_integral(
        np.array([1000.0]), w)[0])

    class Fake:
        numeric = (True,)

    calls = iter(y)
    orig = so._singles_out
    so._singles_out = lambda index, queries: next(calls)
    try:
        got = so._fit_size_correction(np.zeros((1000, 1)), Fake(), [], 4000,
                                      np.random.default_rng(0), 100, grid=True)
    finally:
        so._singles_out = orig
    assert got == pytest.approx(expected, rel=0.02)


@pytest.fixture
def files(tmp_path, parts):
    conf, holdout, other = parts
    conf.assign(ID=np.arange(len(conf))).to_csv(tmp_path / "conf.csv", index=False)
    holdout.assign(ID=np.arange(len(holdout))).to_csv(tmp_path / "hold.csv", index=False)
    other.to_csv(tmp_path / "syn.csv", index=False)
    return tmp_path


def test_cli_attacks_and_drop(files):
    args = ["evaluate", str(files / "conf.csv"), str(files / "syn.csv"), "--keys",
            "age,sex,region", "--target", "income", "--seed", "1", "--attacks", "--n-attacks", "100", "--quiet"]
    # without --drop, the release lacks the data's ID column: refused
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2 and "ID" in res.output
    res = CliRunner().invoke(main, [*args, "--drop", "ID"])
    assert res.exit_code == 3, res.output
    assert "not computed: release 'syn': anonymeter attacks:" in res.output
    res = CliRunner().invoke(main, [*args, "--drop", "ID", "--holdout", str(files / "hold.csv")])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, [*args, "--drop", "nope"])
    assert res.exit_code == 2 and "--drop" in res.output


def test_protect_drop_records_the_column_as_dropped(files):
    out = files / "p"
    res = CliRunner().invoke(main, ["protect", str(files / "conf.csv"), "--out", str(out),
                                    "--drop", "ID", "--topcode", "income:p95", "--seed", "1"])
    assert res.exit_code == 0, res.output
    released = pd.read_csv(out / "protected.csv")
    assert "ID" not in released.columns and len(released) == 800
    import json

    assert json.loads((out / "synthguard_manifest.json").read_text())["dropped"] == ["ID"]


def test_report_counts_the_safeguards(parts):
    from synthguard import synthesize

    conf, _, _ = parts
    syn = synthesize(conf, random_state=1)
    ev = evaluate(conf, {"syn": syn}, keys=["age", "sex", "region"], targets=["income"],
                  random_state=1)
    assert ev["syn"].safeguards is syn.safeguards
    from synthguard.report.attacks_section import safeguards_table

    table = safeguards_table(ev)
    tot = syn.safeguards.totals()
    assert tot["rare_values_redrawn"] > 0  # incomes held by one person were redrawn
    col = table["header"].index("near-unique values redrawn")
    assert table["rows"][0]["cells"][col] == f"{tot['rare_values_redrawn']:,}"
    assert table["header"][table["header"].index("suppressed (partial)") - 1] == "removed"
    assert syn.provenance["safeguards"] == tot
    assert 'id="safeguards-table"' in build_report(ev)


def test_natural_twins_do_not_refuse_an_honest_holdout():
    # coarse categorical data: most records have a twin, so a holdout drawn apart from the
    # training records repeats most of their rows by nature; it is still an honest control,
    # while training records passed as the holdout are still refused
    from synthguard.evaluation.attacks import _repeats_training, _shared_share

    rng = np.random.default_rng(2)
    pop = pd.DataFrame({"sex": rng.choice(["f", "m"], 3000),
                        "region": rng.choice(list("NSEW"), 3000),
                        "agegroup": rng.choice(["<30", "30-60", "60+"], 3000)})
    train, hold = pop.iloc[:2000], pop.iloc[2000:]
    h, t = _shared_share(train, hold)
    assert h == 1.0 and t == 1.0  # 24 cells, 2000 records: every row has a twin
    assert not _repeats_training(train, hold)
    # a finer column makes twins rarer: then training records are told apart again
    pop["age"] = rng.integers(18, 91, 3000)
    train, hold = pop.iloc[:2000], pop.iloc[2000:]
    h, t = _shared_share(train, hold)
    assert h < 0.9 and abs(h - t) < 0.1  # an honest holdout repeats as much as twins explain
    assert not _repeats_training(train, hold)
    assert _repeats_training(train, train.sample(500, random_state=0))


def test_three_column_singling_out_has_a_default_threshold():
    # issue 17: the 3-column risk had no default, so a release that singles people out on
    # combinations of three values passed beside a clean one-column risk. Four columns of
    # eight common levels: no value is rare (one-column queries isolate no one), but 512
    # three-way cells for 800 records leave most combinations unique.
    from synthguard.evaluation.thresholds import ATTACK_THRESHOLDS

    rng = np.random.default_rng(5)
    pop = pd.DataFrame({c: rng.choice(list("abcdefgh"), 2400) for c in "wxyz"})
    conf, holdout, other = (pop.iloc[i:i + 800].reset_index(drop=True) for i in (0, 800, 1600))
    ev = evaluate(conf, {"copy": conf, "other": other, "sdc": conf}, holdout=holdout,
                  attacks=True, keys=["w", "x", "y"], targets=["z"], random_state=1,
                  n_attacks=100, kinds={"sdc": "protected"})
    assert ATTACK_THRESHOLDS["singling_out_multivariate_risk"] == 0.25
    checks = {n: {c.threshold.metric: c for c in ev[n].checks} for n in ("copy", "other", "sdc")}
    assert checks["copy"]["singling_out_risk"].passed  # one column: nothing to single out
    multi = checks["copy"]["singling_out_multivariate_risk"]
    assert multi.value > 0.9 and multi.passed is False
    assert checks["other"]["singling_out_multivariate_risk"].passed
    # like the one-column limit it judges synthetic releases: SDC publishes the records
    assert checks["sdc"]["singling_out_multivariate_risk"].passed is None
    # a limit the caller names replaces the default
    ev2 = evaluate(conf, {"copy": conf}, holdout=holdout, attacks=True, keys=["w", "x", "y"],
                   targets=["z"], random_state=1, n_attacks=100,
                   thresholds={"singling_out_multivariate_risk": 0.99})
    limits = [c.threshold.limit for c in ev2["copy"].checks
              if c.threshold.metric == "singling_out_multivariate_risk"]
    assert limits == [0.99]


def test_cli_refuses_conf_itself_as_the_holdout(files, monkeypatch):
    # issue 17: --holdout CONF was accepted silently (every record "held out" was trained on)
    monkeypatch.chdir(files)
    for hold in ("conf.csv", str(files / "conf.csv"), "./conf.csv"):
        res = CliRunner().invoke(main, [
            "evaluate", str(files / "conf.csv"), "syn.csv", "--keys", "age,sex,region",
            "--target", "income", "--drop", "ID", "--holdout", hold, "--quiet"])
        assert res.exit_code == 2, res.output
        assert "option --holdout names CONF itself" in res.output
