"""Households of 1–5 persons: a frame with many rows per unit that every session test uses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def households(n_households: int = 400, seed: int = 0, max_size: int = 5) -> pd.DataFrame:
    """Households of 1..max_size persons with sex, age group and hours (0–99)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, size=n_households)
    hid = np.repeat(np.arange(n_households), sizes)
    n = hid.size
    return pd.DataFrame({
        "hid": hid,
        "sex": rng.choice(["Male", "Female"], size=n),
        "agegroup": rng.choice(["young", "middle", "old"], size=n, p=[0.3, 0.5, 0.2]),
        "hours_per_week": rng.integers(0, 100, size=n).astype(float),
    })


@pytest.fixture
def persons() -> pd.DataFrame:
    return households()
