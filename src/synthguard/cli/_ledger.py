"""The privacy ledger file a DP command charges (``--ledger``, ``--budget``): opened or created,
and removed again when a failed first run never charged it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synthguard.errors import ParameterError

__all__ = ["open_ledger", "remove_new_ledger"]


def open_ledger(path: Path | None, budget: float | None, budget_delta: float | None,
                 epsilon: float, delta: float) -> Any:
    from synthguard.dp import PrivacyLedger

    if path is None:
        return None
    if path.exists():
        ledger = PrivacyLedger.open(path)
        if budget is not None and budget != ledger.epsilon:
            raise ParameterError(
                "option '--budget': the ledger file already holds a different budget; a budget "
                "is never changed silently"
            )
        return ledger
    return PrivacyLedger(epsilon=budget if budget is not None else epsilon,
                         delta=budget_delta if budget_delta is not None else delta, path=path)


def remove_new_ledger(path: Path | None) -> None:
    """Remove a ledger file this command created and never charged (and its lock file), so a
    failed first run does not fix a budget the user never spent."""
    if path is not None:
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".lock").unlink(missing_ok=True)
