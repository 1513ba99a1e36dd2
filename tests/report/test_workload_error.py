"""True workload error by marginal order, against a brute-force pandas computation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthguard.evaluation.workload_error import workload_error, workload_metrics


def _frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    return pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.7, a, "w"),
                         "c": rng.choice(["p", "q"], n), "d": rng.choice(["k", "l", "m", "o"], n)})


def _brute(conf: pd.DataFrame, syn: pd.DataFrame, k: int) -> float:
    tvs = []
    for cols in itertools.combinations(conf.columns, k):
        p = conf.groupby(list(cols)).size() / len(conf)
        q = syn.groupby(list(cols)).size() / len(syn)
        p, q = p.align(q, fill_value=0.0)
        tvs.append(0.5 * float(np.abs(p - q).sum()))
    return float(np.mean(tvs))


def test_workload_error_matches_brute_force_and_averages_implicates():
    conf, s1, s2 = _frame(0, 800), _frame(1, 500), _frame(2, 650)
    got = workload_error(conf, [s1, s2])
    assert set(got) == {1, 2, 3}
    for k in (1, 2, 3):
        want = 0.5 * (_brute(conf, s1, k) + _brute(conf, s2, k))
        assert got[k] == pytest.approx(want, abs=1e-12)
    assert got[1] < got[2] < got[3]  # finer marginals differ more
    assert workload_metrics(conf, s1)["tv_2way"] == pytest.approx(_brute(conf, s1, 2))


def test_copy_has_zero_error_and_numeric_columns_are_binned():
    rng = np.random.default_rng(5)
    conf = _frame(3, 400).assign(age=rng.integers(18, 90, 400).astype(float))
    assert workload_error(conf, conf.copy()) == {1: 0.0, 2: 0.0, 3: 0.0}
    shifted = conf.assign(age=conf["age"] + 30.0)  # most ages move to the top bin
    # deciles of U(18, 90): ages shifted by 30 put about half the records in the top bin
    assert workload_error(conf[["age"]], shifted[["age"]])[1] > 0.4
    assert workload_error(conf, shifted)[1] == pytest.approx(
        workload_error(conf[["age"]], shifted[["age"]])[1] / 5)


def test_orders_above_the_columns_and_sampled_marginals():
    conf = _frame(0, 300)[["a", "c"]]
    assert set(workload_error(conf, _frame(1, 300)[["a", "c"]])) == {1, 2}
    conf, syn = _frame(0, 300), _frame(1, 300)
    one = workload_error(conf, syn, orders=(2,), max_marginals=1, random_state=3)[2]
    singles = [_brute(conf[list(p)], syn[list(p)], 2)
               for p in itertools.combinations(conf.columns, 2)]
    assert min(abs(one - s) for s in singles) < 1e-12


def test_evaluate_adds_the_workload_error_by_order_to_the_table():
    from synthguard.report import evaluate

    conf, syn = _frame(0, 200), _frame(1, 200)
    ev = evaluate(conf, {"s": syn}, keys=["a", "c"], targets=["d"], random_state=1,
                  default_thresholds=False)
    row = ev.to_frame().loc["s"]
    for k in (1, 2, 3):
        assert row[f"tv_{k}way"] == pytest.approx(_brute(conf, syn, k), abs=1e-12)
