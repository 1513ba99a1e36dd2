"""Validation and summaries shared by the identification-risk measures."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard._params import column_list
from synthguard.errors import DataError, DisclosureWarning, ParameterError, SchemaError
from synthguard.risk._patterns import check_columns

__all__ = [
    "DEFAULT_QUANTILES",
    "SingletonPolicy",
    "as_list",
    "ball_arguments",
    "ball_settings",
    "check_singletons",
    "quantile_dict",
    "radius_vector",
    "target_matrix",
    "warn_singletons",
]

SingletonPolicy = Literal["zero", "one", "exclude"]
DEFAULT_QUANTILES: tuple[float, ...] = (0.25, 0.5, 0.75, 0.9, 0.99)


def as_list(value: str | Sequence[str] | None, *, name: str) -> list[str]:
    """A column name or a sequence of names as a list (None: empty); see
    :func:`synthguard._params.column_list`."""
    return column_list(value, name)


def radius_vector(
    radius: float | Mapping[str, float], targets: Sequence[str], *, name: str = "radius"
) -> np.ndarray:
    """Per-target radii as a float array (a mapping gives one radius per target)."""
    if isinstance(radius, Mapping):
        unknown = [k for k in radius if k not in targets]
        lacking = [t for t in targets if t not in radius]
        if unknown or lacking:
            raise ParameterError(
                f"parameter '{name}': a mapping must give one radius for each target; "
                f"unknown: {unknown}, lacking: {lacking}"
            )
        r = np.array([float(radius[t]) for t in targets])
    else:
        try:
            r = np.full(len(targets), float(radius))
        except (TypeError, ValueError):
            raise ParameterError(
                f"parameter '{name}': expected a number or a mapping target -> number"
            ) from None
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ParameterError(f"parameter '{name}': radii must be finite and >= 0")
    return r


def target_matrix(frame: pd.DataFrame, targets: Sequence[str], *, name: str, allow_missing: bool):
    """The target columns as a float64 (n, d) array; they must be numeric."""
    check_columns(frame, targets, name=name, role="target")
    problems = []
    cols = []
    for t in targets:
        s = frame[t]
        if not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
            problems.append(
                f"column '{t}': a target must be numeric to cast a ball around it; "
                f"use match_rates for categorical targets"
            )
            continue
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~np.isfinite(v)
        if bad.any() and not allow_missing:
            problems.append(
                f"column '{t}': some values are missing or infinite, so the ball risk "
                f"around it is undefined; choose a target without missing values (plan: "
                f"evaluation.targets; command line: --target), or drop or impute them"
            )
        cols.append(v)
    if problems:
        raise SchemaError(f"{name}: target columns cannot be used", problems)
    if not cols:
        return np.empty((len(frame), 0))
    return np.column_stack(cols)


def check_singletons(singletons: str | None) -> tuple[SingletonPolicy, bool]:
    """Resolve the singleton policy; None means 'zero' with a warning."""
    if singletons is None:
        return "zero", True
    if singletons not in ("zero", "one", "exclude"):
        raise ParameterError("parameter 'singletons': expected 'zero', 'one' or 'exclude'")
    return singletons, False  # type: ignore[return-value]


def warn_singletons(n_singletons: int, n: int, what: str) -> None:
    if n_singletons:
        warnings.warn(
            f"{what}: {n_singletons} of {n} records ({n_singletons / n:.1%}) are alone in "
            f"their pattern; by the formula they score 0 although their key values alone single "
            f"them out. Pass singletons='one' to score them as identified, 'exclude' to leave "
            f"them out, or 'zero' to keep the formula and silence this warning",
            DisclosureWarning,
            stacklevel=3,
        )


def quantile_dict(values: np.ndarray, qs: Sequence[float]) -> dict[float, float]:
    v = values[~np.isnan(values)]
    if v.size == 0:
        return {float(q): float("nan") for q in qs}
    return {float(q): float(x) for q, x in zip(qs, np.quantile(v, qs))}


def risk_summary(
    risk: np.ndarray, single: np.ndarray, n: int, warn: bool, quantiles: Sequence[float],
    what: str,
) -> dict[str, Any]:
    """The summary fields every per-record ball risk reports: the risks themselves, their mean,
    maximum and quantiles over the records not excluded (NaN), and the singletons (records
    alone in their key pattern), warned about when ``warn``."""
    n_single = int(single.sum())
    if warn:
        warn_singletons(n_single, n, what)
    valid = risk[~np.isnan(risk)]
    return {
        "per_record": risk,
        "mean": float(valid.mean()) if valid.size else float("nan"),
        "max": float(valid.max()) if valid.size else float("nan"),
        "quantiles": quantile_dict(risk, quantiles),
        "n_singletons": n_single,
        "singleton_share": n_single / n if n else 0.0,
    }


def check_rows(conf: pd.DataFrame, frames: Sequence[pd.DataFrame], what: str) -> None:
    bad = [i for i, f in enumerate(frames) if len(f) != len(conf)]
    if bad:
        raise DataError(
            f"{what}: implicate(s) {bad} do not have as many rows as the confidential data; "
            f"partially synthetic implicates must keep the confidential rows in order"
        )


def implicate_risk(t_own: np.ndarray, members: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """One implicate's record-level identification risk (Hu, Savitsky & Williams):
    ``IR_i = T_i (c_i - k_i) / c_i`` with ``T_i`` whether the record's own synthetic value is in
    its ball, ``c_i`` the synthetic records sharing its key pattern and ``k_i`` those of them
    inside its ball (0 when ``T_i`` is false)."""
    return np.where(t_own, (members - inside) / np.maximum(members, 1), 0.0)


def combine_implicates(per_impl: np.ndarray, tmat: np.ndarray, single: np.ndarray,
                       policy: str) -> tuple[np.ndarray, np.ndarray]:
    """``(risk, match_share)`` over the implicates: the mean of the per-implicate risks, and
    the share of implicates whose own value falls in the ball; under ``policy="one"`` a
    record alone in its pattern scores its match share."""
    match_share = tmat.mean(axis=1)
    risk = per_impl.mean(axis=1)
    if policy == "one":
        risk = np.where(single, match_share, risk)
    return risk, match_share


def ball_arguments(
    conf: Any, keys: Any, targets: Any, radius: Any, singletons: Any
) -> tuple[list[str], list[str], np.ndarray, SingletonPolicy, bool]:
    """The checks of the ball-risk measures, once for either backend (``conf`` a pandas frame
    or a Dask frame's empty ``_meta``): key and target lists (disjoint, at least one target),
    the key columns present, the radius per target and the singleton policy."""
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    if not targets_l:
        raise ParameterError("parameter 'targets': name at least one numeric target column")
    if set(keys_l) & set(targets_l):
        raise ParameterError(
            "parameters 'keys' and 'targets': a column cannot be both; drop it from one"
        )
    check_columns(conf, keys_l, name="conf", role="key")
    r = radius_vector(radius, targets_l)
    policy, warn = check_singletons(singletons)
    return keys_l, targets_l, r, policy, warn


def ball_settings(keys: Sequence[str], targets: Sequence[str], r: Any, relative: bool,
                  inclusive: bool, policy: str) -> dict[str, Any]:
    """The settings every ball-risk result records (keys, targets, radius, its kind and the
    singleton policy), in the fields of the identification and pairwise results."""
    return {"keys": tuple(keys), "targets": tuple(targets),
            "radius": tuple(float(x) for x in r), "relative": relative,
            "inclusive": inclusive, "singletons": policy}
