"""synthpop's S_pMSE with resamp.method = "pairs" (``pmse_pairs``).

``tests/reference/utility_gen/synthpop_utility_gen_pairs.csv``: synthpop 1.9-2's own
``utility.gen.synds`` (see ``synthpop_utility_gen_pairs.R``) on the five-implicate SD2011
release of the disclosure vignette, main-effects logistic propensity.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.utility import pmse
from synthguard.utility.pmse_pairs import pmse_pairs

REF = Path(__file__).resolve().parents[1] / "reference" / "utility_gen"
VARS = ["sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab"]


def test_pairs_s_pmse_equals_utility_gens(shared_data):
    folder = shared_data / "sd2011"
    fx = folder / "synthpop_fixtures"
    if not (fx / "disclosure_ods_syn_s5_seed8564_m1.csv").exists():
        pytest.skip("synthpop disclosure fixtures not present")
    ods = pd.read_csv(folder / "SD2011.csv")[VARS]
    s5 = [pd.read_csv(fx / f"disclosure_ods_syn_s5_seed8564_m{i}.csv")[VARS] for i in range(1, 6)]
    want = pd.read_csv(REF / "synthpop_utility_gen_pairs.csv").set_index("implicate")
    got = pmse_pairs(ods, s5, "logistic", random_state=1)
    assert len(got.null_pmse) == 10
    # glm and our fit stop at their own convergence tolerances: 6 significant digits
    np.testing.assert_allclose(got.implicates["pMSE"], want["pMSE"], rtol=5e-6)
    np.testing.assert_allclose(got.implicates["S_pMSE"], want["S_pMSE"], rtol=5e-6)
    assert got.S_pMSE == pytest.approx(want["S_pMSE"].mean(), rel=5e-6)
    assert "pairs" in got.summary()


def test_pairs_null_is_the_pmse_of_implicate_pairs_and_needs_two():
    rng = np.random.default_rng(4)
    conf = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(list("ab"), 200)})
    imps = [
        pd.DataFrame({"x": rng.normal(0.1 * i, 1, 200), "g": rng.choice(list("ab"), 200)})
        for i in range(3)
    ]
    got = pmse_pairs(conf, imps)
    pair = [pmse(imps[jj], imps[j], "logistic").pmse for j in range(3) for jj in range(j + 1, 3)]
    np.testing.assert_allclose(got.null_pmse, pair, rtol=1e-12)
    own = pmse(conf, imps[1], "logistic").pmse
    assert got.implicates.loc[2, "S_pMSE"] == pytest.approx(own * 2 / np.mean(pair))
    with pytest.raises(ParameterError, match="2 implicates"):
        pmse_pairs(conf, imps[:1])
    with pytest.raises(ParameterError, match="null"):
        pmse_pairs(conf, imps, null="permutation")
