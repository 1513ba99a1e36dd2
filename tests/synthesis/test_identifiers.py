"""The synthesizer refuses identifiers, drops what it is told, never uses them as predictors."""

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer, synthesize
from synthguard.errors import DataError, ParameterError


@pytest.fixture
def with_ids():
    rng = np.random.default_rng(5)
    n = 300
    return pd.DataFrame(
        {
            "ID": np.arange(1, n + 1),
            "sex": rng.choice(["f", "m"], size=n),
            "age": rng.integers(18, 90, size=n),
            "PersonID": rng.permutation(n) * 13 + 1000,
            "income": np.round(rng.lognormal(10, 1, size=n), 2),
        }
    )


def test_refusal_names_every_identifier_and_the_ways_out(with_ids):
    with pytest.raises(DataError) as e:
        synthesize(with_ids, random_state=1)
    msg = str(e.value)
    assert len(e.value.problems) == 2
    assert "column 'ID'" in msg and "column 'PersonID'" in msg
    assert "drop=['ID']" in msg and "--drop ID" in msg and "schema={'ID': 'count'}" in msg
    assert "1000" not in msg.replace("drop=", "")  # no data value


@pytest.mark.parametrize("param", ["keep", "strata"])
def test_kept_or_strata_identifier_refused(with_ids, param):
    df = with_ids.drop(columns="PersonID")
    with pytest.raises(DataError, match="column 'ID' looks like an identifier"):
        Synthesizer(**{param: ["ID"]}, min_stratum_size=0, random_state=1).fit(df)


def test_drop_removes_identifiers_from_release_and_predictors(with_ids):
    res = synthesize(with_ids, random_state=1, drop=["ID", "PersonID"])
    assert list(res.implicates[0].columns) == ["sex", "age", "income"]
    assert res.provenance["dropped"] == ["ID", "PersonID"]
    assert all("ID" not in p and "PersonID" not in p
               for p in res.provenance["predictor_matrix"].values())
    # the same release as without the columns at all
    plain = synthesize(with_ids[["sex", "age", "income"]], random_state=1)
    pd.testing.assert_frame_equal(res.implicates[0], plain.implicates[0])


def test_drop_a_string_and_unknown_or_conflicting(with_ids):
    res = synthesize(with_ids.drop(columns="PersonID"), random_state=1, drop="ID")
    assert "ID" not in res.implicates[0]
    with pytest.raises(ParameterError, match="nope"):
        synthesize(with_ids, drop=["nope"])
    with pytest.raises(ParameterError, match=r"both dropped and in 'keep': ID"):
        synthesize(with_ids, drop=["ID"], keep=["ID"])


def test_declared_identifier_left_out_and_declared_non_identifier_used(with_ids):
    df = with_ids.drop(columns="PersonID")
    res = synthesize(df, random_state=1, schema={"ID": "identifier"})
    assert "ID" not in res.implicates[0] and res.provenance["left_out"] == ["ID"]
    # a declared identifier named in the visit sequence is still refused
    with pytest.raises(DataError, match="column 'ID'"):
        synthesize(df, visit_sequence=["ID", "age"], schema={"ID": "identifier"})
    # declared not to be one: synthesized as asked
    res = synthesize(df, random_state=1, schema={"ID": "count"})
    assert "ID" in res.implicates[0]


def test_identifier_left_out_of_visit_sequence_is_fine(with_ids):
    res = synthesize(with_ids, random_state=1, visit_sequence=["sex", "age", "income"])
    assert list(res.implicates[0].columns) == ["sex", "age", "income"]
