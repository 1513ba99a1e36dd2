"""The report's sdcMicro risk block and domain table: the numbers are those of the library
functions, small domains are suppressed, and the CLI's --by/--weights reach them."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.report import evaluate
from synthguard.report.html import build_report
from synthguard.risk import individual_risk
from synthguard.risk.ldiversity import l_diversity
from synthguard.risk.suda2 import suda2
from synthguard.utility import domain_estimates

from .conftest import SECRET_LABEL, SECRET_VALUE


@pytest.fixture
def weighted(conf: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return conf.assign(w=np.round(rng.uniform(0.5, 3.0, len(conf)), 3))


def _evaluate(conf: pd.DataFrame, rel: dict[str, object], **kw: object):  # type: ignore[no-untyped-def]
    return evaluate(conf, rel, keys=["region", "sex", "kids"], targets=["income"],
                    random_state=1, kinds={"shuffled": "partial"}, **kw)


def _table_text(html: str, table_id: str) -> str:
    m = re.search(rf'<table id="{table_id}">(.*?)</table>', html, re.S)
    assert m is not None, table_id
    return m.group(1)


def test_blocks_hold_the_library_numbers(weighted: pd.DataFrame) -> None:
    from .conftest import shuffled

    rel = {"shuffled": [shuffled(weighted, ["income", "spend"], s) for s in (1, 2)]}
    ev = _evaluate(weighted, rel, by=["sex"], weights="w")
    blocks = ev.survey
    keys = ["region", "sex", "kids"]
    ir = individual_risk(weighted, keys, weights="w")
    assert blocks.risk.loc["data", "global_risk"] == pytest.approx(ir.global_risk)
    assert blocks.risk.loc["data", "expected_reid"] == pytest.approx(
        ir.expected_reidentifications)
    assert bool(blocks.risk.loc["data", "weighted"])
    # a release's figure is the mean over its implicates
    rel_ir = [individual_risk(df, keys, weights="w").global_risk for df in rel["shuffled"]]
    assert blocks.risk.loc["shuffled", "global_risk"] == pytest.approx(np.mean(rel_ir))
    s = suda2(weighted, keys)
    pd.testing.assert_series_equal(blocks.contributions["data"], s.contributions.astype(float),
                                   check_names=False)
    assert blocks.risk.loc["data", "suda_share"] == pytest.approx(s.n_with_msu / len(weighted))
    ld = l_diversity(weighted, keys, "income")
    assert blocks.risk.loc["data", "l_distinct:income"] == ld.l
    direct = domain_estimates(weighted, rel["shuffled"], ["income"], ["sex"], weights="w",
                              quantiles=(0.5,), method="partial", lonely_psu="certainty")
    pd.testing.assert_frame_equal(blocks.domains["shuffled"].table, direct.table)


def test_report_shows_both_blocks_and_suppresses_small_domains(
    conf: pd.DataFrame, releases: dict[str, object]
) -> None:
    ev = _evaluate(conf, releases, by=["region"])
    # the secret region (3 records) is a domain of the estimates ...
    t = ev.survey.domains["shuffled"].table
    assert (t["region"] == SECRET_LABEL).any()
    html = build_report(ev, min_cell=10)
    assert 'id="sdcmicro-table"' in html and 'id="suda2-contributions"' in html
    dom = _table_text(html, "domain-table")
    # ... but neither its label nor a row of it is printed; the others are
    assert SECRET_LABEL not in html
    assert f"{SECRET_VALUE:,.3f}" not in html and "987654" not in html
    big = t.loc[t["n_conf"] >= 10]
    assert dom.count("<tr>") == 1 + len(big)
    assert "(1 here)" in html
    assert 'id="fig-domains"' in html


def test_no_by_no_weights_no_domain_table(conf: pd.DataFrame,
                                          releases: dict[str, object]) -> None:
    from synthguard.report.safety import Redactor
    from synthguard.report.survey_sections import survey_context

    ev = _evaluate(conf, releases)
    assert ev.survey.domains == {}
    ctx = survey_context(ev, Redactor.from_data([conf]), {}, str)
    assert ctx["domains"] is None and ctx["domain_png"] is None
    assert [r["name"] for r in ctx["sdcmicro"]["rows"]] == ["data", "shuffled", "topcoded"]


def test_domain_estimate_failure_is_not_computed(conf: pd.DataFrame,
                                                 releases: dict[str, object]) -> None:
    # a release without the domain column cannot be estimated by domain: exit 3 territory
    rel = {"nosex": conf.drop(columns="sex")}
    ev = evaluate(conf, rel, keys=["region"], targets=["income"], by=["sex"], random_state=1,
                  default_thresholds=False)
    assert any(part == "domain estimates (nosex)" for _, part, _ in ev.not_computed)
    assert ev.status == "incomplete"


def test_cli_by_and_weights(tmp_path, weighted: pd.DataFrame) -> None:  # type: ignore[no-untyped-def]
    from .conftest import shuffled

    weighted.to_csv(tmp_path / "conf.csv", index=False)
    rel = tmp_path / "rel"
    rel.mkdir()
    shuffled(weighted, ["income"], 3).to_csv(rel / "rel_1.csv", index=False)
    res = CliRunner().invoke(main, [
        "evaluate", str(tmp_path / "conf.csv"), str(rel), "--keys", "sex,kids",
        "--target", "income", "--by", "sex", "--weights", "w", "--kind", "rel=partial",
        "--seed", "1", "--no-default-thresholds",
    ])
    assert res.exit_code == 0, res.output
    assert "sdcMicro risk block" in res.output
    # two domains (f, m) x mean, total, median of income
    assert "6 domain estimates over 2 domain(s) (weighted by 'w')" in res.output
    bad = CliRunner().invoke(main, [
        "evaluate", str(tmp_path / "conf.csv"), str(rel), "--target", "income",
        "--by", "nope", "--quiet",
    ])
    assert bad.exit_code == 2 and "nope" in bad.output
