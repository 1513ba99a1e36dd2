"""The error a DP synthesizer's noisy marginals imply, before spending and after fitting.

Both figures are computed from public quantities and the noisy measurements only, never from
the confidential data, so a board can read them beside the ledger.

* **Expected error before spending** (from the noise scale). A marginal with c cells, each
  measured with independent noise of mean absolute value a, is off by E‖noise‖₁ = a·c records,
  a total-variation distance of ½ a c / N on N records; a = σ√(2/π) for Gaussian noise
  N(0, σ²), a = b for Laplace noise of scale b. It depends only on the budget, the public
  domain and the mechanism's noise allocation, so it is known before any noise is drawn
  (N: a public or assumed record count; after the fit, the noisy total).
* **Error after fitting** (against the noisy measurements). For every measured marginal r,
  the fitted model's marginal p̂_r is compared with its own noisy measurement y_r:
  residual TV_r = ½ ‖p̂_r − y_r / N̂‖₁ (N̂ the model's noisy total). By the triangle inequality
  TV(p̂_r, truth_r) ≤ TV(p̂_r, y_r) + TV(y_r, truth_r), so residual + expected noise TV bounds
  the expected true error of the model on r (up to the difference between N̂ and N).
  Post-processing of the noisy measurements: it costs no privacy.

Both are reported by marginal order (1-way, 2-way, ...), as the true error is by
``synthguard.evaluation.workload_error`` when the confidential data are at hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["NoisyMarginal", "by_order", "describe", "describe_provenance", "fit_error",
           "gaussian_mean_abs", "planned_error"]

# (clique, noisy counts flattened in the model's coding, mean absolute noise of each cell)
NoisyMarginal = tuple[tuple[str, ...], np.ndarray, np.ndarray]


def gaussian_mean_abs(sigma: float) -> float:
    """E|Z| = σ √(2/π) for Z ~ N(0, σ²)."""
    return float(sigma) * math.sqrt(2.0 / math.pi)


def by_order(rows: Iterable[dict[str, float]]) -> pd.DataFrame:
    """Rows ``{order, ...}`` (one per marginal) averaged per marginal order, with a count."""
    frame = pd.DataFrame(list(rows))
    if frame.empty:
        return pd.DataFrame(columns=["order", "marginals"]).set_index("order")
    out = frame.groupby("order").mean(numeric_only=True)
    out.insert(0, "marginals", frame.groupby("order").size())
    return out


def planned_error(plan: Sequence[tuple[int, float, float]], total: float | None = None
                  ) -> pd.DataFrame:
    """Expected error before spending, by order, from ``(order, mean_abs, cells)`` per marginal.

    ``mean_abs`` is the mean absolute noise of one cell (σ√(2/π) Gaussian, b Laplace).
    Columns: ``marginals``, ``noise`` (mean absolute noise per cell, records), ``cells``
    (mean), ``expected_l1`` (records off per marginal, a·c) and, with ``total`` (N),
    ``expected_tv`` (min(1, ½ a c / N): no release is further than 1 in total variation).
    """
    rows = []
    for order, mean_abs, cells in plan:
        row = {"order": int(order), "noise": float(mean_abs), "cells": float(cells),
               "expected_l1": float(mean_abs) * float(cells)}
        if total is not None:
            row["expected_tv"] = min(1.0, 0.5 * row["expected_l1"] / max(float(total), 1.0))
        rows.append(row)
    return by_order(rows)


def fit_error(project: Callable[[tuple[str, ...]], np.ndarray], noisy: Sequence[NoisyMarginal],
              total: float) -> pd.DataFrame:
    """Residual of the fitted model against its noisy measurements, by marginal order.

    ``project(clique)`` returns the model's marginal over ``clique`` (counts in the coding of
    the measurement, summing to ``total``). Columns: ``marginals``, ``residual_tv``
    (½ ‖p̂_r − y_r/N̂‖₁), ``noise_tv`` (expected TV of the measurement from its noise,
    ½ Σ a_cell / N̂) and ``bound_tv`` (their sum: a bound on the expected true error of the
    model on the measured marginals).
    """
    rows = []
    n = max(float(total), 1.0)
    for clique, y, mean_abs in noisy:
        p = np.asarray(project(clique), dtype=float).ravel() / n
        resid = 0.5 * float(np.abs(p - np.asarray(y, dtype=float).ravel() / n).sum())
        noise = 0.5 * float(np.sum(mean_abs)) / n
        rows.append({"order": len(clique), "residual_tv": resid, "noise_tv": noise,
                     "bound_tv": resid + noise})
    return by_order(rows)


def as_records(frame: pd.DataFrame) -> list[dict[str, float]]:
    """A by-order table as plain records (for provenance and JSON)."""
    return [{"order": int(k), **{str(c): float(v) for c, v in row.items()}}
            for k, row in zip(frame.index.astype(int), frame.to_dict("records"))]


def describe(expected: pd.DataFrame, fitted: pd.DataFrame | None = None) -> str:
    """One line for a report: expected TV by order, and the fit's residual and bound.

    The expected part counts the marginals it is stated for: those measured (MST, the
    stratified and field-group tables) or, for AIM, the workload's marginals as if measured in
    one of its planned rounds (``expected_error_basis`` says which; the rounds measure a subset).
    """
    parts = []
    if "expected_tv" in expected.columns:
        parts.append("expected (noise, before spending): " + ", ".join(
            f"{int(k)}-way TV {row['expected_tv']:.3g} ({int(row['marginals'])} marginal"
            f"{'' if int(row['marginals']) == 1 else 's'})"
            for k, row in zip(expected.index.astype(int), expected.to_dict("records"))))
    if fitted is not None and not fitted.empty:
        parts.append("after fit, against its noisy measurements: " + ", ".join(
            f"{int(k)}-way residual TV {row['residual_tv']:.3g}, bound {row['bound_tv']:.3g}"
            for k, row in zip(fitted.index.astype(int), fitted.to_dict("records"))))
    return "; ".join(parts)


def describe_provenance(provenance: Mapping[str, Any]) -> str | None:
    """The line of :func:`describe` from a release's provenance (``expected_error`` and
    ``fit_error`` records), or None when it has neither."""
    exp, fit = provenance.get("expected_error"), provenance.get("fit_error")
    if not exp and not fit:
        return None

    def frame(records: Any) -> pd.DataFrame:
        return pd.DataFrame(list(records or [])).set_index("order") if records else (
            pd.DataFrame())

    return describe(frame(exp), frame(fit)) or None
