"""The HTML report: self-contained, every section present, and never a confidential value."""

from __future__ import annotations

import base64
import re

import pytest

from synthguard.report import build_report, evaluate, write_report

from .conftest import SECRET_LABEL, SECRET_VALUE

KEYS = ["region", "sex", "kids"]


@pytest.fixture(scope="module")
def evaluation():
    from .conftest import make_conf, shuffled

    conf = make_conf()
    top = conf.copy()
    top["income"] = top["income"].clip(upper=100000.0)
    releases = {"shuffled": [shuffled(conf, ["income", "spend"], s) for s in (1, 2)],
                "topcoded": top}
    return evaluate(conf, releases, keys=KEYS, targets="income", random_state=3,
                    formulas=["spend ~ income + C(region)"],
                    thresholds={"max_identification_risk": 0.5},
                    kinds={"shuffled": "partial", "topcoded": "protected"})


def _secret_patterns() -> list[str]:
    v = SECRET_VALUE
    return [
        SECRET_LABEL, SECRET_LABEL.lower(), "987654", "987,654", "987 654", "9.87654",
        "987654.3", f"{v:.6g}", f"{v:,.2f}", "987654.32", "9.876543e+05",
    ]


def _decoded_texts(html: str) -> list[str]:
    """Every base64 payload of the page decoded (as Latin-1 text, so any embedded text shows)."""
    out = []
    for payload in re.findall(r"base64,([A-Za-z0-9+/=]+)", html):
        out.append(base64.b64decode(payload).decode("latin-1"))
    return out


@pytest.fixture(scope="module")
def html(evaluation):
    from synthguard.dp import PrivacyLedger

    ledger = PrivacyLedger(epsilon=2.0)
    ledger.charge("counts", 0.5)
    plan = f"seed: 7\ndata:\n  schema:\n    region: {{levels: [North, {SECRET_LABEL}]}}\n"
    return build_report(evaluation, title="Board pack", plan_text=plan, min_cell=10,
                        ledger=ledger)


def test_planted_values_never_appear(html):
    for pattern in _secret_patterns():
        assert pattern not in html, f"the report prints a planted confidential value ({pattern!r})"
    # figures are PNG (no SVG whose text could carry values), and no payload carries them either
    assert "<svg" not in html.lower()
    for text in _decoded_texts(html):
        assert text.startswith("\x89PNG")
        for pattern in _secret_patterns():
            assert pattern not in text
    # the regression term of the small cell is withheld, the others are named in the figure data
    assert "(suppressed)" not in html or SECRET_LABEL not in html


def test_planted_label_is_named_when_not_small(conf, releases):
    # the same label with min_cell below its count is printed: the test above can fail
    ev = evaluate(conf, releases, keys=KEYS, targets="income", random_state=3,
                  formulas=["spend ~ income + C(region)"],
                  kinds={"shuffled": "partial", "topcoded": "protected"})
    from synthguard.report.safety import Redactor
    from synthguard.report.sections import regression_table

    loose = Redactor.from_data([conf], ev.schema, min_cell=2)
    terms = set(regression_table(ev, loose)["term"])
    assert any(SECRET_LABEL in t for t in terms)
    strict = Redactor.from_data([conf], ev.schema, min_cell=10)
    assert not any(SECRET_LABEL in t for t in set(regression_table(ev, strict)["term"]))


def test_sections_and_figures_present(evaluation, html):
    for anchor in ("summary", "utility", "variables", "risk", "dp", "provenance"):
        assert f'id="{anchor}"' in html
    figs = ["fig-discrimination", "fig-importance", "fig-correlation", "fig-cramers-v",
            "fig-utility-tables", "fig-regression",
            "fig-violin", "fig-whack-topcoded"]
    if any(r.risk is not None for r in evaluation):  # evaluate_risk's matching and membership
        figs += ["fig-risk-metrics", "fig-dcr"]
    for fig in figs:
        assert f'id="{fig}"' in html, fig
    n_img = html.count("<img ")
    # 5 per-variable figures + the figures listed above
    assert n_img == 5 + len(figs)
    assert "<script" not in html.lower() and "http://" not in html and "https://" not in html
    assert "Board pack" in html and "seed: 7" in html
    assert "line withheld" in html  # the plan line naming the small category
    assert "FAIL" in html  # the top-coded release fails max IR <= 0.5
    assert 'id="not-computed"' not in html or "<details open" in html
    assert 'id="top-risky"' in html
    assert 'id="utility-details"' in html


