"""Default safeguards: no replicated uniques, no extreme values, no tiny files, seeds hold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer, synthesize
from synthguard.errors import DataError, MethodError, ParameterError
from synthguard.synthesis import make_method
from synthguard.synthesis.safeguards import apply_tail_coding, tail_thresholds


@pytest.fixture
def cells():
    """Income drawn by CART within region x kids cells: plain CART hands back real records."""
    rng = np.random.default_rng(5)
    n = 200
    return pd.DataFrame({
        "region": rng.choice(["A", "B", "C"], n),
        "kids": rng.poisson(1.0, n),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
    })


def _brute_replicated_uniques(conf: pd.DataFrame, syn: pd.DataFrame) -> int:
    """Synthetic rows equal to a confidential row that no other confidential row equals."""
    rows = [tuple(r) for r in conf.itertuples(index=False)]
    uniques = {r for r in rows if rows.count(r) == 1}
    return sum(tuple(r) in uniques for r in syn[conf.columns].itertuples(index=False))


def test_plain_cart_copies_uniques_and_the_default_copies_none(cells):
    plain = synthesize(cells, m=2, random_state=3, replicated_uniques="keep", rare_values=0)
    counts = [_brute_replicated_uniques(cells, s) for s in plain.implicates]
    assert min(counts) > 50  # the problem is real here
    assert list(plain.safeguards.remaining) == counts  # and counted as the brute force does
    res = synthesize(cells, m=2, random_state=3, rare_values=0)
    for s in res.implicates:
        assert len(s) == len(cells)  # redrawn, not removed: n is kept
        assert _brute_replicated_uniques(cells, s) == 0
    assert res.safeguards.remaining == (0, 0) and res.diagnostics.replicated_uniques == 0
    assert min(res.safeguards.found) > 50 and res.safeguards.removed == (0, 0)
    assert "replicated uniques:" in res.summary()
    # categorical values are never changed by the fix: only numbers are smoothed
    off = synthesize(cells, m=2, random_state=3, replicated_uniques="keep", extremes=5,
                     rare_values=0)
    for a, b in zip(res.implicates, off.implicates):
        pd.testing.assert_frame_equal(a[["region", "kids"]], b[["region", "kids"]])


def test_partial_synthesis_protects_kept_columns_too(cells):
    res = Synthesizer(keep=["region", "kids"], m=2, random_state=4,
                      partial_uniques="suppress").fit(cells).sample()
    for s in res.implicates:
        assert _brute_replicated_uniques(cells, s) == 0
        pd.testing.assert_frame_equal(s[["region", "kids"]], cells.loc[s.index, ["region", "kids"]])
    assert len(res.implicates[0]) + res.safeguards.removed[0] == len(cells)


@pytest.mark.parametrize("policy", ["redraw", "remove"])
def test_partial_release_keeps_every_row_and_suppresses_what_still_replicates(policy):
    # kept block x age make every record unique; the synthesized 'kind' is almost constant,
    # so redrawing it cannot stop many records from being their real selves: those values are
    # suppressed (set missing) instead of the rows removed, which would break the row
    # alignment a partial release promises (and record-level risk)
    rng = np.random.default_rng(0)
    n = 200
    conf = pd.DataFrame({
        "block": [f"b{i % 60}" for i in range(n)],
        "age": rng.integers(20, 60, n),
        "kind": np.where(rng.random(n) < 0.97, "x", "y"),
    })
    res = Synthesizer(keep=["block", "age"], schema={"block": "categorical"},
                      methods={"kind": "sample"}, replicated_uniques=policy, m=2,
                      partial_uniques="suppress", random_state=1).fit(conf).sample()
    for i, s in enumerate(res.implicates):
        assert len(s) == len(conf) and s.index.equals(conf.index)
        pd.testing.assert_frame_equal(s[["block", "age"]], conf[["block", "age"]])
        n_missing = int(s["kind"].isna().sum())
        assert n_missing == res.safeguards.suppressed[i] > 0
        assert res.safeguards.removed[i] == 0
        assert _brute_replicated_uniques(conf, s) == 0
    assert "suppressed" in res.safeguards.summary()
    assert res.safeguards.totals()["suppressed"] == sum(res.safeguards.suppressed)


def test_partial_release_counts_a_copy_that_suppression_cannot_change():
    # 'kind' is missing in the data for blocks b0-b9 (CART's leaf for them holds only missing
    # values): a record unique on block x age there is drawn missing, redrawn missing and
    # suppressed to missing, so it is still its unique self. It is counted as released, as
    # the brute force counts it, and not as suppressed (SD2011's partial release of income,
    # missing for 683 records, kept 78 such copies while the summary said 0 released)
    rng = np.random.default_rng(0)
    n = 300
    block = np.array([f"b{i % 60}" for i in range(n)])
    conf = pd.DataFrame({"block": block, "age": rng.integers(20, 60, n),
                         "kind": np.where(rng.random(n) < 0.5, "x", "y").astype(object)})
    conf.loc[np.isin(block, [f"b{i}" for i in range(10)]), "kind"] = None
    res = Synthesizer(keep=["block", "age"], schema={"block": "categorical"},
                      methods={"kind": "cart"}, m=2, partial_uniques="suppress",
                      random_state=1).fit(conf).sample()

    def filled(d: pd.DataFrame) -> pd.DataFrame:
        return d.astype(object).where(d.notna(), "<missing>")

    for i, s in enumerate(res.implicates):
        brute = _brute_replicated_uniques(filled(conf), filled(s))
        assert brute == res.safeguards.remaining[i] > 10
        # every copy left is a unique record whose 'kind' is missing in the data
        key = filled(conf).astype(str).agg("|".join, axis=1)
        unique = key.map(key.value_counts()).eq(1)
        copies = filled(s).eq(filled(conf)).all(axis=1) & unique
        assert int(copies.sum()) == brute and conf.loc[copies, "kind"].isna().all()
    assert f"{sum(res.safeguards.remaining)} released" in res.safeguards.summary()


def _nearly_constant_partial(n: int = 200) -> pd.DataFrame:
    """Kept block x age (x weight) make every record unique; the synthesized 'kind' is
    almost constant, so redrawing it leaves many records their real selves."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "block": [f"b{i % 60}" for i in range(n)],
        "age": rng.integers(20, 60, n),
        "weight": rng.integers(10_000, 400_000, n),
        "kind": np.where(rng.random(n) < 0.97, "x", "y"),
    })


