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
            "fig-regression",
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
    from synthguard.report.metrics import METRICS

    table = evaluation.to_frame()
    computed = [m for m in METRICS if table[m].notna().any()]
    shown = []
    for tid, section in (("summary-utility", "utility"), ("summary-risk", "risk")):
        part = html[html.index(f'id="{tid}"'):]
        part = part[: part.index("</table>")]
        header = re.findall(r"<th[^>]*>([^<]*)</th>", part.split("</tr>")[0])
        assert header[0] == "release" and header[-1] == "verdict"
        labels = [METRICS[m].label for m in computed if METRICS[m].section == section]
        assert [h.replace("&amp;", "&") for h in header if h in labels] == labels
        shown += labels
        # one row per release, each ending with its verdict
        assert part.count("<tr>") == 1 + len(evaluation)
    assert sorted(shown) == sorted(METRICS[m].label for m in computed)
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
