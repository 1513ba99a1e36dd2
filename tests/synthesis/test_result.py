"""SyntheticData: stacking and writing implicates."""

from __future__ import annotations

import pandas as pd
import pandas.testing as pdt
import pytest

from synthguard.data import as_implicates, read_manifest
from synthguard.errors import ParameterError
from synthguard.synthesis import Synthesizer


@pytest.fixture
def result(mixed):
    return Synthesizer(methods={"kids": "test_marginal", "share": "test_marginal"},
                       visit_sequence=["kids", "share"], keep=["region"], m=2,
                       random_state=3).fit(mixed).sample()


def test_write_one_csv_per_implicate(result, tmp_path):
    paths = result.write(tmp_path / "out")
    assert [p.name for p in paths] == ["synthetic_1.csv", "synthetic_2.csv"]
    back = pd.read_csv(paths[1])
    pdt.assert_series_equal(back["share"], result.implicates[1]["share"].reset_index(drop=True))
    man = read_manifest(tmp_path / "out")  # the folder says what it is
    assert man.kind == "partial" and man.implicates == ("synthetic_1.csv", "synthetic_2.csv")
    assert man.kept == ("region",) and man.seed == 3
    with pytest.raises(ParameterError):
        result.write(tmp_path, prefix="")


def test_frozen_and_accepted_by_as_implicates(result):
    with pytest.raises(AttributeError):
        result.m = 3
    assert len(as_implicates(result)) == 2
    assert result.provenance["random_state"] == 3
    assert result.methods == {"kids": "test_marginal", "share": "test_marginal"}
    assert "partial synthesis" in result.summary() and "kept (1): region" in result.summary()
