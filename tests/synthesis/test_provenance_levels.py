"""Provenance lists no category level read from the data (issue 13, finding 6).

Before: metadata/provenance.json (synthetic_provenance.json) carried the inferred schema with
every level, a one-record level included, next to the release.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.synthesis import Synthesizer

SECRET = "ZZSECRETZZ"


def _conf(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    region = rng.choice(["North", "South", "East"], n).astype(object)
    region[11] = SECRET
    return pd.DataFrame({"region": region, "sex": rng.choice(["f", "m"], n),
                         "income": rng.lognormal(10, 0.5, n)})


def _fit(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Synthesizer(random_state=1, **kw).fit(_conf()).sample()


def test_inferred_levels_are_not_in_the_provenance():
    prov = _fit().provenance
    assert "levels" not in prov["schema"]["region"]
    assert prov["schema"]["region"]["kind"] == "categorical"
    assert SECRET not in json.dumps(prov, default=str)


def test_declared_levels_are_kept():
    levels = ["East", "North", "South", SECRET]
    prov = _fit(schema={"region": {"kind": "categorical", "levels": levels}}).provenance
    assert prov["schema"]["region"]["levels"] == levels  # declared public by the user
    assert "levels" not in prov["schema"]["sex"]


def test_cli_provenance_file_lists_no_level(tmp_path):
    _conf().to_csv(tmp_path / "conf.csv", index=False)
    res = CliRunner().invoke(main, ["synthesize", str(tmp_path / "conf.csv"), "--out",
                                    str(tmp_path / "out"), "--seed", "3"])
    assert res.exit_code == 0, res.output
    text = (tmp_path / "out" / "metadata" / "provenance.json").read_text()
    assert SECRET not in text and '"levels"' not in text
