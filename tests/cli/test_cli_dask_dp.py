"""``synthguard dp synthesize --dask``: MST's and the stratified synthesizer's counts on Dask,
the noise drawn once on the client and the ledger charged once: with the same seed, the release
of the pandas command."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(31)
    n = 300
    conf = pd.DataFrame({"region": rng.choice(["n", "s", "e"], n),
                         "sex": rng.choice(["F", "M"], n, p=[0.3, 0.7]),
                         "age": rng.integers(18, 80, n)})
    conf.to_csv(tmp_path / "conf.csv", index=False)
    folder = tmp_path / "conf_pq"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(n), 3)):
        conf.iloc[part].to_parquet(folder / f"part.{i}.parquet", index=False)
    (tmp_path / "levels.yaml").write_text("region: [n, s, e]\nsex: [F, M]\n")
    return tmp_path, conf


def _run(args):
    return CliRunner().invoke(main, ["dp", "synthesize", *[str(a) for a in args]])


def test_release_and_ledger_equal_the_pandas_command(files):
    tmp, _ = files
    args = ["--epsilon", 1, "--levels", tmp / "levels.yaml", "--bins", "age=18,30,50,80",
            "--seed", 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded (simulation) noise warns, as it should
        pd_res = _run([tmp / "conf.csv", *args, "--out", tmp / "pd"])
        dk_res = _run([tmp / "conf_pq", *args, "--out", tmp / "dk", "--dask", "sync"])
    assert pd_res.exit_code == 0, pd_res.output
    assert dk_res.exit_code == 0, dk_res.output
    # counts equal, noise drawn once with the same seed, one partition of records drawn by a
    # worker: the same synthetic records
    got = pd.read_parquet(tmp / "dk" / "dp_mst_1.parquet")
    want = pd.read_csv(tmp / "pd" / "dp_mst_1.csv")
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
    ledgers = [json.loads((tmp / d / "metadata" / "ledger.json").read_text())
               for d in ("dk", "pd")]
    assert ledgers[0]["count"] == 1  # charged once, for the whole fit
    assert ledgers[0]["charges"][0]["rho"] == ledgers[1]["charges"][0]["rho"] > 0


def test_stratified_release_and_ledger_equal_the_pandas_command(files):
    tmp, _ = files
    args = ["--method", "stratified", "--epsilon", 0.5, "--levels", tmp / "levels.yaml",
            "--bins", "age=18,30,50,80", "--seed", 4, "--m", 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded (simulation) noise warns, as it should
        pd_res = _run([tmp / "conf.csv", *args, "--out", tmp / "pd"])
        dk_res = _run([tmp / "conf_pq", *args, "--out", tmp / "dk", "--dask", "sync"])
    assert pd_res.exit_code == 0, pd_res.output
    assert dk_res.exit_code == 0, dk_res.output
    assert "wrote" in dk_res.output and "dp_stratified_2.parquet" in dk_res.output
    assert "stratified: full contingency table" in dk_res.output  # the ledger's table
    for i in (1, 2):  # the same counts, noise and draws: the same records
        got = pd.read_parquet(tmp / "dk" / f"dp_stratified_{i}.parquet")
        want = pd.read_csv(tmp / "pd" / f"dp_stratified_{i}.csv")
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
        assert set(got["region"]) <= {"n", "s", "e"} and set(got["sex"]) <= {"F", "M"}
        assert got["age"].between(18, 80).all()
    manifest = json.loads((tmp / "dk" / "synthguard_manifest.json").read_text())
    assert manifest["kind"] == "dp" and manifest["implicates"] == [
        "dp_stratified_1.parquet", "dp_stratified_2.parquet"]
    assert manifest["methods"] == {c: "dp:stratified" for c in ("region", "sex", "age")}
    ledger = json.loads((tmp / "dk" / "metadata" / "ledger.json").read_text())
    assert ledger["count"] == 1  # charged once, for the whole table
    assert [(c["label"], c["epsilon"]) for c in ledger["charges"]] == [
        ("stratified: full contingency table", 0.5)]
    assert manifest["spent"]["epsilon"] == 0.5


def test_aim_release_and_ledger_equal_the_pandas_command(files):
    tmp, _ = files
    args = ["--method", "aim", "--epsilon", 1, "--levels", tmp / "levels.yaml",
            "--bins", "age=18,30,50,80", "--max-rounds", 2, "--seed", 5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded (simulation) noise warns, as it should
        pd_res = _run([tmp / "conf.csv", *args, "--out", tmp / "pd"])
        dk_res = _run([tmp / "conf_pq", *args, "--out", tmp / "dk", "--dask", "sync"])
    assert pd_res.exit_code == 0, pd_res.output
    assert dk_res.exit_code == 0, dk_res.output
    assert "aim round 2: rho" in dk_res.output  # the rounds run on the client, with progress
    got = pd.read_parquet(tmp / "dk" / "dp_aim_1.parquet")
    want = pd.read_csv(tmp / "pd" / "dp_aim_1.csv")
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
    ledgers = [json.loads((tmp / d / "metadata" / "ledger.json").read_text())
               for d in ("dk", "pd")]
    assert ledgers[0]["count"] == 1
    assert ledgers[0]["charges"][0]["rho"] == ledgers[1]["charges"][0]["rho"] > 0


def test_marginal_counts_before_noise_equal_pandas(files):
    import dask
    import dask.dataframe as dd

    from synthguard.scale import marginal_counts

    tmp, conf = files
    cats = {"region": ["n", "s", "e"], "sex": ["F", "M"]}
    with dask.config.set(scheduler="synchronous"):
        got = marginal_counts(dd.read_parquet(tmp / "conf_pq"), ["region", "sex"], cats)
    want = np.array([[((conf["region"] == r) & (conf["sex"] == s)).sum() for s in cats["sex"]]
                     for r in cats["region"]])
    np.testing.assert_array_equal(np.asarray(got), want)
    assert want.sum() == len(conf)


@pytest.mark.parametrize("extra, message", [
    (["--method", "fieldgroups"], "--method fieldgroups is not available with --dask"),
    (["--levels-from-data"], "--levels-from-data is not available with --dask"),
    (["--method", "stratified", "--levels-from-data"],
     "--levels-from-data is not available with --dask"),
    (["--method", "stratified", "--missing-level", "NA"],
     "option --missing-level works without --dask"),
])
def test_what_the_dask_path_does_not_take_exits_2(files, extra, message):
    tmp, _ = files
    res = _run([tmp / "conf_pq", "--epsilon", 1, "--levels", tmp / "levels.yaml",
                "--columns", "region,sex", "--out", tmp / "dk", *extra, "--dask", "sync"])
    assert res.exit_code == 2
    assert message in res.output
    assert not (tmp / "dk").exists()


def test_records_are_drawn_and_written_per_partition_by_the_workers(files, monkeypatch):
    from synthguard.data import read_manifest
    from synthguard.dp import MSTSynthesizer
    from synthguard.dp.synthesizers._on_dask.common import _Drawer

    tmp, _ = files
    monkeypatch.setattr(MSTSynthesizer, "partition_rows", 120)
    drawn: list[int] = []
    draw = _Drawer.draw
    monkeypatch.setattr(_Drawer, "draw",
                        lambda self, n, rng: drawn.append(n) or draw(self, n, rng))
    args = ["--epsilon", 1, "--levels", tmp / "levels.yaml", "--bins", "age=18,30,50,80",
            "--seed", 3, "--n", 300, "--m", 2, "--dask", "sync"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded (simulation) noise warns, as it should
        first = _run([tmp / "conf_pq", *args, "--out", tmp / "a"])
        second = _run([tmp / "conf_pq", *args, "--out", tmp / "b"])
    assert first.exit_code == 0 and second.exit_code == 0, first.output
    # no draw of the whole release: each task drew one partition (after the 1-row template)
    assert sorted(n for n in drawn if n > 1) == [100] * 12
    manifest = read_manifest(tmp / "a")
    assert manifest.implicates == ("dp_mst_1.parquet", "dp_mst_2.parquet")
    assert len(list((tmp / "a" / "dp_mst_1.parquet").glob("*.parquet"))) == 3
    for name in manifest.implicates:  # the same seed and partitioning: the same release
        pd.testing.assert_frame_equal(pd.read_parquet(tmp / "a" / name),
                                      pd.read_parquet(tmp / "b" / name))
    assert len(pd.read_parquet(tmp / "a" / "dp_mst_2.parquet")) == 300
