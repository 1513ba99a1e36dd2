"""Constraints: parsing, checking, and keeping them while synthesizing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthguard import Synthesizer
from synthguard.data.constraints import check_constraints, parse_constraints
from synthguard.errors import DataError, ParameterError
from synthguard.synthesis.enforce import DEFAULT_MAX_REDRAWS

# ----------------------------------------------------------------------------- parsing


def test_parse_texts_and_table_rows() -> None:
    got = parse_constraints([
        "age < 16 -> marital == 'single'",
        {"variable": "income", "minimum": 0},
        {"variable": "sex", "allowed": "Male; Female", "condition": "rel == 'Husband'"},
        {"variable": "x y", "minimum": 1, "maximum": 5.5},
    ])
    assert [c.text for c in got] == [
        "age < 16 -> marital == 'single'",
        "income >= 0",
        "rel == 'Husband' -> sex in ['Male', 'Female']",
        "(`x y` >= 1) & (`x y` <= 5.5)",
    ]
    assert got[0].condition == "age < 16" and got[0].requirement == "marital == 'single'"
    assert got[0].columns == ("age", "marital")
    assert got[2].columns == ("rel", "sex")
    assert got[3].columns == ("x y",)


def test_parse_a_table_frame() -> None:
    table = pd.DataFrame({"variable": ["a", "b"], "minimum": [0, np.nan],
                          "maximum": [np.nan, 3], "allowed": [None, None],
                          "condition": [None, "a > 1"]})
    assert [c.text for c in parse_constraints(table)] == ["a >= 0", "a > 1 -> b <= 3"]


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("age <<< 3", "does not parse"),
        ("agee > 3", "not in the data: agee"),
        ("a > 1 -> -> b", "more than one '->'"),
        (" -> a > 1", "empty"),
        ("open(a) > 1", "only the functions"),
        ("a > @limit", "'@'"),
        ([{"variable": "a"}], "minimum, a maximum or allowed"),
        ([{"variable": "a", "minimum": 0, "lower": 1}], "unknown fields lower"),
    ],
)
def test_bad_constraints_are_named_in_one_line(spec: object, match: str) -> None:
    with pytest.raises(ParameterError, match=match) as e:
        parse_constraints(spec, ["a", "b", "age"])
    assert "\n" not in str(e.value)


def test_check_constraints_by_hand() -> None:
    df = pd.DataFrame({
        "age": [10, 30, 12, 14, np.nan],
        "marital": ["single", "married", "married", "married", "married"],
        "inc": [1.0, -2.0, 3.0, np.nan, 5.0],
        "exp": [0.5, 1.0, 4.0, 2.0, 1.0],
    })
    out = check_constraints(df, ["age < 16 -> marital == 'single'", "inc >= 0",
                                 "exp <= inc"])
    # age<16: rows 0, 2, 3 (row 4 missing age); rows 2 and 3 married
    assert out.loc["age < 16 -> marital == 'single'"].tolist() == [3, 2, pytest.approx(2 / 3)]
    # inc missing in row 3: not subject
    assert out.loc["inc >= 0"].tolist() == [4, 1, 0.25]
    # exp <= inc breaks in rows 1 (1 > -2) and 2 (4 > 3)
    assert out.loc["exp <= inc"].tolist() == [4, 2, 0.5]
    assert list(out.columns) == ["applies_to", "violations", "share"]


def test_a_constraint_that_applies_to_no_record_has_no_share() -> None:
    out = check_constraints(pd.DataFrame({"a": [1, 2]}), "a > 5 -> a < 0")
    assert out["applies_to"].iloc[0] == 0 and np.isnan(out["share"].iloc[0])


# ----------------------------------------------------------------------------- synthesis

RULES = [
    "rel == 'husband' -> sex == 'm'",
    "rel == 'wife' -> sex == 'f'",
    "x > 0 -> y == 0",
    "z <= x",
    "z >= -1",
    "kids <= 2",
]


def _brute_force_ok(row: pd.Series) -> list[bool]:
    """Each rule of RULES checked on one record with plain Python."""
    return [
        row["rel"] != "husband" or row["sex"] == "m",
        row["rel"] != "wife" or row["sex"] == "f",
        not row["x"] > 0 or row["y"] == 0,
        row["z"] <= row["x"],
        row["z"] >= -1,
        row["kids"] <= 2,
    ]


@pytest.fixture
def tempting() -> pd.DataFrame:
    """Data that keep RULES, synthesized with methods that ignore the links the rules need
    (``sample`` draws each column from its marginal), so most draws break one."""
    rng = np.random.default_rng(3)
    n = 600
    rel = rng.choice(["husband", "wife", "child"], size=n)
    sex = np.where(rel == "husband", "m", np.where(rel == "wife", "f", rng.choice(["m", "f"], n)))
    x = np.maximum(rng.normal(0, 2, n), -1)
    y = np.where(x > 0, 0.0, rng.exponential(3, n))
    z = np.maximum(x - rng.exponential(1, n), -1)
    kids = rng.integers(0, 3, n)
    return pd.DataFrame({"rel": rel, "sex": sex, "x": x, "y": y, "z": z, "kids": kids})


SAMPLE_ALL = {c: "sample" for c in ("rel", "sex", "x", "y", "z", "kids")}


def test_the_tempting_data_keep_the_rules_but_plain_synthesis_breaks_them(tempting) -> None:
    assert check_constraints(tempting, RULES)["violations"].sum() == 0
    plain = Synthesizer(methods=SAMPLE_ALL, random_state=2).fit(tempting).sample()
    assert (check_constraints(plain.implicates[0], RULES)["violations"] > 0).sum() >= 4


@pytest.mark.parametrize("max_redraws", [0, 3, DEFAULT_MAX_REDRAWS])
def test_constraints_hold_on_every_row_of_every_implicate(tempting, max_redraws) -> None:
    res = Synthesizer(methods=SAMPLE_ALL, constraints=RULES, max_redraws=max_redraws,
                      random_state=5, m=3).fit(tempting).sample()
    for d in res.implicates:
        ok = np.array([_brute_force_ok(r) for _, r in d.iterrows()])
        assert ok.all()
    rep = res.constraints.to_frame()
    assert len(rep) == 3 * len(RULES) and (rep["remaining"] == 0).all()
    if max_redraws == 0:
        assert (rep["redrawn"] == 0).all() and rep["forced"].sum() > 0
    assert res.provenance["constraints"]["max_redraws"] == max_redraws


def test_cart_and_strata_keep_the_constraints(tempting) -> None:
    df = tempting.assign(g=np.where(np.arange(len(tempting)) % 2, "a", "b"))
    res = Synthesizer(constraints=RULES, strata="g", min_stratum_size=0, random_state=1,
                      m=2, n=900).fit(df).sample()
    for d in res.implicates:
        assert len(d) == 900
        assert np.array([_brute_force_ok(r) for _, r in d.iterrows()]).all()


def test_rows_that_break_no_rule_are_drawn_as_without_constraints(tempting) -> None:
    """Redraws have their own random stream: every record that broke no rule when drawn is
    the record drawn without constraints (same seed), and the redrawn counts are the
    violations of the unconstrained draw."""
    rules = ["rel == 'husband' -> sex == 'm'"]
    kw = dict(methods={c: "sample" for c in ("rel", "sex", "x")},
              visit_sequence=["rel", "sex", "x"],
              replicated_uniques="keep", extremes=0, rare_values=0)
    plain = Synthesizer(**kw, random_state=9).fit(tempting).sample().implicates[0]
    res = Synthesizer(**kw, constraints=rules, random_state=9).fit(tempting).sample()
    kept = res.implicates[0]
    broke = ((plain["rel"] == "husband") & (plain["sex"] != "m")).to_numpy()
    assert broke.sum() > 20
    pd.testing.assert_frame_equal(plain[~broke], kept[~broke])
    assert res.constraints.redrawn[0] == (int(broke.sum()),)
    # the redrawn records' sex comes from the model (sample: the marginal) restricted to the
    # allowed level: all 'm'
    assert (kept.loc[broke, "sex"] == "m").all()


def test_forced_levels_follow_the_model_among_allowed_levels() -> None:
    """With no redraws, a record breaking ``a == 'x' -> b != 'q'`` gets a level drawn among
    the allowed ones with the model's probabilities (sample: the marginal shares, here
    0.5 : 0.3 renormalized over {p, r})."""
    rng = np.random.default_rng(0)
    n = 4000
    a = rng.choice(["x", "w"], size=n)
    b = rng.choice(["p", "r", "q"], size=n, p=[0.5, 0.3, 0.2])
    b[(a == "x") & (b == "q")] = "p"
    df = pd.DataFrame({"a": a, "b": b})
    res = Synthesizer(methods={"a": "sample", "b": "sample"}, max_redraws=0,
                      constraints=["a == 'x' -> b != 'q'"], random_state=4, m=4).fit(df).sample()
    shares = df["b"].value_counts(normalize=True)
    forced = []
    for d in res.implicates:
        assert not ((d["a"] == "x") & (d["b"] == "q")).any()
    # the plain draw of the same seeds tells which records were forced
    plain = Synthesizer(methods={"a": "sample", "b": "sample"}, random_state=4, m=4
                        ).fit(df).sample()
    for d, p in zip(res.implicates, plain.implicates):
        hit = ((p["a"] == "x") & (p["b"] == "q")).to_numpy()
        forced.append(d.loc[hit, "b"])
    got = pd.concat(forced).value_counts()
    expected = np.array([shares["p"], shares["r"]]) / (shares["p"] + shares["r"])
    obs = np.array([got.get("p", 0), got.get("r", 0)])
    assert obs.sum() > 300
    assert stats.chisquare(obs, expected * obs.sum()).pvalue > 0.001
    assert sum(f[0] for f in res.constraints.forced) == obs.sum()


def test_forced_numbers_take_the_nearest_allowed_value(tempting) -> None:
    kw = dict(methods={c: "sample" for c in ("x", "y", "z")}, visit_sequence=["x", "y", "z"],
              replicated_uniques="keep", extremes=0, rare_values=0)
    plain = Synthesizer(**kw, random_state=3).fit(tempting).sample().implicates[0]
    res = Synthesizer(**kw, random_state=3, max_redraws=0,
                      constraints=["z <= x", "x > 0 -> y == 0"]).fit(tempting).sample()
    d = res.implicates[0]
    over = (plain["z"] > plain["x"]).to_numpy()
    assert over.sum() > 50
    np.testing.assert_array_equal(d.loc[over, "z"], d.loc[over, "x"])
    np.testing.assert_array_equal(d.loc[~over, "z"], plain.loc[~over, "z"])
    pos = (plain["x"] > 0).to_numpy() & (plain["y"] != 0).to_numpy()
    assert (d.loc[pos, "y"] == 0).all()
    assert res.constraints.forced[0] == (int(over.sum()), int(pos.sum()))


def test_strict_bounds_and_counts_are_forced_to_the_next_value() -> None:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.integers(0, 10, 500), "b": rng.integers(0, 10, 500)})
    df["b"] = np.where(df["b"] <= df["a"], df["a"] + 1, df["b"])
    res = Synthesizer(methods={"a": "sample", "b": "sample"}, max_redraws=0,
                      schema={"b": "count"}, constraints="b > a",
                      random_state=2).fit(df).sample()
    d = res.implicates[0]
    assert (d["b"] > d["a"]).all()
    assert ((d["b"] == d["a"] + 1) | (d["b"] > d["a"])).all()
    assert res.constraints.forced[0][0] > 0


def test_seeds_reproduce_with_constraints(tempting) -> None:
    kw = dict(methods=SAMPLE_ALL, constraints=RULES, m=2)
    a = Synthesizer(**kw, random_state=11).fit(tempting).sample()
    b = Synthesizer(**kw, random_state=11).fit(tempting).sample()
    for x, y in zip(a.implicates, b.implicates):
        pd.testing.assert_frame_equal(x, y)
    assert a.constraints.to_dict() == b.constraints.to_dict()


def test_a_rule_the_data_break_is_refused(tempting) -> None:
    df = tempting.copy()
    df.loc[:2, ["rel", "sex"]] = ["husband", "f"]
    with pytest.raises(DataError) as e:
        Synthesizer(constraints=RULES).fit(df)
    msg = str(e.value)
    assert "rel == 'husband' -> sex == 'm'" in msg and "fewer than 10 records" in msg
    assert "allow_violations" in msg and "z <= x" not in msg
    res = Synthesizer(methods=SAMPLE_ALL, constraints=RULES, allow_violations=True,
                      random_state=1).fit(df).sample()
    assert check_constraints(res.implicates[0], RULES)["violations"].sum() == 0


def test_constraint_parameters_are_checked(tempting) -> None:
    with pytest.raises(ParameterError, match="stands alone"):
        Synthesizer(constraints="x + z <= 10").fit(tempting)
    with pytest.raises(ParameterError, match="not released: kids"):
        Synthesizer(constraints="kids <= 2", visit_sequence=["rel", "sex"]).fit(tempting)
    with pytest.raises(ParameterError, match="max_redraws"):
        Synthesizer(constraints="kids <= 2", max_redraws=-1).fit(tempting)
    with pytest.raises(ParameterError, match="not in the data: nope"):
        Synthesizer(constraints="nope <= 2").fit(tempting)


def test_constraints_on_kept_columns_only_are_not_enforced(tempting) -> None:
    res = Synthesizer(keep=["x", "y"], constraints=["x > 0 -> y == 0", "z <= x"],
                      random_state=1).fit(tempting).sample()
    assert res.constraints.completed_by == {"x > 0 -> y == 0": None, "z <= x": "z"}
    assert (res.implicates[0]["z"] <= res.implicates[0]["x"]).all()