@pytest.mark.parametrize("how", ["synthesize", "coarsen"])
def test_partial_release_changes_the_riskiest_kept_value_instead_of_blanking(how):
    # main blanked 'kind' in every row still replicating a unique; now the riskiest kept
    # column (weight: every record unique on it alone) is synthesized anew or coarsened in
    # every record unique on the kept columns, and nothing is blanked
    conf = _nearly_constant_partial()
    syn = Synthesizer(keep=["block", "age", "weight"], schema={"block": "categorical"},
                      methods={"kind": "sample"}, m=2, partial_uniques=how,
                      random_state=1).fit(conf)
    assert syn.kept_ranking_[0] == "weight"
    key = conf[["block", "age", "weight"]].astype(str).agg("|".join, axis=1)
    unique = key.map(key.value_counts()).eq(1)
    assert unique.sum() == len(conf)
    res = syn.sample()
    sg = res.safeguards
    for i, s in enumerate(res.implicates):
        assert len(s) == len(conf) and s.index.equals(conf.index)
        assert int(s["kind"].isna().sum()) == sg.suppressed[i] == 0
        assert _brute_replicated_uniques(conf, s) == 0
        pd.testing.assert_frame_equal(s[["block", "age"]], conf[["block", "age"]])
        changed = s["weight"].ne(conf["weight"])
        # every record unique on the kept columns: a change says nothing about 'kind'
        assert int(changed.sum()) == sg.kept_changed[i]["weight"] >= 0.95 * len(conf)
        if how == "coarsen":  # 2 significant digits (1 for a value already round)
            w = s.loc[changed, "weight"].to_numpy()
            assert np.all(w % 1000 == 0) and np.all(w >= 10_000)
        else:  # drawn from the column's model: inside the data's range, not the data's value
            assert s["weight"].between(conf["weight"].min(), conf["weight"].max()).all()
    assert sg.partial_uniques == how
    text = sg.summary()
    total = sum(sg.kept_changed[i]["weight"] for i in range(2))
    assert f"weight, the riskiest kept column, {'synthesized anew' if how == 'synthesize' else 'coarsened'}" in text
    share = 100 * total / (2 * len(conf))
    import re

    got = re.search(rf"{total:,} of {2 * len(conf):,} \(([\d.]+) %\)", text)
    assert got is not None and abs(float(got.group(1)) - share) <= 0.051
    # same seed, same release (the kept model is fitted from the fit's seed)
    again = Synthesizer(keep=["block", "age", "weight"], schema={"block": "categorical"},
                        methods={"kind": "sample"}, m=2, partial_uniques=how,
                        random_state=1).fit(conf).sample()
    for a, b in zip(res.implicates, again.implicates, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_partial_guard_leaves_records_that_are_not_unique_on_the_kept_columns():
    # records sharing their kept values with another record cannot be singled out by them:
    # their kept values stay the data's
    rng = np.random.default_rng(3)
    n = 300
    conf = pd.DataFrame({"g": rng.choice(["a", "b"], n), "w": rng.integers(0, 3, n) * 1000,
                         "kind": np.where(rng.random(n) < 0.9, "x", "y")})
    conf.loc[:9, "w"] = 123_457 + np.arange(10)  # ten records unique on g x w
    res = Synthesizer(keep=["g", "w"], methods={"kind": "sample"}, m=1,
                      random_state=1).fit(conf).sample()
    s = res.implicates[0]
    changed = s["w"].ne(conf["w"])
    assert changed[:10].all() and not changed[10:].any()
    assert res.safeguards.kept_changed[0] == {"w": 10}
    assert "w, the riskiest kept column, synthesized anew in 10 of 300" in res.summary()


def test_partial_guard_survives_pickling_and_checks_its_option():
    import pickle

    conf = _nearly_constant_partial()
    syn = Synthesizer(keep=["block", "age", "weight"], schema={"block": "categorical"},
                      methods={"kind": "sample"}, random_state=2).fit(conf)
    loaded = pickle.loads(pickle.dumps(syn))
    s = loaded.sample(random_state=3).implicates[0]
    assert _brute_replicated_uniques(conf, s) == 0 and s["kind"].notna().all()
    with pytest.raises(ParameterError, match="partial_uniques"):
        Synthesizer(keep=["block"], partial_uniques="blank").fit(conf)


def test_remove_policy_drops_the_rows(cells):
    res = synthesize(cells, random_state=3, replicated_uniques="remove", extremes=0,
                     rare_values=0)
    s = res.implicates[0]
    assert len(s) == len(cells) - res.safeguards.found[0] and res.safeguards.removed[0] > 0
    assert _brute_replicated_uniques(cells, s) == 0


def test_safeguards_are_vectorised_on_categorical_only_data():
    # every column categorical: a replicated unique can only be redrawn whole
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({c: rng.choice(list("abcdefgh"), n) for c in ("x", "y", "z")})
    res = synthesize(df, m=2, random_state=1)
    for s in res.implicates:
        assert _brute_replicated_uniques(df, s) == 0
    assert sum(res.safeguards.found) > 0


def test_extremes_never_released(cells):
    df = cells.assign(spend=np.round(cells["income"] * 0.3 + 100 * np.arange(len(cells)), 4))
    off = synthesize(df, m=3, random_state=2, extremes=0, replicated_uniques="keep",
                     rare_values=0)
    res = synthesize(df, m=3, random_state=2)
    present_before = 0
    for c in ("income", "spend"):
        v = np.sort(df[c].to_numpy())
        tails = np.r_[v[:5], v[-5:]]
        present_before += sum(int(np.isin(s[c], tails).sum()) for s in off.implicates)
        for s in res.implicates:
            assert not np.isin(s[c], tails).any()
            lo, hi = res.safeguards.thresholds[c]
            assert s[c].min() >= lo and s[c].max() <= hi
            assert v[4] < v[5] <= lo and hi <= v[-6] < v[-5]  # between tails and the rest
    assert present_before > 0  # plain CART releases them


def test_tail_thresholds_by_hand():
    x = np.r_[[0.5, 0.7, 1.2, 3, 8], [12.3, 40, 41, 42], [1234.5, 2500, 3000, 7000, 9000, 9999]]
    # bottom: tail values < x[5] = 12.3 -> B = 13 (up, 2 digits); top: u = x[-6] = 1234.5 ->
    # T = 1200 (down, 2 digits)
    assert tail_thresholds(x, 5) == (13.0, 1200.0)
    # integer data: thresholds are whole numbers, never finer than 1
    assert tail_thresholds(np.arange(1.0, 31.0), 5) == (6.0, 25.0)
    # a point mass at the extreme is no tail: 0 held by 50 records, 99999 by 20
    z = np.r_[np.zeros(50), np.arange(1.0, 101.0), np.full(20, 99999.0)]
    assert tail_thresholds(z, 5) == (None, None)
    assert tail_thresholds(z, 0) == (None, None)
    assert tail_thresholds(np.r_[np.nan, np.arange(12.0)], 5) == (5.0, 6.0)
    v = np.array([1.0, 5.0, 1300.0, np.nan])
    assert apply_tail_coding(v, 2.0, 1200.0) == 2 and np.array_equal(v[:3], [2, 5, 1200])


def test_seeds_reproduce_and_options_off_restore_the_plain_draw(cells):
    a = synthesize(cells, m=2, random_state=11)
    b = synthesize(cells, m=2, random_state=11)
    for x, y in zip(a.implicates, b.implicates):
        pd.testing.assert_frame_equal(x, y)
    off = synthesize(cells, m=2, random_state=11, replicated_uniques="keep", extremes=0,
                     rare_values=0)
    # the safeguards only touch rows they redraw or code: the rest is the plain draw
    for x, y, found, coded, rare in zip(a.implicates, off.implicates, a.safeguards.found,
                                        a.safeguards.coded, a.safeguards.rare):
        changed = (x != y).any(axis=1).sum()
        assert 0 < changed <= found + sum(coded.values()) + sum(rare.values())


def test_too_little_data_is_refused(cells):
    with pytest.raises(DataError, match="fewer records than the 40 needed to synthesize 3"):
        synthesize(cells.head(39), random_state=1)
    with pytest.raises(DataError, match="min_rows=0"):
        synthesize(cells.head(1), random_state=1)
    res = synthesize(cells.head(39), random_state=1, min_rows=0, extremes=0)
    assert len(res.implicates[0]) <= 39
    assert len(synthesize(cells.head(40), random_state=1).implicates[0]) == 40
    with pytest.raises(ParameterError, match="min_rows"):
        synthesize(cells, min_rows=-1)


def test_bad_safeguard_parameters():
    df = pd.DataFrame({"x": np.arange(100) % 7, "y": np.arange(100) % 3})
    with pytest.raises(ParameterError, match="replicated_uniques"):
        synthesize(df, replicated_uniques="drop")
    with pytest.raises(ParameterError, match="extremes"):
        synthesize(df, extremes=-1)


def test_method_options_in_the_name():
    m = make_method("cart:smoothing=density:min_samples_leaf=10:max_bins=none")
    assert (m.smoothing, m.min_samples_leaf, m.max_bins) == ("density", 10, None)
    with pytest.raises(MethodError, match="NAME:KEY=VALUE"):
        make_method("cart:smoothing")
    with pytest.raises(MethodError, match="both in the name and as parameters"):
        make_method("cart:min_samples_leaf=3", min_samples_leaf=4)


def test_smoothing_reachable_from_the_synthesizer(cells):
    res = synthesize(cells, random_state=1, methods={"income": "cart:smoothing=density"},
                     replicated_uniques="keep", extremes=0)
    inc = res.implicates[0]["income"]
    assert not np.isin(inc, cells["income"]).all()
    assert inc.min() >= cells["income"].min() and inc.max() <= cells["income"].max()
    assert np.allclose(inc, np.round(inc, 2))


def test_uniques_judged_on_keys_make_repu_zero():
    # keys region x age group: some combinations are held by one person only
    rng = np.random.default_rng(8)
    n = 400
    df = pd.DataFrame({
        "region": rng.choice(list("abcdefghij"), n),
        "agegrp": rng.choice(["y", "m", "o"], n, p=[0.45, 0.45, 0.1]),
        "income": np.round(rng.lognormal(10, 0.7, n), 2),
    })
    keys = ["region", "agegrp"]
    conf_counts = df.groupby(keys).size()
    conf_uniques = set(conf_counts[conf_counts == 1].index)
    assert conf_uniques  # the case is real

    def repu(syn):  # synthpop's repU: unique on the keys in both files (brute force)
        s_counts = syn.groupby(keys).size()
        return sum(1 for k in conf_uniques if s_counts.get(k, 0) == 1)

    plain = synthesize(df, m=3, random_state=2, replicated_uniques="keep")
    assert sum(repu(s) for s in plain.implicates) > 0
    res = synthesize(df, m=3, random_state=2, uniques_on=keys)
    for s in res.implicates:
        assert repu(s) == 0
        assert not any(k in conf_uniques for k in s[keys].itertuples(index=False, name=None))
    with pytest.raises(ParameterError, match=r"'uniques_on'.*nope"):
        synthesize(df, uniques_on=["nope"])


def test_uniques_on_keys_still_fixes_whole_record_copies(cells):
    res = synthesize(cells, m=2, random_state=3, uniques_on=["region"])
    for s in res.implicates:
        assert _brute_replicated_uniques(cells, s) == 0


def test_thresholds_snap_onto_data_values_outside_the_tails():
    from synthguard.synthesis.safeguards import snap_to_values

    x = np.array([0.13, 1.07, 2.5, 2.5, 3.33, 4.91, 7.2, 8.04, 9.99, 12.6, np.nan])
    lo, hi = tail_thresholds(x, 2)  # u = 8.04 -> T = 8.0, l = 2.5 -> B = 2.5
    assert (lo, hi) == (2.5, 8.0)
    slo, shi = snap_to_values(x, lo, hi)
    assert (slo, shi) == (2.5, 7.2)  # 8.0 is not a value of the data: down to 7.2
    assert snap_to_values(x, 2.6, None) == (3.33, None)


def test_reports_of_blocks_combine_by_implicate():
    from synthguard.synthesis.safeguards import SafeguardReport

    a = SafeguardReport("redraw", 5, {"x": (1.0, 9.0), "y": (None, 40.0)}, found=(2, 1),
                        redrawn=(2, 1), removed=(0, 0), remaining=(0, 0), suppressed=(0, 0),
                        coded=({"x": 3, "y": 1}, {"x": 0, "y": 2}), rare_values=5,
                        rare=({"x": 4}, {}))
    b = SafeguardReport("redraw", 5, {"x": (1.0, 9.0), "y": (None, 45.0)}, found=(0, 4),
                        redrawn=(0, 3), removed=(0, 1), remaining=(0, 0), suppressed=(0, 0),
                        coded=({"x": 1, "y": 0}, {"x": 5, "y": 0}), rare_values=5,
                        rare=({"y": 2}, {"x": 1}))
    c = SafeguardReport.combine([a, b])
    assert (c.found, c.redrawn, c.removed) == ((2, 5), (2, 4), (0, 1))
    assert c.coded == ({"x": 4, "y": 1}, {"x": 5, "y": 2})
    assert c.rare == ({"x": 4, "y": 2}, {"x": 1})
    assert c.thresholds == {"x": (1.0, 9.0)}  # y was coded at each block's own threshold
    assert "of 2 numeric columns" in c.summary()  # x and y, read from what was coded
    assert c.totals()["extreme_values_coded"] == 12
    with pytest.raises(ParameterError, match="at least one"):
        SafeguardReport.combine([])


def test_safeguard_counts_pass_the_small_cell_rule():
    # a count of a few records, printed or written beside the release, says how many records
    # hold a rare combination: shown as "< 10", as the report shows small cells
    from synthguard.synthesis.safeguards import SafeguardReport

    sg = SafeguardReport(
        replicated_uniques="redraw", extremes=5, found=(3, 0), redrawn=(3, 0), removed=(0, 0),
        remaining=(0, 0), suppressed=(1, 0), partial_uniques="synthesize",
        kept_changed=({"w": 2}, {"w": 40}), n_records=(300, 300),
        synthesized_columns=("kind",), coded=({"x": 12}, {}), rare_values=5, rare=({}, {}))
    text = sg.summary()
    assert "replicated uniques: < 10 drawn over 2 implicates, < 10 redrawn, 0 removed, " \
           "< 10 suppressed, 0 released" in text
    assert "w, the riskiest kept column, synthesized anew in 42 of 600 (7.0 %)" in text
    assert "blanked (set missing) in < 10 of 600 (< 1.7 %)" in text
    record = sg.to_record()
    assert record["counts"]["replicated_uniques_found"] == "< 10"
    assert record["counts"]["suppressed"] == "< 10"
    assert record["counts"]["extreme_values_coded"] == 12
    assert record["kept_changed"] == {"w": 42} and record["released_records"] == 600
    assert " 3 " not in text and "1 suppressed" not in text
