"""Bounded work on huge cardinality (issue 13, finding 10).

Before: a 10,000-level categorical made distance risk build a KD-tree over 10,000 one-hot
dimensions (over 15 minutes, 4.6 GB) and the logistic pMSE fit run 150 s, with no message.
Now, above 1,000 levels, both are refused at once with a message naming the column (never the
number of levels) and the way out; CART and the hamming metric still work.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.risk import distance_to_closest_record
from synthguard.risk._encoding import MAX_LEVELS
from synthguard.utility import pmse
from synthguard.utility._propensity import MAX_ONEHOT_LEVELS

N = 3000
LEVELS = 2500


def _frame(seed: int) -> pd.DataFrame:
    r = np.random.default_rng(seed)
    return pd.DataFrame({"zip": r.integers(0, LEVELS, N).astype(str),
                         "sex": r.choice(["f", "m"], N), "inc": r.lognormal(10, 1, N)})


@pytest.fixture(scope="module")
def frames():
    return _frame(0), _frame(1)


def test_limits_are_documented():
    assert MAX_LEVELS == MAX_ONEHOT_LEVELS == 1000


@pytest.mark.parametrize("metric", ["gower", "euclidean"])
def test_distance_risk_refuses_a_wide_categorical_at_once(frames, metric):
    conf, syn = frames
    t = time.perf_counter()
    with pytest.raises(DataError, match=r"zip: more than 1000 levels") as e:
        distance_to_closest_record(conf, [syn], metric=metric)
    assert time.perf_counter() - t < 5
    assert str(conf["zip"].nunique()) not in str(e.value)
    # without the column, or under hamming (codes, no one-hot), it runs
    distance_to_closest_record(conf.head(300), [syn.head(300)], metric=metric,
                               columns=["sex", "inc"])
    distance_to_closest_record(conf.head(300), [syn.head(300)], metric="hamming")


def test_logistic_pmse_refuses_a_wide_categorical_at_once(frames):
    conf, syn = frames
    t = time.perf_counter()
    with pytest.raises(ParameterError, match=r"zip have more than 1000 levels.*model='cart'"):
        pmse(conf, syn, model="logistic", random_state=0)
    assert time.perf_counter() - t < 5
    res = pmse(conf, syn, model="cart", random_state=0)
    assert 0 <= res.pmse <= 0.25
