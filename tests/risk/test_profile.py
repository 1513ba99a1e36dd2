"""The risk profile and whack-a-mole records shared by the report and bayes.compare."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.risk.profile import record_risk, risk_profile, whack_a_mole


def test_profile_of_hand_computed_risks():
    # sorted: 0, 0.1, 0.2, 0.6, 1.0; linear quartiles at positions 1 and 3
    p = risk_profile([0.6, 0.0, 1.0, 0.2, 0.1], threshold=0.5)
    assert p.mean == pytest.approx(0.38)
    assert (p.q25, p.median, p.q75) == pytest.approx((0.1, 0.2, 0.6))
    assert p.iqr == pytest.approx(0.5) and p.max == 1.0 and p.n_above == 2
    assert risk_profile([0.5, 0.5]).n_above == 0  # strictly above the threshold


def test_whack_a_mole_marks_increases_of_at_least_the_step():
    up = whack_a_mole([0.25, 0.5, 0.25, 0.0], [0.5, 0.5, 0.49, 1.0], increase=0.25)
    np.testing.assert_array_equal(up, [True, False, False, True])
    with pytest.raises(ParameterError, match="one risk per record"):
        whack_a_mole([0.1], [0.1, 0.2])


def test_record_risk_of_the_data_by_hand():
    # one pattern of four records; y within 20% of 100 for 100 and 110 only
    conf = pd.DataFrame({"k": ["a"] * 4 + ["b"], "y": [100.0, 110.0, 200.0, 300.0, 50.0]})
    r = record_risk(conf, keys=["k"], targets="y", radius=0.2)
    # IR_i^c = share of the pattern's other values outside the ball; the singleton scores 0
    np.testing.assert_allclose(r, [0.5, 0.5, 0.75, 0.75, 0.0])
