"""Method specs as text (``NAME:KEY=VALUE``): a value may itself hold ':'."""

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import MethodError
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.registry import parse_method_spec


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("cart", ("cart", {})),
        ("cart:smoothing=density:min_samples_leaf=10",
         ("cart", {"smoothing": "density", "min_samples_leaf": 10})),
        # ':' inside backticks, a time, a path: part of the value, not a new option
        ("passive:formula=`t:a` * 2", ("passive", {"formula": "`t:a` * 2"})),
        ("m:at=12:30:k=1", ("m", {"at": "12:30", "k": 1})),
        ("m:path='C:/x:y=1'", ("m", {"path": "'C:/x:y=1'"})),
        # '==' after a ':' is a comparison inside the value, not an option
        ("passive:formula=a:b == 1", ("passive", {"formula": "a:b == 1"})),
    ],
)
def test_parse_method_spec_keeps_colons_in_values(spec, expected):
    assert parse_method_spec(spec) == expected


@pytest.mark.parametrize("spec", ["cart:bad", "cart:=1", "cart:k="])
def test_parse_method_spec_refuses_malformed_options(spec):
    with pytest.raises(MethodError, match="NAME:KEY=VALUE"):
        parse_method_spec(spec)


def test_passive_formula_over_a_column_named_with_a_colon():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"t:a": rng.normal(size=300).round(2)})
    df["twice"] = 2 * df["t:a"]
    out = Synthesizer(methods={"twice": "passive:formula=`t:a` * 2"}, extremes=0,
                      rare_values=0, random_state=1).fit(df).sample().implicates[0]
    np.testing.assert_allclose(out["twice"], 2 * out["t:a"])
