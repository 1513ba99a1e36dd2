"""Match rates (Reiter & Mitra 2009): the course's Star Wars and SAT examples, a brute-force
reference on random data, and the IdentificationRiskCalculation CE data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError, SchemaError
from synthguard.risk import match_rates


def test_star_wars_example():
    # 100 confidential characters; Jar Jar (row 0) shares Naboo/Gungan with rows 2 and 3,
    # R2-D2 (row 1) is the only Naboo droid. Skin colour was synthesized.
    world = ["Naboo", "Naboo", "Naboo", "Naboo"] + ["Tatooine"] * 96
    species = ["Gungan", "Droid", "Gungan", "Gungan"] + ["Human"] * 96
    conf = pd.DataFrame({"homeworld": world, "species": species, "skin": ["x"] * 100})
    release = conf.assign(skin=["orange", "white, blue", "grey", "green"] + ["fair"] * 96)
    res = match_rates(conf, release, keys=["homeworld", "species"], attacked=[0, 1])
    assert res.expected_match_risk == pytest.approx(1 / 3 + 1)  # the course: 1.333
    assert res.true_match_rate == pytest.approx(0.01)  # 1 / 100
    assert res.false_match_rate == 0.0  # 0 / 1
    np.testing.assert_array_equal(res.candidates[:4, 0], [3, 1, 0, 0])
    assert res.records()["candidates"].tolist() == [3.0, 1.0]


def _sat():
    year = [2008, 2008, 2009, 2009, 2010, 2010, 2010]
    elective = ["Chorus", "Chorus", "Chorus", "Band", "Band", "Band", "Band"]
    released_sat = [1100, 1420, 900, 1100, 1420, 900, 1200]
    conf = pd.DataFrame({"year": year, "elective": elective, "sat": [0.0] * 7})
    release = conf.assign(sat=np.array(released_sat, dtype=float))
    return conf, release


def test_sat_example_keys_only():
    conf, release = _sat()
    adam, betsy = 2, 4  # Adam: 2009 Chorus (unique match); Betsy: 2010 Band (three matches)
    res = match_rates(
        conf,
        release,
        keys=["year", "elective"],
        attacked=[adam, betsy],
        schema={"year": "categorical"},
    )
    assert res.candidates[adam, 0] == 1 and res.candidates[betsy, 0] == 3
    assert res.expected_match_risk == pytest.approx(1 + 1 / 3)
    assert res.true_match_rate == pytest.approx(1 / 7)
    assert res.false_match_rate == 0.0


def test_sat_example_with_known_true_scores_gives_a_false_match():
    conf, release = _sat()
    # the intruder also knows the true SAT scores; Betsy's record is row 5 (released 900)
    conf = conf.assign(sat=[1000.0, 1000.0, 950.0, 1000.0, 1000.0, 1400.0, 1000.0])
    res = match_rates(
        conf,
        release,
        keys=["year", "elective"],
        targets="sat",
        radius=0.1,
        attacked=[2, 5],
        schema={"year": "categorical"},
    )
    # Adam: 950 +- 95 holds his released 900 only -> unique true match
    # Betsy: 1400 +- 140 holds only row 4's 1420 -> unique false match
    np.testing.assert_array_equal(res.candidates[[2, 5], 0], [1, 1])
    np.testing.assert_array_equal(res.own_match[[2, 5], 0], [True, False])
    assert res.expected_match_risk == pytest.approx(1.0)
    assert res.true_match_rate == pytest.approx(1 / 7)
    assert res.false_match_rate == pytest.approx(0.5)


def _brute(conf, frames, exact, near, radii, relative, inclusive):
    n = len(conf)
    cand = np.zeros((n, len(frames)), dtype=int)
    own = np.zeros((n, len(frames)), dtype=bool)

    def same(a, b):
        return (pd.isna(a) and pd.isna(b)) or (not pd.isna(a) and not pd.isna(b) and a == b)

    for li, z in enumerate(frames):
        for i in range(n):
            hits = []
            for h in range(len(z)):
                ok = all(same(conf[c].iloc[i], z[c].iloc[h]) for c in exact)
                for c in near:
                    x, v = conf[c].iloc[i], z[c].iloc[h]
                    half = radii[c] * abs(x) if relative else radii[c]
                    lo, hi = x - half, x + half
                    inside = (lo <= v <= hi) if inclusive else ((lo < v < hi) or v == x)
                    ok = ok and bool(inside)
                if ok:
                    hits.append(h)
            cand[i, li] = len(hits)
            own[i, li] = i in hits
    return cand, own


@pytest.mark.parametrize("seed", range(8))
def test_matches_brute_force_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n = 40
    conf = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m", None], n),
            "age": rng.integers(20, 30, n).astype(float),
            "income": rng.choice([-10.0, 0.0, 10.0, 11.0, 12.0, 20.0, 50.0], n),
        }
    )
    frames = [
        conf.assign(income=rng.choice([-10.5, 0.0, 9.5, 10.0, 11.5, 13.0, 55.0], n))
        for _ in range(2)
    ]
    relative = bool(seed % 2)
    inclusive = seed % 4 >= 2
    radius = {"age": 0.05 if relative else 1.0, "income": 0.1 if relative else 1.5}
    res = match_rates(
        conf,
        frames,
        keys=["sex", "age"],
        targets="income",
        radius=radius,
        relative=relative,
        inclusive=inclusive,
    )
    cand, own = _brute(conf, frames, ["sex"], ["age", "income"], radius, relative, inclusive)
    np.testing.assert_array_equal(res.candidates, cand)
    np.testing.assert_array_equal(res.own_match, own)
    for li in range(2):
        c, t = cand[:, li], own[:, li]
        emr = np.sum(np.where(c > 0, t / np.maximum(c, 1), 0))
        u = c == 1
        row = res.per_implicate.iloc[li]
        assert row["expected_match_risk"] == pytest.approx(emr, abs=1e-12)
        assert row["true_match_rate"] == pytest.approx(np.sum(u & t) / n, abs=1e-12)
        if u.any():
            assert row["false_match_rate"] == pytest.approx(np.sum(u & ~t) / u.sum())
    assert res.expected_match_risk == pytest.approx(res.per_implicate["expected_match_risk"].mean())


def test_irc_ce_data_matches_the_r_package_definition(shared_data):
    folder = shared_data / "irc_ce"
    conf = pd.read_csv(folder / "CEdata_IdentificationRiskCalculation_n5571.csv")
    syns = [pd.read_csv(folder / f"CEdata_syn_Income_seed2021_m{m}.csv") for m in (1, 2, 3)]
    schema = {"Urban": "categorical", "Marital": "categorical"}
    res = match_rates(
        conf,
        syns,
        keys=["Age", "Urban", "Marital"],
        targets="Income",
        radius=0.1,
        schema=schema,
    )
    # the R package's rule, |z - x| < r * x on Age and Income, exact on Urban and Marital;
    # it equals ours for records with positive Age and Income
    age, inc = conf["Age"].to_numpy(float), conf["Income"].to_numpy(float)
    urb, mar = conf["Urban"].to_numpy(), conf["Marital"].to_numpy()
    rows = np.flatnonzero((inc > 0) & (age > 0))[::7]
    for li, z in enumerate(syns):
        za, zi = z["Age"].to_numpy(float), z["Income"].to_numpy(float)
        zu, zm = z["Urban"].to_numpy(), z["Marital"].to_numpy()
        for i in rows:
            m = (
                (zu == urb[i])
                & (zm == mar[i])
                & (za < age[i] + 0.1 * age[i])
                & (za > age[i] - 0.1 * age[i])
                & (zi < inc[i] + 0.1 * inc[i])
                & (zi > inc[i] - 0.1 * inc[i])
            )
            assert res.candidates[i, li] == m.sum()
            assert res.own_match[i, li] == m[i]
    assert 0 < res.true_match_rate < 1 and 0 <= res.false_match_rate <= 1
    assert res.expected_match_risk > res.true_match_rate * len(conf) * 0.5


def test_errors():
    conf, release = _sat()
    with pytest.raises(DataError, match="rows"):
        match_rates(conf, release.iloc[:3], keys=["year"])
    with pytest.raises(ParameterError, match="radius"):
        match_rates(conf, release, keys=["year"], radius={"nope": 0.1})
    with pytest.raises(ParameterError, match="both"):
        match_rates(conf, release, keys=["year"], targets="year")
    bad = conf.assign(sat=[np.nan] + [1.0] * 6)
    with pytest.raises(SchemaError, match="sat"):
        match_rates(bad, release, keys=["year"], targets="sat", schema={"year": "categorical"})
    res = match_rates(conf, release, keys=["year", "elective"], schema={"year": "categorical"})
    text = res.summary()
    assert "expected match risk" in text and "Chorus" not in text
    assert list(res.to_frame().index) == [0, "mean"]
