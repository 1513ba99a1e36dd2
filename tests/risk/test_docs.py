"""The tutorial docs/risk.md runs end to end, and the package exports what the docs promise."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import synthguard.risk as risk

DOC = Path(__file__).resolve().parents[2] / "docs" / "risk.md"


def test_exports():
    assert sorted(risk.__all__) == [
        "AttackRisk",
        "AttributeDisclosure",
        "Disclosure",
        "DistanceToClosestRecord",
        "HierRisk",
        "HouseholdRisk",
        "IdentificationRisk",
        "IndividualRisk",
        "KAnonymity",
        "LDiversity",
        "MatchRates",
        "MembershipInference",
        "MultiDisclosure",
        "MultiwayIdentificationRisk",
        "PairwiseIdentificationRisk",
        "ReleaseAttacks",
        "ReplicatedHouseholds",
        "ReplicatedUniques",
        "RiskEvaluation",
        "Suda2",
        "TCloseness",
        "TextCloseness",
        "attribute_disclosure",
        "disclosure",
        "distance_to_closest_record",
        "edit_distance",
        "evaluate_risk",
        "hier_risk",
        "identification_risk",
        "individual_risk",
        "inference",
        "k_anonymity",
        "l_diversity",
        "linkability",
        "match_rates",
        "membership_inference",
        "multi_disclosure",
        "multiway_identification_risk",
        "pairwise_identification_risk",
        "release_attacks",
        "replicated_households",
        "replicated_uniques",
        "singling_out",
        "suda2",
        "t_closeness",
        "text_closeness",
    ]
    for name in risk.__all__:
        assert getattr(risk, name).__doc__


@pytest.mark.skipif(not DOC.exists(), reason="docs/risk.md not present")
def test_tutorial_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 6
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile("\n".join(blocks), str(DOC), "exec"), namespace)
    assert namespace["rel_risk"].mean < namespace["conf_risk"].mean
    assert "Identification risk" in capsys.readouterr().out
