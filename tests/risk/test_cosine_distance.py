"""DCR under the cosine distance (issue 36: the course's distance list) against a brute-force
1 - cos over the encoded records, and exact copies told apart from same-direction records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DisclosureWarning, ParameterError
from synthguard.risk import distance_to_closest_record
from synthguard.risk._encoding import encode_frames, onehot


def _frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)

    def make(n: int) -> pd.DataFrame:
        return pd.DataFrame({"x": rng.normal(50, 10, n).round(2), "y": rng.gamma(2, 3, n).round(2),
                             "g": rng.choice(["a", "b", "c"], n)})
    return make(300), make(120), make(80)


def _brute(enc, ref: int, q: int) -> np.ndarray:
    h = 1 / np.sqrt(2)
    v = [np.hstack([enc.num[i], onehot(enc.cat[i], enc.cards, h)]) for i in (ref, q)]
    a, b = v[0], v[1]
    cos = (b @ a.T) / np.outer(np.linalg.norm(b, axis=1), np.linalg.norm(a, axis=1))
    return np.sort(1 - cos, axis=1)[:, :2]


def test_dcr_equals_brute_force_cosine() -> None:
    conf, rel, hold = _frames(1)
    res = distance_to_closest_record(conf, rel, hold, metric="cosine")
    enc = encode_frames([conf, rel, hold], metric="cosine")
    ref = _brute(enc, 0, 1)
    np.testing.assert_allclose(res.dcr, ref[:, 0], atol=1e-9)
    np.testing.assert_allclose(res.holdout_dcr, _brute(enc, 0, 2)[:, 0], atol=1e-9)
    assert res.metric == "cosine" and res.exact_copy_share == 0.0


def test_same_direction_is_not_a_copy_but_a_copy_is() -> None:
    conf, rel, _ = _frames(2)
    rel = rel.copy()
    rel.iloc[:3] = conf.iloc[:3].to_numpy()          # three exact copies
    with pytest.warns(DisclosureWarning, match="exact copies"):
        res = distance_to_closest_record(conf, rel, metric="cosine")
    assert res.exact_copy_share == pytest.approx(3 / len(rel))
    frame = res.to_frame()
    assert frame["exact_copy"].sum() == 3 and frame["exact_copy"].iloc[:3].all()
    assert (res.dcr[:3] < 1e-12).all()


def test_unknown_metric_names_cosine() -> None:
    conf, rel, _ = _frames(3)
    with pytest.raises(ParameterError, match="'hamming' or 'cosine'"):
        distance_to_closest_record(conf, rel, metric="manhattan")
