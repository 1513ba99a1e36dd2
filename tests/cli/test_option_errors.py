"""Bad input on the command line is named in command-line syntax: the option as typed, the
problem and what to do (not the library's parameter name alone); nothing is written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main


@pytest.fixture
def conf(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "conf.csv"
    pd.DataFrame({"region": rng.choice(["a", "b"], 40), "income": rng.lognormal(10, 1, 40)}
                 ).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("args, said", [
    (["--topcode", "income:p200"],
     "option --topcode income:p200: parameter 'percentile': expected a number in (0, 100)"),
    (["--topcode", "wage:p90"], "option --topcode wage:p90: parameter 'column': column(s) "
                                "'wage' not in the data"),
    (["--swap", "region:0.05", "--strata", "zone"], "option --swap region:0.05: parameter "
                                                   "'strata': column(s) 'zone' not in the data"),
    (["--step", "topcode: {column: income, percentile: 0}"],
     "option --step topcode: parameter 'percentile': expected a number in (0, 100)"),
])
def test_protect_names_the_option_as_typed(conf, args, said) -> None:
    out = conf.parent / "out.csv"
    res = CliRunner().invoke(main, ["protect", str(conf), "--out", str(out), *args])
    assert res.exit_code == 2, res.output
    assert said in res.output
    assert not out.exists()


def test_evaluate_names_an_unknown_threshold_before_reading_releases(conf) -> None:
    res = CliRunner().invoke(main, ["evaluate", str(conf), str(conf), "--keys", "region",
                                    "--target", "income", "--threshold", "max_ir=0.5"])
    assert res.exit_code == 2, res.output
    assert "option --threshold max_ir=0.5: unknown metric 'max_ir'; use one of" in res.output
    assert "max_identification_risk" in res.output and "e.g. --threshold pmse_ratio=3" in res.output
    assert "evaluated as" not in res.output  # refused before any release was read


def test_a_release_with_a_row_number_column_is_told_to_drop_it(conf) -> None:
    release = conf.parent / "syn.csv"
    pd.read_csv(conf).to_csv(release)  # pandas' (and R's write.csv) unnamed row-number column
    args = ["evaluate", str(conf), str(release), "--keys", "region", "--target", "income"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert "extra Unnamed: 0; 'Unnamed: 0' is a column without a name" in res.output
    assert "pass --drop 'Unnamed: 0'" in res.output
    res = CliRunner().invoke(main, [*args, "--drop", "Unnamed: 0", "--kind", "syn=partial"])
    assert res.exit_code in (0, 1), res.output  # measured: the column is in the release only
    assert "exact copies" in res.output
    res = CliRunner().invoke(main, [*args, "--drop", "Unnamed: 0,wage"])
    assert res.exit_code == 2
    assert "option --drop: column(s) wage are in neither CONF nor a release" in res.output
