"""``synthguard synthesize --risk-weights``: risk-weighted synthesis from the command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.bayes import risk_weights
from synthguard.cli import main
from synthguard.data import read_table
from synthguard.synthesis import Synthesizer


@pytest.fixture
def conf_csv(tmp_path):
    rng = np.random.default_rng(5)
    n = 240
    df = pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e"], size=n),
            "kids": rng.poisson(1.0, size=n),
            "income": np.round(rng.lognormal(10, 0.8, size=n), 2),
        }
    )
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    return path


def _run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("kind", ["marginal", "pairwise"])
def test_risk_weights_reach_the_model(conf_csv, tmp_path, kind):
    out = tmp_path / "syn"
    res = _run(["synthesize", conf_csv, "--out", out, "--m", 2, "--seed", 4, "--quiet",
                "--no-diagnostics", "--keep", "region,kids", "--method", "income=bayes_norm",
                "--risk-weights", kind, "--keys", "region", "--target", "income",
                "--radius", 0.1])
    assert res.exit_code == 0, res.output
    conf = read_table(conf_csv)
    w = risk_weights(conf, ["region"], "income", 0.1, kind).weights
    ref = Synthesizer(keep=["region", "kids"], methods={"income": "bayes_norm"}, m=2,
                      weights=w, random_state=4).fit(conf).sample(diagnostics=False)
    for i, df in enumerate(ref.implicates, start=1):
        got = pd.read_csv(out / f"synthetic_{i}.csv")
        np.testing.assert_allclose(got["income"], df["income"], rtol=1e-9)
        assert (got["region"] == conf["region"]).all()


def test_risk_weights_need_a_target(conf_csv, tmp_path):
    res = _run(["synthesize", conf_csv, "--out", tmp_path / "s", "--keep", "region,kids",
                "--method", "income=bayes_norm", "--risk-weights", "marginal"])
    assert res.exit_code == 2
    assert "--target" in res.output


def test_risk_weights_with_an_unweighted_method_fail_clearly(conf_csv, tmp_path):
    res = _run(["synthesize", conf_csv, "--out", tmp_path / "s", "--keep", "region,kids",
                "--method", "income=cart", "--risk-weights", "marginal", "--keys", "region",
                "--target", "income", "--quiet"])
    assert res.exit_code != 0
    assert "bayes_norm" in res.output
    assert not (tmp_path / "s" / "synthetic_1.csv").exists()