def test_detail_tables_show_declared_measures_only(evaluation):
    from synthguard.report.safety import Redactor
    from synthguard.report.sections import detail_table

    t = detail_table(evaluation, "utility", Redactor())
    names = [r["name"] for r in t["rows"]]
    assert "pmse.ratio" in names and "correlation.mae" in names
    assert "pmse.S_pMSE" in names  # synthpop's figure beside the ratio (issue 24, item 5)
    # counts of records and other undeclared numbers of the results are not listed
    assert not any(n.endswith(".n_conf") or n.endswith(".null_sd") for n in names)
    assert t["columns"] == ["shuffled", "topcoded"]


def test_top_risky_records_show_ranges(html):
    table = html[html.index('id="top-risky"'):]
    table = table[: table.index("</table>")]
    # the riskiest records' incomes appear only as ranges "a – b" or pooled tails
    cells = re.findall(r"<tr><td>\d+</td><td>([^<]*)</td>", table)
    assert len(cells) == 10
    for c in cells:
        assert re.fullmatch(r"[\d,.]+ – [\d,.]+|(top|bottom) \d+%", c), c


def _section(html: str, start: str, end: str = "</ul>") -> str:
    part = html[html.index(start):]
    return part[: part.index(end)]


def test_each_failing_verdict_says_fail_once(evaluation, html):
    failing = evaluation.failed
    assert "topcoded" in failing  # max IR 1 > 0.5
    verdicts = _section(html, 'id="verdicts"')
    lines = re.findall(r"<li>(.*?)</li>", verdicts, flags=re.S)
    assert len(lines) == len(evaluation)
    for line, r in zip(lines, evaluation):
        assert line.count("FAIL") == (0 if r.passed else 1), line
    # nowhere else in the page is the word shouted again
    assert html.count("FAIL") == len(failing)


def test_summary_is_two_tables_with_every_column_and_a_verdict(evaluation, html):
    from synthguard.evaluation.metrics import METRICS

    table = evaluation.to_frame()
    computed = [m for m in METRICS if table[m].notna().any()]
    shown = []
    for tid, section in (("summary-utility", "utility"), ("summary-risk", "risk")):
        part = html[html.index(f'id="{tid}"'):]
        part = part[: part.index("</table>")]
        header = re.findall(r"<th[^>]*>([^<]*)</th>", part.split("</tr>")[0])
        assert header[0] == "release" and header[-1] == "verdict"
        labels = [METRICS[m].label for m in computed
                  if METRICS[m].section == section and METRICS[m].summary]
        assert [h.replace("&amp;", "&") for h in header if h in labels] == labels
        shown += labels
        # one row per release, each ending with its verdict
        assert part.count("<tr>") == 1 + len(evaluation)
    assert sorted(shown) == sorted(METRICS[m].label for m in computed if METRICS[m].summary)
    # a measure kept out of the page-sized summary is still in the glossary
    assert all(METRICS[m].label in html for m in computed if not METRICS[m].summary)
    assert "exp. matches (count)" in html


def test_story_says_what_failed_by_how_much_and_what_to_try(evaluation, html):
    stories = _section(html, 'id="stories"')
    top = re.search(r"<b>topcoded</b>(.*?)</li>", stories, flags=re.S).group(1)
    rr = evaluation["topcoded"].record_risk
    n_up = int((rr > 0.5).sum())
    from synthguard.report.safety import format_number

    v = evaluation["topcoded"].metrics["max_identification_risk"]
    assert v > 0.5
    assert (f"max IR {format_number(v, 3)} &gt; 0.5 ({format_number(v - 0.5, 2)} above the "
            f"limit)") in top
    assert f"{n_up:,} record(s) have a risk above 0.5" in top
    assert "pairwise risk weights" in top and "coarser keys" in top
    assert "statistical disclosure control" in top  # what the release is


def test_glossary_states_the_ideal(html):
    gloss = html[html.index('id="glossary"'):]
    row = re.search(r"<td class=\"name\">pMSE ratio</td><td class=\"name\">([^<]*)</td>", gloss)
    assert row.group(1) == "≈ 1 is ideal; well above 1 is worse"
    assert "negative when they do not overlap" in gloss
    assert "n_train / (n_train + n_holdout)" in gloss


