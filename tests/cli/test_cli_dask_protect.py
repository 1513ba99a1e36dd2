"""``synthguard protect --dask``: top-coding at a percentile equal to the pandas command row for row, noise and
swapping within strata equal to the library's per-stratum draws, records in the input's order,
and the steps that need all records refused (exit 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.data import read_manifest, read_table

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(21)
    n = 240
    conf = pd.DataFrame({
        "region": rng.choice(["n", "s", "e"], n),
        "age": rng.integers(20, 60, n),
        "income": rng.integers(0, 90, n).astype(float) * 1000,
        "hours": rng.normal(40, 5, n).round(1),
    })
    conf.to_csv(tmp_path / "conf.csv", index=False)
    folder = tmp_path / "conf_pq"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(n), 4)):
        conf.iloc[part].to_parquet(folder / f"part.{i}.parquet", index=False)
    return tmp_path, conf


def _run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_topcode_equals_the_pandas_command_row_for_row(files):
    tmp, conf = files
    args = ["--topcode", "income:p90", "--bottomcode", "hours:35", "--seed", 1, "--quiet"]
    assert _run(["protect", tmp / "conf.csv", "--out", tmp / "pd", *args]).exit_code == 0
    res = _run(["protect", tmp / "conf_pq", "--out", tmp / "dk", *args, "--dask", "sync"])
    assert res.exit_code == 0, res.output
    manifest = read_manifest(tmp / "dk")
    assert manifest.kind == "protected" and manifest.implicates == ("protected.parquet",)
    assert manifest.methods == {"income": "topcode", "hours": "bottomcode"}
    got = read_table(tmp / "dk" / "protected.parquet")
    want = read_table(tmp / "pd" / "protected.csv")
    assert got["income"].max() == np.percentile(conf["income"], 90)
    assert got["hours"].min() == 35
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)


def test_noise_and_swap_within_strata_keep_the_input_order(files):
    from synthguard.sdc import add_noise, swap

    tmp, conf = files
    res = _run(["protect", tmp / "conf_pq", "--out", tmp / "dk", "--noise", "income:0.2",
                "--swap", "age:0.3", "--strata", "region", "--seed", 5, "--dask", "sync",
                "--quiet"])
    assert res.exit_code == 0, res.output
    got = read_table(tmp / "dk" / "protected.parquet").reset_index(drop=True)
    # the records come back in the input's order: the untouched columns are the data's
    pd.testing.assert_series_equal(got["region"], conf["region"], check_dtype=False)
    pd.testing.assert_series_equal(got["hours"], conf["hours"], check_dtype=False)
    # step i draws from the i-th child of SeedSequence(seed), per stratum as the library does
    seeds = [int(s.generate_state(1, dtype=np.uint32)[0])
             for s in np.random.SeedSequence(5).spawn(2)]
    want = add_noise(conf, ["income"], scale=0.2, strata="region", random_state=seeds[0]).data
    # swapping per stratum with the stratum's own seed, as sdc.swap does on Dask
    want = swap(dd.from_pandas(want, npartitions=1), ["age"], rate=0.3, strata="region",
                random_state=seeds[1]).data.compute().sort_index()
    np.testing.assert_allclose(got["income"].to_numpy(float), want["income"].to_numpy(float))
    np.testing.assert_array_equal(got["age"].to_numpy(), want["age"].to_numpy())
    assert (got["income"] != conf["income"]).mean() > 0.9  # noise was added
    assert sorted(got["age"]) == sorted(conf["age"])  # swapping permutes values


@pytest.mark.parametrize("extra, message", [
    (["--suppress", "region,age:3"], "--suppress is not available with --dask"),
    (["--subsample", "0.5"], "--subsample is not available with --dask"),
    (["--generalize", "age:0,30,100"], "--generalize is not available with --dask"),
])
def test_steps_that_need_all_records_exit_2_and_write_nothing(files, extra, message):
    tmp, _ = files
    res = _run(["protect", tmp / "conf_pq", "--out", tmp / "dk", *extra, "--dask", "sync"])
    assert res.exit_code == 2
    assert message in res.output
    assert not (tmp / "dk").exists()


def test_a_folder_without_dask_is_bad_input(files):
    tmp, _ = files
    res = _run(["protect", tmp / "conf_pq", "--out", tmp / "p", "--topcode", "income:5"])
    assert res.exit_code == 2 and "needs --dask" in res.output
