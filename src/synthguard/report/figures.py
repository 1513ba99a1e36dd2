"""The report's figures, drawn with matplotlib's Agg canvas and embedded as base64 PNG.

Figures are raster images (no SVG whose text could carry values) and follow the
rules of :mod:`synthguard.report.safety`:

* histograms of a numeric variable use bins between *rounded* 1% and 99%
  quantiles of the confidential data; values beyond them fall into the two edge
  bins, so the axis never shows an extreme value; bins holding fewer than
  ``min_cell`` records (confidential or released, the release may copy records)
  are drawn empty;
* the ECDF panel beside a histogram is the cumulative share of the *same* bins (tails
  pooled, small bins emptied), so it shows no record the histogram suppresses, and its
  title states the tail quantiles it really uses;
* category bars never name a level with fewer than ``min_cell`` confidential records
  (its records are pooled under "(suppressed)");
* no scatter of raw confidential values is drawn; the one scatter (whack-a-mole) plots
  risk probabilities, as Hu, Savitsky & Williams' Figures 3 and 9 do.

The pyplot state machine is not used, so building a report never changes the
user's matplotlib backend or open figures.
"""

from __future__ import annotations

import base64
import io
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from synthguard.report.safety import SUPPRESSED, Redactor, round_sig, tail_bounds
from synthguard.risk.profile import whack_a_mole as risk_whack_a_mole

__all__ = [
    "DATA_COLOR",
    "category_bars",
    "correlation_difference",
    "dcr_ecdf",
    "importance_bars",
    "metric_bars",
    "numeric_overlay",
    "palette",
    "regression_ci",
    "risk_violins",
    "to_png",
    "whack_a_mole",
]

DATA_COLOR = "#333333"
_PALETTE = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#1f78b4"]


def palette(names: Sequence[str]) -> dict[str, str]:
    """A colour per release, the same in every figure."""
    return {n: _PALETTE[i % len(_PALETTE)] for i, n in enumerate(names)}


