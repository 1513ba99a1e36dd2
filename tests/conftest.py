"""Shared fixtures. ``SHARED_DATA`` points at the team's public reference data (../shared/data);
tests that read it skip cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(
    os.environ.get("SYNTHGUARD_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _unaccounted_warning_per_test(monkeypatch):
    """A DP query without a ledger warns once per process (UnaccountedWarning); each test starts
    as a fresh process would, so a test that calls one without a ledger must expect it."""
    from synthguard.dp import queries

    monkeypatch.setattr(queries, "_warned_unaccounted", False)
