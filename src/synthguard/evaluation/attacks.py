"""The anonymeter attacks in an evaluation: run them honestly.

:func:`run_attacks` is what :func:`synthguard.evaluation` calls for each release when
``attacks=True``: :func:`synthguard.risk.release_attacks` with the evaluation's holdout as the
control set. The protocol is Giomi et al.'s (2023): the control must be records the
synthesizer never saw. Two cases are refused and reported as *not computed*, with the reason,
rather than given a number that looks like a risk:

* no holdout: the attack rate alone mixes what the release leaks with what any release of the
  population teaches;
* a holdout at least half of whose records (as distinct rows) are also training records: it
  is the training data again (a path given twice, a holdout drawn from the training file), the
  control rate is then the attack rate and the risk 0 whatever the release.

The report's table of them is :func:`synthguard.report.attacks_section.attacks_table`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import safe_error
from synthguard.risk.release_attacks import NO_CONTROL, ReleaseAttacks, release_attacks

__all__ = ["ATTACKS_PART", "run_attacks"]

def _shared_share(conf: pd.DataFrame, holdout: pd.DataFrame) -> tuple[float, float]:
    """``(h, t)``: the share of holdout records whose row (on the shared columns) is also a
    training row, and the share of training records whose row another training record repeats.

    ``t`` is the leave-one-out estimate of ``h`` for a holdout drawn from the same population
    as the training data but never seen by the synthesizer (natural twins: on coarse
    categorical data most records have one); a holdout made of training records has ``h = 1``.
    """
    cols = [c for c in conf.columns if c in holdout.columns]
    if not cols or holdout.empty or conf.empty:
        return 0.0, 0.0
    c = conf[cols].astype(object)
    sizes = c.groupby(cols, dropna=False, observed=True).size().rename("_n").reset_index()
    twin = float((sizes["_n"] * (sizes["_n"] > 1)).sum()) / len(c)
    h = holdout[cols].astype(object).merge(sizes, on=cols, how="left")
    return float(h["_n"].notna().mean()), twin


def _repeats_training(conf: pd.DataFrame, holdout: pd.DataFrame) -> bool:
    """Whether the holdout is taken for training records: more of its records are found in
    the training data than halfway between what the data's natural twins explain (``t``) and
    all of them, i.e. ``h > (1 + t) / 2`` (a random holdout of Adult repeats about 1% of
    the training rows; one of coarse categorical data most of them, as the training records
    repeat each other)."""
    h, t = _shared_share(conf, holdout)
    return h > (1.0 + t) / 2.0


ATTACKS_PART = "anonymeter attacks"


def run_attacks(
    conf: pd.DataFrame,
    implicates: Sequence[pd.DataFrame],
    holdout: pd.DataFrame | None,
    keys: Sequence[str],
    targets: Sequence[str],
    rng: np.random.Generator,
    errors: dict[str, str],
    runner: Callable[..., Any] | None = None,
    n_attacks: int = 500,
) -> ReleaseAttacks | None:
    """The release's attacks, or None with the reason in ``errors`` (see the module doc).

    ``runner(fn, *args, **kwargs)`` calls the attacks (the evaluation collects their warnings
    with it)."""
    if holdout is None:
        errors[ATTACKS_PART] = NO_CONTROL
        return None
    if _repeats_training(conf, holdout):
        errors[ATTACKS_PART] = (
            "the holdout repeats the training records (most of its rows are among them), so it "
            "cannot be the control set of records the synthesizer never saw; pass the records "
            "set aside before synthesis"
        )
        return None
    call = runner or (lambda fn, *a, **k: fn(*a, **k))
    try:
        return call(release_attacks, conf, list(implicates), holdout, keys=list(keys),  # type: ignore[no-any-return]
                    targets=list(targets), n_attacks=n_attacks, random_state=rng)
    except Exception as e:  # recorded, not fatal: the report says what is missing
        errors[ATTACKS_PART] = safe_error(e)
        return None
