"""Distance to closest record and membership inference against brute-force distances."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DisclosureWarning, ParameterError
from synthguard.risk import _neighbours, distance_to_closest_record, membership_inference


def _frame(rng, n, missing=False):
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n).round(2),
            "y": rng.integers(0, 5, n).astype(float),
            "c": rng.choice(["a", "b", "c"], n),
            "d": rng.choice(["u", "v"], n),
        }
    )
    if missing:
        df.loc[rng.random(n) < 0.1, "x"] = np.nan
        df.loc[rng.random(n) < 0.1, "c"] = None
    return df


def _brute(ref_scale, ref, queries, metric):
    """All-pairs distances per the documented definitions (scales from ref_scale)."""
    num, cat = ["x", "y"], ["c", "d"]
    p = 4
    out = np.zeros((len(queries), len(ref)))
    for c in num:
        v = ref_scale[c].to_numpy(float)
        f = v[np.isfinite(v)]
        med = np.median(f)
        a = queries[c].to_numpy(float)
        b = ref[c].to_numpy(float)
        ma, mb = np.isnan(a), np.isnan(b)
        a2, b2 = np.where(ma, med, a), np.where(mb, med, b)
        if metric == "hamming":
            same = (a[:, None] == b[None, :]) | (ma[:, None] & mb[None, :])
            out += ~same
            continue
        diff = np.abs(a2[:, None] - b2[None, :])
        flag = (ma[:, None] != mb[None, :]).astype(float)
        if metric == "gower":
            rng = f.max() - f.min()
            out += diff / (rng if rng > 0 else 1) + flag
        else:
            sd = f.std()
            out += (diff / (sd if sd > 0 else 1)) ** 2 + flag
    for c in cat:
        a = queries[c].astype(object).fillna("<NA>").to_numpy()
        b = ref[c].astype(object).fillna("<NA>").to_numpy()
        out += a[:, None] != b[None, :]
    if metric == "euclidean":
        return np.sqrt(out)
    return out / p


@pytest.mark.parametrize("metric", ["gower", "euclidean", "hamming"])
@pytest.mark.parametrize("n,missing", [(40, False), (300, True), (300, False)])
def test_dcr_matches_brute_force(metric, n, missing):
    rng = np.random.default_rng(n + len(metric))
    conf, syn, hold = _frame(rng, n, missing), _frame(rng, n // 2, missing), _frame(rng, 50)
    res = distance_to_closest_record(conf, syn, hold, metric=metric, warn_copies=False)
    d = np.sort(_brute(conf, conf, syn, metric), axis=1)
    np.testing.assert_allclose(res.dcr, d[:, 0], atol=1e-12)
    ratio = np.where(d[:, 1] > 0, d[:, 0] / np.where(d[:, 1] > 0, d[:, 1], 1), 1.0)
    np.testing.assert_allclose(res.nndr, ratio, atol=1e-12)
    h = _brute(conf, conf, hold, metric).min(axis=1)
    np.testing.assert_allclose(res.holdout_dcr, h, atol=1e-12)
    to_h = _brute(conf, hold, syn, metric).min(axis=1)
    np.testing.assert_allclose(res.dcr_to_holdout, to_h, atol=1e-12)
    closer = np.mean(d[:, 0] < to_h) + 0.5 * np.mean(d[:, 0] == to_h)
    assert res.share_closer_to_conf == pytest.approx(closer)
    assert res.baseline_share == pytest.approx(n / (n + 50))


def test_blocking_is_used_and_exact(monkeypatch):
    rng = np.random.default_rng(5)
    conf, syn = _frame(rng, 400), _frame(rng, 100)
    enc_blocks = _neighbours._choose_blocks(
        conf[["c", "d"]].apply(lambda s: pd.factorize(s)[0]).to_numpy(), [3, 2]
    )
    assert enc_blocks == [0, 1]  # 6 patterns <= 400 / 8: both categoricals are blocked
    res = distance_to_closest_record(conf, syn, metric="gower", warn_copies=False)
    np.testing.assert_allclose(res.dcr, _brute(conf, conf, syn, "gower").min(axis=1), atol=1e-12)
    monkeypatch.setattr(_neighbours, "_MAX_GROUPS", 1)  # no blocking: one tree
    again = distance_to_closest_record(conf, syn, metric="gower", warn_copies=False)
    np.testing.assert_allclose(again.dcr, res.dcr, atol=1e-12)


def test_exact_copies_are_counted_and_warned():
    rng = np.random.default_rng(0)
    conf = _frame(rng, 50)
    syn = pd.concat([conf.iloc[:10], _frame(rng, 10)], ignore_index=True)
    with pytest.warns(DisclosureWarning, match="exact copies"):
        res = distance_to_closest_record(conf, syn)
    assert res.exact_copy_share == pytest.approx(0.5, abs=0.05)
    assert np.all(res.dcr[:10] == 0)
    frame = res.to_frame()
    assert frame["exact_copy"].sum() == int(np.sum(res.dcr == 0))
    assert "exact copies" in res.summary()


def test_implicates_are_stacked():
    rng = np.random.default_rng(1)
    conf = _frame(rng, 60)
    res = distance_to_closest_record(conf, [_frame(rng, 20), _frame(rng, 30)], warn_copies=False)
    assert res.dcr.shape == (50,) and list(np.bincount(res.implicate)) == [20, 30]


def test_bad_metric():
    df = pd.DataFrame({"x": [1.0, 2.0]})
    with pytest.raises(ParameterError, match="metric"):
        distance_to_closest_record(df, df, metric="cosinus")


# ----------------------------------------------------------------------------- membership


def test_membership_copying_release_is_detected():
    rng = np.random.default_rng(2)
    train, hold = _frame(rng, 200), _frame(rng, 200)
    res = membership_inference(train, train.copy(), holdout=hold, random_state=0)
    assert res.auc > 0.95
    row0 = res.table.iloc[0]
    assert row0["threshold"] == 0.0 and row0["recall"] == 1.0
    assert row0["precision"] == pytest.approx(200 / (200 + np.sum(res.distance_holdout == 0)))
    assert res.best_accuracy > 0.9


def test_membership_independent_release_is_guessing():
    rng = np.random.default_rng(3)
    train, hold, syn = _frame(rng, 400), _frame(rng, 400), _frame(rng, 400)
    res = membership_inference(train, syn, holdout=hold, random_state=0)
    assert abs(res.auc - 0.5) < 0.07
    # AUC is the share of (member, non-member) pairs with the member closer (ties half)
    d1, d0 = res.distance_train, res.distance_holdout
    pairs = (d1[:, None] < d0[None, :]).mean() + 0.5 * (d1[:, None] == d0[None, :]).mean()
    assert res.auc == pytest.approx(pairs, abs=1e-12)


def test_membership_balances_with_a_seed():
    rng = np.random.default_rng(4)
    train, hold, syn = _frame(rng, 300), _frame(rng, 100), _frame(rng, 100)
    a = membership_inference(train, syn, holdout=hold, random_state=7)
    b = membership_inference(train, syn, holdout=hold, random_state=7)
    assert a.n_members == a.n_nonmembers == 100 and a.seed == 7
    np.testing.assert_array_equal(a.distance_train, b.distance_train)
    t = membership_inference(train, syn, holdout=hold, thresholds=[0.1], balance=False)
    assert t.n_members == 300 and list(t.table["threshold"]) == [0.1]
    tp = np.sum(t.distance_train <= 0.1)
    fp = np.sum(t.distance_holdout <= 0.1)
    assert t.table["accuracy"].iloc[0] == pytest.approx((tp + 100 - fp) / 400)


def test_group_ids_number_equal_rows_by_first_appearance():
    """The blocked search's grouping (integer arithmetic on the codes) equals the definition:
    factorizing the rows as tuples, ids by first appearance, distinct rows in that order."""
    from synthguard.risk._neighbours import _group_ids

    rng = np.random.default_rng(12)
    for t in range(60):
        n, k = int(rng.integers(1, 2000)), int(rng.integers(1, 6))
        high = [2, 7, 300, 2**40][t % 4]  # the last overflows one int64: refactorized
        codes = rng.integers(0, high, (n, k))
        codes[n // 2:] = codes[: n - n // 2]
        tuples = pd.Series(list(map(tuple, codes.tolist())))
        want_ids, want_rows = pd.factorize(tuples)
        ids, rows = _group_ids(codes)
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_array_equal(rows, np.array(list(want_rows), dtype=np.int64))
