"""Fixtures of the synthesizer tests: small frames of every column kind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.synthesis import _methods  # noqa: F401  (registers the test methods)


@pytest.fixture
def mixed() -> pd.DataFrame:
    """2000 records: categorical text with missing, pandas Categorical, binary, count, numeric
    with missing, a bounded numeric."""
    rng = np.random.default_rng(7)
    n = 2000
    region = rng.choice(np.array(["north", "south", "east"], dtype=object), size=n, p=[0.5, 0.3, 0.2])
    region[rng.random(n) < 0.1] = None
    kids = rng.poisson(1.5, size=n).astype(np.int64)
    income = rng.lognormal(10, 1, size=n)
    income[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame(
        {
            "region": pd.Series(region, dtype="str"),
            "edu": pd.Categorical(rng.choice(["lo", "mid", "hi"], size=n),
                                  categories=["lo", "mid", "hi"], ordered=True),
            "urban": rng.integers(0, 2, size=n),
            "kids": kids,
            "income": income,
            "share": rng.uniform(0, 1, size=n),
        }
    )
