"""``synthguard evaluate --dask``: the same table, report and verdict as the pandas command,
exact risk (also repU, DiSCO and the replicated uniques) and the same exit code."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

KEYS = "region,sex,age"


@pytest.fixture
def files(tmp_path):
    """A confidential file as a CSV and as a Parquet folder of three parts (ties, missing
    values), a protected release (aligned rows) and a fully synthetic file."""
    rng = np.random.default_rng(11)
    n = 300
    conf = pd.DataFrame({
        "region": rng.choice(["n", "s", "e"], n),
        "age": rng.integers(20, 30, n),
        "sex": rng.choice(["F", "M"], n),
        "income": rng.integers(0, 40, n).astype(float) * 100,
        "hours": rng.normal(40, 5, n).round(1),
    })
    conf.loc[rng.random(n) < 0.1, "hours"] = np.nan
    conf.to_csv(tmp_path / "conf.csv", index=False)
    folder = tmp_path / "conf_pq"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(n), 3)):
        conf.iloc[part].to_parquet(folder / f"part.{i}.parquet", index=False)
    res = CliRunner().invoke(main, ["protect", str(tmp_path / "conf.csv"), "--out",
                                    str(tmp_path / "prot"), "--noise", "income:0.2",
                                    "--seed", "3", "--quiet"])
    assert res.exit_code == 0, res.output
    full = conf.sample(frac=1.0, random_state=5).reset_index(drop=True)
    full["income"] = rng.permutation(full["income"].to_numpy())
    full.to_csv(tmp_path / "full.csv", index=False)
    return tmp_path


def _evaluate(args):
    return CliRunner().invoke(main, ["evaluate", *[str(a) for a in args]])


def test_dask_table_and_verdict_equal_the_pandas_ones(files):
    common = [files / "prot", files / "full.csv", "--keys", KEYS, "--target", "income",
              "--seed", 4, "--quiet"]
    pd_res = _evaluate([files / "conf.csv", *common, "--table", files / "pandas.csv"])
    assert pd_res.exit_code in (0, 1), pd_res.output
    dk_res = _evaluate([files / "conf_pq", *common, "--table", files / "dask.csv",
                        "--dask", "sync", "--report", files / "dask.html"])
    # the fully synthetic file copies real records: both fail the default replicated-uniques
    # threshold, which the Dask path now computes (a failure outranks 'incomplete', exit 3)
    assert dk_res.exit_code == pd_res.exit_code == 1, dk_res.output
    # ... and the protected file (20 % noise on income) keeps its records: the default max IR
    # <= 0.5 fails it on both paths (issue 31)
    assert "releases failing their thresholds: prot, full" in dk_res.stderr
    assert "releases failing their thresholds: prot, full" in pd_res.stderr
    want = pd.read_csv(files / "pandas.csv").set_index("release")
    got = pd.read_csv(files / "dask.csv").set_index("release")
    assert list(got.index) == ["prot", "full"]
    assert got.loc["prot", "kind"] == "protected" and got.loc["full", "kind"] == "full"
    # risk on all records: exactly the pandas figures
    exact = ["mean_identification_risk", "max_identification_risk", "expected_match_risk",
             "true_match_rate", "exact_copies", "repu", "disco", "replicated_uniques"]
    assert got.loc["prot", exact].notna().all()
    for m in exact:
        assert got.loc["prot", m] == want.loc["prot", m], m
    for m in ("exact_copies", "repu", "disco", "replicated_uniques", "attribute_excess"):
        assert got.loc["full", m] == want.loc["full", m], m
    # exact value counts: ECDF distance and correlation fit equal to rounding
    for m in ("ecdf_umax", "correlation_mae"):
        np.testing.assert_allclose(got[m].to_numpy(float), want[m].to_numpy(float),
                                   rtol=1e-9, err_msg=m)
    # every 1-, 2- and 3-way marginal from exact cell counts, bins at exact quantiles: the
    # pandas workload error to the bit; the random 3-way draws come from another seed
    for m in ("tv_1way", "tv_2way", "tv_3way"):
        assert got[m].notna().all() and got.loc["prot", m] > 0, m
        assert got[m].tolist() == want[m].tolist(), m
    assert got["kway_tv"].between(0, 1).all()
    # every measure of the pandas command is computed on Dask: nothing is named as missing
    assert "not computed" not in dk_res.stderr and "incomplete" not in dk_res.stderr
    html = (files / "dask.html").read_text(encoding="utf-8")
    assert "no Dask version yet" not in html


def test_a_failed_threshold_exits_1_on_dask(files):
    res = _evaluate([files / "conf_pq", files / "prot", "--keys", KEYS, "--target", "income",
                     "--threshold", "max_identification_risk=0.01", "--dask", "sync", "-q"])
    assert res.exit_code == 1, res.output
    assert "releases failing their thresholds: prot" in res.stderr


def test_csv_glob_and_parquet_folder_give_the_same_evaluation(files):
    args = [files / "prot", "--keys", KEYS, "--target", "income", "--seed", 1,
            "--dask", "sync", "-q", "--no-default-thresholds"]
    a = _evaluate([files / "conf_pq", *args, "--table", files / "a.csv"])
    b = _evaluate([str(files / "conf*.csv"), *args, "--table", files / "b.csv"])
    assert a.exit_code == b.exit_code == 0  # every measure computed, no threshold
    ta, tb = pd.read_csv(files / "a.csv"), pd.read_csv(files / "b.csv")
    for m in ("mean_identification_risk", "true_match_rate", "exact_copies"):
        assert ta.loc[0, m] == tb.loc[0, m]


@pytest.mark.parametrize("extra, option", [
    (["--holdout", "HOLD"], "--holdout"),
    (["--attacks"], "--attacks"),
    (["--formula", "income ~ age"], "--formula"),
    (["--by", "region"], "--by"),
])
def test_options_the_dask_path_does_not_take_exit_2(files, extra, option):
    extra = [str(files / "conf.csv") if e == "HOLD" else e for e in extra]
    res = _evaluate([files / "conf_pq", files / "prot", "--keys", KEYS, "--target", "income",
                     "--dask", "sync", *extra])
    assert res.exit_code == 2
    assert f"{option} is not available with --dask" in res.output


def test_a_folder_without_dask_is_bad_input(files):
    res = _evaluate([files / "conf_pq", files / "prot", "--keys", KEYS, "--target", "income"])
    assert res.exit_code == 2
    assert "needs --dask" in res.output


def test_without_dask_the_option_says_how_to_install_it(files, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "dask" else real(name, *a))
    res = _evaluate([files / "conf_pq", files / "prot", "--keys", KEYS, "--target", "income",
                     "--dask", "sync"])
    assert res.exit_code == 2
    assert "pip install 'synthguard[dask]'" in res.output


def test_manifest_kind_is_read_from_the_dask_release(files):
    manifest = json.loads((files / "prot" / "synthguard_manifest.json").read_text())
    assert manifest["kind"] == "protected"
    res = _evaluate([files / "conf_pq", files / "prot", "--keys", KEYS, "--target", "income",
                     "--dask", "sync", "--no-default-thresholds"])
    assert "release 'prot': protected (from synthguard_manifest.json)" in res.stdout
    assert "evaluated as protected" in res.stdout


def test_without_a_target_the_target_measures_are_skipped_with_one_line_as_on_pandas(files):
    from synthguard.risk.evaluate import NO_TARGET_NOTE

    common = [files / "prot", "--keys", KEYS, "--seed", 4]
    pd_res = _evaluate([files / "conf.csv", *common, "--table", files / "pandas.csv"])
    dk_res = _evaluate([files / "conf_pq", *common, "--table", files / "dask.csv",
                        "--dask", "sync"])
    assert pd_res.exit_code == 0, pd_res.output
    assert dk_res.exit_code in (0, 3), dk_res.output  # 3: only what has no Dask version yet
    for res in (pd_res, dk_res):
        assert res.stderr.count(NO_TARGET_NOTE) == 1
    missing = [line for line in dk_res.stderr.splitlines() if line.startswith("not computed")]
    assert not [line for line in missing
                if "attribute disclosure" in line or "repU" in line or "risk:" in line]
    got = pd.read_csv(files / "dask.csv").set_index("release")
    want = pd.read_csv(files / "pandas.csv").set_index("release")
    # match rates need a target: not computed on either path; the rest is measured
    assert got["expected_match_risk"].isna().all() and want["expected_match_risk"].isna().all()
    assert got.loc["prot", "exact_copies"] == want.loc["prot", "exact_copies"]