def _figure(width: float = 7.0, height: float = 3.2) -> Figure:
    fig = Figure(figsize=(width, height), dpi=90, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def to_png(fig: Figure) -> str:
    """The figure as a base64-encoded PNG string (for ``<img src="data:image/png;base64,...">``)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _numeric(s: pd.Series) -> np.ndarray:
    v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    return v[np.isfinite(v)]


def _edges(conf: np.ndarray, is_count: bool, min_cell: int = 10) -> np.ndarray | None:
    """Bin edges between the rounded tail quantiles of :func:`~synthguard.report.safety.tail_bounds`
    (``min_cell`` records beyond each): the 1% and 99% quantiles on large data, closer to the
    centre on small data (None when fewer than ``2 * min_cell`` values)."""
    lo, hi, _ = tail_bounds(conf, min_cell)
    if not np.isfinite(lo) or not np.isfinite(hi):
        return None
    if hi <= lo:  # a spike (e.g. most values 0): a window around it, not the extremes
        span = max(abs(lo), 1.0) * 0.5
        lo, hi = lo - span, hi + span
    if is_count and hi - lo <= 40:
        return np.arange(np.floor(lo) - 0.5, np.ceil(hi) + 1.0, 1.0)
    return np.linspace(lo, hi, 31)


def _wrap(title: str, width: int = 48) -> str:
    """A panel title broken into lines of at most ``width`` characters (a long column name
    would run past the figure's edge and be cut off)."""
    return textwrap.fill(title, width=width, break_long_words=True)


def _tail_percent(n: int, min_cell: int) -> str:
    """The tail share of :func:`tail_bounds` as text: ``"1%"``, ``"2.5%"``."""
    p = max(0.01, min_cell / max(n, 1))
    return f"{round_sig(100 * p, 2):g}%"


def _binned_shares(values: np.ndarray, edges: np.ndarray, min_cell: float) -> np.ndarray:
    """Shares per bin with values beyond the edges pooled into the edge bins; small bins zeroed."""
    if values.size == 0:
        return np.zeros(len(edges) - 1)
    clipped = np.clip(values, edges[0], edges[-1])
    counts, _ = np.histogram(clipped, bins=edges)
    counts = counts.astype(float)
    counts[counts < min_cell] = 0.0
    return counts / values.size


def numeric_overlay(
    column: str,
    conf: pd.Series,
    releases: Mapping[str, list[pd.DataFrame]],
    colors: Mapping[str, str],
    *,
    is_count: bool = False,
    min_cell: int = 10,
) -> Figure | None:
    """Histogram (shares per bin) and ECDF of ``column``: the data against each release.

    The release's implicates are pooled; a bin's count threshold is ``min_cell`` per implicate.
    Returns None when the confidential column has fewer than ``2 * min_cell`` finite values.
    """
    cv = _numeric(conf)
    edges = _edges(cv, is_count, min_cell)
    if edges is None:
        return None
    centers = (edges[:-1] + edges[1:]) / 2
    width = edges[1] - edges[0]
    fig = _figure(8.0, 2.9)
    ax_h, ax_e = fig.subplots(1, 2)

    def draw(values: np.ndarray, cell: float, **style: object) -> None:
        shares = _binned_shares(values, edges, cell)
        ax_h.step(centers, shares, where="mid", **style)  # type: ignore[arg-type]
        # the cumulative of the same suppressed bins: a step at each bin's right edge, flat
        # through an emptied bin, so no single record shows as a step of its own
        ax_e.step(edges, np.concatenate([[0.0], np.cumsum(shares)]), where="post",
                  **style)  # type: ignore[arg-type]

    draw(cv, min_cell, color=DATA_COLOR, lw=2.0, label="data")
    for name, impl in releases.items():
        if column not in impl[0].columns:
            continue
        rv = np.concatenate([_numeric(df[column]) for df in impl])
        if rv.size == 0:
            continue
        draw(rv, min_cell * len(impl), color=colors.get(name), lw=1.2, label=name)
    tail = _tail_percent(cv.size, min_cell)
    ax_h.set_xlim(edges[0] - width / 2, edges[-1] + width / 2)
    ax_e.set_xlim(edges[0] - width / 2, edges[-1] + width / 2)
    ax_h.set_title(_wrap(f"{column}: share per bin (tails pooled at the edges)"), fontsize=8.5)
    ax_e.set_title(_wrap(f"{column}: cumulative share of the same bins (rounded {tail} and "
                         f"{100 - float(tail[:-1]):g}% quantiles)"), fontsize=8.5)
    ax_e.set_ylim(0, 1.02)
    for ax in (ax_h, ax_e):
        ax.tick_params(labelsize=7)
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    ax_e.legend(fontsize=7, loc="lower right")
    return fig


def _level_shares(s: pd.Series, redactor: Redactor) -> pd.Series:
    counts = s.value_counts(dropna=False)
    labels = ["(missing)" if pd.isna(v) else (str(v) if redactor.is_safe(v) else SUPPRESSED)
              for v in counts.index]
    counts.index = pd.Index(labels)
    counts = counts.groupby(level=0, sort=False).sum()
    return counts / max(len(s), 1)


def category_bars(
    column: str,
    conf: pd.Series,
    releases: Mapping[str, list[pd.DataFrame]],
    colors: Mapping[str, str],
    redactor: Redactor,
    *,
    max_levels: int = 15,
) -> Figure:
    """Grouped bars of the share of each level: the data and each release (implicates pooled).

    Levels with fewer than ``redactor.min_cell`` confidential records are pooled as
    "(suppressed)"; beyond ``max_levels`` the rarest safe levels are pooled as "(other)".
    """
    base = _level_shares(conf, redactor)
    keep = [lv for lv in base.sort_values(ascending=False).index if lv != SUPPRESSED]
    keep = keep[:max_levels]
    series: dict[str, pd.Series] = {"data": base}
    for name, impl in releases.items():
        if column in impl[0].columns:
            parts = [_level_shares(df[column], redactor) for df in impl]
            series[name] = pd.concat(parts, axis=1).fillna(0.0).mean(axis=1)
    rows = []
    for name, sh in series.items():
        kept = sh.reindex(keep).fillna(0.0)
        rest = float(sh.drop([k for k in keep if k in sh.index]).sum())
        row = kept.to_dict()
        if rest > 0 or SUPPRESSED in base.index:
            row["(other/suppressed)"] = rest
        rows.append(pd.Series(row, name=name))
    table = pd.DataFrame(rows).fillna(0.0)
    fig = _figure(8.0, 2.8)
    ax = fig.subplots()
    n = len(table)
    x = np.arange(table.shape[1])
    w = 0.8 / n
    for i, label in enumerate(table.index):
        heights = table.loc[label].to_numpy(dtype=float)
        ax.bar(x + (i - (n - 1) / 2) * w, heights, width=w,
               color=DATA_COLOR if label == "data" else colors.get(str(label)), label=str(label))
    ax.set_xticks(x, [str(c) for c in table.columns], fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("share", fontsize=8)
    ax.set_title(_wrap(f"{column}: share of each level", 90), fontsize=9)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)
    return fig


def correlation_difference(diffs: Mapping[str, pd.DataFrame]) -> Figure | None:
    """Heat maps of release-minus-data correlation differences, one panel per release."""
    diffs = {k: v for k, v in diffs.items() if v is not None and v.shape[0] >= 2}
    if not diffs:
        return None
    n = len(diffs)
    k = max(d.shape[0] for d in diffs.values())
    side = min(3.2, 0.35 * k + 1.6)
    fig = _figure(side * n + 0.8, side + 0.4)
    axes = np.atleast_1d(fig.subplots(1, n))
    im = None
    for ax, (name, d) in zip(axes, diffs.items()):
        vals = d.to_numpy(dtype=float)
        mask = np.triu(np.ones_like(vals, dtype=bool), k=0)
        shown = np.where(mask, np.nan, vals)
        im = ax.imshow(shown, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_xticks(range(d.shape[1]), [str(c) for c in d.columns], rotation=90, fontsize=6)
        ax.set_yticks(range(d.shape[0]), [str(c) for c in d.index], fontsize=6)
        ax.set_title(_wrap(str(name), 28), fontsize=9)
    if im is not None:
        fig.colorbar(im, ax=list(axes), shrink=0.8, label="release − data")
    return fig


def metric_bars(
    values: Mapping[str, Mapping[str, float | None]],
    labels: Mapping[str, str],
    colors: Mapping[str, str],
    *,
    reference: Mapping[str, float] | None = None,
) -> Figure | None:
    """One small bar panel per metric, one bar per release (missing values left out); at most
    five panels a row, so that a panel keeps room for its title and the release names."""
    metrics = [m for m in labels if any(v.get(m) is not None for v in values.values())]
    if not metrics:
        return None
    ncol = min(5, len(metrics))
    nrow = -(-len(metrics) // ncol)
    fig = _figure(2.1 * ncol + 0.5, 2.7 * nrow)
    axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
    for ax in axes[len(metrics):]:
        ax.set_visible(False)
    names = list(values)
    for ax, m in zip(axes, metrics):
        ys = [values[n].get(m) for n in names]
        xs = [i for i, y in enumerate(ys) if y is not None]
        ax.set_title(_wrap(labels[m], 24), fontsize=9)
        if all(float(ys[i] or 0.0) == 0.0 for i in xs):  # bars of height 0 are empty axes: say it
            ax.text(0.5, 0.5, _wrap(f"0 for every release measured ({len(xs)}): "
                                    f"nothing to plot", 22),
                    ha="center", va="center", fontsize=8, transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        ax.bar(xs, [float(ys[i]) for i in xs], color=[colors.get(names[i]) for i in xs])  # type: ignore[arg-type]
        ax.set_xticks(range(len(names)), [_wrap(str(n), 16) for n in names], rotation=30,
                      ha="right", fontsize=7)
        ax.set_title(_wrap(labels[m], 24), fontsize=9)
        ax.tick_params(labelsize=7)
        if reference and m in reference:
            ax.axhline(reference[m], color="grey", ls="--", lw=1)
    return fig


def _violin_density(values: np.ndarray, bins: int = 60) -> tuple[np.ndarray, np.ndarray]:
    edges = np.linspace(0.0, 1.0, bins + 1)
    counts, _ = np.histogram(np.clip(values, 0.0, 1.0), bins=edges)
    kernel = np.array([1.0, 2.0, 3.0, 2.0, 1.0])
    smooth = np.convolve(counts.astype(float), kernel / kernel.sum(), mode="same")
    return (edges[:-1] + edges[1:]) / 2, smooth


def risk_violins(
    risks: Mapping[str, np.ndarray],
    colors: Mapping[str, str],
    *,
    threshold: float | None = None,
) -> Figure | None:
    """Violin plots of record-level identification risk, one per release (Hu, Savitsky &
    Williams, Figures 2 and 8); the bar marks the mean. Densities come from a lightly
    smoothed 60-bin histogram on [0, 1] (exact for ties at 0, fast at a million records)."""
    risks = {k: np.asarray(v, dtype=float) for k, v in risks.items() if v is not None and len(v)}
    if not risks:
        return None
    fig = _figure(min(1.6 * len(risks) + 1.5, 10.0), 3.2)
    ax = fig.subplots()
    for i, (name, r) in enumerate(risks.items()):
        y, dens = _violin_density(r)
        half = 0.42 * dens / dens.max() if dens.max() > 0 else dens
        color = DATA_COLOR if name == "data" else colors.get(name)
        ax.fill_betweenx(y, i - half, i + half, color=color, alpha=0.55, lw=0)
        ax.hlines(float(r.mean()), i - 0.3, i + 0.3, color="black", lw=2)
    if threshold is not None:
        ax.axhline(threshold, color="firebrick", ls="--", lw=1, label=f"threshold {threshold:g}")
        ax.legend(fontsize=7, loc="upper right")
    ax.set_xticks(range(len(risks)), [_wrap(str(r), 16) for r in risks], fontsize=8)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("identification risk", fontsize=8)
    ax.tick_params(labelsize=7)
    return fig


def whack_a_mole(
    x: np.ndarray,
    y: np.ndarray,
    x_name: str,
    y_name: str,
    *,
    increase: float = 0.25,
    threshold: float | None = 0.5,
    max_points: int = 20000,
    random_state: int = 0,
) -> tuple[Figure, int]:
    """Scatter of each record's risk under two releases (Hu, Savitsky & Williams, Figures 3 and 9).

    Records whose risk rises by at least ``increase`` from ``x_name`` to ``y_name`` (the
    whack-a-mole records) are drawn larger in orange; the line is y = x. Above ``max_points``
    records a random subsample of the others is drawn (every whack-a-mole record is kept).
    Returns the figure and the number of whack-a-mole records.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    up = risk_whack_a_mole(x, y, increase)  # as bayes.compare_releases (risk/profile.py)
    idx = np.flatnonzero(~up)
    if idx.size > max_points:
        idx = np.sort(np.random.default_rng(random_state).choice(idx, max_points, replace=False))
    fig = _figure(4.2, 4.0)
    ax = fig.subplots()
    ax.scatter(x[idx], y[idx], s=4, color="#7f7f7f", alpha=0.5, lw=0, label="records")
    ax.scatter(x[up], y[up], s=18, color="#e6ab02", edgecolor="black", lw=0.3,
               label=f"risk up ≥ {increase:g}")
    ax.plot([0, 1], [0, 1], color="#1f78b4", lw=1)
    if threshold is not None:
        ax.axhline(threshold, color="firebrick", ls="--", lw=0.8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(f"risk under {x_name}", fontsize=8)
    ax.set_ylabel(f"risk under {y_name}", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, loc="upper left")
    return fig, int(up.sum())


def regression_ci(
    table: pd.DataFrame,
    colors: Mapping[str, str],
    *,
    max_terms: int = 12,
) -> Figure | None:
    """Coefficient estimates and 95% intervals across releases (Hu, Savitsky & Williams, Figure 10).

    ``table`` has columns ``term``, ``release``, ``estimate``, ``lower``, ``upper`` and the
    rows of release ``"data"`` give the confidential fit: a solid line at its estimate,
    dashed lines at its interval. One panel per term.
    """
    if table is None or table.empty:
        return None
    terms = list(dict.fromkeys(table["term"]))[:max_terms]
    ncol = min(4, len(terms))
    nrow = int(np.ceil(len(terms) / ncol))
    fig = _figure(2.3 * ncol + 0.4, 2.3 * nrow + 0.3)
    axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
    for ax, term in zip(axes, terms):
        sub = table[table["term"] == term]
        data = sub[sub["release"] == "data"]
        rel = sub[sub["release"] != "data"]
        if not data.empty:
            d = data.iloc[0]
            ax.axhline(float(d["estimate"]), color=DATA_COLOR, lw=1.2)
            for v in (d["lower"], d["upper"]):
                ax.axhline(float(v), color=DATA_COLOR, lw=0.9, ls="--")
        for i, (_, row) in enumerate(rel.iterrows()):
            est = float(row["estimate"])
            ax.errorbar([i], [est], yerr=[[est - float(row["lower"])], [float(row["upper"]) - est]],
                        fmt="s", color=colors.get(str(row["release"])), capsize=3, ms=5)
        ax.set_xticks(range(len(rel)), [_wrap(str(r), 16) for r in rel["release"]], rotation=30,
                      ha="right", fontsize=7)
        ax.set_xlim(-0.7, max(len(rel) - 0.3, 0.7))
        ax.set_title(_wrap(str(term), 32), fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes[len(terms):]:
        ax.set_visible(False)
    return fig


def importance_bars(importance: Mapping[str, pd.Series | None], colors: Mapping[str, str],
                    top: int = 8) -> Figure | None:
    """The variables that drive discrimination, per release (top ``top`` importances)."""
    shown = {k: v for k, v in importance.items() if v is not None and len(v)}
    if not shown:
        return None
    n = len(shown)
    fig = _figure(min(3.0 * n + 0.5, 12.0), 2.8)
    axes = np.atleast_1d(fig.subplots(1, n))
    for ax, (name, imp) in zip(axes, shown.items()):
        s = imp.astype(float).sort_values(ascending=True).tail(top)
        ax.barh(range(len(s)), s.to_numpy(), color=colors.get(name))
        ax.set_yticks(range(len(s)), [str(i) for i in s.index], fontsize=7)
        ax.set_title(_wrap(str(name), 32), fontsize=9)
        ax.tick_params(labelsize=7)
    return fig



def dcr_ecdf(distances: Mapping[str, tuple[np.ndarray, np.ndarray | None]],
             colors: Mapping[str, str]) -> Figure | None:
    """ECDFs of the distance to the closest confidential record: each release's records (solid)
    and the holdout's records (dashed, the no-memorization baseline), on a 200-point grid.

    Released records much closer to the data than holdout records are (curve above the
    dashed one near 0) suggest the release copies or memorizes training records.
    """
    distances = {k: v for k, v in distances.items() if v[0] is not None and len(v[0])}
    if not distances:
        return None
    q95 = [float(np.quantile(np.asarray(h if h is not None and len(h) else d, dtype=float), 0.95))
           for d, h in distances.values()]
    top = float(np.median(q95))
    top = top if top > 0 else 1.0
    grid = np.linspace(0.0, top, 200)
    fig = _figure(5.5, 3.0)
    ax = fig.subplots()
    for name, (dcr, hold) in distances.items():
        d = np.sort(np.asarray(dcr, dtype=float))
        ax.plot(grid, np.searchsorted(d, grid, side="right") / d.size, color=colors.get(name),
                lw=1.4, label=name)
        if hold is not None and len(hold):
            h = np.sort(np.asarray(hold, dtype=float))
            ax.plot(grid, np.searchsorted(h, grid, side="right") / h.size,
                    color=colors.get(name), lw=1.0, ls="--")
    ax.set_xlabel("distance to closest confidential record (Gower)", fontsize=8)
    ax.set_ylabel("share of records", fontsize=8)
    ax.set_ylim(0, 1)
    ax.tick_params(labelsize=7)
    drawn_holdout = any(h is not None and len(h) for _, h in distances.values())
    ax.legend(fontsize=7, loc="lower right",
              title="dashed: holdout" if drawn_holdout else "no holdout given",
              title_fontsize=7)
    return fig
