"""Saved-synthesizer format versions (synthesis.persistence).

``tests/reference/persistence/format1_cart.confidential.pkl`` was saved by synthguard at commit
875740c (format 1: CART on 0/1 dummies with scikit-learn trees), fitted with
``Synthesizer(random_state=3)`` on ``toy_data.csv`` (60 simulated rows); the same version then
drew ``format1_cart_draw_seed5.csv`` with ``sample(random_state=5)``.
"""

import shutil
from pathlib import Path

import pandas as pd
import pytest

from synthguard.errors import FileFormatError
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.persistence import (
    _HEADER,
    FORMAT_VERSION,
    load_synthesizer,
    save_synthesizer,
)

REF = Path(__file__).resolve().parents[1] / "reference" / "persistence"


def test_a_format_1_file_loads_and_draws_as_when_it_was_saved(tmp_path):
    path = tmp_path / "old.confidential.pkl"
    shutil.copy(REF / "format1_cart.confidential.pkl", path)
    syn = load_synthesizer(path)
    drawn = syn.sample(random_state=5, diagnostics=False).implicates[0]
    expected = pd.read_csv(REF / "format1_cart_draw_seed5.csv")
    pd.testing.assert_frame_equal(drawn.reset_index(drop=True), expected, check_dtype=False)


def test_new_files_carry_the_current_version_and_round_trip(tmp_path):
    df = pd.read_csv(REF / "toy_data.csv")
    syn = Synthesizer(random_state=3).fit(df)
    path = save_synthesizer(syn, tmp_path / "new.confidential.pkl")
    assert path.read_bytes().startswith(_HEADER + b"%d\n" % FORMAT_VERSION)
    assert FORMAT_VERSION == 2
    a = syn.sample(random_state=5, diagnostics=False).implicates[0]
    b = load_synthesizer(path).sample(random_state=5, diagnostics=False).implicates[0]
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(("version", "says"), [(3, "upgrade synthguard"), (0, "no longer reads")])
def test_other_versions_are_refused_with_a_reason(tmp_path, version, says):
    body = (REF / "format1_cart.confidential.pkl").read_bytes().split(b"\n", 1)[1]
    path = tmp_path / "x.confidential.pkl"
    path.write_bytes(_HEADER + b"%d\n" % version + body)
    with pytest.raises(FileFormatError, match=says):
        load_synthesizer(path)
