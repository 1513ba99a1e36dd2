"""``synthguard synthesize --dask``: a release made on a LocalCluster, and the exit codes."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.data import read_manifest, read_table

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


@pytest.fixture
def conf(tmp_path):
    rng = np.random.default_rng(8)
    n = 240
    df = pd.DataFrame({"region": rng.choice(["n", "s"], n), "x": rng.normal(size=n).round(2),
                       "sex": rng.choice(["F", "M"], n)})
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    return path, df


def _run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_local_cluster_release_equals_the_library_release(conf, tmp_path):
    from synthguard.scale import synthesize

    path, df = conf
    out = tmp_path / "syn"
    res = _run(["synthesize", path, "--out", out, "--strata", "region", "--m", 2, "--seed", 4,
                "--min-stratum-size", 0, "--dask", "local:2", "--quiet"])
    assert res.exit_code == 0, res.output
    manifest = read_manifest(out)
    assert manifest.implicates == ("synthetic_1.parquet", "synthetic_2.parquet")
    assert manifest.seed == 4 and manifest.details["dask"]["plan"] == "strata"
    with dask.config.set(scheduler="synchronous"):
        want = synthesize(dd.from_pandas(df, npartitions=3), strata="region", m=2,
                          random_state=4, min_stratum_size=0).compute()
    for name, w in zip(manifest.implicates, want, strict=True):
        got = read_table(out / name)  # a Parquet folder reads as one table
        pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                      w.astype(got.dtypes.to_dict()), check_dtype=False)


def test_csv_on_request_and_sync_scheduler(conf, tmp_path):
    path, df = conf
    out = tmp_path / "syn"
    res = _run(["synthesize", path, "--out", out, "--seed", 1, "--dask", "sync",
                "--format", "csv"])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(out / "synthetic_1.csv")
    assert list(got.columns) == ["region", "x", "sex"] and len(got) == len(df)
    # what the safeguards did is said on the terminal, as without --dask
    lines = res.output.splitlines()
    assert any(line.startswith("replicated uniques: ") and line.endswith(" released")
               for line in lines)
    coded = next(line for line in lines if line.startswith("extremes: "))
    assert "of 1 numeric columns" in coded  # x, at the 5 most extreme records per tail
    assert "within each partition's draw" in res.output


def test_dropped_columns_are_in_the_manifest(conf, tmp_path):
    path, _ = conf
    out = tmp_path / "syn"
    res = _run(["synthesize", path, "--out", out, "--seed", 1, "--dask", "sync",
                "--drop", "sex", "--quiet"])
    assert res.exit_code == 0, res.output
    manifest = read_manifest(out)
    assert manifest.dropped == ("sex",) and "sex" not in manifest.columns


@pytest.mark.parametrize("args, message", [
    (["--dask", "yarn"], "unknown Dask target"),
    (["--dask", "local:0"], "whole number"),
    (["--format", "csv"], "--format applies to --dask"),
    (["--dask", "sync", "--risk-weights", "marginal", "--target", "x"], "--risk-weights"),
])
def test_bad_options_exit_2_and_write_nothing(conf, tmp_path, args, message):
    path, _ = conf
    out = tmp_path / "syn"
    res = _run(["synthesize", path, "--out", out, *args])
    assert res.exit_code == 2
    assert message in res.output
    assert not out.exists()


def test_missing_input_exits_2(tmp_path):
    res = _run(["synthesize", tmp_path / "absent", "--out", tmp_path / "syn", "--dask", "sync"])
    assert res.exit_code == 2
    assert "does not exist" in res.output


def test_without_dask_the_option_says_how_to_install_it(conf, tmp_path, monkeypatch):
    path, _ = conf
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))
    res = _run(["synthesize", path, "--out", tmp_path / "syn", "--dask", "local"])
    assert res.exit_code == 2
    assert "pip install 'synthguard[dask]'" in res.output
