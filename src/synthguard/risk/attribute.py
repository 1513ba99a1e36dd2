"""Attribute disclosure: how well an intruder predicts sensitive targets from the key variables
using the release (predictive accuracy, the course section 3.16.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import Schema, as_implicates, infer_schema
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.errors import ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import PatternEncoder, check_columns

__all__ = ["AttributeDisclosure", "attribute_disclosure"]


@dataclass(frozen=True, eq=False)
class AttributeDisclosure(Summarized):
    """Predictive accuracy of the key-variable attack on every target.

    Attributes
    ----------
    table : one row per (target, measure): the attack built on the release (mean over
        implicates), on the release's marginal (keys ignored), on the holdout (when given), and
        the excess risk of the release over the holdout (or over the marginal without holdout),
        signed so that a positive excess means the release discloses more.
    max_excess : the largest excess among the share measures (accuracy, within tolerance) in
        ``table`` (0 or less: the release teaches the intruder nothing beyond the baseline).
    """

    table: pd.DataFrame
    max_excess: float
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    tolerance: float
    n_implicates: int

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> str:
        lines = [
            f"Attribute disclosure from keys {', '.join(self.keys)} "
            f"({self.n_implicates} implicate(s))"
        ]
        for _, row in self.table.iterrows():
            hold = "" if pd.isna(row["holdout"]) else f", holdout {row['holdout']:.4f}"
            lines.append(
                f"  {row['target']} {row['measure']}: release {row['release']:.4f}, "
                f"marginal {row['marginal']:.4f}{hold}; excess {row['excess']:+.4f}"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def _attack(
    conf: pd.DataFrame, source: pd.DataFrame, keys: list[str], target: str, categorical: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Predictions for conf's rows from ``source`` by key cell, and from its marginal."""
    enc = PatternEncoder.fit(source, keys)
    pat = enc.transform(conf)
    s = source[target].reset_index(drop=True)
    if categorical:
        codes, levels = pd.factorize(s)  # missing -> -1, excluded
        ok = codes >= 0
        cell = np.full(enc.n_patterns, -1, dtype=np.int64)
        if ok.any():
            nlev = len(levels)
            counts = np.bincount(enc.codes[ok] * nlev + codes[ok], minlength=enc.n_patterns * nlev)
            counts = counts.reshape(enc.n_patterns, nlev)
            has = counts.sum(axis=1) > 0
            cell[has] = counts[has].argmax(axis=1)  # ties: the first level seen
            marginal = int(np.bincount(codes[ok], minlength=nlev).argmax())
        else:
            marginal = -1
        pred = np.where(pat >= 0, cell[np.maximum(pat, 0)], -1)
        pred = np.where(pred >= 0, pred, marginal)
        lev = np.asarray(levels, dtype=object)
        out = np.full(len(conf), None, dtype=object)
        has_pred = pred >= 0
        out[has_pred] = lev[pred[has_pred]]
        marg = np.full(len(conf), lev[marginal] if marginal >= 0 else None, dtype=object)
        return out, marg
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    ok = np.isfinite(v)
    sums = np.bincount(enc.codes[ok], weights=v[ok], minlength=enc.n_patterns)
    cnt = np.bincount(enc.codes[ok], minlength=enc.n_patterns)
    means = np.divide(sums, cnt, out=np.full(enc.n_patterns, np.nan), where=cnt > 0)
    marginal_mean = float(v[ok].mean()) if ok.any() else float("nan")
    pred = np.where(pat >= 0, means[np.maximum(pat, 0)], np.nan)
    pred = np.where(np.isnan(pred), marginal_mean, pred)
    return pred, np.full(len(conf), marginal_mean)


def _score_cat(truth: pd.Series, pred: np.ndarray) -> float:
    t = truth.reset_index(drop=True)
    ok = t.notna().to_numpy()
    if not ok.any():
        return float("nan")
    tv = t.astype(object).to_numpy()[ok]
    return float(np.mean([a == b for a, b in zip(tv, pred[ok])]))


def _score_num(truth: np.ndarray, pred: np.ndarray, tol: float) -> tuple[float, float]:
    ok = np.isfinite(truth) & np.isfinite(pred)
    if not ok.any():
        return float("nan"), float("nan")
    err = pred[ok] - truth[ok]
    rmse = float(np.sqrt(np.mean(err**2)))
    within = float(np.mean(np.abs(err) <= tol * np.abs(truth[ok])))
    return rmse, within


