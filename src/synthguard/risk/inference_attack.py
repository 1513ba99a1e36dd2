"""Attribute-inference attack of anonymeter (Giomi et al. 2023)."""

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

__all__ = ["inference"]


def inference(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    aux_cols: Sequence[str],
    secret: str,
    regression: bool | None = None,
    tolerance: float = 0.05,
    n_attacks: int | None = 500,
    control: pd.DataFrame | None = None,
    confidence_level: float = 0.95,
    implicate: int = 0,
    random_state: RandomState = None,
) -> AttackRisk:
    """Attribute-inference risk of a release, as anonymeter's ``InferenceEvaluator``.

    The attacker knows ``aux_cols`` of a target person and guesses the ``secret`` as the
    secret of the nearest synthetic record on those columns (anonymeter's Gower-like distance,
    see :mod:`synthguard.risk._attack_data`). A guess is correct when it equals the true value
    (categorical secret) or, for ``regression``, when |guess - secret| / |guess| <= ``tolerance``
    (anonymeter divides by the guess); a missing guess of a missing secret is correct.

    * attack: ``n_attacks`` random confidential records;
    * baseline: as many random confidential records, each guessed as the secret of a random
      synthetic record;
    * control: the attack on records of the control set (not used to make the release).

    Risk = (attack rate - control rate) / (1 - control rate) with a Wilson-score interval; see
    :class:`AttackRisk`.

    Parameters
    ----------
    conf : the confidential records used to make the release.
    synthetic : the release (``implicate`` picks one implicate).
    aux_cols : columns the attacker knows.
    secret : the column to infer (not in ``aux_cols``).
    regression : compare within ``tolerance`` rather than exactly; None (default) decides by
        the secret's type (numeric: regression), as anonymeter's attack does when not told.
    tolerance : relative tolerance of a correct numeric guess.
    n_attacks : records attacked (None: all; capped at the number of records).
    control, confidence_level, implicate, random_state : as in :func:`singling_out`.

    Returns
    -------
    AttackRisk
    """
    aux = [aux_cols] if isinstance(aux_cols, str) else list(aux_cols)
    if not aux:
        raise ParameterError("parameter 'aux_cols': name at least one column")
    if not isinstance(secret, str):
        raise ParameterError("parameter 'secret': expected one column name")
    if secret in aux:
        raise ParameterError("parameter 'secret': the secret cannot be an auxiliary column")
    if not (isinstance(tolerance, int | float) and tolerance >= 0):
        raise ParameterError("parameter 'tolerance': expected a number >= 0")
    n_req = check_n_attacks(n_attacks)
    conf_level = check_confidence(confidence_level)
    syn = _pick(synthetic, implicate)
    cols = _columns(conf, syn, control, [*aux, secret])
    rng, seed = resolve_seed(random_state)
    frames = [syn, conf] + ([control] if control is not None else [])
    coded = code_frames(frames, cols)
    js = len(aux)
    numeric_secret = coded.numeric[js]
    reg = numeric_secret if regression is None else bool(regression)
    if reg and not numeric_secret:
        raise ParameterError(
            f"parameter 'regression': the secret '{secret}' is not numeric; use regression=False"
        )
    num = np.asarray(coded.numeric[:js])
    syn_v = coded.values[0]
    n_syn = syn_v.shape[0]

    def correct(guess: np.ndarray, truth: np.ndarray) -> int:
        if numeric_secret:
            g_miss, t_miss = np.isnan(guess), np.isnan(truth)
        else:
            g_miss, t_miss = guess < 0, truth < 0
        if reg:
            with np.errstate(invalid="ignore", divide="ignore"):
                ok = np.abs(guess - truth) / np.abs(guess + 1e-12) <= tolerance
        else:
            ok = guess == truth
        ok = (ok & ~g_miss & ~t_miss) | (g_miss & t_miss)
        return int(ok.sum())

    def attack(values: np.ndarray) -> tuple[int, int]:
        n = values.shape[0] if n_req is None else min(n_req, values.shape[0])
        t = values[rng.choice(values.shape[0], size=n, replace=False)]
        nn = nearest_rows(t[:, :js], syn_v[:, :js], num, 1)[:, 0]
        return n, correct(syn_v[nn, js], t[:, js])

    conf_v = coded.values[1]
    n_att, n_success = attack(conf_v)
    n_base = min(n_syn, n_att)
    targets = conf_v[rng.choice(conf_v.shape[0], size=n_base, replace=False), js]
    guesses = syn_v[rng.choice(n_syn, size=n_base, replace=False), js]
    n_baseline = correct(guesses, targets)
    n_ctrl_att, n_control = control_counts(
        attack, None if control is None else coded.values[2])
    return attack_risk(
        "inference",
        n_attacks=n_att,
        n_success=n_success,
        n_baseline_attacks=n_base,
        n_baseline=n_baseline,
        n_control_attacks=n_ctrl_att,
        n_control=n_control,
        confidence_level=conf_level,
        random_state=seed,
        details={"aux_cols": tuple(aux), "secret": secret, "regression": reg,
                 "tolerance": tolerance},
    )  # fmt: skip
