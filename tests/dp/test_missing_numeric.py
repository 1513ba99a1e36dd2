"""A binned numeric column's missing values as one more public cell (issue 17: penguins'
missing body masses were refused by ``dp synthesize --missing-level``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.dp.synthesizers import MSTSynthesizer
from synthguard.dp.synthesizers._domain import build_domain
from synthguard.errors import DataError, ParameterError

pytestmark = pytest.mark.filterwarnings(
    "ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")

EDGES = [0.0, 10.0, 20.0, 30.0]


def _data(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    mass = np.where(sex == "f", rng.uniform(0, 15, n), rng.uniform(15, 30, n)).round()
    mass[rng.random(n) < 0.25] = np.nan  # integers read with missing values: floats
    return pd.DataFrame({"sex": sex, "mass": mass})


def test_missing_cell_after_the_last_bin_codes_and_decodes():
    df = pd.DataFrame({"x": [5.0, np.nan, 25.0, 30.0, np.nan]})
    dom, codes = build_domain(df, bins={"x": EDGES}, missing=["x"])
    # three bins and a fourth, public, cell for the missing values
    assert dom.sizes == (4,) and codes["x"].tolist() == [0, 3, 2, 2, 3]
    out = dom.decode({"x": np.array([3, 0, 3, 2])}, np.random.default_rng(0))
    assert out["x"].isna().tolist() == [True, False, True, False]
    # integers read as floats stay integers (nullable), inside their bins
    assert str(out["x"].dtype) == "Int64"
    assert 0 <= out["x"][1] <= 9 and 20 <= out["x"][3] <= 30
    # the cell is in the domain whether or not a value is missing (the domain stays public)
    full, _ = build_domain(pd.DataFrame({"x": [5.0, 25.0]}), bins={"x": EDGES}, missing=["x"])
    assert full.sizes == (4,)


def test_missing_values_are_refused_without_the_cell_and_missing_needs_bins():
    df = pd.DataFrame({"x": [5.0, np.nan], "s": ["a", "b"]})
    with pytest.raises(DataError, match=r"missing=\['x'\]"):
        build_domain(df, bins={"x": EDGES}, categories={"s": ["a", "b"]})
    with pytest.raises(ParameterError, match=r"parameter 'missing' names column.* s"):
        build_domain(df, bins={"x": EDGES}, categories={"s": ["a", "b"]}, missing=["x", "s"])


def test_mst_releases_the_missing_share_and_its_relation():
    df = _data()
    syn = MSTSynthesizer(epsilon=4.0, bins={"mass": EDGES}, categories={"sex": ["f", "m"]},
                         missing=["mass"], random_state=1)
    rel = syn.fit_sample(df, random_state=2)
    out = rel.implicates[0]
    assert abs(out["mass"].isna().mean() - 0.25) < 0.04
    # the relation of the observed values survives beside the missing cell
    f = out.loc[out["sex"] == "f", "mass"].dropna()
    assert (f < 20).mean() > 0.9
    assert rel.provenance["missing"] == ["mass"]
    assert rel.provenance["domain_sizes"]["mass"] == 4
    # the expected error before spending counts the missing cell too
    exp = syn.expected_error(n=2000)
    assert exp.loc[1, "cells"] == pytest.approx((2 + 4) / 2)


def test_cli_missing_level_on_a_binned_column(tmp_path):
    df = _data(600)
    df.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "levels.yaml").write_text(yaml.safe_dump({"sex": ["f", "m"]}))
    base = ["dp", "synthesize", str(tmp_path / "conf.csv"), "--method", "mst", "--epsilon", "4",
            "--seed", "1", "--levels", str(tmp_path / "levels.yaml"), "--bins",
            "mass=0,10,20,30", "-q"]
    res = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "a")])
    assert res.exit_code == 2  # refused, with the option that fixes it
    assert "--missing-level mass=missing" in res.output
    for spec in ("mass=NA", "missing"):  # the binned column named, or every declared column
        out_dir = tmp_path / spec.replace("=", "_")
        res = CliRunner().invoke(main, [*base, "--missing-level", spec, "--out", str(out_dir)])
        assert res.exit_code == 0, res.output
        out = pd.read_csv(out_dir / "dp_mst_1.csv")
        assert abs(out["mass"].isna().mean() - 0.25) < 0.08
        kept = out["mass"].dropna()
        assert kept.between(0, 30).all() and (kept == kept.round()).all()
        prov = json.loads((out_dir / "metadata" / "provenance.json").read_text())
        assert prov["provenance"]["missing"] == ["mass"]
    res = CliRunner().invoke(main, [*base, "--missing-level", "weight=NA",
                                    "--out", str(tmp_path / "c")])
    assert res.exit_code == 2 and "no declared levels (--levels) or bins (--bins)" in res.output
