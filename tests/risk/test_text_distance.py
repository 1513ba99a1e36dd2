"""Edit distance (Levenshtein; the course's 'close enough' metric for text, section 3.16.2)
against a plain Wagner-Fischer reference, and the text-closeness measure by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.risk import edit_distance, text_closeness


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_equals_the_reference_on_random_strings() -> None:
    rng = np.random.default_rng(0)
    alphabet = list("abcé ž")  # non-ASCII letters count as one character each
    words = ["".join(rng.choice(alphabet, rng.integers(0, 9))) for _ in range(60)]
    a, b = words[:35], words[35:]
    d = edit_distance(a, b)
    ref = np.array([[_levenshtein(x, y) for y in b] for x in a])
    np.testing.assert_array_equal(d, ref)


def test_strings_around_the_64_character_word_size() -> None:
    rng = np.random.default_rng(1)
    words = ["".join(rng.choice(list("ab c"), n)) for n in (0, 1, 63, 64, 65, 90, 130)]
    words += [words[3][:-1] + "z", words[5][:40]]
    d = edit_distance(words, words[::-1])
    ref = np.array([[_levenshtein(x, y) for y in words[::-1]] for x in words])
    np.testing.assert_array_equal(d, ref)


def test_blocks_give_the_same_distances(monkeypatch: pytest.MonkeyPatch) -> None:
    import synthguard.risk.text_distance as td

    words = ["street", "strait", "stream", "", "st", "treats"]
    whole = edit_distance(words, words)
    monkeypatch.setattr(td, "_PAIR_CHUNK", 1)  # one string of a per block
    np.testing.assert_array_equal(edit_distance(words, words), whole)
    assert (np.diag(whole) == 0).all() and (whole == whole.T).all()


def test_text_closeness_by_hand() -> None:
    conf = pd.DataFrame({"name": ["John Smith", "Ann Lee", "Bo Chan", None]})
    rel = [pd.DataFrame({"name": ["Jon Smith", "Zed Park"]}),
           pd.DataFrame({"name": ["Ann Lee", None]})]
    hold = pd.DataFrame({"name": ["Ann Lea", "Xi Wu"]})
    res = text_closeness(conf, rel, columns="name", thresholds=(0, 1), holdout=hold)
    t = res.table.set_index("threshold")
    assert t.loc[0, "share"] == pytest.approx(1 / 3)      # Ann Lee copied
    assert t.loc[1, "share"] == pytest.approx(2 / 3)      # and John Smith within one edit
    assert t.loc[0, "holdout_share"] == 0.0
    assert t.loc[1, "holdout_share"] == pytest.approx(1 / 2)  # Ann Lea -> Ann Lee
    assert res.max_share == pytest.approx(2 / 3)
    bo = min(_levenshtein("Bo Chan", x) for x in ["Jon Smith", "Zed Park", "Ann Lee"])
    assert res.distances["name"].tolist() == [1, 0, bo]
    assert "within 1 edit(s) 66.7%" in res.summary()


def test_bad_input_is_named() -> None:
    conf = pd.DataFrame({"name": ["a"]})
    with pytest.raises(DataError, match="'nom' is not in conf"):
        text_closeness(conf, conf, columns="nom")
    with pytest.raises(ParameterError, match="'thresholds'"):
        text_closeness(conf, conf, columns="name", thresholds=[-1])
