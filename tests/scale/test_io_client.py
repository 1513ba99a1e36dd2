"""Reading Parquet folders and CSV globs into Dask, writing implicates, and --dask targets."""

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import FileFormatError, ParameterError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from synthguard.scale import parse_dask, read_dataset, write_implicates  # noqa: E402
from synthguard.scale.client import DaskTarget  # noqa: E402


def _frame(n=90):
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        {"a": rng.integers(0, 5, n), "b": rng.normal(size=n), "c": rng.choice(["x", "y"], n)}
    )


def test_parquet_and_csv_round_trip(tmp_path):
    pdf = _frame()
    with dask.config.set(scheduler="synchronous"):
        ddf = dd.from_pandas(pdf, npartitions=3)
        names = write_implicates([ddf, ddf.assign(a=ddf.a + 1)], tmp_path / "rel")
        assert names == ["synthetic_1.parquet", "synthetic_2.parquet"]
        assert len(list((tmp_path / "rel" / "synthetic_1.parquet").glob("*.parquet"))) == 3
        back = read_dataset(tmp_path / "rel" / "synthetic_2.parquet")
        assert back.npartitions == 3
        got = back.compute().reset_index(drop=True)
        assert got["a"].tolist() == (pdf["a"] + 1).tolist()
        np.testing.assert_array_equal(got["b"].to_numpy(), pdf["b"].to_numpy())
        # CSV on request: one file per implicate that pandas reads
        names = write_implicates([ddf], tmp_path / "csv", fmt="csv", prefix="syn")
        assert names == ["syn_1.csv"]
        again = pd.read_csv(tmp_path / "csv" / "syn_1.csv")
        assert again["c"].tolist() == pdf["c"].tolist()
        # a glob of CSV parts reads as one frame, one partition per file at least
        for i in range(3):
            pdf.iloc[30 * i : 30 * (i + 1)].to_csv(tmp_path / f"part-{i}.csv", index=False)
        parts = read_dataset(str(tmp_path / "part-*.csv"))
        assert parts.npartitions == 3
        assert parts["a"].sum().compute() == pdf["a"].sum()


def test_bad_inputs_name_the_path(tmp_path):
    with pytest.raises(FileFormatError, match="does not exist"):
        read_dataset(tmp_path / "absent")
    with pytest.raises(FileFormatError, match="matches no file"):
        read_dataset(str(tmp_path / "*.csv"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileFormatError, match=r"no .parquet files"):
        read_dataset(tmp_path / "empty")
    (tmp_path / "x.sav").write_bytes(b"")
    with pytest.raises(FileFormatError, match=r"Parquet .* and CSV"):
        read_dataset(tmp_path / "x.sav")
    with pytest.raises(ParameterError, match="'fmt'"):
        write_implicates([], tmp_path / "o", fmt="xlsx")


@pytest.mark.parametrize(
    "spec, want",
    [
        ("local", DaskTarget("local")),
        ("local:2", DaskTarget("local", n_workers=2)),
        ("LOCAL:12", DaskTarget("local", n_workers=12)),
        ("sync", DaskTarget("sync")),
        ("tcp://10.0.0.5:8786", DaskTarget("remote", address="tcp://10.0.0.5:8786")),
        (
            "tls://sched.example.org:8786",
            DaskTarget("remote", address="tls://sched.example.org:8786"),
        ),
    ],
)
def test_dask_targets_parse(spec, want):
    assert parse_dask(spec) == want


@pytest.mark.parametrize(
    "spec, match",
    [
        ("local:0", "whole number"),
        ("local:x", "whole number"),
        ("tcp://host", "host and a port"),
        ("yarn", "unknown Dask target"),
        ("", "unknown Dask target"),
    ],
)
def test_bad_dask_targets_are_refused(spec, match):
    with pytest.raises(ParameterError, match=match):
        parse_dask(spec)


def test_parquet_categories_are_read_so_a_release_keeps_integer_levels(tmp_path):
    # a category column with integer levels, its files holding different levels: Dask reads
    # it with unknown levels; read_dataset reads them (the union), so a release written from
    # it keeps integer levels instead of text ('1' would never equal 1 in a risk measure)
    (tmp_path / "conf").mkdir()
    for i, levels in enumerate(([1, 2], [2, 3, 4])):
        part = pd.DataFrame({"kids": pd.Categorical(levels * 3), "b": np.arange(len(levels) * 3)})
        part.to_parquet(tmp_path / "conf" / f"part.{i}.parquet", index=False)
    with dask.config.set(scheduler="synchronous"):
        ddf = read_dataset(tmp_path / "conf")
        assert list(ddf._meta["kids"].cat.categories) == [1, 2, 3, 4]
        # one column of it can be computed on its own (the measures take columns one by one)
        assert ddf["kids"].value_counts().compute().sort_index().tolist() == [3, 6, 3, 3]
        write_implicates([ddf], tmp_path / "rel")
        back = pd.read_parquet(tmp_path / "rel" / "synthetic_1.parquet")
    assert sorted(back["kids"].tolist()) == [1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4]
