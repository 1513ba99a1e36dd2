"""Household synthesis: a household–person file synthesized as households, then members.

See :mod:`synthguard.synthesis.households.model` for the method and
:mod:`synthguard.data.household_rules` for rules within a household.
"""

from synthguard.synthesis.households.layout import HouseholdLayout, resolve_layout
from synthguard.synthesis.households.model import HouseholdModel, HouseholdReport
from synthguard.synthesis.households.replicated import HouseholdSignatures, household_signatures

__all__ = [
    "HouseholdLayout",
    "HouseholdModel",
    "HouseholdReport",
    "HouseholdSignatures",
    "household_signatures",
    "resolve_layout",
]
