"""Figures of confidential distributions do not show extreme values; figures encode as PNG."""

from __future__ import annotations

import base64

import numpy as np
import pandas as pd

from synthguard.report import figures as F
from synthguard.report.safety import SUPPRESSED, Redactor

from .conftest import SECRET_LABEL, SECRET_VALUE, make_conf


def _tick_texts(fig) -> list[str]:
    fig.canvas.draw()
    out = []
    for ax in fig.axes:
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        out.append(ax.get_title())
    return out


def test_histogram_axis_stops_at_rounded_quantiles():
    conf = make_conf()
    impl = {"copy": [conf.copy()]}  # a release that copies the extreme record
    fig = F.numeric_overlay("income", conf["income"], impl, F.palette(["copy"]))
    _, hi = fig.axes[0].get_xlim()
    q99 = float(np.quantile(conf["income"], 0.99))
    assert hi < 1.2 * q99 < SECRET_VALUE  # the planted extreme is far beyond the axis
    texts = " ".join(_tick_texts(fig)).replace(",", "").replace("\u2212", "-")
    assert "987654" not in texts and "9.88" not in texts and "9.87" not in texts
    # the edge bin holds the pooled tail, and bins with fewer than min_cell records are empty
    edges = F._edges(conf["income"].to_numpy(), is_count=False)
    shares = F._binned_shares(conf["income"].to_numpy(), edges, min_cell=10)
    counts = shares * len(conf)
    assert np.all((counts == 0) | (counts >= 10 - 1e-9))


def test_small_bins_are_emptied():
    v = np.array([1.0] * 50 + [2.0] * 3 + [3.0] * 40)
    edges = np.array([0.5, 1.5, 2.5, 3.5])
    np.testing.assert_allclose(F._binned_shares(v, edges, min_cell=10) * len(v), [50, 0, 40])


def test_category_bars_pool_small_levels():
    conf = make_conf()
    red = Redactor.from_data([conf], min_cell=10)
    fig = F.category_bars("region", conf["region"], {"copy": [conf]}, F.palette(["copy"]), red)
    texts = _tick_texts(fig)
    assert SECRET_LABEL not in " ".join(texts)
    assert "(other/suppressed)" in texts
    assert SUPPRESSED == "(suppressed)"


def test_png_encoding_round_trips():
    fig = F.risk_violins({"data": np.linspace(0, 1, 100), "a": np.zeros(50)}, {"a": "#000000"})
    raw = base64.b64decode(F.to_png(fig))
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")


def test_whack_a_mole_counts_risk_increases():
    x = np.array([0.1, 0.2, 0.5, 0.0])
    y = np.array([0.4, 0.2, 0.9, 0.24])
    _, n_up = F.whack_a_mole(x, y, "a", "b", increase=0.25)
    assert n_up == 2  # +0.30 and +0.40; +0.24 is below the bar


def test_regression_ci_one_panel_per_term():
    table = pd.DataFrame({
        "term": ["x", "x", "x", "y", "y"],
        "release": ["data", "a", "b", "data", "a"],
        "estimate": [1.0, 1.1, 0.9, 2.0, 2.5],
        "lower": [0.8, 0.9, 0.5, 1.5, 2.0],
        "upper": [1.2, 1.3, 1.3, 2.5, 3.0],
    })
    fig = F.regression_ci(table, {"a": "#111111", "b": "#222222"})
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["x", "y"]


def test_univariate_quantiles_withheld_near_extremes_of_small_columns():
    from synthguard.report.safety import tail_bounds
    from synthguard.report.sections import _numeric_stats

    v = pd.Series(np.arange(1.0, 51.0))  # 50 values: p10 has only 5 values below it
    bounds = tail_bounds(v.to_numpy(), 10)[:2]
    assert bounds == (11.0, 40.0)  # the 20% and 80% quantiles (10 records beyond each), rounded
    st = _numeric_stats(v, 10, bounds)
    assert st["p10"] == "–" and st["p90"] == "–"
    # clipped to [11, 40]: (10·11 + 11+…+40 + 10·40) / 50 = 25.5; sd of the clipped values
    clipped = np.clip(v.to_numpy(), 11, 40)
    assert st["median"] == "25.5" and st["mean"] == "25.5"
    assert st["sd"] == f"{round(clipped.std(ddof=1), 1)}"
    w = pd.Series(np.arange(1.0, 201.0))
    st = _numeric_stats(w, 10, tail_bounds(w.to_numpy(), 10)[:2])
    assert st["p10"] == "20.9" and st["p90"] == "180"
    assert all(x == "–" for k, x in _numeric_stats(v.head(5), 10, bounds).items()
               if k != "missing")


