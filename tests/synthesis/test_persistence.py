"""Saving a fitted synthesizer and loading it to draw more implicates."""

from __future__ import annotations

import pandas as pd
import pandas.testing as pdt
import pytest

from synthguard.errors import FileFormatError, NotFittedError, ParameterError
from synthguard.synthesis import Synthesizer


def test_round_trip_draws_identically(mixed, tmp_path):
    syn = Synthesizer(keep=["region"], strata="urban",
                      methods={c: "test_marginal" for c in ["edu", "kids", "income", "share"]},
                      random_state=1).fit(mixed)
    path = tmp_path / "model.confidential.pkl"
    syn.save(path)
    loaded = Synthesizer.load(path)
    a = syn.sample(m=2, random_state=42)
    b = loaded.sample(m=2, random_state=42)
    for x, y in zip(a.implicates, b.implicates):
        pdt.assert_frame_equal(x, y)
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_file_name_must_say_confidential(mixed, tmp_path):
    syn = Synthesizer(methods={"kids": "test_marginal"}, visit_sequence=["kids"]).fit(mixed)
    with pytest.raises(ParameterError, match=r"\.confidential\.pkl"):
        syn.save(tmp_path / "model.pkl")
    with pytest.raises(ParameterError, match=r"\.confidential\.pkl"):
        Synthesizer.load(tmp_path / "model.pkl")


def test_not_fitted_and_foreign_files(tmp_path):
    with pytest.raises(NotFittedError):
        Synthesizer().save(tmp_path / "x.confidential.pkl")
    bad = tmp_path / "other.confidential.pkl"
    bad.write_bytes(b"not a synthesizer")
    with pytest.raises(FileFormatError, match="not a synthesizer"):
        Synthesizer.load(bad)
    with pytest.raises(FileFormatError, match="does not exist"):
        Synthesizer.load(tmp_path / "missing.confidential.pkl")


def test_saved_file_holds_hashes_not_the_confidential_frame(mixed, tmp_path):
    syn = Synthesizer(methods={"share": "test_marginal"}, visit_sequence=["share"],
                      random_state=0).fit(mixed)
    state = syn.__getstate__()
    assert state["_confidential"] is None and state["_fingerprint"] is not None
    path = tmp_path / "m.confidential.pkl"
    syn.save(path)
    loaded = Synthesizer.load(path)
    a, b = syn.sample(), loaded.sample()
    pd.testing.assert_frame_equal(a.diagnostics.to_frame(), b.diagnostics.to_frame())


@pytest.mark.parametrize("policy", ["keep", "redraw"])
def test_a_loaded_synthesizer_samples_and_counts_replicated_uniques_under_every_policy(
        mixed, tmp_path, policy):
    # saved straight after fit (nothing sampled, so no guard built yet): 'keep' still counts
    # the replicated uniques at sample time and used to need the confidential frame
    syn = Synthesizer(keep=["region"], methods={"kids": "test_marginal"},
                      visit_sequence=["kids"], replicated_uniques=policy,
                      random_state=3).fit(mixed)
    path = tmp_path / f"{policy}.confidential.pkl"
    syn.save(path)
    loaded = Synthesizer.load(path)
    a, b = syn.sample(), loaded.sample()
    pdt.assert_frame_equal(a.implicates[0], b.implicates[0])
    pd.testing.assert_frame_equal(a.diagnostics.to_frame(), b.diagnostics.to_frame())