@dask_backend
def attribute_disclosure(
    conf: pd.DataFrame,
    synthetic: Any,
    keys: Sequence[str],
    targets: str | Sequence[str],
    holdout: pd.DataFrame | None = None,
    *,
    tolerance: float = 0.1,
    schema: Schema | Mapping[str, Any] | None = None,
) -> AttributeDisclosure:
    """Predictive accuracy of sensitive targets from the keys, using the release.

    The intruder knows each confidential record's ``keys`` and predicts each target from the
    released records with the same key values (their most frequent category, or their mean for
    a numeric target), falling back on the release's marginal when no released record shares
    the keys. Measures over the confidential records (the course, section 3.16.1):

    * categorical target: accuracy (share predicted exactly);
    * numeric target: RMSE and the share predicted within ``tolerance`` (relative:
      ``|prediction - y| <= tolerance·|y|``).

    Baselines: the same intruder ignoring the keys (the release's marginal), and, when a
    ``holdout`` (records of the same population not used for the release) is given, the same
    attack built on the holdout: what anyone could learn from fresh data. ``excess`` is the
    release's advantage over the holdout (or over the marginal without a holdout): accuracy and
    within-tolerance share differences, and the RMSE reduction. Results are averaged over
    implicates.

    Keys are matched exactly (missing is a value of its own); bin continuous keys first.
    Target kinds come from :func:`synthguard.data.infer_schema` (``schema`` overrides).

    Parameters
    ----------
    conf : confidential data (the records attacked).
    synthetic : the release.
    keys : variables the intruder knows.
    targets : sensitive variables to predict.
    holdout : optional records of the population not used for the release.
    tolerance : relative tolerance for numeric targets (>= 0).
    schema : Schema or kind overrides.

    Returns
    -------
    AttributeDisclosure
    """
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    if not targets_l:
        raise ParameterError("parameter 'targets': name at least one sensitive variable")
    if set(keys_l) & set(targets_l):
        raise ParameterError("parameters 'keys' and 'targets': a column cannot be both")
    if not np.isfinite(tolerance) or tolerance < 0:
        raise ParameterError("parameter 'tolerance': expected a finite number >= 0")
    check_columns(meta_of(conf), keys_l + targets_l, name="conf", role="key/target")
    if any_dask(conf, synthetic, holdout):  # from cell counts made on the workers
        if holdout is not None:
            raise ParameterError(
                "parameter 'holdout': the holdout baseline runs on pandas data; on Dask "
                "leave it out (or pass pandas frames)"
            )
        from synthguard.risk._on_dask.disclosure import attribute_scores

        scores = attribute_scores(conf, synthetic, keys_l, targets_l, tolerance=tolerance,
                                  schema=schema)
    else:
        scores = _scores(conf, synthetic, keys_l, targets_l, holdout, tolerance, schema)
    return attribute_result(scores, keys_l, targets_l, tolerance)


#: per target: the release's scores per implicate, the marginal's, the holdout's (or None)
Scores = list[tuple[str, list[dict[str, float]], list[dict[str, float]], dict[str, float] | None]]


def attribute_result(scores: Scores, keys: list[str], targets: list[str],
                     tolerance: float) -> AttributeDisclosure:
    """The result of :func:`attribute_disclosure` from every target's scores (either
    backend): means over implicates, and the excess over the holdout (or the marginal)."""
    rows = []
    for t, rel, marg, hold in scores:
        for measure in rel[0]:
            r = float(np.mean([x[measure] for x in rel]))
            mg = float(np.mean([x[measure] for x in marg]))
            h = float(hold[measure]) if hold is not None else float("nan")
            base = h if hold is not None else mg
            excess = (base - r) if measure == "rmse" else (r - base)
            rows.append(
                {
                    "target": t,
                    "measure": measure,
                    "release": r,
                    "marginal": mg,
                    "holdout": h,
                    "excess": excess,
                }
            )
    table = pd.DataFrame(rows)
    return AttributeDisclosure(
        table=table,
        max_excess=_max_share_excess(table),
        keys=tuple(keys),
        targets=tuple(targets),
        tolerance=float(tolerance),
        n_implicates=len(scores[0][1]) if scores else 0,
    )


def _scores(conf: pd.DataFrame, synthetic: Any, keys_l: list[str], targets_l: list[str],
            holdout: pd.DataFrame | None, tolerance: float,
            schema: Schema | Mapping[str, Any] | None) -> Scores:
    frames = as_implicates(synthetic)
    for i, f in enumerate(frames):
        check_columns(f, keys_l + targets_l, name=f"synthetic implicate {i}", role="key/target")
    if holdout is not None:
        check_columns(holdout, keys_l + targets_l, name="holdout", role="key/target")
    overrides = None
    if schema is not None:
        src = schema.columns if isinstance(schema, Schema) else schema
        overrides = {c: v for c, v in src.items() if c in targets_l}
    sch = infer_schema(conf[targets_l], overrides=overrides)
    out: Scores = []
    for t in targets_l:
        cat = sch[t].is_categorical
        truth = conf[t]
        tnum = None if cat else truth.to_numpy(dtype=np.float64, na_value=np.nan)

        def score(
            pred: np.ndarray,
            cat: bool = cat,
            truth: pd.Series = truth,
            tnum: np.ndarray | None = tnum,
        ) -> dict[str, float]:
            if cat:
                return {"accuracy": _score_cat(truth, pred)}
            assert tnum is not None
            rmse, within = _score_num(tnum, pred.astype(np.float64), tolerance)
            return {"rmse": rmse, "within_tolerance": within}

        rel: list[dict[str, float]] = []
        marg: list[dict[str, float]] = []
        for f in frames:
            p, m = _attack(conf, f, keys_l, t, cat)
            rel.append(score(p))
            marg.append(score(m))
        hold = score(_attack(conf, holdout, keys_l, t, cat)[0]) if holdout is not None else None
        out.append((t, rel, marg, hold))
    return out


def _max_share_excess(table: pd.DataFrame) -> float:
    shares = table[table["measure"] != "rmse"]["excess"] if len(table) else pd.Series([])
    shares = shares.dropna()
    return float(shares.max()) if len(shares) else float("nan")
