"""Random data with ties and missing values, and the synchronous scheduler, for the Dask tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def tied_frame(n: int, seed: int) -> pd.DataFrame:
    """Keys with few levels and missing values (text and numeric), targets with many ties,
    zeros and negative values."""
    rng = np.random.default_rng(seed)
    conf = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m", None], n, p=[0.45, 0.45, 0.1]),
            "region": rng.integers(0, 6, n).astype(float),
            "income": rng.integers(0, 25, n).astype(float) * rng.choice([1.0, -1.0, 0.0], n),
            "age": rng.integers(18, 30, n).astype(float),
        }
    )
    conf.loc[rng.random(n) < 0.08, "region"] = np.nan
    conf.loc[: min(n, 5) - 1, "region"] = 10.0 + np.arange(min(n, 5))  # singleton patterns
    return conf


def perturbed(conf: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A partially synthetic implicate: targets moved, some key values changed (so a record's
    own row may leave its pattern), a few synthetic targets missing."""
    rng = np.random.default_rng(seed)
    n = len(conf)
    out = conf.copy()
    out["income"] = conf["income"] + rng.integers(-2, 3, n)
    out["age"] = conf["age"] + rng.integers(-1, 2, n)
    moved = rng.random(n) < 0.1
    out.loc[moved, "region"] = rng.integers(0, 6, int(moved.sum())).astype(float)
    out.loc[rng.random(n) < 0.02, "income"] = np.nan
    return out
