"""MST and the stratified synthesizer per household: bounded units, unit-level charges."""

from __future__ import annotations

import math
import warnings

import pytest

from synthguard.dp import MSTSynthesizer, PrivacyLedger, StratifiedSynthesizer
from synthguard.dp.conversion import epsilon_to_rho
from synthguard.errors import PrivacyWarning

from .conftest import households

CATS = {"sex": ["Male", "Female"], "agegroup": ["young", "middle", "old"]}


@pytest.fixture
def big_households():
    return households(150, seed=3, max_size=9)[["hid", "sex", "agegroup"]]


def test_mst_runs_at_rho_over_r_squared_and_charges_the_unit(big_households, monkeypatch):
    seen = {}
    original = MSTSynthesizer._fit

    def spy(self, codes, domain, epsilon, delta, ledger, rng):
        seen["epsilon"], seen["n"], seen["cols"] = epsilon, len(codes["sex"]), domain.columns
        return original(self, codes, domain, epsilon, delta, ledger, rng)

    monkeypatch.setattr(MSTSynthesizer, "_fit", spy)
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-6)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        MSTSynthesizer(epsilon=1.0, delta=1e-6, categories=CATS, privacy_unit="hid",
                       max_rows=4, ledger=ledger, random_state=0, iters=50).fit(big_households)
    rho_unit = epsilon_to_rho(1.0, 1e-6)
    # the algorithm ran at the row-level rho that group privacy turns into rho_unit (x 4^2)
    assert math.isclose(epsilon_to_rho(seen["epsilon"], 1e-6), rho_unit / 16, rel_tol=1e-6)
    (charge,) = ledger.charges
    assert charge.privacy_unit == "hid" and math.isclose(charge.rho, rho_unit, rel_tol=1e-6)
    assert math.isclose(ledger.spent.epsilon, 1.0, rel_tol=1e-6)
    # every household cut to 4 rows; the id is not synthesized
    assert seen["n"] == int(big_households.groupby("hid").size().clip(upper=4).sum())
    assert "hid" not in seen["cols"]


def test_stratified_charges_r_times_its_row_level_epsilon(big_households, monkeypatch):
    seen = {}
    original = StratifiedSynthesizer._fit

    def spy(self, codes, domain, epsilon, delta, ledger, rng):
        seen["epsilon"] = epsilon
        return original(self, codes, domain, epsilon, delta, ledger, rng)

    monkeypatch.setattr(StratifiedSynthesizer, "_fit", spy)
    ledger = PrivacyLedger(epsilon=1.0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        s = StratifiedSynthesizer(epsilon=1.0, categories=CATS, privacy_unit="hid",
                                  max_rows=3, ledger=ledger, random_state=0)
        s.fit(big_households)
    assert math.isclose(seen["epsilon"], 1.0 / 3)  # group privacy: 3 rows cost 3 x epsilon
    (charge,) = ledger.charges
    assert math.isclose(charge.epsilon, 1.0) and charge.privacy_unit == "hid"


def test_release_provenance_names_the_unit(big_households):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        s = StratifiedSynthesizer(epsilon=1.0, categories=CATS, privacy_unit="hid",
                                  max_rows=3, random_state=0).fit(big_households)
    prov = s._provenance()
    assert (prov["privacy_unit"], prov["max_rows"]) == ("hid", 3)
