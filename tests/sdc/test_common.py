"""Checks every SDC method shares: exports, result shape, same seed same output, input not
mutated, bad input rejected with synthguard errors, releases accepted by the utility layer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import synthguard.sdc as sdc
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError
from synthguard.sdc import ProtectedData

PROMISED = {
    "ProtectedData", "add_noise", "bottomcode", "generalize", "invariant_transition_matrix",
    "pram", "pram_frequencies",
    "subsample", "suppress", "suppress_cells", "swap", "topcode",
}


def test_all_lists_exactly_the_promised_names():
    assert set(sdc.__all__) == PROMISED
    for name in sdc.__all__:
        assert hasattr(sdc, name)


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 300
    return pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e", "w"], size=n),
            "sex": rng.choice(["f", "m"], size=n),
            "age": rng.integers(16, 90, size=n),
            "income": rng.lognormal(10, 1, size=n),
        }
    )


P = np.full((4, 4), 0.05) + np.eye(4) * 0.8

# (name, call, random?)
METHODS: list[tuple[str, Callable[..., Any], bool]] = [
    ("topcode", lambda d, rs: sdc.topcode(d, "income", percentile=90), False),
    ("bottomcode", lambda d, rs: sdc.bottomcode(d, "age", at=20), False),
    ("suppress", lambda d, rs: sdc.suppress(d, ["region", "sex", "age"], k=3), False),
    ("swap", lambda d, rs: sdc.swap(d, ["region", "age"], rate=0.1, random_state=rs), True),
    ("rank swap", lambda d, rs: sdc.swap(d, ["income"], method="rank", max_rank_distance=5,
                                         random_state=rs), True),
    ("generalize", lambda d, rs: sdc.generalize(d, "age", bins=[0, 30, 60, 120]), False),
    ("add_noise", lambda d, rs: sdc.add_noise(d, "income", random_state=rs), True),
    ("subsample", lambda d, rs: sdc.subsample(d, 0.3, strata="sex", random_state=rs), True),
    ("pram", lambda d, rs: sdc.pram(d, "region", P, levels=["e", "n", "s", "w"],
                                    random_state=rs), True),
]


@pytest.mark.parametrize(("name", "call", "is_random"), METHODS, ids=[m[0] for m in METHODS])
def test_same_seed_same_output_and_input_untouched(frame, name, call, is_random):
    before = frame.copy()
    a = call(frame, 42)
    b = call(frame, 42)
    pd.testing.assert_frame_equal(frame, before)
    assert isinstance(a, ProtectedData)
    pd.testing.assert_frame_equal(a.data, b.data)
    pd.testing.assert_frame_equal(a.changes, b.changes)
    # changes are aligned with the release and boolean
    assert a.changes.shape == a.data.shape
    assert list(a.changes.columns) == list(a.data.columns)
    assert a.changes.index.equals(a.data.index)
    assert all(pd.api.types.is_bool_dtype(t) for t in a.changes.dtypes)
    if is_random:
        assert a.seed == 42
        c = call(frame, 43)
        assert not c.data.equals(a.data)
    else:
        assert a.seed is None
    # the utility and risk layers read the release through as_implicates
    assert as_implicates(a)[0] is a.data
    # every result summarises itself and gives per-column detail
    assert a.method in a.summary()
    detail = a.to_frame()
    assert detail["n_changed"].sum() == a.n_changed_cells


def test_unseeded_runs_record_a_seed_that_reproduces_them(frame):
    a = sdc.swap(frame, ["age"], rate=0.2)
    assert isinstance(a.seed, int)
    again = sdc.swap(frame, ["age"], rate=0.2, random_state=a.seed)
    pd.testing.assert_frame_equal(a.data, again.data)


def test_generator_random_state_is_accepted(frame):
    rng = np.random.default_rng(1)
    out = sdc.add_noise(frame, "income", random_state=rng)
    assert out.seed is None


@pytest.mark.parametrize(("name", "call", "is_random"), METHODS, ids=[m[0] for m in METHODS])
def test_non_frames_and_empty_frames_are_data_errors(name, call, is_random):
    with pytest.raises(DataError):
        call({"income": [1, 2]}, 0)
    with pytest.raises(DataError):
        call(pd.DataFrame({"income": pd.Series([], dtype=float)}), 0)


def test_infinite_values_rejected_without_values():
    df = pd.DataFrame({"income": [1.0, np.inf, 3.0]})
    with pytest.raises(DataError, match="income") as err:
        sdc.topcode(df, "income", at=2)
    assert "inf" in str(err.value)  # says what is wrong, names no data value
    assert "3.0" not in str(err.value)


def test_random_state_errors_name_the_parameter(frame):
    with pytest.raises(ParameterError, match="random_state"):
        sdc.add_noise(frame, "income", random_state="seed")


def test_summary_hides_confidential_thresholds_and_repr(frame):
    out = sdc.topcode(frame, "income", percentile=90)
    text = out.summary()
    assert "threshold" in text and f"{out.params['threshold']:.0f}" not in text
    assert "topcode" in repr(out)
    html = out._repr_html_()
    assert "<table" in html and "income" in html
    public = sdc.topcode(frame, "income", at=50000)
    assert "threshold=50000" in public.summary()
