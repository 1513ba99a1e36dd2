"""Record-level identification risk IR_i for the report's violins, tables and whack-a-mole
figures (Hu, Savitsky & Williams: eq. 2 for the confidential data, eq. 1 averaged over the
implicates for a release whose rows align with the data)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import safe_error
from synthguard.evaluation.notes import Notes
from synthguard.evaluation.options import Setting
from synthguard.risk import profile

__all__ = ["data_record_risk", "record_risk"]

log = logging.getLogger(__name__)


def record_risk(
    risk_result: Any,
    conf: pd.DataFrame,
    release: Any,
    keys: tuple[str, ...],
    targets: tuple[str, ...],
    radius: float,
) -> np.ndarray:
    """IR_i of every confidential record: read from ``risk_result`` when it holds them, else
    computed by :func:`synthguard.risk.profile.record_risk` (``release`` None: the data's own
    risk, eq. 2)."""
    ident = getattr(risk_result, "identification", None) if risk_result is not None else None
    per = getattr(ident, "per_record", None)
    if per is not None and len(per) == len(conf):
        return np.asarray(per, dtype=float)
    # singletons scored by the formula (0), as evaluate_risk does; their share is reported
    return profile.record_risk(conf, release, keys=keys, targets=targets, radius=radius)


def data_record_risk(s: Setting, notes: Notes) -> tuple[np.ndarray | None, str | None]:
    """The confidential data's own IR_i (eq. 2), or why it could not be computed. With
    categorical targets only it does not apply: said in ``notes``, not as a failure."""
    if s.no_ball:
        notes.messages.append(s.no_ball)
        return None, None
    try:
        return notes.run(record_risk, None, s.conf, None, s.keys, s.ir_targets, s.radius), None
    except Exception as e:  # recorded, not fatal: the report says what is missing
        error = safe_error(e)
        log.info("identification risk of the data failed: %s", error)
        return None, error
