"""Multinomial and ordinal models in the regression comparison (synthpop's multinom.synds and
polr.synds), against R's nnet::multinom and MASS::polr on SD2011."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.utility import compare_regression

REF = Path(__file__).resolve().parents[1] / "reference" / "regression" / "multinom_polr_sd2011.csv"
LEVELS = ["PRIMARY/NO EDUCATION", "VOCATIONAL/GRAMMAR", "SECONDARY",
          "POST-SECONDARY OR HIGHER"]


def _files():
    from tests.conftest import SHARED_DATA

    folder = SHARED_DATA / "sd2011"
    if not (folder / "SD2011.csv").exists():
        pytest.skip(f"shared reference data not found at {folder}")

    def prep(path):
        d = pd.read_csv(path)[["edu", "age", "sex"]]
        d["edu"] = pd.Categorical(d["edu"], categories=LEVELS, ordered=True)
        return d

    return (prep(folder / "SD2011.csv"),
            prep(folder / "synthpop_fixtures" / "utility_ods_syn_cart_seed34567.csv"))


def _r_name(row):
    term = {"(Intercept)": "Intercept", "sexMALE": "sex[T.MALE]"}.get(row.term, row.term)
    return f"{term}[{row.level}]" if row.model == "multinomial" else term


@pytest.mark.parametrize("family", ["multinomial", "ordinal"])
def test_estimates_and_standard_errors_equal_r(family):
    conf, syn = _files()
    got = compare_regression("edu ~ age + sex", conf, syn, family=family, method="none")
    ref = pd.read_csv(REF)
    ref = ref[ref["model"] == family]
    table = got.table.set_index("term")
    for row in ref.itertuples():
        name = _r_name(row)
        est, se = ("conf_estimate", "conf_se") if row.file == "conf" else (
            "syn_estimate", "syn_se")
        assert table.loc[name, est] == pytest.approx(row.estimate, rel=1e-4, abs=1e-6), name
        assert table.loc[name, se] == pytest.approx(row.se, rel=1e-3), name
    assert len(table) == (ref["file"] == "conf").sum()
    assert 0 <= got.mean_overlap <= 1


def test_identical_files_overlap_fully_and_bad_outcomes_are_named():
    rng = np.random.default_rng(1)
    n = 600
    x = rng.normal(size=n)
    y = np.digitize(x + rng.logistic(size=n), [-1.0, 0.0, 1.0])
    df = pd.DataFrame({"y": pd.Categorical(y, categories=[0, 1, 2, 3], ordered=True), "x": x})
    for family in ("multinomial", "ordinal"):
        r = compare_regression("y ~ x", df, df, family=family, method="none")
        assert r.mean_overlap == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="outcome"):
        compare_regression("z ~ x", df, df, family="ordinal")
    with pytest.raises(ParameterError, match="'family'"):
        compare_regression("y ~ x", df, df, family="probit")
