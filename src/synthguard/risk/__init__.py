"""Disclosure risk of a release measured against the confidential data.

* identity: record-level identification risk within known patterns, its pairwise form and
  its k-way form (three- and four-way, section 3.2)
  (Hu, Savitsky & Williams), match rates (Reiter & Mitra 2009), k-anonymity;
* sdcMicro's measures: individual re-identification risk with sampling weights (Benedetti &
  Franconi, as in measure_risk), SUDA2 special-uniques scores (Elliot, Manning & Ford) and
  l-diversity (Machanavajjhala et al.), t-closeness (Li, Li & Venkatasubramanian);
* attributes: predictive accuracy of sensitive variables from the keys;
* synthpop's disclosure measures (Raab, Nowok & Dibben): UiO, repU, Dorig, DiSCO, DCAP, TCAP;
* anonymeter's attacks (Giomi et al. 2023): singling out, linkability, inference, each
  against a baseline and a control set;
* households: household risk (sdcMicro's hier_risk, ``individual_risk(household=)``) and
  replicated households;
* membership and copying: distance-threshold membership inference, distance to closest record,
  edit distance of free text (how closely released texts reproduce the data's).

:func:`evaluate_risk` runs all that apply. See docs/risk.md.
"""

from synthguard.risk._attack_stats import AttackRisk
from synthguard.risk.attribute import AttributeDisclosure, attribute_disclosure
from synthguard.risk.disclosure import (
    Disclosure,
    MultiDisclosure,
    disclosure,
    multi_disclosure,
)
from synthguard.risk.distance import DistanceToClosestRecord, distance_to_closest_record
from synthguard.risk.evaluate import RiskEvaluation, evaluate_risk
from synthguard.risk.household_risk import HierRisk, HouseholdRisk, hier_risk
from synthguard.risk.identification import IdentificationRisk, identification_risk
from synthguard.risk.individual_risk import IndividualRisk, individual_risk
from synthguard.risk.inference_attack import inference
from synthguard.risk.ldiversity import LDiversity, l_diversity
from synthguard.risk.linkability import linkability
from synthguard.risk.matching import MatchRates, match_rates
from synthguard.risk.membership import MembershipInference, membership_inference
from synthguard.risk.multiway import MultiwayIdentificationRisk, multiway_identification_risk
from synthguard.risk.pairwise import PairwiseIdentificationRisk, pairwise_identification_risk
from synthguard.risk.release_attacks import ReleaseAttacks, release_attacks
from synthguard.risk.replicated import ReplicatedUniques, replicated_uniques
from synthguard.risk.replicated_households import ReplicatedHouseholds, replicated_households
from synthguard.risk.singling_out import singling_out
from synthguard.risk.suda2 import Suda2, suda2
from synthguard.risk.tcloseness import TCloseness, t_closeness
from synthguard.risk.text_distance import TextCloseness, edit_distance, text_closeness
from synthguard.risk.uniqueness import KAnonymity, k_anonymity

__all__ = [
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
