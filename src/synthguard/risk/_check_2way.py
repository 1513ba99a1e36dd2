"""synthpop's ``check_2way`` of :func:`synthguard.risk.disclosure` (synthpop 1.9-2,
``R/disclosure.R``; Raab, Nowok & Dibben 2024, the disclosure vignette's "two-way checks").

DiSCO may come less from the whole key combination than from one key alone: if most people
of one region have one target level, an intruder needs only the region. The check looks at the
DiSCO cells (target level t x key combination q) holding more than ``thresh[0]`` records. For
each key k, every such cell gives the pair (t, level of k in q), weighted by the cell's count:

```text
npairs(t, k = l)           = sum of DiSCO_tq over cells with DiSCO_tq > thresh[0] and q_k = l
key_total(k = l)           = #original records with k = l
key_target_total(t, k = l) = #original records with k = l and target t
PctTargetKeyLevel          = 100 key_target_total / key_total
```

Pairs with ``PctTargetKeyLevel > thresh[1]`` are listed, most DiSCO records first (ties in the
order of the keys, then of the ``"t|l"`` labels), as synthpop does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CHECK_2WAY_COLUMNS", "check_2way", "r_labels"]

CHECK_2WAY_COLUMNS = (
    "target_key_levs", "npairs", "key", "key_total", "key_target_total", "PctTargetKeyLevel",
)  # fmt: skip


def r_labels(labels: Sequence[str], values: Sequence[Any]) -> list[str]:
    """Level labels as R writes them: a float value prints with up to 15 significant digits
    and no trailing ``.0`` (``as.character(60)`` is ``"60"``); other labels are kept."""
    out = []
    for lab, v in zip(labels, values):
        if isinstance(v, float | np.floating) and np.isfinite(v):
            out.append(format(float(v), ".15g"))
        else:
            out.append(lab)
    return out


def check_2way(
    disco: np.ndarray,
    cell_target: np.ndarray,
    cell_keys: Sequence[np.ndarray],
    conf_target: np.ndarray,
    conf_keys: Sequence[np.ndarray],
    target_labels: Sequence[str],
    key_labels: Sequence[Sequence[str]],
    keys: Sequence[str],
    thresh: tuple[float, float],
    conf_counts: np.ndarray | None = None,
) -> pd.DataFrame:
    """The flagged (target level, key level) pairs of one implicate (columns
    :data:`CHECK_2WAY_COLUMNS`, synthpop's names; empty when none is flagged).

    ``disco``: the DiSCO count of each cell after the exclusions; ``cell_target`` and
    ``cell_keys[i]``: the cell's target code and code of key i; ``conf_target`` and
    ``conf_keys[i]``: the codes of the original records, or of groups of them holding
    ``conf_counts`` records each (the Dask backend passes its cells); the labels give each
    code's level.
    """
    big = np.asarray(disco) > thresh[0]
    w = np.asarray(disco, dtype=np.int64)[big]
    tcell = np.asarray(cell_target)[big]
    n_t = len(target_labels)
    frames = []
    for i, key in enumerate(keys):
        n_k = len(key_labels[i])
        # pairs (t, l) of the big DiSCO cells, weighted by their counts
        pair = tcell * n_k + np.asarray(cell_keys[i])[big]
        upair, inv = np.unique(pair, return_inverse=True)
        npairs = np.bincount(inv, weights=w, minlength=upair.size).astype(np.int64)
        # the original records' key level by target level table
        tab = (
            np.bincount(
                np.asarray(conf_target) * n_k + np.asarray(conf_keys[i]),
                weights=conf_counts,
                minlength=n_t * n_k,
            )
            .reshape(n_t, n_k)
            .astype(np.int64)
        )
        tl, kl = upair // n_k, upair % n_k
        key_total = tab.sum(axis=0)[kl]
        key_target = tab[tl, kl]
        frames.append(pd.DataFrame({
            "target_key_levs": [f"{target_labels[a]}|{key_labels[i][b]}" for a, b in zip(tl, kl)],
            "npairs": npairs,
            "key": key,
            "key_total": key_total.astype(np.int64),
            "key_target_total": key_target.astype(np.int64),
            "PctTargetKeyLevel": key_target * 100.0 / np.maximum(key_total, 1),
        }).sort_values("target_key_levs", kind="stable"))  # fmt: skip
    if not frames:
        return pd.DataFrame(columns=list(CHECK_2WAY_COLUMNS))
    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values("npairs", ascending=False, kind="stable")
    out = out[out["PctTargetKeyLevel"] > thresh[1]]
    return out.reset_index(drop=True)[list(CHECK_2WAY_COLUMNS)]
