"""Report section: two-way table utility as synthpop's ``utility.tables`` plot.

For each release, every pair of (at most ``max_columns``) columns is cross-tabulated in the
data and the release (numeric columns in 5 groups) and scored by ``S_pMSE``
(:func:`synthguard.evaluation.utility_tables.utility_tables_matrices`, with
:func:`synthguard.utility.utility_tables`; Raab, Nowok & Dibben 2021): about 1 when the
release reproduces the table as a correct synthesis would, larger when it does not. The heat
map shows the lower triangle of the column-by-column matrix, light grey (0) to red, one panel
per release on a common scale, with the value in each cell, as synthpop's plot does; the caption
names the worst tables. Only statistics of whole tables are shown, never a cell count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure

from synthguard.evaluation.utility_tables import utility_tables_matrices
from synthguard.report.figures import _figure, _wrap

__all__ = ["add_utility_tables_figure", "utility_tables_caption", "utility_tables_figure",
           "utility_tables_matrices"]

#: synthpop's colours: low "grey92", high "#E41A1C"
_CMAP = LinearSegmentedColormap.from_list("synthpop", ["#EBEBEB", "#E41A1C"])


def utility_tables_figure(mats: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]]
                          ) -> Figure | None:
    """Heat maps of the two-way ``S_pMSE`` matrices, one panel per release."""
    if not mats:
        return None
    top = max(float(np.nanmax(m.to_numpy())) for m, _ in mats.values())
    n = len(mats)
    k = max(m.shape[0] for m, _ in mats.values())
    side = min(4.2, 0.4 * k + 1.6)
    fig = _figure(side * n + 0.8, side + 0.4)
    axes = np.atleast_1d(fig.subplots(1, n))
    im = None
    for ax, (name, (m, _)) in zip(axes, mats.items(), strict=False):
        vals = m.to_numpy(dtype=float)
        shown = np.where(np.triu(np.ones_like(vals, dtype=bool)), np.nan, vals)
        im = ax.imshow(shown, cmap=_CMAP, vmin=0, vmax=max(top, 1e-9))
        for i, j in zip(*np.nonzero(~np.isnan(shown)), strict=True):
            ax.text(j, i, f"{shown[i, j]:.1f}", ha="center", va="center", fontsize=5)
        ax.set_xticks(range(m.shape[1]), [str(c) for c in m.columns], rotation=90, fontsize=6)
        ax.set_yticks(range(m.shape[0]), [str(c) for c in m.index], fontsize=6)
        ax.set_title(_wrap(str(name), 28), fontsize=9)
    if im is not None:
        fig.colorbar(im, ax=list(axes), shrink=0.8, label="S_pMSE")
    return fig


def utility_tables_caption(mats: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]]) -> str:
    worst = "; ".join(
        f"{name}: " + ", ".join(f"{r.vars} {r.S_pMSE:.1f}" for r in w.itertuples())
        for name, (_, w) in mats.items())
    return ("S_pMSE of each two-way table of the data and the release (numeric columns in 5 "
            "groups; about 1 for a correct synthesis, higher is worse; Raab, Nowok & Dibben 2021, "
            f"synthpop's utility.tables). Worst tables: {worst}.")


def add_utility_tables_figure(figs: list[Any], ev: Any, fig_cls: Any, to_png: Any) -> None:
    """Append the section's figure to ``figs`` (the report's registration hook)."""
    mats = utility_tables_matrices(ev.conf, ev.implicates)
    fig = utility_tables_figure(mats)
    if fig is not None:
        figs.append(fig_cls("fig-utility-tables", "Two-way table utility (S_pMSE)", to_png(fig),
                            utility_tables_caption(mats)))