def test_write_report_is_atomic_and_returns_path(evaluation, tmp_path):
    p = write_report(evaluation, tmp_path / "sub" / "r.html", max_variables=1)
    assert p.exists() and p.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not list(p.parent.glob(".*tmp"))


def test_ledger_section(html):
    section = html[html.index('id="dp"'):html.index('id="provenance"')]
    assert "counts" in section and "0.5" in section


# ---- leaks through the report: a dominant outlier, a one-record level, n in a DP report ----

OUTLIER = 77_777_777.0
N_PLANTED = 613


def _planted_frames():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(4)
    n = N_PLANTED
    country = rng.choice(["North", "South", "East", "West"], size=n).astype(object)
    country[0] = SECRET_LABEL  # one record
    income = np.round(rng.lognormal(10.5, 0.6, size=n))
    income[1] = OUTLIER  # dominates the sd: sd·√n ≈ the outlier
    spend = np.round(rng.lognormal(9, 0.5, size=n), 2)
    spend[2] = SECRET_VALUE
    conf = pd.DataFrame({"country": country, "sex": rng.choice(["f", "m"], n),
                         "kids": rng.poisson(1, n), "income": income, "spend": spend})
    hold = conf.iloc[:100].copy()
    hold["country"] = rng.choice(["North", "South"], 100)
    hold["income"] = np.round(rng.lognormal(10.5, 0.6, size=100))
    hold["spend"] = np.round(rng.lognormal(9, 0.5, size=100), 2)
    # a partial release without the secret level: its regression cannot estimate the
    # C(country)[T.ZZSECRETZZ] term, and the error names it
    shuf = conf.copy()
    for c in ("income", "spend"):
        shuf[c] = conf[c].to_numpy()[rng.permutation(n)]
    shuf.loc[0, "country"] = "North"
    return conf, hold, {"nosecret": shuf, "copy": conf.copy()}


@pytest.fixture(scope="module")
def planted():
    conf, hold, releases = _planted_frames()
    return evaluate(conf, releases, keys=["country", "sex", "kids"], targets="income",
                    holdout=hold, formulas=["spend ~ income + C(country)"],
                    thresholds={"max_identification_risk": 0.5, "pmse_ratio": 3},
                    kinds={"nosecret": "partial", "copy": "protected"}, random_state=1)


@pytest.fixture(scope="module")
def planted_report(planted):
    """The report, with the text of every figure (titles, tick labels, legends) captured."""
    import matplotlib.text

    from synthguard.report import figures as F
    from synthguard.report import html as H

    texts: list[str] = []
    real = F.to_png

    def capture(fig):
        fig.canvas.draw()  # tick labels are made at draw time
        texts.extend(t.get_text() for t in fig.findobj(matplotlib.text.Text))
        return real(fig)

    mp = pytest.MonkeyPatch()
    mp.setattr(H.F, "to_png", capture)
    try:
        html = build_report(planted, min_cell=10)
    finally:
        mp.undo()
    return html, texts


_OUTLIER_PATTERNS = ["77777777", "77,777,777", "77 777 777", "7.78e", "7.8e7", "77.8M", "7.8e+07",
                     "77777", "987654", "987,654", "9.88e", "988,000", "988000", SECRET_LABEL]


def _visible(html: str) -> str:
    return re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,", html)


def test_planted_outlier_and_level_appear_nowhere(planted, planted_report):
    html, fig_texts = planted_report
    text = _visible(html)
    for p in _OUTLIER_PATTERNS:
        assert p not in text, f"the report prints {p!r}"
    assert len(fig_texts) > 50  # the capture saw the figures' text
    joined = " ".join(fig_texts).replace("\u2212", "-")
    for p in _OUTLIER_PATTERNS:
        assert p not in joined, f"a figure's text shows {p!r}"
    for payload in _decoded_texts(html):
        for p in (SECRET_LABEL, "987654", "77777777"):
            assert p not in payload


def test_regression_error_is_shown_without_the_level(planted, planted_report):
    html, _ = planted_report
    # the error itself names the term (it is a synthguard error, kept as is) ...
    assert SECRET_LABEL in planted["nosecret"].errors["regression"]
    # ... and the report shows it with the level withheld
    part = html[html.index('id="not-computed"'):]
    part = part[: part.index("</details>")]
    assert "could not be estimated" in part and "(suppressed)" in part
    assert "C(country)" not in part


