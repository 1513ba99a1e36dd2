"""Disclosure diagnostics against brute-force counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.synthesis import Synthesizer, replicated_share
from synthguard.synthesis.diagnostics import hash_rows, leaf_summary


def _brute_share(conf: pd.DataFrame, syn: pd.DataFrame) -> float:
    conf_rows = {tuple(r) for r in conf.astype(object).where(conf.notna(), None).itertuples(index=False)}
    rows = syn.astype(object).where(syn.notna(), None).itertuples(index=False)
    return float(np.mean([tuple(r) in conf_rows for r in rows]))


def test_replicated_share_matches_brute_force():
    rng = np.random.default_rng(1)
    conf = pd.DataFrame({"a": rng.integers(0, 3, 200), "b": rng.choice(["x", "y"], 200),
                         "c": rng.integers(0, 2, 200).astype(float)})
    syn = pd.DataFrame({"a": rng.integers(0, 4, 150), "b": rng.choice(["x", "y", "z"], 150),
                        "c": rng.integers(0, 2, 150).astype(float)})
    syn.loc[::7, "c"] = np.nan
    assert replicated_share(conf, syn) == pytest.approx(_brute_share(conf, syn))
    assert replicated_share(conf, syn, ["a"]) == pytest.approx(_brute_share(conf[["a"]], syn[["a"]]))


def test_hash_rows_equal_rows_equal_hashes():
    a = {"x": np.array([1.0, 1.0, -0.0, 0.0, np.nan, np.nan]), "y": np.array([1, 1, 2, 2, 3, 3])}
    h = hash_rows(a, ["x", "y"])
    assert h[0] == h[1] and h[2] == h[3] and h[4] == h[5]
    assert len(set(h.tolist())) == 3
    # swapped values (pandas hashes the integer 0 to 0) must not collide
    swapped = hash_rows({"x": np.array([0, 1]), "y": np.array([1, 0])}, ["x", "y"])
    assert swapped[0] != swapped[1]


def test_release_diagnostics_against_brute_force(mixed):
    data = mixed[["region", "urban", "kids"]]
    res = Synthesizer(methods=dict.fromkeys(data.columns, "test_marginal"), m=2,
                      random_state=4).fit(data).sample()
    d = res.diagnostics
    for i, syn in enumerate(res.implicates):
        assert d.replicated_by_implicate[i] == pytest.approx(_brute_share(data, syn))
    first = np.mean([_brute_share(data[["region"]], s[["region"]]) for s in res.implicates])
    assert d.columns.loc["region", "replicated_cumulative"] == pytest.approx(first)
    assert d.methods.loc["test_marginal", "replicated_share"] == pytest.approx(d.replicated_share)
    assert "identical to a confidential record" in d.summary()


def test_partial_same_row_share(mixed):
    res = Synthesizer(keep=["region"], methods={"urban": "test_marginal"},
                      visit_sequence=["urban"], random_state=2).fit(mixed).sample()
    same = float(np.mean(res.implicates[0]["urban"].to_numpy() == mixed["urban"].to_numpy()))
    assert res.diagnostics.columns.loc["urban", "same_row"] == pytest.approx(same)


def test_leaf_summary_sums_over_strata(mixed):
    res = Synthesizer(methods={"share": "test_leafy"}, visit_sequence=["share"], strata="urban",
                      random_state=0).fit(mixed).sample()
    row = res.diagnostics.columns.loc["share"]
    assert row["n_leaves"] == 4 and row["n_homogeneous_leaves"] == 2
    assert row["n_records_homogeneous"] == 6
    assert row["share_records_homogeneous"] == pytest.approx(6 / len(mixed))


def test_leaf_summary_reads_per_leaf_frames_and_tolerates_absence():
    class PerLeaf:
        def leaf_diagnostics(self):
            return pd.DataFrame({"leaf": [3, 4, 7], "size": [5, 8, 6],
                                 "all_identical": [True, False, True]})

    assert leaf_summary(PerLeaf()) == {"n_leaves": 3.0, "n_homogeneous_leaves": 2.0,
                                       "n_records_homogeneous": 11.0, "n_records": 19.0}
    assert leaf_summary(object()) is None


def test_codes_hash_alike_whatever_their_width():
    a = hash_rows({"c": np.array([-1, 0, 3], dtype=np.int8)}, ["c"])
    b = hash_rows({"c": np.array([-1, 0, 3], dtype=np.int64)}, ["c"])
    np.testing.assert_array_equal(a, b)


def test_diagnostics_unaffected_by_changing_the_data_after_fit(mixed):
    kw = {"methods": {"share": "test_marginal"}, "visit_sequence": ["share"],
          "keep": ["region"], "random_state": 1, "replicated_uniques": "keep",
          "rare_values": 0}
    ref = Synthesizer(**kw).fit(mixed.copy()).sample().diagnostics.to_frame()
    data = mixed.copy()
    syn = Synthesizer(**kw).fit(data)
    data.loc[:, "share"] = 0.5  # the caller edits their frame in place after fit
    data.loc[:, "region"] = "north"
    got = syn.sample().diagnostics.to_frame()
    pd.testing.assert_frame_equal(got, ref)
    assert ref.loc["share", "same_row"] > 0  # marginal draws re-use confidential values


def test_share_in_counts_hashes_found_whatever_their_order():
    from synthguard.synthesis.diagnostics import _share_in, _sorted_unique

    rng = np.random.default_rng(5)
    conf = rng.integers(0, 2**63, 3000, dtype=np.int64).astype(np.uint64)
    syn = np.r_[conf[rng.integers(0, 3000, 700)],
                rng.integers(0, 2**63, 1300, dtype=np.int64).astype(np.uint64),
                np.array([np.iinfo(np.uint64).max, 0], dtype=np.uint64)]
    rng.shuffle(syn)
    members = set(conf.tolist())
    assert _share_in(syn, _sorted_unique(conf)) == np.mean([h in members for h in syn.tolist()])
    assert np.isnan(_share_in(syn[:0], _sorted_unique(conf)))
