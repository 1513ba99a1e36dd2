"""anonymeter-style attacks (Giomi et al. 2023): singling out, linkability, inference.

Reference numbers come from anonymeter 1.1.0 itself (see tests/reference/anonymeter/README.md):
its rates and risk for given counts; attack counts on data where they do not depend on the
random draws (all records attacked, no distance ties), and with the same seed for the
multivariate singling-out queries (we draw records and columns exactly as anonymeter does).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.risk import AttackRisk, inference, linkability, singling_out
from synthguard.risk._attack_stats import attack_risk

REF = Path(__file__).resolve().parents[1] / "reference" / "anonymeter"


def counts(n, k, b, c, level=0.95):
    return attack_risk(
        "test", n_attacks=n, n_success=k, n_baseline_attacks=n, n_baseline=b,
        n_control_attacks=None if c is None else n, n_control=c, confidence_level=level,
        random_state=None, details={},
    )  # fmt: skip


# anonymeter.stats.confidence.EvaluationResults(n_attacks, n_success, n_baseline, n_control)
RATES = {
    (500, 120, 10, 40): ((0.2419823285200036, 0.0373444684866226),
                         (0.023659683421545074, 0.012760499825334266),
                         (0.08320222299385194, 0.023904093583999354),
                         (0.1731898893174202, 0.12710339917071795, 0.21927637946412243)),
    (500, 3, 1, 0): ((0.009766424188006807, 0.00772382791604657),
                     (0.005796921549853016, 0.005443785155293741),
                     (0.0038121702307761206, 0.00381217023077612),
                     (0.005977039449086669, 0.0, 0.01461327290488026)),
    (200, 150, 20, 150): ((0.7452886684056833, 0.05962965152614167),
                          (0.10753813055090664, 0.041867681881810746),
                          (0.7452886684056833, 0.05962965152614167),
                          (0.0, 0.0, 0.3310769936304345)),
    (1000, 999, 5, 300): ((0.997090447515708, 0.0027330061136659287),
                          (0.006894245450349786, 0.004756709923025326),
                          (0.30076535169711105, 0.02835850922010617),
                          (0.9958389469238205, 0.9919267375291643, 0.9997511563184767)),
}  # fmt: skip


@pytest.mark.parametrize("key", list(RATES))
def test_rates_and_risk_match_anonymeter(key):
    attack, baseline, control, risk = RATES[key]
    r = counts(*key)
    assert (r.attack_rate, r.attack_rate_error) == pytest.approx(attack, rel=1e-12)
    assert (r.baseline_rate, r.baseline_rate_error) == pytest.approx(baseline, rel=1e-12)
    assert (r.control_rate, r.control_rate_error) == pytest.approx(control, rel=1e-12)
    assert (r.risk, *r.ci) == pytest.approx(risk, rel=1e-12, abs=1e-15)


def test_risk_without_control_is_the_attack_rate():
    # EvaluationResults(300, 90, 4, None, confidence_level=0.9).risk()
    r = counts(300, 90, 4, None, level=0.9)
    assert r.risk == pytest.approx(0.3017875744350257, rel=1e-12)
    assert r.ci == pytest.approx((0.258426894330377, 0.34514825453967435), rel=1e-12)
    assert "no control" in r.summary()


def test_wilson_by_hand():
    # z = 1.959964; k = 0 of n = 10: rate z^2/2 / (10 + z^2) = 0.16113, error the same
    r = counts(10, 0, 0, None)
    assert r.attack_rate == pytest.approx(1.920729 / 13.841459, rel=1e-6)
    assert r.attack_rate_error == pytest.approx(r.attack_rate, rel=1e-12)
    assert not r.attack_beats_baseline


@pytest.fixture
def small():
    return tuple(pd.read_csv(REF / f"small_{n}.csv") for n in ("ori", "syn", "control"))


@pytest.mark.parametrize(("nn", "n_success", "n_control"), [(1, 9, 0), (5, 82, 27)])
def test_linkability_counts_match_anonymeter(small, nn, n_success, n_control):
    ori, syn, ctrl = small
    r = linkability(
        ori, syn, aux_cols=(["x1", "x2"], ["x3", "x4", "c"]), n_attacks=300,
        n_neighbors=nn, control=ctrl, random_state=0,
    )  # fmt: skip
    assert (r.n_success, r.n_control) == (n_success, n_control)
    assert r.n_attacks == r.n_control_attacks == 300
    assert isinstance(r, AttackRisk) and 0 <= r.ci[0] <= r.risk <= r.ci[1] <= 1


def test_inference_counts_match_anonymeter(small):
    ori, syn, ctrl = small
    r = inference(ori, syn, aux_cols=["x1", "x2", "x3", "x4"], secret="c", n_attacks=300,
                  control=ctrl, random_state=0)  # fmt: skip
    assert (r.n_success, r.n_control) == (159, 89)
    # a numeric secret within 5%: anonymeter 1.1.0 reports 21 and 12; it divides by the signed
    # guess, so its one negative guess counts as correct; we divide by |guess|
    r = inference(ori, syn, aux_cols=["x1", "x2", "c"], secret="x3", regression=True,
                  n_attacks=300, control=ctrl, random_state=0)  # fmt: skip
    assert (r.n_success, r.n_control) == (20, 12)


@pytest.fixture
def adult3000(shared_data):
    folder = shared_data / "synthpop_releases"
    d = pd.read_csv(folder / "adult_complete_cases.csv")
    s = pd.read_csv(folder / "adult_syn_default_seed1.csv")
    return (d.iloc[:3000].reset_index(drop=True), s.iloc[:3000].reset_index(drop=True),
            d.iloc[3000:6000].reset_index(drop=True))  # fmt: skip


def test_singling_out_matches_anonymeter_on_adult(adult3000):
    ori, syn, ctrl = adult3000
    # univariate: every rare-value query is used (2500 < n_attacks), so the counts do not
    # depend on the draws; the control (2999 distinct rows) is rescaled to 3000 records
    r = singling_out(ori, syn, mode="univariate", n_attacks=5000, control=ctrl, random_state=1)
    assert r.details["n_queries"] == 2500
    assert r.n_success == 426
    assert r.n_control == pytest.approx(391.86937687437523, rel=2e-3)
    # multivariate with anonymeter's seed: the same records and columns are drawn
    for seed, n_success, n_control in ((2, 24, 22.99233588803732),):
        r = singling_out(ori, syn, n_attacks=100, n_cols=3, control=ctrl, random_state=seed)
        assert r.n_success == n_success
        assert r.n_control == pytest.approx(n_control, rel=2e-3)
        assert r.details["n_queries"] == 100


def test_univariate_singling_out_by_hand():
    conf = pd.DataFrame({"age": [21, 35, 35, 50, 64], "job": list("abbcd")})
    syn = pd.DataFrame({"age": [21, 35, 40, 40, 70], "job": list("aabbc")})
    r = singling_out(conf, syn, mode="univariate", n_attacks=10, random_state=0)
    # duplicates go first: syn (21 a) (35 a) (40 b) (70 c), conf (21 a) (35 b) (50 c) (64 d).
    # Queries singling out in syn: age<=21, age>=70, age==21, ==35, ==40, ==70, job==b, ==c
    # (8). In conf they match 1, 0, 1, 1, 0, 0, 1, 1 records -> 5 successes of 10 attacks
    assert r.details["n_queries"] == 8
    assert r.n_success == 5
    assert r.n_attacks == 10


def test_copy_is_riskier_than_independent_data():
    rng = np.random.default_rng(0)

    def make(n):
        return pd.DataFrame({"a": rng.integers(18, 90, n), "b": rng.choice(list("pqrs"), n),
                             "x": rng.normal(size=n).round(2), "y": rng.integers(0, 10, n),
                             "z": rng.choice(list("uvwxyz"), n)})  # fmt: skip

    conf, ctrl, indep = make(1500), make(1500), make(1500)
    copy_r = singling_out(conf, conf, n_attacks=100, control=ctrl, random_state=3)
    indep_r = singling_out(conf, indep, n_attacks=100, control=ctrl, random_state=3)
    assert copy_r.n_success == 100  # every query singles out its own record
    assert copy_r.risk > indep_r.risk + 0.2
    link = linkability(conf, conf, aux_cols=(["a", "b", "y"], ["x", "z"]), n_attacks=200,
                       control=ctrl, random_state=1)  # fmt: skip
    assert link.risk > 0.5
    inf = inference(conf, conf, aux_cols=["a", "x", "y", "z"], secret="b", n_attacks=200, control=ctrl,
                    random_state=1)  # fmt: skip
    assert inf.n_success == 200 and inf.risk > 0.5
    frame = inf.to_frame()
    assert list(frame.index) == ["attack", "baseline", "control"]


def test_same_seed_same_result():
    rng = np.random.default_rng(5)
    conf = pd.DataFrame({"a": rng.integers(0, 50, 400), "b": rng.choice(list("xyz"), 400),
                         "c": rng.normal(size=400), "d": rng.integers(0, 9, 400)})  # fmt: skip
    syn = conf.sample(frac=1.0, random_state=2).assign(c=lambda f: f["c"] + 0.1)
    for f in (
        lambda s: singling_out(conf, syn, n_attacks=50, n_cols=2, random_state=s),
        lambda s: linkability(conf, syn, aux_cols=(["a"], ["b", "c"]), n_attacks=100,
                              random_state=s),
        lambda s: inference(conf, syn, aux_cols=["a", "c"], secret="b", n_attacks=100,
                            random_state=s),
    ):  # fmt: skip
        one, two = f(7), f(7)
        assert one.to_frame().equals(two.to_frame())
        assert one.random_state == 7


def test_multivariate_stops_when_the_release_has_no_more_queries():
    # with 2 columns and n_cols = 2 only records on the (quadrant) Pareto front single out:
    # far fewer than 1000 distinct queries exist, and the search ends without max_attempts
    rng = np.random.default_rng(1)
    conf = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    r = singling_out(conf, conf, n_attacks=1000, n_cols=2, random_state=0)
    assert 0 < r.details["n_queries"] < 100
    assert r.n_success == r.details["n_queries"]  # a copy: each singles out in conf too
    assert r.n_attacks == 1000


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda c, s: singling_out(c, s, mode="both"), ParameterError),
        (lambda c, s: singling_out(c, s, n_cols=9), ParameterError),
        (lambda c, s: singling_out(c, s, n_attacks=0), ParameterError),
        (lambda c, s: singling_out(c, s, confidence_level=1.5), ParameterError),
        (lambda c, s: singling_out(c, s, implicate=2), ParameterError),
        (lambda c, s: linkability(c, s, aux_cols=(["a"], ["a"])), ParameterError),
        (lambda c, s: linkability(c, s, aux_cols=(["a"], ["zz"])), DataError),
        (lambda c, s: inference(c, s, aux_cols=["a"], secret="a"), ParameterError),
        (lambda c, s: inference(c, s, aux_cols=["a"], secret="b", regression=True),
         ParameterError),
        (lambda c, s: inference(c, s.assign(a=s["a"].astype(str)), aux_cols=["a"], secret="b"),
         DataError),
    ],
)
def test_bad_input_raises(call, error):
    conf = pd.DataFrame({"a": [1, 2, 3, 4], "b": list("xyxy")})
    with pytest.raises(error):
        call(conf, conf.copy())
