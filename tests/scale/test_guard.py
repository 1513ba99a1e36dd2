"""The pandas path refuses Dask collections and names the synthguard.scale function to use."""

import pandas as pd
import pytest

from synthguard.data._backend import is_dask_collection, refuse_dask
from synthguard.errors import ParameterError

dd = pytest.importorskip("dask.dataframe")


def test_dask_collections_are_recognised_and_pandas_is_not():
    pdf = pd.DataFrame({"a": [1, 2, 3]})
    ddf = dd.from_pandas(pdf, npartitions=2)
    assert is_dask_collection(ddf)
    assert is_dask_collection(ddf["a"])
    assert not is_dask_collection(pdf)
    assert not is_dask_collection(pdf["a"])


def test_refusal_names_the_parameter_and_the_scale_function():
    ddf = dd.from_pandas(pd.DataFrame({"a": [1, 2, 3]}), npartitions=1)
    with pytest.raises(ParameterError, match=r"data: .*synthguard\.scale\.synthesize"):
        refuse_dask(ddf, "data", "synthguard.scale.synthesize")
    refuse_dask(pd.DataFrame({"a": [1]}), "data", "synthguard.scale.synthesize")  # no error


def test_scale_package_imports_with_dask_installed():
    import synthguard.scale as scale

    assert isinstance(scale.__all__, list)


def test_pandas_entry_points_refuse_a_dask_frame_or_take_it_at_their_front_door():
    # topcode, k_anonymity, univariate, ... take Dask frames themselves (tests/test_backends_common.py)
    from synthguard import sdc
    from synthguard.risk import individual_risk
    from synthguard.synthesis import Synthesizer
    from synthguard.utility import compare_statistics

    pdf = pd.DataFrame({"a": [1.0, 2.0, 3.0] * 20, "b": ["x", "y", "z"] * 20})
    ddf = dd.from_pandas(pdf, npartitions=2)
    from synthguard.synthesis._on_dask.synthesis import DaskSynthesis

    assert isinstance(Synthesizer(random_state=1).fit(ddf).sample(), DaskSynthesis)  # one door
    with pytest.raises(ParameterError, match=r"an SDC step with a Dask path"):
        sdc.suppress(ddf, ["b"], k=2)
    with pytest.raises(ParameterError, match=r"'strata'"):  # partners only within a stratum
        sdc.swap(ddf, "a", rate=0.5)
    # individual_risk takes a Dask frame at its own front door (no scale function to name)
    assert (individual_risk(ddf, keys=["b"]).fk == individual_risk(pdf, keys=["b"]).fk).all()
    # compare_statistics on Dask computes the mean only, and says so for the quantiles
    with pytest.raises(ParameterError, match="only 'mean'"):
        compare_statistics(pdf, ddf)
