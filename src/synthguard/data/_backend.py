"""Recognise a Dask collection without importing Dask (private).

The pandas path of every room refuses a ``dask.dataframe.DataFrame`` with a
:class:`~synthguard.errors.ParameterError` that names the :mod:`synthguard.scale`
function to use instead: silently calling ``.compute()`` would pull a file bigger than
memory into one process.
"""

from __future__ import annotations

from typing import Any

from synthguard.errors import ParameterError

__all__ = ["is_dask_collection", "refuse_dask"]


def is_dask_collection(obj: Any) -> bool:
    """True for a Dask DataFrame, Series or Array (checked by module, Dask need not be installed)."""
    module = type(obj).__module__ or ""
    return module == "dask" or module.startswith("dask.") or module.startswith("dask_expr")


def refuse_dask(obj: Any, param: str, use: str) -> None:
    """Raise :class:`ParameterError` if ``obj`` is a Dask collection.

    ``param`` names the argument (``"data"``), ``use`` the distributed entry point
    (``"synthguard.scale.synthesize"``) the message sends the user to.
    """
    if is_dask_collection(obj):
        raise ParameterError(
            f"{param}: got a Dask {type(obj).__name__}, but this function works on pandas in "
            f"one process; use {use} for Dask collections (or call .compute() yourself if "
            f"the data fit in memory)"
        )
