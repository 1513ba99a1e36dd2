"""Household synthesis on Dask (issue 33, item 5): a Parquet folder whose files cut through
households is shuffled so each household lies whole in one partition, and each partition is
the pandas household release of its households with its seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from tests.synthesis.test_households import simulate

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from synthguard.synthesis.households.on_dask import (  # noqa: E402
    household_blocks,
    synthesize_households,
)


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set({"scheduler": "synchronous", "dataframe.convert-string": False}):
        yield


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return simulate(600, seed=2)


@pytest.fixture
def parquet(tmp_path, data):
    # four files of consecutive rows: households at the cuts are split between files
    folder = tmp_path / "persons"
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(data)), 4)):
        data.iloc[chunk].to_parquet(folder / f"part.{i}.parquet", index=False)
    return folder


def test_households_are_whole_within_a_partition(parquet, data):
    frame = dd.read_parquet(parquet)
    blocks = household_blocks(frame, "hid", 3)
    where = {}
    for b, block in enumerate(blocks):
        for h in block["hid"].unique():
            assert where.setdefault(h, b) == b  # a household in one block only
    assert sum(len(b) for b in blocks) == len(data) and len(where) == data["hid"].nunique()


def test_the_release_from_a_parquet_folder(parquet, data):
    imps = synthesize_households(dd.read_parquet(parquet), "hid", m=2, random_state=4,
                                 npartitions=3)
    assert len(imps) == 2
    for imp in imps:
        rel = imp.compute()
        assert list(rel.columns) == list(data.columns)
        g = rel.groupby("hid")
        assert sorted(rel["hid"].unique()) == list(range(1, g.ngroups + 1))  # new ids 1..H
        assert (g[["region", "rent", "hsize"]].nunique() == 1).all().all()
        assert (g.size() == g["hsize"].first()).all()
        assert g.ngroups == data["hid"].nunique()  # each block draws its households' number


def test_each_partition_is_the_pandas_release_of_its_households(parquet):
    frame = dd.read_parquet(parquet)
    (imp,) = synthesize_households(frame, "hid", random_state=9, npartitions=3)
    rel = imp.compute().reset_index(drop=True)
    blocks = household_blocks(frame, "hid", 3)
    seeds = np.random.SeedSequence(9).spawn(3)
    start = 0
    for block, seed in zip(blocks, seeds, strict=True):
        want = Synthesizer(household="hid", random_state=seed).fit(block).sample().implicates[0]
        got = rel.iloc[start:start + len(want)].reset_index(drop=True)
        got = got.assign(hid=got["hid"] - got["hid"].min() + 1)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
        start += len(want)
    assert start == len(rel)


def test_bad_arguments(data):
    frame = dd.from_pandas(data, npartitions=2)
    with pytest.raises(ParameterError, match="household"):
        synthesize_households(frame, "household_id")
    with pytest.raises(ParameterError, match="'n'"):
        synthesize_households(frame, "hid", n=100)
