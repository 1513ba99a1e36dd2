"""Expected match risk, true match rate and false match rate of partially synthetic data
(Reiter & Mitra 2009; the course's identity-disclosure metrics; the quantities of the R package
IdentificationRiskCalculation, Hornby & Hu 2021)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import Schema, as_implicates, infer_schema
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.errors import DataError, ParameterError
from synthguard.risk import blocks
from synthguard.risk._common import as_list, check_rows
from synthguard.risk._patterns import check_columns

__all__ = ["MatchRates", "match_rates"]


@dataclass(frozen=True, eq=False)
class MatchRates(Summarized):
    """Identity-disclosure match rates of a partially synthetic release.

    Attributes
    ----------
    expected_match_risk : sum over attacked records of T_i / c_i, averaged over implicates
        (the expected number of correct matches; higher is riskier).
    expected_match_rate : ``expected_match_risk`` divided by the number of attacked records.
    true_match_rate : unique true matches / number of confidential records (higher is riskier).
    false_match_rate : unique false matches / unique matches (lower is riskier; NaN when there
        is no unique match).
    n_unique_matches : mean number of records with exactly one candidate.
    candidates : c_i^(l), shape (n, L): the number of released records agreeing with what the
        intruder knows of record i (0 for records not attacked).
    own_match : T_i^(l), shape (n, L): whether record i's own released row is among them.
    attacked : boolean mask of the records the intruder holds external data on.
    per_implicate : one row per implicate with the four measures.
    """

    expected_match_risk: float
    expected_match_rate: float
    true_match_rate: float
    false_match_rate: float
    n_unique_matches: float
    candidates: np.ndarray
    own_match: np.ndarray
    attacked: np.ndarray
    per_implicate: pd.DataFrame
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    radius: dict[str, float]
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    def to_frame(self) -> pd.DataFrame:
        """The per-implicate measures plus a final row 'mean'."""
        out = self.per_implicate.copy()
        out.loc["mean"] = out.mean(axis=0)
        return out

    def records(self) -> pd.DataFrame:
        """Per attacked record: mean candidate count, share of implicates with a unique true
        match, and the record's mean match probability T_i / c_i."""
        c = self.candidates
        t = self.own_match
        prob = np.where(c > 0, t / np.maximum(c, 1), 0.0)
        out = pd.DataFrame(
            {
                "candidates": c.mean(axis=1),
                "unique_true_match": ((c == 1) & t).mean(axis=1),
                "match_probability": prob.mean(axis=1),
            },
            index=self.index,
        )
        return out[self.attacked]

    def summary(self) -> str:
        return "\n".join(
            [
                "Match rates (Reiter & Mitra 2009), averaged over "
                f"{len(self.per_implicate)} implicate(s)",
                f"  keys: {', '.join(self.keys) or '(none)'}; synthesized targets known: "
                f"{', '.join(self.targets) or '(none)'}",
                f"  expected match risk {self.expected_match_risk:.4f} "
                f"({self.expected_match_rate:.4%} of attacked records)",
                f"  true match rate {self.true_match_rate:.4%}; false match rate "
                f"{self.false_match_rate:.4%}; unique matches {self.n_unique_matches:g}",
            ]
        )

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def _split_columns(
    conf: pd.DataFrame,
    columns: list[str],
    radius: float | Mapping[str, float],
    schema: Schema | Mapping[str, Any] | None,
) -> tuple[list[str], list[str], dict[str, float]]:
    """Exactly matched columns and radius-matched numeric columns with their radii."""
    sch = infer_schema(conf[columns], overrides=_subset_overrides(schema, columns))
    if isinstance(radius, Mapping):
        unknown = [c for c in radius if c not in columns]
        if unknown:
            raise ParameterError(
                f"parameter 'radius': names columns that are neither keys nor targets: {unknown}"
            )
    exact: list[str] = []
    near: list[str] = []
    radii: dict[str, float] = {}
    for c in columns:
        r = radius.get(c, 0.0) if isinstance(radius, Mapping) else radius
        try:
            r = float(r)
        except (TypeError, ValueError):
            raise ParameterError(
                f"parameter 'radius': the radius of '{c}' is not a number"
            ) from None
        if not np.isfinite(r) or r < 0:
            raise ParameterError(f"parameter 'radius': the radius of '{c}' must be finite, >= 0")
        if sch[c].is_numeric and r > 0:
            near.append(c)
            radii[c] = r
        else:
            exact.append(c)
    return exact, near, radii


