"""What the Dask routes of the pipeline and the command line call: the rooms' own functions.

The rooms' functions take a Dask DataFrame at their own front door (issue 32): the
synthesizer (:func:`synthguard.synthesize`, a lazy ``DaskSynthesis`` for a Dask frame), the
SDC steps (:mod:`synthguard.sdc`), the DP synthesizers (``.fit(dask_frame)``) and
:func:`synthguard.evaluate`. This module only names which of them have a Dask path
(:data:`SDC_ON_DASK`, :data:`DP_ON_DASK`), so plans and commands refuse the others before
anything is made; each name is looked up when it is called, so a test can replace it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DP_ON_DASK", "SDC_ON_DASK", "dp_synthesizer", "evaluate", "sdc_step", "synthesize"]

#: the DP synthesizers that run on Dask
DP_ON_DASK = ("mst", "aim", "stratified")

#: the SDC steps that run on Dask
SDC_ON_DASK = ("topcode", "bottomcode", "add_noise", "pram", "swap", "generalize")


def synthesize(data: Any, **params: Any) -> Any:
    """:func:`synthguard.synthesize` of a Dask frame (a lazy ``DaskSynthesis``)."""
    from synthguard.synthesis import synthesize as room_synthesize

    return room_synthesize(data, **params)


def sdc_step(name: str) -> Any:
    """SDC step ``name`` (one of :data:`SDC_ON_DASK`) as ``fn(frame, ...) -> frame``: the
    :mod:`synthguard.sdc` function, its protected frame."""
    from synthguard import sdc

    def room_step(data: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(sdc, name)(data, *args, **kwargs).data

    return room_step


def dp_synthesizer(name: str) -> Any:
    """The class of DP synthesizer ``name`` (one of :data:`DP_ON_DASK`): the registry's own,
    whose ``fit`` takes a Dask frame."""
    from synthguard.dp.synthesizers.registry import get_dp_synthesizer

    return get_dp_synthesizer(name)


def evaluate(conf: Any, releases: Any, **kwargs: Any) -> Any:
    """:func:`synthguard.evaluate` of Dask releases against a Dask frame."""
    from synthguard.evaluation import evaluate as room_evaluate

    return room_evaluate(conf, releases, **kwargs)
