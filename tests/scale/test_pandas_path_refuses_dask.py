"""The pandas functions of the measuring rooms refuse a Dask DataFrame with a ParameterError
that sends the user to synthguard.scale, instead of an obscure failure or a silent compute."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from synthguard import dp, risk, sdc, utility
from synthguard.errors import ParameterError

dd = pytest.importorskip("dask.dataframe")

DF = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "b"]})


@pytest.mark.parametrize(
    ("call", "use"),
    [
        (lambda d: sdc.suppress(d, ["g"], k=2), "an SDC step with a Dask path"),
        (lambda d: dp.dp_count(d, epsilon=1.0), "synthguard.scale.dp_count"),
        (lambda d: dp.dp_sum(d["x"], lower=0, upper=5, epsilon=1.0), "synthguard.scale.dp_sum"),
        (
            lambda d: dp.dp_histogram(d["g"], categories=["a", "b"], epsilon=1.0),
            "synthguard.scale.dp_histogram",
        ),
    ],
)
def test_pandas_functions_name_the_scale_function(call, use):
    d = dd.from_pandas(DF, npartitions=2)
    with pytest.raises(ParameterError, match=rf"got a Dask .*use .*{use}"):
        call(d)


def test_a_release_list_with_a_dask_implicate_is_refused():
    from synthguard.data import as_implicates

    with pytest.raises(ParameterError, match="implicate 1"):
        as_implicates([DF, dd.from_pandas(DF, npartitions=1)])
    assert len(as_implicates([DF, DF])) == 2 and np.isfinite(DF["x"]).all()


@pytest.mark.parametrize(("call", "says"), [
    (lambda d: risk.l_diversity(d, ["g"], "x"), "has no Dask path"),
    (lambda d: risk.suda2(d, ["g", "x"]), "has no Dask path"),
    (lambda d: utility.compare_statistics(d, DF, ("median",)), "only 'mean'"),
])
def test_a_measure_without_a_dask_path_names_no_function_that_does_not_exist(call, says):
    import synthguard.scale as scale

    d = dd.from_pandas(DF, npartitions=2)
    with pytest.raises(ParameterError, match=says) as e:
        call(d)
    for name in re.findall(r"synthguard\.scale\.(\w+)", str(e.value)):
        assert hasattr(scale, name), name