def _subset_overrides(schema: Schema | Mapping[str, Any] | None, columns: list[str]) -> Any:
    if schema is None:
        return None
    cols = schema.columns if isinstance(schema, Schema) else schema
    return {c: v for c, v in cols.items() if c in columns}


@dask_backend
def match_rates(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str] | None = None,
    radius: float | Mapping[str, float] = 0.1,
    relative: bool = True,
    inclusive: bool = False,
    attacked: Sequence[int] | np.ndarray | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    npartitions: int | None = None,
) -> MatchRates:
    """Expected match risk, true and false match rates of a partially synthetic release.

    The intruder holds, for each attacked record i, its ``keys`` (not synthesized) and the true
    values of the synthesized ``targets``. The candidates of i in implicate l are the released
    rows agreeing with that knowledge: categorical columns (per the schema) exactly, numeric
    columns within the radius (``|z - x_i| < r·|x_i|``, or ``< r`` with ``relative=False``;
    ``<=`` with ``inclusive=True``; an exact hit always matches, so a zero value matches
    zero). Let c_i be their number and T_i = 1 when record i's own released row is among them.
    Reiter & Mitra (2009), as in the course and IdentificationRiskCalculation::

        expected match risk = sum_i T_i / c_i                  (records with c_i > 0)
        true match rate     = #{i : c_i = 1, T_i = 1} / n
        false match rate    = #{i : c_i = 1, T_i = 0} / #{i : c_i = 1}

    each per implicate and then averaged over implicates. n is the number of confidential
    records. Radius per column: pass a mapping column -> r; numeric columns without a radius
    (or with 0) are matched exactly. (IdentificationRiskCalculation uses ``r·x_i`` without the
    absolute value, so negative and zero values never match there; here they do, by |x_i| and
    the exact-hit rule.)

    Algorithm: exact columns form patterns (missing is a value of its own); the numeric columns
    form a box around x_i; candidates are counted per pattern with sorted searches
    (``synthguard.risk._balls``): O(n log n) for at most one numeric column, O(n log^2 n) for
    two (merge-sort tree), O(n log n + C) for more (C candidate pairs along the most selective
    column). No n x n matrix.

    Parameters
    ----------
    conf : confidential data.
    synthetic : partially synthetic release (rows aligned with ``conf``).
    keys : variables the intruder knows and that were not synthesized.
    targets : synthesized variables whose true values the intruder knows (None: none).
    radius : number or mapping column -> radius for numeric columns.
    relative, inclusive : radius type and boundary rule (see above).
    attacked : row positions (or a boolean mask) of the records the intruder has external data
        on (default: all). The true match rate still divides by all confidential records.
    schema : a Schema or kind overrides for the key/target columns (e.g. coded categories
        stored as numbers: ``{"Urban": "categorical"}``).

    Returns
    -------
    MatchRates

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"year": [2009, 2010, 2010], "club": ["a", "b", "b"]})
    >>> res = match_rates(conf, conf, keys=["year", "club"], schema={"year": "categorical"})
    >>> round(res.expected_match_risk, 4), round(res.true_match_rate, 4)
    (2.0, 0.3333)
    """
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    if set(keys_l) & set(targets_l):
        raise ParameterError("parameters 'keys' and 'targets': a column cannot be both")
    columns = keys_l + targets_l
    if not columns:
        raise ParameterError("parameter 'keys': name at least one column the intruder knows")
    check_columns(meta_of(conf), columns, name="conf", role="key/target")
    kw: dict[str, Any] = dict(columns=columns, radius=radius, relative=relative,
                              inclusive=inclusive, schema=schema)
    if any_dask(conf, synthetic):  # candidates share the exact columns: shuffled on them
        from synthguard.risk._on_dask.matching import match_parts

        parts = match_parts(conf, synthetic, npartitions=npartitions, **kw)
    else:
        parts = _match_parts(conf, synthetic, **kw)
    n, n_impl = parts["candidates"].shape
    mask = _attacked_mask(attacked, n)
    cand = np.where(mask[:, None], parts["candidates"], 0)
    own = parts["own"] & mask[:, None]
    rows = []
    for li in range(n_impl):
        c, t = cand[:, li], own[:, li]
        unique = c == 1
        n_unique = int(unique.sum())
        rows.append(
            {
                "expected_match_risk": float(np.sum(t / np.maximum(c, 1))),
                "true_match_rate": float(np.sum(unique & t)) / n if n else float("nan"),
                "false_match_rate": (
                    float(np.sum(unique & ~t)) / n_unique if n_unique else float("nan")
                ),
                "n_unique_matches": n_unique,
            }
        )
    per = pd.DataFrame(rows, index=pd.RangeIndex(n_impl, name="implicate"))
    n_att = int(mask.sum())
    emr = float(per["expected_match_risk"].mean())
    return MatchRates(
        expected_match_risk=emr,
        expected_match_rate=emr / n_att if n_att else float("nan"),
        true_match_rate=float(per["true_match_rate"].mean()),
        false_match_rate=float(per["false_match_rate"].mean()),
        n_unique_matches=float(per["n_unique_matches"].mean()),
        candidates=cand,
        own_match=own,
        attacked=mask,
        per_implicate=per,
        keys=tuple(keys_l),
        targets=tuple(targets_l),
        radius=parts["radius"],
        index=parts["index"],
    )


