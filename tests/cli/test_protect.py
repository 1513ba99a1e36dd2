"""``synthguard protect`` end to end with click's CliRunner."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main


@pytest.fixture
def conf_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e", "w"], size=n),
            "sex": rng.choice(["f", "m"], size=n),
            "age": rng.integers(16, 90, size=n),
            "income": np.round(rng.lognormal(10, 1, size=n), 2),
        }
    )
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    return path, df


def _run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_topcode_and_swap_as_in_the_help(conf_csv, tmp_path):
    path, df = conf_csv
    out = tmp_path / "protected.csv"
    rec = tmp_path / "record.json"
    res = _run(["protect", path, "--out", out, "--topcode", "income:p94",
                "--swap", "region,age:0.05", "--seed", 1, "--record", rec])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(out)
    threshold = np.percentile(df["income"], 94)
    assert (got["income"] > threshold + 1e-9).sum() == 0
    assert np.isclose(got["income"], threshold).sum() == (df["income"] > threshold).sum()
    # swapping keeps the marginals of the swapped columns
    assert sorted(got["age"]) == sorted(df["age"])
    assert got["region"].value_counts().to_dict() == df["region"].value_counts().to_dict()
    info = json.loads(rec.read_text())
    assert [s["step"] for s in info["steps"]] == ["topcode", "swap"]
    assert info["steps"][1]["params"]["n_swapped"] == 20  # 2 * round(0.05 * 400 / 2)
    # the percentile-derived threshold is confidential: not printed, not recorded
    assert "threshold" not in info["steps"][0]["params"]
    assert f"{threshold:.2f}" not in res.output
    # same seed, same file
    out2 = tmp_path / "again.csv"
    _run(["protect", path, "--out", out2, "--topcode", "income:p94",
          "--swap", "region,age:0.05", "--seed", 1, "--quiet"])
    pd.testing.assert_frame_equal(pd.read_csv(out2), got)


def test_generalize_suppress_subsample(conf_csv, tmp_path):
    path, df = conf_csv
    out = tmp_path / "p.csv"
    res = _run(["protect", path, "--out", out, "--generalize", "age:0,30,60,120",
                "--suppress", "sex,age,region:5", "--subsample", "0.5", "--within", "sex",
                "--seed", 2, "--quiet"])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(out)
    assert len(got) == sum(int(np.floor(0.5 * v + 0.5)) for v in df["sex"].value_counts())
    assert set(got["age"].dropna()) <= {"(0.0, 30.0]", "(30.0, 60.0]", "(60.0, 120.0]"}


def test_bad_input_exit_codes(conf_csv, tmp_path):
    path, _ = conf_csv
    out = tmp_path / "p.csv"
    # a synthguard error: exit 2 with a one-line message naming the parameter
    res = _run(["protect", path, "--out", out, "--swap", "nope:0.1"])
    assert res.exit_code == 2
    assert "columns" in res.output and "Traceback" not in res.output
    res = _run(["protect", path, "--out", out, "--topcode", "income:p100"])
    assert res.exit_code == 2 and "percentile" in res.output
    # malformed option and no method: click usage errors
    assert _run(["protect", path, "--out", out, "--topcode", "income"]).exit_code == 2
    assert _run(["protect", path, "--out", out]).exit_code == 2
    assert not out.exists()


def test_a_subsample_folder_is_evaluated_as_a_sample(conf_csv, tmp_path):
    # issue 17: read from disk, a subsample's manifest did not say it was a sample, so the
    # record-level risk (row i against record i) was "not computed" and evaluate exited 3
    path, _ = conf_csv
    folder = tmp_path / "sub"
    res = _run(["protect", path, "--out", folder, "--subsample", "0.5", "--seed", 2, "-q"])
    assert res.exit_code == 0, res.output
    manifest = json.loads((folder / "synthguard_manifest.json").read_text())
    assert manifest["kind"] == "protected" and manifest["details"]["sample"] is True
    args = ["evaluate", path, folder, "--keys", "region,sex", "--target", "income",
            "--threshold", "max_identification_risk=0.5", "--seed", 1]
    res = _run(args)
    assert res.exit_code == 0, res.output
    assert "not defined: the release is a sample of the confidential records" in res.output
    assert "max IR ≤ 0.5 (not defined: the release is a sample" in res.output
    # the same folder without the record: what evaluate could do before
    del manifest["details"]["sample"]
    (folder / "synthguard_manifest.json").write_text(json.dumps(manifest))
    assert _run(args).exit_code == 3
    # a protected release that keeps every record is not a sample
    whole = tmp_path / "whole"
    assert _run(["protect", path, "--out", whole, "--topcode", "income:p94", "-q"]).exit_code == 0
    assert "sample" not in json.loads((whole / "synthguard_manifest.json").read_text())["details"]


def test_sample_details_of_a_subsample_for_run_manifests(conf_csv):
    from synthguard import sdc
    from synthguard.evaluation.kinds import is_sample, sample_details

    _, df = conf_csv
    sub = sdc.subsample(df, 0.5, random_state=1)
    assert is_sample(sub) and sample_details(sub) == {"sample": True}
    top = sdc.topcode(df, "income", 0.9)
    assert not is_sample(top) and sample_details(top) == {}
