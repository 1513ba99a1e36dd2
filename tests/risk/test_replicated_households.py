"""Replicated households against a brute-force comparison of every pair of households (sorted
lists of member records), on random small files and on sdcMicro's testdata."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.risk import replicated_households


def _members(df: pd.DataFrame, hid: str, cols: list[str]) -> list[list]:
    out: dict = defaultdict(list)
    for row in df.to_dict("records"):
        out[row[hid]].append(tuple("NA" if pd.isna(row[c]) else row[c] for c in cols))
    return [sorted(m, key=repr) for m in out.values()]


def _brute(conf: pd.DataFrame, rel: pd.DataFrame, hid: str, cols: list[str]) -> int:
    data = _members(conf, hid, cols)
    unique = [m for m in data if sum(m == o for o in data) == 1]
    return sum(any(m == u for u in unique) for m in _members(rel, hid, cols))


@pytest.mark.parametrize("seed", range(5))
def test_count_equals_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)

    def frame(n_h: int) -> pd.DataFrame:
        rows = []
        for h in range(n_h):
            for _ in range(int(rng.integers(1, 4))):
                rows.append({"hh": h, "sex": rng.choice(["f", "m"]),
                             "age": float(rng.integers(0, 3)) if rng.random() > 0.1 else np.nan})
        return pd.DataFrame(rows)

    conf = frame(30)
    # the release: some of the data's households (shuffled members, new ids) and new ones
    picked = conf[conf["hh"].isin(rng.choice(30, 10, replace=False))].sample(frac=1, random_state=seed)
    rel = pd.concat([picked.assign(hh=picked["hh"] + 100), frame(10)], ignore_index=True)
    r = replicated_households(conf, rel, "hh")
    assert r.columns == ("sex", "age")
    assert r.count == _brute(conf, rel, "hh", ["sex", "age"])
    assert r.n_households == rel["hh"].nunique()
    assert r.share == pytest.approx(r.count / r.n_households)
    assert int(r.to_frame()["replicated"].sum()) == r.count
    one = replicated_households(conf, rel, "hh", columns="sex")
    assert one.count == _brute(conf, rel, "hh", ["sex"])


def test_the_data_itself_replicates_every_unique_household(shared_data: Path) -> None:
    df = pd.read_csv(shared_data / "sdcmicro" / "testdata.csv")
    r = replicated_households(df, df, "ori_hid")
    assert r.count == r.n_unique_in_data == 1000  # every household differs in some column
    few = replicated_households(df, df, "ori_hid", columns=["sex", "age"])
    assert few.count == few.n_unique_in_data
    sub = df[df["ori_hid"] <= 60]
    assert few.count == _brute(df, df, "ori_hid", ["sex", "age"])
    # a release of households that are not in the data replicates none
    shifted = sub.assign(age=sub["age"] + 1000)
    assert replicated_households(df, shifted, "ori_hid").count == 0


def test_errors_name_the_problem() -> None:
    conf = pd.DataFrame({"hh": [1, 1], "a": [1, 2]})
    with pytest.raises(DataError, match="household-id column 'h' not found"):
        replicated_households(conf, conf, "h")
    with pytest.raises(ParameterError, match="household id"):
        replicated_households(conf, conf, "hh", columns=["hh", "a"])
    with pytest.raises(DataError, match="not in both"):
        replicated_households(conf, conf.drop(columns="a"), "hh", columns=["a"])