def test_univariate_shares_of_few_records_are_not_counted_exactly():
    from synthguard.report.sections import _numeric_stats

    v = pd.Series([0.0] * 3 + list(np.arange(1.0, 198.0)) + [np.nan])
    st = _numeric_stats(v, 10, (10.0, 190.0))
    assert st["zeros"] == "< 0.050" and st["missing"] == "< 0.050"
    st = _numeric_stats(pd.Series([0.0] * 30 + list(np.arange(1.0, 171.0))), 10, (10.0, 160.0))
    assert st["zeros"] == "0.150"


def test_histogram_edges_keep_min_cell_records_beyond_them():
    v = np.arange(1.0, 101.0)  # 100 values: the 1% quantile would sit on the minimum
    edges = F._edges(v, is_count=False, min_cell=10)
    assert (v < edges[0]).sum() >= 9 and (v > edges[-1]).sum() >= 9
    assert F._edges(v[:15], is_count=False, min_cell=10) is None


def _outside(fig) -> list[str]:
    """Titles, axis labels and (in-view) tick labels that run past the figure's edge."""
    import matplotlib.text  # noqa: F401

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    w, h = fig.bbox.width, fig.bbox.height
    texts = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
        for axis, labels in ((ax.xaxis, ax.get_xticklabels()), (ax.yaxis, ax.get_yticklabels())):
            lo, hi = sorted(axis.get_view_interval())
            texts += [t for tick, t in zip(axis.get_major_ticks(), labels)
                      if lo - 1e-9 <= tick.get_loc() <= hi + 1e-9]
    out = []
    for t in texts:
        if t.get_visible() and t.get_text():
            b = t.get_window_extent(r)
            if b.x0 < -1 or b.y0 < -1 or b.x1 > w + 1 or b.y1 > h + 1:
                out.append(t.get_text())
    return out


def test_long_names_are_not_cut_off_at_the_figure_edge():
    from synthguard.evaluation.metrics import METRICS

    rng = np.random.default_rng(0)
    rel = ["synthetic", "topcoded", "risk_weighted_release_with_a_long_name", "dp"]
    pal = F.palette(rel)
    names = [f"household_income_component_{i}" for i in range(12)]
    d = pd.DataFrame(rng.uniform(-0.3, 0.3, (12, 12)), index=names, columns=names)
    conf = pd.Series(rng.choice(["Self-emp-not-inc", "Married-civ-spouse", "Never-married"], 500))
    col = "marital_status_of_the_person_at_the_interview"
    terms = pd.DataFrame([{"term": f"C({col})[T.Married-civ-spouse]{i}", "release": r,
                           "estimate": 1.0, "lower": 0.5, "upper": 1.5}
                          for i in range(6) for r in ["data", *rel]])
    figs = {
        "heat map": F.correlation_difference({r: d for r in rel}),
        "levels": F.category_bars(col, conf, {r: [pd.DataFrame({col: conf})] for r in rel},
                                  pal, Redactor()),
        "numeric": F.numeric_overlay("household_income_total_annual_before_taxes",
                                     pd.Series(rng.lognormal(10, 1, 500)), {}, {}),
        "measures": F.metric_bars({r: dict.fromkeys(METRICS, 0.5) for r in rel},
                                  {m: METRICS[m].label for m in METRICS if
                                   METRICS[m].section == "risk"}, pal),
        "importance": F.importance_bars({r: pd.Series(rng.uniform(0, 1, 8), index=names[:8])
                                         for r in rel}, pal),
        "regression": F.regression_ci(terms, pal),
    }
    for what, fig in figs.items():
        assert _outside(fig) == [], what