def _table_rows(html: str, table_id: str) -> list[list[str]]:
    part = html[html.index(f'id="{table_id}"'):]
    part = part[: part.index("</table>")]
    return [re.findall(r"<t[dh][^>]*>([^<]*)</t[dh]>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", part, flags=re.S)]


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def test_moments_do_not_invert_to_the_outlier(planted, planted_report):
    import numpy as np

    html, _ = planted_report
    rows = _table_rows(html, "univariate-table")
    header, body = rows[0], rows[1:]
    i_mean, i_sd, i_med = header.index("mean (winsorised)"), header.index("sd (winsorised)"), \
        header.index("median")
    n = N_PLANTED
    raw_sd = float(np.std(planted.conf["income"], ddof=1))
    assert abs(raw_sd * np.sqrt(n - 1) - OUTLIER) / OUTLIER < 0.01  # the attack works on raw sd
    checked = 0
    for r in body:
        if r[0] not in ("income", "spend"):
            continue
        mean, sd, med = _num(r[i_mean]), _num(r[i_sd]), _num(r[i_med])
        for secret in (OUTLIER, SECRET_VALUE):
            for guess in (sd * np.sqrt(n - 1), sd * np.sqrt(n), n * (mean - med)):
                assert abs(guess - secret) / secret > 0.2, (r, guess)
        checked += 1
    assert checked == 6  # data and two releases, two columns
    # the attribute table's RMSE (about the target's sd) is printed relative to the marginal's
    att = _table_rows(html, "attribute-table")
    rmse = [r for r in att if len(r) > 2 and r[2].startswith("rmse")]
    assert rmse and all(r[2] == "rmse ÷ marginal" and r[4] == "1.00" for r in rmse)


def test_ecdf_panel_adds_up_the_histograms_bins():
    import numpy as np
    import pandas as pd

    from synthguard.report import figures as F

    # one record alone in a sparse stretch: the histogram empties its bin, and the cumulative
    # panel must not show a step of 1/n there
    v = np.concatenate([np.linspace(0, 10, 400), [55.0], np.linspace(90, 100, 400)])
    fig = F.numeric_overlay("x", pd.Series(v), {}, {}, min_cell=10)
    line = fig.axes[1].get_lines()[0]
    x, y = line.get_xdata(), line.get_ydata()
    steps = np.diff(y)
    assert np.all((steps == 0) | (steps >= 10 / v.size - 1e-12))
    # the title names the quantiles the bins really use (10 of 801 records: 1.2%)
    assert "1.2% and 98.8%" in fig.axes[1].get_title()
    assert x[0] == pytest.approx(F._edges(v, False, 10)[0])


def test_dp_report_says_what_the_ledger_covers_and_rounds_n(planted):
    html = build_report(planted, min_cell=10, dp_releases=["copy"], max_variables=2)
    note = html[html.index('id="dp-note"'):]
    note = note[: note.index("</div>")]
    assert "This report is not differentially private" in note
    assert "The ledger does not cover this report" in note
    assert "copy" in note
    text = _visible(html)
    # the number of confidential records (and of a release's rows, equal to it) is rounded
    assert not re.search(rf"(?<![\d.,]){N_PLANTED}(?![\d,])", text)
    assert not re.search(r"(?<![\d.,])713(?![\d,])", text)  # training + holdout
    assert "about 610" in text
    plain = build_report(planted, min_cell=10, max_variables=2)
    assert 'id="dp-note"' not in plain and f"{N_PLANTED:,}" in plain


def test_provenance_names_the_seed_that_reproduces_the_evaluation(conf):
    # issue 17: a plan's report said "evaluation seed None" under the plan's seed
    import numpy as np

    from .conftest import shuffled

    rel = {"s": shuffled(conf, ["income"], 1)}
    kw = dict(keys=["region"], targets=["income"], default_thresholds=False)
    by_plan = evaluate(conf, rel, random_state=np.random.default_rng(3), **kw)
    assert by_plan.seed is None
    html = re.sub(r"\s+", " ", build_report(by_plan, provenance={"plan seed": "41"}))
    assert "a stream spawned from the plan seed 41" in html and "evaluation seed None" not in html
    alone = re.sub(r"\s+", " ", build_report(by_plan))
    assert "none (a numpy Generator was given)" in alone
    seeded = re.sub(r"<[^>]+>", " ", build_report(evaluate(conf, rel, random_state=12, **kw)))
    assert re.search(r"evaluation seed\s+12\b", seeded)
