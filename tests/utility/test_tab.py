"""utility_tab / utility_tables against synthpop's own numbers.

``tests/reference/utility_tab/synthpop_utility_tab.csv``: synthpop 1.9-2's ``utility.tab.synds``
(sourced unchanged in R 4.2.2; see ``synthpop_utility_tab.R``) on the SD2011 fixtures: every
one-way and two-way table of the 10 columns and the three-way tables of the first six, for the
parametric and the CART synthesis. The one-way ``S_pMSE`` of the parametric synthesis is also
printed in synthpop's utility vignette (Raab, Nowok & Dibben, ``compare(syn_para, ods)``) for
sex, income, age, edu, socprof, trust and height: 0.548971, 1.002243, 1.054993, 0.355298,
0.405301, 0.895832, 2.967702 (the fixture's later columns differ from the vignette's run).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.utility import utility_tab, utility_tables
from synthguard.utility.tab import STATISTICS, table_statistics

REF = Path(__file__).resolve().parents[1] / "reference" / "utility_tab"
COLUMNS = ["sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke",
           "region"]
CONT_NA = {"income": [-8]}


@pytest.fixture
def sd2011(shared_data):
    folder = shared_data / "sd2011"
    ods = pd.read_csv(folder / "SD2011.csv")[COLUMNS]
    fx = {k: pd.read_csv(folder / "synthpop_fixtures" / f"utility_ods_syn_{k}_seed34567.csv")
          for k in ("para", "cart")}
    return ods, fx


def test_one_way_s_pmse_is_the_vignettes(sd2011):
    ods, fx = sd2011
    printed = {"sex": (0.548971, 1), "income": (1.002243, 6), "age": (1.054993, 4),
               "edu": (0.355298, 4), "socprof": (0.405301, 9), "trust": (0.895832, 3),
               "height": (2.967702, 5)}
    for col, (value, df) in printed.items():
        r = utility_tab(ods, fx["para"], [col], cont_na=CONT_NA)
        assert round(r.S_pMSE, 6) == value
        assert r.df == df


def test_every_statistic_of_every_table_is_synthpops(sd2011):
    ods, fx = sd2011
    ref = pd.read_csv(REF / "synthpop_utility_tab.csv")
    for name, syn in fx.items():
        want = ref[ref.fixture == name].set_index("vars")
        got = utility_tables(ods, syn, max_order=3, cont_na=CONT_NA).tables.set_index("vars")
        got = got.loc[want.index]
        for stat in want.columns[1:]:
            np.testing.assert_allclose(got[stat], want[stat], rtol=1e-9, err_msg=stat)


def test_tables_rank_the_worst_and_fill_the_heat_map(sd2011):
    ods, fx = sd2011
    u = utility_tables(ods, fx["para"], cont_na=CONT_NA)
    assert set(u.tables["order"]) == {1, 2} and len(u.tables) == 10 + 45
    worst = u.worst(3, order=2)
    assert list(worst["S_pMSE"]) == sorted(u.tables.query("order == 2")["S_pMSE"])[::-1][:3]
    m = u.matrix()
    a, b = worst["vars"].iloc[0].split(":")
    assert m.loc[a, b] == m.loc[b, a] == worst["S_pMSE"].iloc[0]
    assert np.isnan(np.diag(m.to_numpy())).all()
    scores = u.var_scores()
    pairs = u.tables.query("order == 2")
    assert scores["age"] == pytest.approx(pairs[pairs.vars.str.contains("age")]["S_pMSE"].mean())


def test_hand_computed_table():
    # conf counts (6, 4), syn (5, 5): c = 1/2, d = (-1, 1), expect = (5.5, 4.5)
    conf = pd.DataFrame({"a": ["x"] * 6 + ["y"] * 4})
    syn = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 5})
    r = utility_tab(conf, syn, ["a"])
    vw = 1 / 5.5 + 1 / 4.5
    assert r.VW == pytest.approx(vw)
    assert r.pMSE == pytest.approx(vw * 0.5 * 0.25 / 20)
    assert r.FT == pytest.approx(4 * ((5**0.5 - 6**0.5) ** 2 + (5**0.5 - 4**0.5) ** 2))
    assert r.dBhatt == pytest.approx((1 - (0.6 * 0.5) ** 0.5 - (0.4 * 0.5) ** 0.5) ** 0.5)
    # scores 5/11 (x: 5 syn, 6 conf) and 5/9 (y: 5 syn, 4 conf); U counts syn-conf pairs with
    # the syn score higher, ties one half: x-syn ties x-conf 5*6/2, y-syn beats x-conf 5*6 and
    # ties y-conf 5*4/2
    assert r.U == pytest.approx(15 + 30 + 10)
    assert r.SPECKS == pytest.approx(0.1)


def test_two_implicates_average():
    rng = np.random.default_rng(0)
    conf = pd.DataFrame({"a": rng.choice(list("xyz"), 300), "b": rng.normal(size=300)})
    imps = [pd.DataFrame({"a": rng.choice(list("xyz"), 300), "b": rng.normal(size=300)})
            for _ in range(2)]
    both = utility_tab(conf, imps, ["a", "b"])
    assert len(both.per_implicate) == 2
    for stat in STATISTICS:
        assert getattr(both, stat) == pytest.approx(both.per_implicate[stat].mean())


def test_statistics_need_two_cells_for_df():
    out = table_statistics(np.array([5]), np.array([5]), 1)
    assert out["df"] == 0 and np.isnan(out["S_pMSE"])


def test_bad_input_is_refused():
    conf = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    with pytest.raises(DataError, match="column 'b'"):
        utility_tab(conf, conf, ["b"])
    with pytest.raises(ParameterError, match="'ngroups'"):
        utility_tab(conf, conf, ["a"], ngroups=1)
    with pytest.raises(ParameterError, match="'stat'"):
        utility_tables(conf, conf, stat="nope")
    with pytest.raises(ParameterError, match="max_order"):
        utility_tables(conf, conf, max_order=4)
