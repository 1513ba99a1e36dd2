"""Linkability attack of anonymeter (Giomi et al. 2023)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.errors import ParameterError
from synthguard.risk._attack_data import code_frames, nearest_rows
from synthguard.risk._attack_stats import (
    AttackRisk,
    attack_risk,
    check_confidence,
    check_n_attacks,
    control_counts,
)
from synthguard.risk.singling_out import _columns, _pick

__all__ = ["linkability"]


def linkability(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    aux_cols: tuple[Sequence[str], Sequence[str]],
    n_attacks: int | None = 500,
    n_neighbors: int = 1,
    control: pd.DataFrame | None = None,
    confidence_level: float = 0.95,
    implicate: int = 0,
    random_state: RandomState = None,
) -> AttackRisk:
    """Linkability risk of a release, as anonymeter's ``LinkabilityEvaluator``.

    The attacker holds two data sets about the same people that share no column, A (columns
    ``aux_cols[0]``) and B (``aux_cols[1]``), and uses the release to join them. The
    confidential data are split this way; for each of ``n_attacks`` random confidential
    records the ``n_neighbors`` nearest synthetic records on A's columns and on B's columns
    are found (anonymeter's Gower-like distance, see :mod:`synthguard.risk._attack_data`). The
    attack succeeds when the two neighbour sets share a synthetic record: the release links the
    two halves of that person.

    * baseline: both neighbour sets drawn at random (``n_neighbors`` distinct synthetic rows
      each);
    * control: the same attack on records of the control set (not used to make the release).

    Risk = (attack rate - control rate) / (1 - control rate) with a Wilson-score interval; see
    :class:`AttackRisk`. Nearest neighbours are found by blocks of exact distances
    (O(n_attacks x n_synthetic) time, O(n_synthetic) memory per query block).

    Parameters
    ----------
    conf : the confidential records used to make the release.
    synthetic : the release (``implicate`` picks one implicate).
    aux_cols : the two disjoint lists of columns known to the attacker.
    n_attacks : records attacked (None: all; capped at the number of records).
    n_neighbors : neighbours compared on each side (1: the nearest must coincide).
    control : confidential records not used to make the release.
    confidence_level, implicate, random_state : as in :func:`singling_out`.

    Returns
    -------
    AttackRisk
    """
    if not (isinstance(aux_cols, Sequence) and len(aux_cols) == 2) or isinstance(aux_cols, str):
        raise ParameterError("parameter 'aux_cols': expected two lists of column names")
    a = [aux_cols[0]] if isinstance(aux_cols[0], str) else list(aux_cols[0])
    b = [aux_cols[1]] if isinstance(aux_cols[1], str) else list(aux_cols[1])
    if not a or not b:
        raise ParameterError("parameter 'aux_cols': both lists need at least one column")
    if set(a) & set(b):
        raise ParameterError("parameter 'aux_cols': the two lists must not share a column")
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, int) or n_neighbors < 1:
        raise ParameterError("parameter 'n_neighbors': expected a positive integer")
    n_req = check_n_attacks(n_attacks)
    conf_level = check_confidence(confidence_level)
    syn = _pick(synthetic, implicate)
    cols = _columns(conf, syn, control, a + b)
    rng, seed = resolve_seed(random_state)
    n_syn = len(syn)
    k = min(n_neighbors, n_syn)
    frames = [syn, conf] + ([control] if control is not None else [])
    coded = code_frames(frames, cols)
    ia = [cols.index(c) for c in a]
    ib = [cols.index(c) for c in b]
    num = np.asarray(coded.numeric)

    def attack(values: np.ndarray) -> tuple[int, int]:
        n = values.shape[0] if n_req is None else min(n_req, values.shape[0])
        rows = rng.choice(values.shape[0], size=n, replace=False)
        t = values[rows]
        na = nearest_rows(t[:, ia], coded.values[0][:, ia], num[ia], k)
        nb = nearest_rows(t[:, ib], coded.values[0][:, ib], num[ib], k)
        return n, _count_links(na, nb)

    n_att, n_success = attack(coded.values[1])
    base_a = np.array([rng.choice(n_syn, size=k, replace=False) for _ in range(n_att)])
    base_b = np.array([rng.choice(n_syn, size=k, replace=False) for _ in range(n_att)])
    n_baseline = _count_links(base_a, base_b)
    n_ctrl_att, n_control = control_counts(
        attack, None if control is None else coded.values[2])
    return attack_risk(
        "linkability",
        n_attacks=n_att,
        n_success=n_success,
        n_baseline_attacks=n_att,
        n_baseline=n_baseline,
        n_control_attacks=n_ctrl_att,
        n_control=n_control,
        confidence_level=conf_level,
        random_state=seed,
        details={"aux_cols": (tuple(a), tuple(b)), "n_neighbors": k},
    )


def _count_links(idx_a: np.ndarray, idx_b: np.ndarray) -> int:
    """Rows whose two neighbour sets share an element."""
    if idx_a.shape[1] == 1:
        return int(np.sum(idx_a[:, 0] == idx_b[:, 0]))
    hit = (idx_a[:, :, None] == idx_b[:, None, :]).any(axis=(1, 2))
    return int(hit.sum())
