"""The Dask stand-ins for room functions that do not take a Dask DataFrame yet.

# until the room function takes Dask (issue 32)

Every call of a :mod:`synthguard.scale` mirror made by the pipeline and the command line
goes through this one module: the synthesizer (:func:`synthguard.scale.synthesize` for
:class:`~synthguard.synthesis.Synthesizer`), the SDC steps ``add_noise``, ``pram``, ``swap``
(``topcode``/``bottomcode`` already take Dask in :mod:`synthguard.sdc`), the DP synthesizers
MST, AIM and the stratified synthesizer, and the evaluation. When the room's own function
accepts a Dask frame, its entry here is replaced by that function and, at the end, the module
goes. Each name is looked up when it is called, so a test can replace it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DP_ON_DASK", "SDC_ON_DASK", "dp_synthesizer", "evaluate", "sdc_step", "synthesize"]

#: the DP synthesizers that run on Dask
DP_ON_DASK = ("mst", "aim", "stratified")

#: the SDC steps that run on Dask
SDC_ON_DASK = ("topcode", "bottomcode", "add_noise", "pram", "swap")


def synthesize(data: Any, **params: Any) -> Any:
    """Synthesis of a Dask frame (a :class:`synthguard.scale.DaskSynthesis`)."""
    # until the room function takes Dask (issue 32)
    from synthguard import scale

    return scale.synthesize(data, **params)


def sdc_step(name: str) -> Any:
    """The function of SDC step ``name`` (one of :data:`SDC_ON_DASK`) for a Dask frame:
    ``fn(frame, ...) -> frame``. ``topcode`` and ``bottomcode`` are the room's own functions
    (:mod:`synthguard.sdc` takes Dask); the others the :mod:`synthguard.scale` mirrors."""
    if name in ("topcode", "bottomcode"):
        from synthguard import sdc

        def room_step(data: Any, *args: Any, **kwargs: Any) -> Any:
            return getattr(sdc, name)(data, *args, **kwargs).data

        return room_step
    # until the room function takes Dask (issue 32)
    from synthguard import scale

    return getattr(scale, name)


def dp_synthesizer(name: str) -> Any:
    """The class of DP synthesizer ``name`` (one of :data:`DP_ON_DASK`) for a Dask frame."""
    # until the room function takes Dask (issue 32)
    from synthguard import scale

    return {"mst": scale.MSTSynthesizer, "aim": scale.AIMSynthesizer,
            "stratified": scale.StratifiedSynthesizer}[name]


def evaluate(conf: Any, releases: Any, **kwargs: Any) -> Any:
    """The evaluation of Dask releases against a Dask frame (an Evaluation)."""
    # until the room function takes Dask (issue 32)
    from synthguard.scale import evaluation

    return evaluation.evaluate(conf, releases, **kwargs)
