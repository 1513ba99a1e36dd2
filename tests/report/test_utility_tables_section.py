"""The report's two-way table utility heat map (synthpop's utility.tables plot)."""

import numpy as np
import pandas as pd

from synthguard.report.figures import to_png
from synthguard.report.html import Figure
from synthguard.report.utility_tables_section import (
    add_utility_tables_figure,
    utility_tables_matrices,
)
from synthguard.utility import utility_tab


def _data(seed):
    rng = np.random.default_rng(seed)
    a = rng.choice(list("xyz"), 400)
    return pd.DataFrame({"a": a, "b": np.where(a == "x", rng.normal(5, 1, 400), rng.normal(0, 1, 400)),
                         "c": rng.choice(list("pq"), 400)})


def test_matrix_holds_each_pairs_s_pmse_and_the_worst_table_is_named():
    conf = _data(0)
    broken = _data(1).assign(b=lambda d: d["b"].sample(frac=1, random_state=2).to_numpy())
    mats = utility_tables_matrices(conf, {"rel": [broken]})
    m, worst = mats["rel"]
    assert m.loc["a", "b"] == utility_tab(conf, broken, ["a", "b"]).S_pMSE
    assert worst["vars"].iloc[0] == "a:b"  # the relation the release broke

    class Ev:
        pass

    ev = Ev()
    ev.conf, ev.implicates = conf, {"rel": [broken]}
    figs: list = []
    add_utility_tables_figure(figs, ev, Figure, to_png)
    assert [f.id for f in figs] == ["fig-utility-tables"] and "a:b" in figs[0].caption
