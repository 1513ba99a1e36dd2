"""Parameters declared once per class (synthguard._params): constraints, repr, column lists."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from synthguard._params import (
    Interval,
    Options,
    ParamsRepr,
    column_list,
    require_columns,
    validate_params,
)
from synthguard.bayes import RiskWeightedSynthesizer
from synthguard.dp.synthesizers import AIMSynthesizer, MSTSynthesizer, StratifiedSynthesizer
from synthguard.errors import DataError, ParameterError


class _Toy(ParamsRepr):
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "k": [Interval(int, 1, None)],
        "rate": [Interval(float, 0.0, 1.0, closed="right")],
        "how": [Options(("a", "b")), None],
    }

    def __init__(self, *, k: int = 3, rate: float = 0.5, how: str | None = "a",
                 frame: Any = None) -> None:
        self.k, self.rate, self.how, self.frame = k, rate, how, frame


@pytest.mark.parametrize(("kw", "message"), [
    ({"k": 0}, "parameter 'k': expected an integer >= 1; got 0"),
    ({"k": 2.0}, "parameter 'k': expected an integer >= 1; got 2.0"),
    ({"k": True}, "parameter 'k'"),  # a bool is not a count
    ({"rate": 0.0}, r"parameter 'rate': expected a number in \(0, 1\]; got 0.0"),
    ({"rate": float("nan")}, "parameter 'rate'"),
    ({"how": "c"}, "parameter 'how': expected one of 'a', 'b' or None; got 'c'"),
])
def test_a_value_outside_its_constraints_is_named(kw, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ParameterError, match=message):
        validate_params(_Toy(**kw))


def test_every_bad_parameter_is_named_in_one_error() -> None:
    with pytest.raises(ParameterError, match=r"_Toy: parameter 'k'.*; parameter 'how'"):
        validate_params(_Toy(k=-1, how="z"))


def test_valid_values_pass() -> None:
    for kw in ({}, {"k": np.int64(5)}, {"rate": 1}, {"rate": 1.0}, {"how": None}):
        validate_params(_Toy(**kw))


def test_repr_elides_defaults_and_keeps_signature_order() -> None:
    assert repr(_Toy()) == "_Toy()"
    assert repr(_Toy(how=None, k=4)) == "_Toy(k=4, how=None)"
    # a frame or an array is named by its type, never printed (it may hold confidential data)
    assert repr(_Toy(frame=pd.DataFrame({"x": [123456]}))) == "_Toy(frame=DataFrame)"


def test_dp_synthesizers_declare_their_parameters() -> None:
    # the repr follows **kwargs into DPSynthesizer's own parameters
    assert repr(MSTSynthesizer(epsilon=1.0, iters=50, n_bins=4)) == (
        "MSTSynthesizer(epsilon=1.0, iters=50, n_bins=4)")
    df = pd.DataFrame({"a": ["x", "y"] * 10})
    cats = {"a": ["x", "y"]}
    with pytest.raises(ParameterError, match="MSTSynthesizer: parameter 'iters'"):
        MSTSynthesizer(epsilon=1.0, iters=0, categories=cats).fit(df)
    with pytest.raises(ParameterError, match=r"AIMSynthesizer: parameter 'delta': expected a "
                                              r"number with 0 < delta < 1"):
        AIMSynthesizer(epsilon=1.0, delta=0.0, categories=cats).fit(df)
    with pytest.raises(ParameterError, match="parameter 'epsilon': expected a number > 0"):
        StratifiedSynthesizer(epsilon=-1.0, categories=cats).fit(df)
    with pytest.raises(ParameterError, match="parameter 'mechanism'"):
        StratifiedSynthesizer(epsilon=1.0, mechanism="gauss", categories=cats).fit(df)
    # nothing was charged: the checks run before the ledger is touched
    syn = StratifiedSynthesizer(epsilon=1.0, mechanism="gauss", categories=cats)
    with pytest.raises(ParameterError):
        syn.fit(df)
    assert not hasattr(syn, "ledger_")


def test_risk_weighted_synthesizer_declares_its_parameters() -> None:
    conf = pd.DataFrame({"k": [1, 1, 2, 2], "y": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ParameterError, match="parameter 'kind'"):
        RiskWeightedSynthesizer(targets="y", keys=["k"], kind="both").fit(conf)
    assert repr(RiskWeightedSynthesizer(targets="y", m=2)) == (
        "RiskWeightedSynthesizer(targets='y', m=2)")


def test_column_list() -> None:
    assert column_list("a", "keys") == ["a"]
    assert column_list(pd.Index(["a", "b"]), "keys") == ["a", "b"]
    assert column_list(None, "keys") == []
    with pytest.raises(ParameterError, match="parameter 'keys': a column is listed twice"):
        column_list(["a", "a"], "keys")
    with pytest.raises(ParameterError, match="parameter 'keys': expected a column name"):
        column_list(3, "keys")
    with pytest.raises(ParameterError, match="parameter 'keys': expected a column name"):
        column_list(["a", 3], "keys")
    with pytest.raises(ParameterError, match="parameter 'keys': name at least one column"):
        column_list([], "keys", required=True)


def test_require_columns_names_every_missing_column() -> None:
    df = pd.DataFrame({"a": [1]})
    require_columns(df, ["a"], "keys")
    with pytest.raises(DataError, match=r"key column\(s\) 'b', 'c' not in conf; pass names"):
        require_columns(df, ["a", "b", "c"], role="key", where="conf", error=DataError)


def test_synthesizer_declares_its_single_parameters() -> None:
    from synthguard import Synthesizer

    df = pd.DataFrame({"a": ["x", "y"] * 20, "b": np.arange(40.0)})
    with pytest.raises(ParameterError, match="Synthesizer: parameter 'm': expected an integer"):
        Synthesizer(m=0).fit(df)
    with pytest.raises(ParameterError, match=r"parameter 'n_jobs'.*got 'all'"):
        Synthesizer(n_jobs="all").fit(df)  # type: ignore[arg-type]
    assert repr(Synthesizer(m=3, strata="a")) == "Synthesizer(m=3, strata='a')"


def test_repr_shortens_by_whole_items_never_mid_word() -> None:
    """A long parameter is shortened by whole items (issue 31): the repr used to cut
    ``{'species': 'sample', 'island': 'cart...`` inside a string."""
    import re

    from synthguard import Synthesizer

    methods = {"species": "sample", "island": "cart", "body_mass_g": "norm",
               "flipper_length_mm": "cart"}
    text = repr(Synthesizer(methods=methods))
    assert text.startswith("Synthesizer(methods={'species': 'sample', ")
    assert text.endswith(", ...})")
    # every quoted string in the repr is whole: each is a key or a value given
    given = set(methods) | set(methods.values())
    assert set(re.findall(r"'([^']*)'", text)) <= given
    # a short value is shown whole, a long string too
    assert repr(_Toy(how="b")) == "_Toy(how='b')"
    long_name = "a column name that is much longer than the width of a repr line"
    assert repr(Synthesizer(strata=long_name)) == f"Synthesizer(strata={long_name!r})"
    assert repr(Synthesizer(visit_sequence=["a", "b"])) == (
        "Synthesizer(visit_sequence=['a', 'b'])")
