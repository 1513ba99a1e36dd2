"""Household-level utility measures against brute-force computations (plain loops over a
dict of households) on a small hand-built file, a few values worked by hand, and the
at-risk-of-poverty rate of simPop's eusilcS against a direct computation."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.utility.household_associations import household_associations
from synthguard.utility.household_composition import household_composition
from synthguard.utility.household_size import household_size
from synthguard.utility.household_totals import household_totals
from synthguard.utility.household_utility import household_utility
from synthguard.utility.poverty import at_risk_of_poverty, compare_poverty

NaN = float("nan")
# hid, relat (1 head, 2 partner, 3 child), sex, age, inc, w (household weight)
DATA = pd.DataFrame(
    [(1, 1, "m", 40, 30000, 2), (1, 2, "f", 38, 10000, 2), (1, 3, "m", 10, NaN, 2),
     (1, 3, "f", 15, 0, 2),
     (2, 1, "f", 70, 10000, 1),
     (3, 1, "m", 30, 20000, 1), (3, 2, "f", 28, 20000, 1),
     (4, 2, "f", 50, 5000, 3), (4, 1, "m", 55, 25000, 3), (4, 3, "m", 20, 8000, 3)],
    columns=["hid", "relat", "sex", "age", "inc", "w"])
RELEASE = pd.DataFrame(
    [(10, 1, "m", 45, 40000, 1), (10, 2, "f", 40, 0, 1), (10, 3, "f", 5, 0, 1),
     (11, 1, "f", 80, 12000, 2),
     (12, 1, "f", 33, 9000, 1), (12, 3, "m", 2, NaN, 1), (12, 3, "f", 4, NaN, 1),
     (13, 1, "m", 61, 30000, 1), (13, 2, "f", 59, 15000, 1)],
    columns=["hid", "relat", "sex", "age", "inc", "w"])


def _hh(df: pd.DataFrame) -> dict:
    out: dict = defaultdict(list)
    for row in df.to_dict("records"):
        out[row["hid"]].append(row)
    return out


def _head(members: list) -> dict:
    heads = [m for m in members if m["relat"] == 1]
    return heads[0] if heads else max(members, key=lambda m: m["age"])


def _shares(pairs: list) -> dict:
    tot = sum(w for _, w in pairs)
    out: dict = defaultdict(float)
    for k, w in pairs:
        out[k] += w / tot
    return out


def _tv(p: dict, q: dict) -> float:
    return 0.5 * sum(abs(p.get(k, 0) - q.get(k, 0)) for k in set(p) | set(q))


def _wcorr(x: list, y: list, w: list) -> float:
    x, y, w = np.array(x, float), np.array(y, float), np.array(w, float)
    mx, my = (w * x).sum() / w.sum(), (w * y).sum() / w.sum()
    return float((w * (x - mx) * (y - my)).sum()
                 / np.sqrt((w * (x - mx) ** 2).sum() * (w * (y - my) ** 2).sum()))


def test_size_distribution_and_tv() -> None:
    r = household_size(DATA, RELEASE, "hid", weights="w")
    # by hand: data sizes 4, 1, 2, 3 weighted 2, 1, 1, 3 (of 7); release 3, 1, 3, 2 weighted
    # 1, 2, 1, 1 (of 5): TV = 1/2 (|1/7-2/5| + |1/7-1/5| + |3/7-2/5| + 2/7)
    # = 1/2 (9 + 2 + 1 + 10) / 35 = 11/35
    assert r.tv == pytest.approx(11 / 35)
    brute = _tv(_shares([(len(m), m[0]["w"]) for m in _hh(DATA).values()]),
                _shares([(len(m), m[0]["w"]) for m in _hh(RELEASE).values()]))
    assert r.tv == pytest.approx(brute)
    assert r.mean_data == pytest.approx((4 * 2 + 1 + 2 + 3 * 3) / 7)
    assert r.to_frame().loc[3, "data"] == pytest.approx(3 / 7)
    unweighted = household_size(DATA, RELEASE, "hid")
    assert unweighted.tv == pytest.approx(_tv(_shares([(n, 1) for n in (4, 1, 2, 3)]),
                                              _shares([(n, 1) for n in (3, 1, 3, 2)])))


def _group(a: float) -> str:
    return "<30" if a < 30 else "30-45" if a < 45 else "45-65" if a < 65 else "65+"


def test_composition_table_and_tv() -> None:
    r = household_composition(DATA, RELEASE, "hid", sex="sex", age="age", weights="w",
                              relationship="relat", max_size=3)

    def cells(df: pd.DataFrame) -> dict:
        pairs = []
        for m in _hh(df).values():
            h = _head(m)
            size = str(len(m)) if len(m) < 3 else "3+"
            pairs.append(((h["sex"], _group(h["age"]), size), m[0]["w"]))
        return _shares(pairs)

    p, q = cells(DATA), cells(RELEASE)
    assert r.tv == pytest.approx(_tv(p, q))
    for k, v in p.items():
        assert r.to_frame().loc[k, "data"] == pytest.approx(v)
    # household 4 lists its partner first: the head is found by relat, not by position
    assert r.to_frame().loc[("m", "45-65", "3+"), "data"] == pytest.approx(3 / 7)


def test_head_without_relationship_is_the_oldest_member() -> None:
    no_rel = DATA.drop(columns="relat")
    r = household_composition(no_rel, no_rel, "hid", sex="sex", age="age")
    # household 4: the oldest member (55) is the head, though the partner is listed first
    assert ("m", "45-65", "3") in r.to_frame().index
    assert r.tv == 0


def test_associations() -> None:
    r = household_associations(DATA, RELEASE, "hid", age="age", weights="w",
                               relationship="relat")

    def brute(df: pd.DataFrame) -> tuple:
        hx, px, pw, ha, nc, cw = [], [], [], [], [], []
        for m in _hh(df).values():
            h = _head(m)
            partners = [x for x in m if x["relat"] == 2]
            if partners:
                hx.append(h["age"])
                px.append(partners[0]["age"])
                pw.append(m[0]["w"])
            ha.append(h["age"])
            nc.append(sum(x["relat"] == 3 for x in m))
            cw.append(m[0]["w"])
        return _wcorr(hx, px, pw), _wcorr(ha, nc, cw), float(np.average(nc, weights=cw))

    (pd_, cd, md), (pr, cr, mr) = brute(DATA), brute(RELEASE)
    assert r.partner_corr_data == pytest.approx(pd_)
    assert r.partner_corr_release == pytest.approx(pr)
    assert r.partner_corr_diff == pytest.approx(abs(pd_ - pr))
    assert r.children_corr_data == pytest.approx(cd)
    assert r.children_corr_release == pytest.approx(cr)
    assert r.mean_children_data == pytest.approx(md)
    assert r.mean_children_data == pytest.approx((2 * 2 + 0 + 0 + 1 * 3) / 7)  # by hand
    assert r.mean_children_release == pytest.approx(mr)


def test_children_without_relationship_are_the_young_members() -> None:
    r = household_associations(DATA.drop(columns="relat"), RELEASE.drop(columns="relat"),
                               "hid", age="age", child_age=18)
    assert np.isnan(r.partner_corr_data)
    # data: household 1 has two members under 18 (10, 15), the others none
    assert r.mean_children_data == pytest.approx(2 / 4)


def test_household_totals() -> None:
    r = household_totals(DATA, RELEASE, "hid", "inc", weights="w")
    t = r.to_frame().loc["inc"]

    def totals(df: pd.DataFrame) -> tuple:
        return ([sum(0 if pd.isna(x["inc"]) else x["inc"] for x in m) for m in
                 _hh(df).values()], [m[0]["w"] for m in _hh(df).values()])

    (td, wd), (tr, wr) = totals(DATA), totals(RELEASE)
    assert t["mean_data"] == pytest.approx(np.average(td, weights=wd))
    assert t["mean_release"] == pytest.approx(np.average(tr, weights=wr))
    grid = sorted(set(td) | set(tr))

    def cdf(v: list, w: list, g: float) -> float:
        return sum(wi for vi, wi in zip(v, w) if vi <= g) / sum(w)

    assert r.ks == pytest.approx(max(abs(cdf(td, wd, g) - cdf(tr, wr, g)) for g in grid))
    # data totals 40000 (w 2), 10000 (1), 40000 (1), 38000 (3): weighted median 38000
    assert t["median_data"] == pytest.approx(38000)


def _poverty_brute(df: pd.DataFrame, weight: str | None) -> float:
    eq = {}
    for h, m in _hh(df).items():
        adults = sum(x["age"] >= 14 for x in m)
        kids = len(m) - adults
        scale = 1 + 0.5 * (adults - 1) + 0.3 * kids
        eq[h] = sum(0 if pd.isna(x["inc"]) else x["inc"] for x in m) / scale
    x = np.array([eq[h] for h in df["hid"]])
    w = np.ones(len(df)) if weight is None else df[weight].to_numpy(float)
    order = np.argsort(x)
    cw = np.cumsum(w[order]) / w.sum()
    med = x[order][np.flatnonzero(cw > 0.5)[0]]
    return float(w[x < 0.6 * med].sum() / w.sum())


def test_poverty_rate_small_file() -> None:
    r = at_risk_of_poverty(DATA, "hid", "inc", "age", weights="w")
    # by hand: equivalised incomes 40000/2.3 (4 persons, w 2), 10000 (1, w 1), 40000/1.5
    # (2, w 1), 38000/2 (3, w 3); weighted median 19000, threshold 11400: the one person of
    # household 2 (weight 1 of 20) is below
    assert r.median == pytest.approx(19000)
    assert r.threshold == pytest.approx(11400)
    assert r.rate == pytest.approx(1 / 20)
    assert r.rate == pytest.approx(_poverty_brute(DATA, "w"))
    c = compare_poverty(DATA, RELEASE, "hid", "inc", "age", weights="w")
    assert c.rate_release == pytest.approx(_poverty_brute(RELEASE, "w"))
    assert c.diff == pytest.approx(abs(c.rate_release - c.rate_data))


def test_poverty_rate_eusilcs(shared_data: Path) -> None:
    e = pd.read_csv(shared_data / "households" / "eusilcS.csv")
    inc = [c for c in e.columns if c.startswith("py") and c.endswith("n")]
    r = at_risk_of_poverty(e, "db030", inc, "age", weights="rb050")
    # direct: pandas groupby for the household income and the OECD-modified scale
    y = e[inc].fillna(0).sum(axis=1)
    g = e.assign(y=y, adult=e["age"] >= 14).groupby("db030")
    scale = 1 + 0.5 * (g["adult"].sum() - 1) + 0.3 * (g.size() - g["adult"].sum())
    eq = (g["y"].sum() / scale).reindex(e["db030"]).to_numpy()
    w = e["rb050"].to_numpy()
    order = np.argsort(eq, kind="stable")
    cw = np.cumsum(w[order]) / w.sum()
    med = eq[order][np.flatnonzero(cw > 0.5)[0]]
    assert r.median == pytest.approx(med)
    assert r.rate == pytest.approx(w[eq < 0.6 * med].sum() / w.sum())
    np.testing.assert_allclose(r.equivalised_income, eq)
    assert (g.size() == g["hsize"].first()).all()  # the file's own household size agrees


def test_bundle_and_errors() -> None:
    u = household_utility(DATA, RELEASE, "hid", weights="w", relationship="relat", age="age",
                          sex="sex", income="inc")
    assert u.size is not None and u.size.tv == pytest.approx(11 / 35)
    assert u.totals is not None and u.poverty is not None and u.composition is not None
    assert u.to_frame().loc["poverty rate diff", "value"] == pytest.approx(u.poverty.diff)
    bare = household_utility(DATA, RELEASE, "hid")
    assert bare.poverty is None and bare.composition is None and bare.notes
    with pytest.raises(DataError, match="'nope' not found"):
        household_size(DATA, RELEASE, "nope")
    with pytest.raises(DataError, match="missing values"):
        household_size(DATA.assign(hid=[1, None, *DATA["hid"][2:]]), RELEASE, "hid")
    with pytest.raises(ParameterError, match="age_breaks"):
        household_composition(DATA, RELEASE, "hid", sex="sex", age="age", age_breaks=(50, 30))
    with pytest.raises(DataError, match="weight column 'w'"):
        household_size(DATA.assign(w=-1.0), RELEASE, "hid", weights="w")


def test_poverty_rate_eusilcs_equals_laeken(shared_data: Path) -> None:
    """laeken 0.5.2's arpr on the same incomes (tests/reference/household/laeken_arpr_eusilcs.R)."""
    ref = pd.read_csv(Path(__file__).resolve().parents[1] / "reference" / "household"
                      / "laeken_arpr_eusilcs.csv").set_index("measure")["value"]
    e = pd.read_csv(shared_data / "households" / "eusilcS.csv")
    inc = [c for c in e.columns if c.startswith("py") and c.endswith("n")]
    r = at_risk_of_poverty(e, "db030", inc, "age", weights="rb050")
    assert 100 * r.rate == pytest.approx(ref["arpr_percent"], rel=1e-12)
    assert r.threshold == pytest.approx(ref["threshold"], rel=1e-12)
    assert r.median == pytest.approx(ref["weighted_median"], rel=1e-12)
