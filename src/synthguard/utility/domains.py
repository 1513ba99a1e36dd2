"""Survey-weighted estimates by domain on the confidential data and on the release: weighted
proportions of categorical variables, means, totals and quantiles of numeric ones, with
design-based standard errors, their differences and interval overlaps (how survey users
publish figures: by region × sex, age group × race; Lumley 2010, ch. 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import Schema
from synthguard.errors import DataError, ParameterError
from synthguard.utility._compare import comparison_columns
from synthguard.utility._inputs import category_codes, check_level, numeric_values, resolve
from synthguard.utility._metric import MetricInfo, ResultDisplay
from synthguard.utility._survey import SurveyDesign, design_from, linearized_variance

__all__ = ["DomainEstimates", "domain_estimates"]

NUMERIC_STATISTICS = ("mean", "total")


@dataclass(frozen=True)
class DomainEstimates(ResultDisplay, Summarized):
    """Weighted estimates by domain on the confidential data and on the release.

    Attributes
    ----------
    table : one row per (domain, variable, statistic, level): the ``by`` columns, then
        ``variable``, ``statistic`` (``"proportion"``, ``"mean"``, ``"total"`` or ``"qNN"``),
        ``level`` (the category of a proportion, empty otherwise), ``n_conf`` (confidential
        records in the domain with the variable present), ``n_syn`` (the same, mean over
        implicates), ``conf_estimate``, ``conf_se``, ``conf_lower``, ``conf_upper``, the
        release's combined ``syn_estimate``, ``syn_se``, ``syn_df``, ``syn_lower``,
        ``syn_upper``, ``rule``, ``m``, ``difference`` (``syn_estimate - conf_estimate``),
        both interval overlaps, the SSO parts and ``std_difference``. Rows whose domain is
        missing from an implicate carry NaN release figures.
    implicates : one row per table row and implicate: ``row`` (the table's index),
        ``implicate``, ``estimate``, ``se``.
    by, weights, strata, clusters : the design as given.
    level : confidence level of the intervals.
    mean_overlap : mean Snoke overlap over the rows that have one.
    """

    table: pd.DataFrame
    implicates: pd.DataFrame
    by: tuple[str, ...]
    weights: str | None
    strata: str | None
    clusters: str | None
    level: float
    mean_overlap: float
    design_df: int = field(default=0)

    goal: ClassVar[str] = "maximize"
    min_value: ClassVar[float] = -np.inf
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "mean_overlap": MetricInfo(
            "mean_overlap", "maximize", -np.inf, 1.0,
            description="mean CI overlap of the domain estimates (Snoke et al. 2018)",
        ),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> str:
        n_dom = len(self.table.drop_duplicates(list(self.by))) if self.by else 1
        w = f"weighted by '{self.weights}'" if self.weights else "unweighted"
        return (
            f"{len(self.table)} domain estimates over {n_dom} domain(s) ({w}): mean CI overlap "
            f"{self.mean_overlap:.3f} ({self.level:.0%} intervals)"
        )


def _quantile_p(q: float) -> float:
    p = float(q)
    if not 0.0 < p < 1.0:
        raise ParameterError(
            "parameter 'quantiles': expected probabilities strictly between 0 and 1, e.g. 0.5"
        )
    return p


def _label(p: float) -> str:
    return f"q{100 * p:g}"


def _domain_index(by: list[str], conf: pd.DataFrame) -> pd.MultiIndex | None:
    if not by:
        return None
    keys = conf[by].astype(object).dropna().drop_duplicates()
    if keys.empty:
        raise DataError(
            f"parameter 'by': the columns {by} have no record without a missing value"
        )
    idx = pd.MultiIndex.from_frame(keys)
    try:
        return idx.sort_values()
    except TypeError:
        return idx


def _domain_codes(df: pd.DataFrame, by: list[str], index: pd.MultiIndex | None) -> np.ndarray:
    if index is None:
        return np.zeros(len(df), dtype=np.int64)
    keys = pd.MultiIndex.from_frame(df[by].astype(object))
    codes = np.asarray(index.get_indexer(keys), dtype=np.int64)
    codes[df[by].isna().any(axis=1).to_numpy()] = -1
    return codes


def _weighted_quantiles(
    y: np.ndarray, w: np.ndarray, dom: np.ndarray, n_dom: int, p: float
) -> np.ndarray:
    """R survey's ``qrule = "math"``: the smallest value ``x`` with ``Σ_{y_i ≤ x} w_i ≥ p W``
    within each domain (records with zero weight left out)."""
    out = np.full(n_dom, np.nan)
    keep = (dom >= 0) & (w > 0)
    y, w, dom = y[keep], w[keep], dom[keep]
    order = np.lexsort((y, dom))
    y, w, dom = y[order], w[order], dom[order]
    starts = np.searchsorted(dom, np.arange(n_dom), side="left")
    ends = np.searchsorted(dom, np.arange(n_dom), side="right")
    for d in range(n_dom):
        a, b = starts[d], ends[d]
        if a == b:
            continue
        cw = np.cumsum(w[a:b])
        total = cw[-1]
        # survey's qs(): pos = last index with cumw <= pW; x[pos] when cumw[pos] = pW, else
        # the next value (and the first value when no cumulative weight is <= pW)
        below = np.flatnonzero(cw <= p * total)
        pos = int(below[-1]) if below.size else 0
        if below.size and p - cw[pos] / total != 0 and pos + 1 < b - a:
            pos += 1
        out[d] = y[a + pos]
    return out


def _domain_df(design: SurveyDesign, dom: np.ndarray, n_dom: int) -> np.ndarray:
    """Per domain: PSUs with a record in it minus strata with a record in it (survey's
    ``degf`` of the domain's subset design)."""
    keep = dom >= 0
    psu_pairs = np.unique(design.psu[keep] * n_dom + dom[keep])
    n_psu = np.bincount(psu_pairs % n_dom, minlength=n_dom)
    st = design.stratum_of_psu[psu_pairs // n_dom]
    st_pairs = np.unique(st * n_dom + psu_pairs % n_dom)
    n_st = np.bincount(st_pairs % n_dom, minlength=n_dom)
    return n_psu - n_st


@dataclass(frozen=True)
class _Spec:
    variable: str
    numeric: bool
    levels: list[Any]  # categorical: the levels (codes 0..L-1); numeric: unused
    quantiles: tuple[float, ...]
    statistics: tuple[str, ...]

    def rows(self) -> list[tuple[str, str]]:
        """(statistic, level) per estimand of one domain."""
        if self.numeric:
            return [(s, "") for s in self.statistics] + [(_label(p), "") for p in self.quantiles]
        return [("proportion", str(lv)) for lv in self.levels]


def _estimate(
    df: pd.DataFrame,
    design: SurveyDesign,
    dom: np.ndarray,
    n_dom: int,
    spec: _Spec,
    codes: np.ndarray | None,
    level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Estimates, variances, lower and upper limits (shape (k, n_dom)) and record counts
    (n_dom,) of one variable in one data set."""
    from scipy import stats

    w = design.weights
    if spec.numeric:
        y = numeric_values(df[spec.variable], spec.variable)
        present = ~np.isnan(y)
    else:
        assert codes is not None
        present = codes < len(spec.levels)  # the last code is missing / unknown
        y = codes.astype(float)
    g = np.where(present, dom, -1)
    inside = g >= 0
    gi = np.where(inside, g, 0)
    n_rec = np.bincount(g[inside], minlength=n_dom).astype(float)
    wsum = np.bincount(g[inside], weights=w[inside], minlength=n_dom)
    z_crit = float(stats.norm.ppf(0.5 + level / 2))
    ests, vars_, los, his = [], [], [], []

    def ratio(indicator_or_y: np.ndarray) -> None:
        yv = np.where(inside, indicator_or_y, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            est = np.bincount(g[inside], weights=(w * yv)[inside], minlength=n_dom) / wsum
            z = np.where(inside, w * (yv - est[gi]) / wsum[gi], 0.0)
        v = linearized_variance(design, z, g, n_dom)
        v = np.where(wsum > 0, v, np.nan)
        se = np.sqrt(v)
        ests.append(est)
        vars_.append(v)
        los.append(est - z_crit * se)
        his.append(est + z_crit * se)

    if spec.numeric:
        yz = np.where(present, y, 0.0)
        for s in spec.statistics:
            if s == "mean":
                ratio(yz)
            else:  # total: z_i = w_i y_i
                est = np.bincount(g[inside], weights=(w * yz)[inside],
                                  minlength=n_dom).astype(float)
                v = linearized_variance(design, np.where(inside, w * yz, 0.0), g, n_dom)
                est = np.where(n_rec > 0, est, np.nan)
                v = np.where(n_rec > 0, v, np.nan)
                se = np.sqrt(v)
                ests.append(est)
                vars_.append(v)
                los.append(est - z_crit * se)
                his.append(est + z_crit * se)
        if spec.quantiles:
            dfree = _domain_df(design, g, n_dom).astype(float)
        for p in spec.quantiles:
            qhat = _weighted_quantiles(yz, w, g, n_dom, p)
            # Woodruff (1952) as survey's svyquantile (interval.type = "mean"): an interval
            # for F(q̂) by linearization, mapped back through the weighted quantile function
            ind = (yz <= np.where(inside, qhat[gi], -np.inf)).astype(float)
            with np.errstate(divide="ignore", invalid="ignore"):
                fhat = np.bincount(g[inside], weights=(w * ind)[inside], minlength=n_dom) / wsum
                z = np.where(inside, w * (ind - fhat[gi]) / wsum[gi], 0.0)
            fse = np.sqrt(linearized_variance(design, z, g, n_dom))
            with np.errstate(invalid="ignore"):
                crit = np.where(dfree > 0, stats.t.ppf(0.5 + level / 2, np.maximum(dfree, 1)),
                                np.nan)
            lo = np.full(n_dom, np.nan)
            hi = np.full(n_dom, np.nan)
            for d in range(n_dom):
                if not np.isfinite(qhat[d]) or not np.isfinite(crit[d]):
                    continue
                pl, pu = fhat[d] - crit[d] * fse[d], fhat[d] + crit[d] * fse[d]
                mask = g == d
                if 0.0 <= pl:
                    lo[d] = _weighted_quantiles(yz[mask], w[mask], np.zeros(mask.sum(), int),
                                                1, min(pl, 1.0))[0]
                if pu <= 1.0:
                    hi[d] = _weighted_quantiles(yz[mask], w[mask], np.zeros(mask.sum(), int),
                                                1, max(pu, 0.0))[0]
            with np.errstate(invalid="ignore"):
                se = (hi - lo) / (2 * crit)
            ests.append(qhat)
            vars_.append(se * se)
            los.append(lo)
            his.append(hi)
    else:
        assert codes is not None
        for k in range(len(spec.levels)):
            ratio(np.asarray(codes == k, dtype=float))
    return (np.vstack(ests), np.vstack(vars_), np.vstack(los), np.vstack(his), n_rec)


def domain_estimates(
    conf: Any,
    synthetic: Any,
    variables: Sequence[str],
    by: Sequence[str] | None = None,
    *,
    weights: str | None = None,
    strata: str | None = None,
    clusters: str | None = None,
    quantiles: Sequence[float] = (0.5,),
    statistics: Sequence[str] = NUMERIC_STATISTICS,
    schema: Schema | None = None,
    method: Literal["partial", "full", "proper", "none"] = "partial",
    level: float = 0.95,
    lonely_psu: Literal["fail", "certainty"] = "fail",
) -> DomainEstimates:
    """Survey-weighted estimates by domain on the confidential data and on each implicate.

    For each domain ``d`` (a combination of the values of the ``by`` columns observed in the
    confidential data; the whole file when ``by`` is empty) and weights ``w_i``:

    * categorical variable, level ``k``: the proportion ``p̂_dk = Σ_{i∈d} w_i 1[y_i = k] /
      Σ_{i∈d} w_i``, linearized as ``z_i = 1[i∈d] w_i (1[y_i = k] - p̂_dk) / Ŵ_d``;
    * numeric variable: the mean ``ȳ_d = Σ_{i∈d} w_i y_i / Ŵ_d`` (``z_i = 1[i∈d] w_i (y_i -
      ȳ_d)/Ŵ_d``), the total ``t̂_d = Σ_{i∈d} w_i y_i`` (``z_i = 1[i∈d] w_i y_i``) and the
      quantiles ``q̂_p``, the smallest value whose weighted share at or below it reaches ``p``
      (R survey's ``qrule = "math"``), with Woodruff's (1952) interval: the linearized
      interval for the weighted share at or below ``q̂_p`` (t with the domain's design degrees
      of freedom) mapped back through the quantile function; its standard error is the
      interval's width over ``2 t`` (as ``survey::svyquantile``).

    Variances are design-based: Taylor linearization with strata and clusters (with
    replacement at the first stage; see :mod:`synthguard.utility._survey`), the domain kept
    inside the full design (Lumley 2010, sec. 2.2). Intervals of proportions, means and totals
    are normal, as R survey's ``confint``. Missing values of a variable put the record out of
    its domain for that variable (survey's ``na.rm = TRUE``); records with a missing ``by``
    value are in no domain.

    On the release each implicate is estimated the same way, with its own ``weights``,
    ``strata`` and ``clusters`` columns when it carries them; an implicate without the weight
    column gives every record the weight ``Σ w_conf / n_syn`` (totals on the confidential
    scale), one without strata or clusters is taken as a simple random sample. The
    implicates' estimates and variances are combined with :func:`synthguard.utility.combine`
    (``method``; one implicate: the ``"simple"`` rule unless ``method = "proper"``) and
    compared with the confidential interval (both overlaps, SSO, standardised difference).

    Without weights, strata and clusters the estimates are the unweighted ones: the domain's
    share and mean, and for a mean the standard error ``√(n/(n-1) Σ_{i∈d}(y_i - ȳ_d)²) /
    n_d`` (``s/√n`` for the whole file).

    Parameters
    ----------
    conf, synthetic : confidential DataFrame and the release (a DataFrame or implicates).
    variables : columns to estimate (categorical: proportions; numeric: ``statistics`` and
        ``quantiles``).
    by : categorical columns defining the domains (default: none, one domain).
    weights, strata, clusters : design columns of the confidential data (clusters are the
        primary sampling units, nested in strata).
    quantiles : probabilities of the quantiles of numeric variables (``()`` for none).
    statistics : of numeric variables, any of ``"mean"`` and ``"total"``.
    schema : column kinds (default: inferred from ``conf``).
    method : combining rule for the implicates (:func:`synthguard.utility.combine`).
    level : confidence level.
    lonely_psu : a stratum with one PSU: ``"fail"`` (DataError) or ``"certainty"`` (it
        contributes no variance, R survey's option of that name).

    Returns
    -------
    DomainEstimates

    Raises
    ------
    ParameterError
        Unknown statistic or method, quantiles outside (0, 1), a level outside (0, 1).
    DataError
        Missing columns, non-numeric or negative weights, missing design values, a stratum
        with one PSU under ``lonely_psu = "fail"``.
    """
    level = check_level(level)
    if method not in ("partial", "full", "proper", "none"):
        raise ParameterError(
            f"parameter 'method': expected 'partial', 'full', 'proper' or 'none', got {method!r}"
        )
    stats_ = tuple(statistics)
    for s in stats_:
        if s not in NUMERIC_STATISTICS:
            raise ParameterError(
                f"parameter 'statistics': expected 'mean' and/or 'total', got {s!r}"
            )
    qs = tuple(_quantile_p(q) for q in quantiles)
    variables = list(variables)
    by_cols = list(by) if by is not None else []
    if not variables:
        raise ParameterError("parameter 'variables': give at least one column to estimate")
    overlap = set(variables) & set(by_cols)
    if overlap:
        raise ParameterError(
            f"parameters 'variables' and 'by': column(s) {sorted(overlap)} appear in both; "
            "a domain variable cannot also be estimated within its own domains"
        )
    conf, imps, schema, _ = resolve(conf, synthetic, schema, [*variables, *by_cols])
    for name, dcol in (("weights", weights), ("strata", strata), ("clusters", clusters)):
        if dcol is not None and dcol not in conf.columns:
            raise DataError(
                f"parameter '{name}': column '{dcol}' is not in the confidential data"
            )
    conf_design = design_from(conf, weights, strata, clusters, where="confidential data",
                              lonely_psu=lonely_psu)
    total_w = float(conf_design.weights.sum())
    imp_designs = [
        design_from(df, weights, strata, clusters, where=f"synthetic implicate {i}",
                    default_weight=total_w / len(df), lonely_psu=lonely_psu)
        for i, df in enumerate(imps)
    ]
    index = _domain_index(by_cols, conf)
    n_dom = 1 if index is None else len(index)
    conf_dom = _domain_codes(conf, by_cols, index)
    imp_doms = [_domain_codes(df, by_cols, index) for df in imps]

    blocks: list[pd.DataFrame] = []
    imp_rows: list[pd.DataFrame] = []
    row0 = 0
    for v in variables:
        col = schema[v]
        if col.is_numeric:
            spec = _Spec(v, True, [], qs, stats_)
            ccodes: np.ndarray | None = None
            icodes: list[np.ndarray | None] = [None] * len(imps)
        else:
            all_codes, _, levels = category_codes(
                [conf[v], *[df[v] for df in imps]], col.levels
            )
            spec = _Spec(v, False, levels, (), ())
            ccodes, icodes = all_codes[0], list(all_codes[1:])
        labels = spec.rows()
        if not labels:
            continue
        ce, cv, clo, chi, cn = _estimate(conf, conf_design, conf_dom, n_dom, spec, ccodes, level)
        per = [
            _estimate(df, d, dm, n_dom, spec, ic, level)
            for df, d, dm, ic in zip(imps, imp_designs, imp_doms, icodes, strict=True)
        ]
        k = len(labels)
        # rows: statistic-major within a domain; flatten (k, n_dom) domain-major
        def flat(a: np.ndarray) -> np.ndarray:
            return a.T.reshape(-1)

        q = np.vstack([flat(r[0]) for r in per])
        var = np.vstack([flat(r[1]) for r in per])
        ok = np.isfinite(q).all(axis=0) & np.isfinite(var).all(axis=0)
        ok &= np.isfinite(flat(ce)) & np.isfinite(flat(cv))
        n_rows = k * n_dom
        frame = pd.DataFrame(index=range(n_rows))
        if index is not None:
            dom_vals = index.to_frame(index=False)
            rep = dom_vals.loc[np.repeat(np.arange(n_dom), k)].reset_index(drop=True)
            for b in by_cols:
                frame[b] = rep[b].to_numpy()
        frame["variable"] = v
        frame["statistic"] = [lab[0] for lab in labels] * n_dom
        frame["level"] = [lab[1] for lab in labels] * n_dom
        frame["n_conf"] = np.repeat(cn, k).astype(np.int64)
        frame["n_syn"] = np.repeat(np.mean([r[4] for r in per], axis=0), k)
        cmp_cols = [
            "conf_estimate", "conf_se", "conf_lower", "conf_upper", "syn_estimate", "syn_se",
            "syn_df", "syn_lower", "syn_upper", "rule", "m", "overlap_snoke", "overlap_dr",
            "sign_match", "significance_match", "overlap_match", "sso_match",
            "std_difference",
        ]
        cmp = pd.DataFrame(np.nan, index=range(n_rows), columns=cmp_cols).astype(object)
        cmp["conf_estimate"] = flat(ce)
        cmp["conf_se"] = np.sqrt(flat(cv))
        cmp["conf_lower"] = flat(clo)
        cmp["conf_upper"] = flat(chi)
        cmp["m"] = len(imps)
        # a point estimate without a usable variance (a quantile whose Woodruff interval
        # leaves [0, 1]) is still averaged over the implicates; its interval stays missing
        q_ok = np.isfinite(q).all(axis=0)
        cmp["syn_estimate"] = np.where(q_ok, np.nanmean(np.where(q_ok, q, 0.0), axis=0), np.nan)
        if ok.any():
            sub = comparison_columns(
                flat(ce)[ok], np.sqrt(flat(cv))[ok], flat(clo)[ok], flat(chi)[ok],
                q[:, ok], var[:, ok], method, len(conf),
                int(np.mean([len(df) for df in imps])), level,
            )
            # quantiles keep their Woodruff confidential interval; their release interval is
            # the combined normal/t one from the Woodruff standard errors
            for c in cmp_cols:
                vals = cmp[c].to_numpy(dtype=object).copy()
                vals[np.flatnonzero(ok)] = sub[c].to_numpy(dtype=object)
                cmp[c] = vals
        for c in cmp_cols:
            if c not in ("rule", "sign_match", "significance_match", "overlap_match",
                         "sso_match"):
                cmp[c] = pd.to_numeric(cmp[c], errors="coerce")
        frame = pd.concat([frame, cmp], axis=1)
        frame.insert(list(frame.columns).index("syn_upper") + 1, "difference",
                     frame["syn_estimate"] - frame["conf_estimate"])
        frame.index = pd.RangeIndex(row0, row0 + n_rows)
        blocks.append(frame)
        for i, r in enumerate(per):
            imp_rows.append(pd.DataFrame({
                "row": np.arange(row0, row0 + n_rows),
                "implicate": i,
                "estimate": flat(r[0]),
                "se": np.sqrt(flat(r[1])),
            }))
        row0 += n_rows
    if not blocks:
        raise DataError("domain_estimates: nothing to estimate for the given variables")
    table = pd.concat(blocks)
    implicates = pd.concat(imp_rows, ignore_index=True)
    ov = pd.to_numeric(table["overlap_snoke"], errors="coerce")
    mean_ov = float(ov.mean()) if ov.notna().any() else float("nan")
    return DomainEstimates(
        table, implicates, tuple(by_cols), weights, strata, clusters, level, mean_ov,
        conf_design.degrees_of_freedom,
    )
