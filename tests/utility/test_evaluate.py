"""evaluate_utility bundles the measures and reports direction and range."""

import numpy as np
import pandas as pd
import pytest

from synthguard.data import load_dataset
from synthguard.utility import evaluate_utility, pmse


class FakeRelease:
    """Duck-typed SyntheticData."""

    def __init__(self, implicates, kind):
        self.implicates = implicates
        self.kind = kind


def test_penguins_bundle():
    peng = load_dataset("penguins")
    rng = np.random.default_rng(0)
    imps = [peng.iloc[rng.integers(0, len(peng), len(peng))].reset_index(drop=True)
            for _ in range(2)]
    release = FakeRelease(imps, "full")
    r = evaluate_utility(peng, release, ["body_mass_g ~ flipper_length_mm"], n_draws=20,
                         random_state=3)
    assert set(r.ecdf) == {"bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                           "body_mass_g", "year"}
    assert set(r.regressions["body_mass_g ~ flipper_length_mm"].table["rule"]) == {"full"}
    frame = r.to_frame()
    assert {"measure", "subject", "metric", "value", "goal", "min_value", "max_value"} <= set(
        frame.columns
    )
    assert set(frame["goal"]) <= {"minimize", "maximize", "target"}
    row = frame[(frame.measure == "pmse") & (frame.metric == "auc")].iloc[0]
    assert row["target"] == 0.5
    assert row["value"] == pytest.approx(r.pmse.auc)
    same = pmse(peng, imps)
    assert r.pmse.pmse == pytest.approx(same.pmse)
    again = evaluate_utility(peng, release, n_draws=20, random_state=3)
    assert again.kway.tv == pytest.approx(r.kway.tv)
    assert "pMSE" in r.summary()
    means = r.statistics.table.set_index("variable")
    assert means.loc["body_mass_g", "conf_estimate"] == pytest.approx(peng["body_mass_g"].mean())
    assert set(means["rule"]) == {"full"}


def test_identical_release_is_perfect():
    df = pd.DataFrame({"x": np.arange(50.0), "g": list("ab" * 25), "z": np.arange(50) % 7})
    r = evaluate_utility(df, df, n_draws=5, random_state=0)
    assert all(e.u_max == 0.0 for e in r.ecdf.values())
    assert r.correlation.mae == 0.0
    assert r.kway.tv == 0.0
    assert r.pmse.pmse == pytest.approx(0.0, abs=1e-12)
