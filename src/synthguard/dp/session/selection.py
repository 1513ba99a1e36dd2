"""Keys selected privately: Laplace thresholding of distinct-unit counts (partition selection).

A key observed in the data is released when its count of distinct units plus Laplace noise of
scale b = G/ε exceeds τ = 1 + b ln(G/(2δ)), G the number of keys one unit may touch after
bounding (``max_groups``, else ``max_rows``; 1 for the row unit).

Guarantee, unit-level add/remove: a unit changes the distinct-unit count of at most G keys by
at most 1 each. A key present in both neighbours gets Laplace noise of scale G/ε, an ε/G-DP
release; a key present only because of the unit (count 1) is released with probability
½·exp(−(τ − 1)/b) = δ/G. Composition over the G keys the unit touches gives (ε, δ)-DP
(Korolova, Kenthapadi, Mishra & Ntoulas 2009; Wilson et al. 2020, §4; Desfontaines, Voss,
Gipson & Mandayam 2022 for the threshold). Keys are released in sorted order, without their
counts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthguard.dp import _noise

__all__ = ["select_keys", "selection_threshold"]


def selection_threshold(epsilon: float, delta: float, g: int) -> tuple[float, float]:
    """(Laplace scale b = G/ε, threshold τ = 1 + b ln(G/(2δ)))."""
    b = g / float(epsilon)
    return b, 1.0 + b * math.log(g / (2.0 * float(delta)))


def select_keys(bounded: pd.DataFrame, keys: list[str], unit_col: str, epsilon: float,
                delta: float, g: int, rng: np.random.Generator | None) -> pd.DataFrame:
    """The keys released by thresholding (one row per released key, sorted)."""
    pairs = bounded[[*keys, unit_col]].drop_duplicates()
    counts = pairs.groupby(keys, sort=True, dropna=True).size()
    if counts.empty:
        return pd.DataFrame(columns=keys)
    b, tau = selection_threshold(epsilon, delta, g)
    noisy = _noise.add_laplace(counts.to_numpy(dtype=float), b, rng)
    kept = counts.index[noisy > tau]
    if isinstance(kept, pd.MultiIndex):
        return kept.to_frame(index=False)
    return pd.DataFrame({keys[0]: list(kept)})
