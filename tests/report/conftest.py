"""Small confidential data with planted secrets, and releases of it, for the report tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

SECRET_VALUE = 987654.321
SECRET_LABEL = "ZZSECRETZZ"


def make_conf(n: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(["North", "South", "East", "West"], size=n, p=[0.4, 0.3, 0.2, 0.1])
    region = region.astype(object)
    region[:3] = SECRET_LABEL  # a small cell: 3 records
    income = np.round(rng.lognormal(10.5, 0.6, size=n), 2)
    income[5] = SECRET_VALUE  # the one extreme record
    return pd.DataFrame({
        "region": pd.Series(region, dtype="str"),
        "sex": rng.choice(["f", "m"], size=n),
        "kids": rng.poisson(1.0, size=n).astype(np.int64),
        "income": income,
        "spend": np.round(income * 0.3 + rng.normal(0, 2000, size=n), 2),
    })


def shuffled(conf: pd.DataFrame, cols: list[str], seed: int) -> pd.DataFrame:
    """A crude 'partially synthetic' implicate: ``cols`` permuted among records."""
    rng = np.random.default_rng(seed)
    out = conf.copy()
    for c in cols:
        out[c] = conf[c].to_numpy()[rng.permutation(len(conf))]
    return out


@pytest.fixture
def conf() -> pd.DataFrame:
    return make_conf()


@pytest.fixture
def releases(conf: pd.DataFrame) -> dict[str, object]:
    top = conf.copy()
    top["income"] = np.minimum(top["income"], 100000.0)
    return {
        "shuffled": [shuffled(conf, ["income", "spend"], s) for s in (1, 2)],
        "topcoded": top,
    }
