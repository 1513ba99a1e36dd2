"""Differential privacy per privacy unit: a :class:`Session` answers grouped queries on demand
within a budget, bounding each unit's contribution and charging the unit-level cost."""

from synthguard.dp.session.result import QueryResult
from synthguard.dp.session.session import Session
from synthguard.dp.session.unit import PrivacyUnit

__all__ = ["PrivacyUnit", "QueryResult", "Session"]
