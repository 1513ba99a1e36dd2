"""individual_risk against sdcMicro 5.8's own test values (freqCalc fk/Fk, indivRisk risk; held
in tests/reference/sdcmicro.json with their file and lines), hand-computed risks and brute force."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError, ParameterError
from synthguard.risk import individual_risk, k_anonymity

REF = json.loads((Path(__file__).resolve().parents[1] / "reference" / "sdcmicro.json").read_text())
CASES = REF["individual_risk"]


@pytest.mark.parametrize("case", CASES, ids=[c["source"].split(" ")[0] for c in CASES])
def test_sdcmicro_reference(case):
    df = pd.DataFrame({k: pd.array(v, dtype="Float64") for k, v in case["data"].items()})
    res = individual_risk(df, case["keys"], weights=case["weights"])
    frame = res.to_frame()
    assert list(frame.columns) == ["fk", "Fk", "risk"]
    if "fk" in case:
        np.testing.assert_array_equal(frame["fk"], case["fk"])
        np.testing.assert_allclose(frame["Fk"], case["Fk"])
    if "risk" in case:
        # sdcMicro prints 8-9 significant digits (5 decimals for 1/fk)
        np.testing.assert_allclose(frame["risk"], case["risk"], rtol=0, atol=6e-6)
    assert res.expected_reidentifications == pytest.approx(frame["risk"].sum())
    assert res.global_risk == pytest.approx(frame["risk"].mean())
    assert res.global_risk_pct == pytest.approx(100 * res.global_risk)


def test_hand_computed_formulas():
    # classes: fk=1 (w 4), fk=2 (w 3, 5), fk=3 (w 2, 2, 6), fk=2 with Fk=fk (w 1, 1)
    df = pd.DataFrame(
        {"k": ["a", "b", "b", "c", "c", "c", "d", "d"], "w": [4.0, 3, 5, 2, 2, 6, 1, 1]}
    )
    res = individual_risk(df, ["k"], weights="w")
    p1, p2, p3 = 1 / 4, 2 / 8, 3 / 10
    r1 = p1 / (1 - p1) * np.log(1 / p1)
    r2 = p2 / (1 - p2) - (p2 / (1 - p2)) ** 2 * np.log(1 / p2)
    r3 = p3 / (3 - (1 - p3))
    expected = [r1, r2, r2, r3, r3, r3, 0.5, 0.5]
    np.testing.assert_allclose(res.risk, expected)
    np.testing.assert_allclose(res.Fk, [4, 8, 8, 10, 10, 10, 2, 2])
    assert res.expected_reidentifications == pytest.approx(sum(expected))
    assert res.global_risk == pytest.approx(sum(expected) / 8)


def test_unweighted_is_one_over_fk_and_weights_of_one_agree(shared_data):
    df = pd.read_csv(shared_data / "sdcmicro" / "testdata.csv")
    keys = ["urbrur", "roof", "walls", "water", "sex"]
    res = individual_risk(df, keys)
    fk = k_anonymity(df, keys).fk
    np.testing.assert_array_equal(res.fk, fk)
    np.testing.assert_allclose(res.risk, 1 / fk)
    ones = individual_risk(df, keys, weights=np.ones(len(df)))
    np.testing.assert_allclose(ones.risk, res.risk)
    assert not res.weighted and ones.weighted
    w = individual_risk(df, keys, weights="sampling_weight")
    grp = df.groupby(keys)["sampling_weight"].transform("sum").to_numpy()
    np.testing.assert_allclose(w.Fk, grp)
    assert 0 < w.global_risk < res.global_risk
    assert "expected re-identifications" in w.summary()


def _brute(rows, w):
    def agree(a, b):
        return all(x is None or y is None or x == y for x, y in zip(a, b))

    fk = np.array([sum(agree(a, b) for b in rows) for a in rows])
    Fk = np.array([sum(wj for b, wj in zip(rows, w) if agree(a, b)) for a in rows])
    return fk, Fk


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            *[st.one_of(st.sampled_from([1, 2, 3]), st.none()) for _ in range(3)],
            st.integers(1, 50),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_wildcard_weighted_frequencies_match_brute_force(rows):
    keys_rows = [r[:3] for r in rows]
    w = [float(r[3]) for r in rows]
    df = pd.DataFrame(keys_rows, columns=["a", "b", "c"], dtype=object)
    res = individual_risk(df, ["a", "b", "c"], weights=np.array(w))
    fk, Fk = _brute(keys_rows, w)
    np.testing.assert_array_equal(res.fk, fk)
    np.testing.assert_allclose(res.Fk, Fk)


def test_index_and_order_kept():
    df = pd.DataFrame({"k": ["x", "y", "x"], "w": [1.0, 2, 3]}, index=[10, 5, 7])
    frame = individual_risk(df, ["k"], weights="w").to_frame()
    assert list(frame.index) == [10, 5, 7]
    np.testing.assert_allclose(frame["Fk"], [4, 2, 4])


def test_errors():
    df = pd.DataFrame({"a": [1, 2], "w": [1.0, np.nan]})
    with pytest.raises(DataError, match="'w'"):
        individual_risk(df, ["a"], weights="w")
    with pytest.raises(DataError, match="one weight per record"):
        individual_risk(df, ["a"], weights=[1.0])
    with pytest.raises(DataError, match="positive"):
        individual_risk(df, ["a"], weights=[1.0, 0.0])
    with pytest.raises(ParameterError, match="key variable"):
        individual_risk(df, ["a"], weights="a")
    with pytest.raises(DataError, match="'b'"):
        individual_risk(df, ["b"])
    with pytest.raises(ParameterError, match="keys"):
        individual_risk(df, [])


def test_many_records_eight_keys_fast():
    # the 1,000,000-record figure is in benchmarks/risk.py
    rng = np.random.default_rng(0)
    n = 300_000
    df = pd.DataFrame({f"k{j}": rng.integers(0, 6, n) for j in range(8)})
    w = rng.uniform(1, 200, n)
    t0 = time.perf_counter()
    res = individual_risk(df, list(df.columns), weights=w)
    assert time.perf_counter() - t0 < 5
    assert res.n == n and np.all(res.risk > 0)


def test_evaluate_risk_carries_sdcmicro_measures():
    from synthguard.risk import evaluate_risk, suda2

    rng = np.random.default_rng(3)
    n = 200
    conf = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "educ": rng.choice(["a", "b", "c", "d"], n),
            "region": rng.choice(list("pqrstu"), n),
            "income": rng.lognormal(10, 1, n),
            "w": rng.uniform(5, 50, n),
        }
    )
    keys = ["sex", "educ", "region"]
    syn = [conf.sample(n, random_state=s).reset_index(drop=True) for s in (1, 2)]
    syn[1] = syn[1].drop(columns="w")
    ev = evaluate_risk(conf, syn, keys, ["income"], weights="w")
    want = individual_risk(conf, keys, weights="w")
    assert ev.individual is not None
    np.testing.assert_allclose(ev.individual.risk, want.risk)
    assert ev.release_individual[0].weighted and not ev.release_individual[1].weighted
    assert any("no 'w' column" in note for note in ev.notes)
    assert ev.suda is not None
    np.testing.assert_allclose(ev.suda.suda_score, suda2(conf, keys).suda_score)
    frame = ev.to_frame().set_index("measure")
    assert frame.loc["confidential global risk", "value"] == pytest.approx(want.global_risk)
    rel = [r.expected_reidentifications for r in ev.release_individual]
    assert frame.loc["expected re-identifications", "value"] == pytest.approx(np.mean(rel))
    assert "records with an MSU" in frame.index
    with pytest.raises(ParameterError, match="'weights'"):
        evaluate_risk(conf, syn, keys, ["income"], weights="nope")
