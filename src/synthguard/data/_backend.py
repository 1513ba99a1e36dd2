"""Recognise a Dask collection without importing Dask (private).

A measure with a Dask path takes a ``dask.dataframe.DataFrame`` at its own front door
(:func:`any_dask` picks the backend, :func:`meta_of` gives the empty pandas frame its
checks run on). A function without one refuses it with a
:class:`~synthguard.errors.ParameterError` that says so (and names the
:mod:`synthguard.scale` function to use where there is one): silently calling
``.compute()`` would pull a file bigger than memory into one process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from synthguard.errors import ParameterError

_F = TypeVar("_F", bound=Callable[..., Any])
_MARK = "__synthguard_dask__"

__all__ = [
    "any_dask",
    "dask_backend",
    "has_dask_backend",
    "is_dask_collection",
    "meta_of",
    "refuse_dask",
]


def is_dask_collection(obj: Any) -> bool:
    """True for a Dask DataFrame, Series or Array (checked by module, Dask need not be installed)."""
    module = type(obj).__module__ or ""
    return module == "dask" or module.startswith("dask.") or module.startswith("dask_expr")


def any_dask(*objs: Any) -> bool:
    """True if any argument is a Dask collection, or a list, tuple or release (an object with
    ``implicates``) holding one: the measure then runs on the Dask backend."""
    for o in objs:
        if is_dask_collection(o):
            return True
        items = getattr(o, "implicates", o)
        if isinstance(items, list | tuple) and any(is_dask_collection(f) for f in items):
            return True
    return False


def meta_of(frame: Any) -> Any:
    """A Dask frame's empty pandas ``_meta`` (its columns and dtypes, no rows), else the frame:
    the checks of a front door read columns and dtypes from it whatever the backend."""
    return frame._meta if is_dask_collection(frame) else frame


def refuse_dask(obj: Any, param: str, use: str | None = None) -> None:
    """Raise :class:`ParameterError` if ``obj`` is a Dask collection.

    ``param`` names the argument (``"data"``), ``use`` the distributed entry point
    (``"synthguard.scale.synthesize"``) the message sends the user to; None when there is
    none (the function has no Dask path: the message says so, and names no function).
    """
    if is_dask_collection(obj) and use is None:
        raise ParameterError(
            f"{param}: got a Dask {type(obj).__name__}, but this function has no Dask path "
            f"and works on pandas in one process; call .compute() yourself if the data fit in "
            f"memory, or work on a sample (the measures that take Dask frames are those of "
            f"synthguard.scale)"
        )
    if is_dask_collection(obj):
        raise ParameterError(
            f"{param}: got a Dask {type(obj).__name__}, but this function works on pandas in "
            f"one process; use {use} for Dask collections (or call .compute() yourself if "
            f"the data fit in memory)"
        )


def dask_backend(fn: _F) -> _F:
    """Mark a room's function as one front door for pandas and Dask frames alike.

    The mark is the one place that says a measure has a Dask path: the common test
    (``tests/test_backends_common.py``) finds every marked function and checks it gives the
    pandas result on a Dask frame of several partitions, and ``synthguard.scale``'s name for
    it is the same function."""
    setattr(fn, _MARK, True)
    return fn


def has_dask_backend(fn: Any) -> bool:
    """Whether ``fn`` was marked with :func:`dask_backend`."""
    return bool(getattr(fn, _MARK, False))
