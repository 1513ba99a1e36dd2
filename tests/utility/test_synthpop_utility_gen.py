"""pmse's synthpop-named figures (S_pMSE, PO50, U) against synthpop's own ``utility.gen``.

``tests/reference/utility_gen/synthpop_utility_gen.csv``: synthpop 1.9-2's ``utility.gen.synds``
(sourced unchanged in R 4.2.2; see ``synthpop_utility_gen.R``) on the SD2011 fixtures of the
utility vignette, with a main-effects logistic propensity model (``maxorder = 0``) and
synthpop's analytic null, and with 50 permutations. synthpop's ``utility.gen`` halves each
permuted pMSE before averaging, so its permutation ``S_pMSE`` is twice synthguard's permutation
``ratio`` for the same fits (issue 24, item 5): ``PMSEResult.S_pMSE`` reports synthpop's figure
under synthpop's name.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.utility import pmse

REF = Path(__file__).resolve().parents[1] / "reference" / "utility_gen" / "synthpop_utility_gen.csv"
COLUMNS = ["sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke",
           "region"]


@pytest.fixture(scope="module")
def sd2011():
    from tests.conftest import SHARED_DATA

    folder = SHARED_DATA / "sd2011"
    if not folder.is_dir():
        pytest.skip(f"shared reference data not found at {folder}")
    ods = pd.read_csv(folder / "SD2011.csv")[COLUMNS]
    fx = {k: pd.read_csv(folder / "synthpop_fixtures" / f"utility_ods_syn_{k}_seed34567.csv")
          for k in ("para", "cart")}
    return ods, fx


@pytest.fixture(scope="module")
def ref():
    return pd.read_csv(REF).set_index(["fixture", "run"])


@pytest.mark.parametrize("fixture", ["para", "cart"])
def test_logistic_analytic_figures_are_utility_gens_to_printed_digits(sd2011, ref, fixture):
    ods, fx = sd2011
    want = ref.loc[(fixture, "logit_analytic")]
    got = pmse(ods, fx[fixture], "logistic", random_state=1)
    # utility.gen prints 6 decimals (digits = 6); df is its k - 1
    for ours, theirs in ((got.pmse, "pMSE"), (got.S_pMSE, "S_pMSE"), (got.specks, "SPECKS"),
                         (got.PO50, "PO50")):
        assert round(ours, 6) == round(want[theirs], 6), theirs
    assert got.U == pytest.approx(want["U"], abs=0.5)
    assert got.k - 1 == want["df"]
    # with the analytic null the two conventions agree
    assert got.S_pMSE == got.ratio


def test_permutation_s_pmse_is_twice_the_ratio_and_near_synthpops(sd2011, ref):
    ods, fx = sd2011
    want = ref.loc[("para", "logit_perm")]
    got = pmse(ods, fx["para"], "logistic", null="permutation", n_permutations=50,
               random_state=1)
    assert round(got.pmse, 6) == round(want["pMSE"], 6)
    assert round(got.specks, 6) == round(want["SPECKS"], 6)
    np.testing.assert_allclose(got.implicates["S_pMSE"], 2 * got.implicates["ratio"], rtol=1e-12)
    assert got.S_pMSE == pytest.approx(2 * got.ratio, rel=1e-12)
    # the permuted fits are random in both tools: each mean of 50 chi-square-like pMSEs on
    # 40 df has a relative sd of about sqrt(2/40)/sqrt(50) = 3%; allow 4 of them
    assert got.S_pMSE == pytest.approx(want["S_pMSE"], rel=0.12)
    # synthguard's own ratio is about half of it: the convention, not the release, differs
    assert got.ratio == pytest.approx(want["S_pMSE"] / 2, rel=0.12)
    assert "synthpop's S_pMSE" in got.summary() and "2 x ratio" in got.summary()


def test_s_pmse_is_missing_where_synthpop_has_none_and_po50_u_follow_their_definitions():
    rng = np.random.default_rng(0)
    conf = pd.DataFrame({"x": rng.normal(size=60), "g": rng.choice(["a", "b"], 60)})
    syn = pd.DataFrame({"x": rng.normal(0.5, 1, 60), "g": rng.choice(["a", "b"], 60)})
    cart = pmse(conf, syn, "cart", n_permutations=4, random_state=2)
    assert cart.S_pMSE == pytest.approx(2 * cart.ratio)
    held = pmse(conf, syn, "logistic", validation="holdout", n_permutations=4, random_state=2)
    assert np.isnan(held.S_pMSE)
    assert "S_pMSE" not in held.summary()
    boost = pmse(conf, syn, "boosting", n_permutations=2, random_state=2,
                 model_params={"max_iter": 5})
    assert np.isnan(boost.S_pMSE)
    # U = AUC n_conf n_syn; PO50 by brute force from the in-sample logistic scores
    lo = pmse(conf, syn, "logistic", random_state=2)
    assert lo.U == pytest.approx(lo.auc * 60 * 60)
    from sklearn.linear_model import LogisticRegression

    X = pd.get_dummies(pd.concat([conf, syn]), drop_first=True).to_numpy(float)
    y = np.r_[np.zeros(60), np.ones(60)]
    p = LogisticRegression(C=1e12, max_iter=1000).fit(X, y).predict_proba(X)[:, 1]
    assert lo.PO50 == pytest.approx(100 * np.mean((p > 0.5) == (y == 1)) - 50)



MAXORDER1 = REF.parent / "synthpop_utility_gen_maxorder1.csv"
MAXORDER1_VARS = ["sex", "age", "edu", "smoke", "height", "weight", "income"]


@pytest.mark.parametrize("fixture", ["para", "cart"])
def test_maxorder_1_equals_utility_gens_two_way_logit(sd2011, fixture):
    # synthpop_utility_gen_maxorder1.R: utility.gen(maxorder = 1, vars = 7 variables), the
    # analytic null; glm and our fit stop at their own convergence tolerances, so pMSE and
    # S_pMSE agree to 6 significant digits, the printed SPECKS and PO50 exactly
    ods, fx = sd2011
    want = pd.read_csv(MAXORDER1).set_index("fixture").loc[fixture]
    got = pmse(ods, fx[fixture], "logistic", columns=MAXORDER1_VARS, maxorder=1, random_state=1)
    assert got.pmse == pytest.approx(want["pMSE"], rel=5e-6)
    assert got.S_pMSE == pytest.approx(want["S_pMSE"], rel=5e-6)
    assert round(got.specks, 4) == round(want["SPECKS"], 4)
    assert round(got.PO50, 2) == round(want["PO50"], 2)
    assert got.k - 1 == want["df"]
    # the Mann-Whitney U: ties of nearly equal scores may fall either way
    assert got.U == pytest.approx(want["U"], abs=1.0)
    # maxorder = 1 is the interactions=True design; maxorder = 0 the main effects
    same = pmse(ods, fx[fixture], "logistic", columns=MAXORDER1_VARS, interactions=True,
                random_state=1)
    assert same.pmse == got.pmse
    main = pmse(ods, fx[fixture], "logistic", columns=MAXORDER1_VARS, maxorder=0,
                random_state=1)
    assert main.k < got.k


def test_maxorder_rejects_what_is_not_there():
    from synthguard.errors import ParameterError

    conf = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": list("abab")})
    with pytest.raises(ParameterError, match="maxorder"):
        pmse(conf, conf, "logistic", maxorder=2)
    with pytest.raises(ParameterError, match="maxorder"):
        pmse(conf, conf, "logistic", maxorder=0, interactions=True)