def _match_parts(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    columns: list[str],
    radius: float | Mapping[str, float],
    relative: bool,
    inclusive: bool,
    schema: Schema | Mapping[str, Any] | None,
) -> dict[str, Any]:
    """Every record's candidates c_i and own match T_i per implicate (before the attacked
    mask), the radii and the index, on pandas data."""
    frames = as_implicates(synthetic)
    check_rows(conf, frames, "synthetic")
    exact, near, radii = _split_columns(conf, columns, radius, schema)
    blocks.check_finite(conf, near)
    for li, frame in enumerate(frames):
        check_columns(frame, columns, name=f"synthetic implicate {li}", role="key/target")
    _, _, counts = blocks.release_counts(
        conf, frames, exact=exact, near=near,
        r=np.array([radii[c] for c in near]) if near else None, relative=relative,
        inclusive=inclusive, allow_missing=True,
    )
    cand = np.column_stack([inside for _, inside, _ in counts]).astype(np.int64)
    own = np.column_stack([own for _, _, own in counts])
    return {"candidates": cand, "own": own, "radius": radii, "index": conf.index}


def _attacked_mask(attacked: Sequence[int] | np.ndarray | None, n: int) -> np.ndarray:
    if attacked is None:
        return np.ones(n, dtype=bool)
    a = np.asarray(attacked)
    if a.dtype == bool:
        if a.shape != (n,):
            raise ParameterError(
                "parameter 'attacked': a boolean mask must have one entry per confidential row"
            )
        return a.copy()
    if a.size and (not np.issubdtype(a.dtype, np.integer) or a.min() < 0 or a.max() >= n):
        raise DataError(
            "parameter 'attacked': expected row positions 0..n-1 of the confidential data"
        )
    mask = np.zeros(n, dtype=bool)
    mask[a.astype(np.int64)] = True
    return mask
