"""Turn the many shapes of a release into a list of implicate DataFrames.

Utility and risk code accept a ``SyntheticData`` (anything with an ``implicates``
attribute), a ``ProtectedData`` (anything with a ``data`` DataFrame attribute), a
list or tuple of DataFrames (implicates), or one DataFrame. This module duck-types,
so ``utility`` and ``risk`` never import a synthesizer (DESIGN.md, imports flow one way).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from synthguard.data._backend import refuse_dask
from synthguard.errors import DataError

__all__ = ["as_implicates", "release_kind"]


def as_implicates(release: Any, *, name: str = "synthetic") -> list[pd.DataFrame]:
    """Return the release as a non-empty list of DataFrames (its implicates)."""
    refuse_dask(release, name)
    if isinstance(release, pd.DataFrame):
        out = [release]
    elif hasattr(release, "implicates"):
        out = list(release.implicates)
    elif hasattr(release, "data") and isinstance(release.data, pd.DataFrame):
        out = [release.data]
    elif isinstance(release, list | tuple):
        out = list(release)
    else:
        raise DataError(
            f"{name}: expected a SyntheticData, a ProtectedData, a DataFrame or a list of "
            f"DataFrames, got {type(release).__name__}"
        )
    if not out:
        raise DataError(f"{name}: the release holds no implicates")
    for i, df in enumerate(out):
        refuse_dask(df, f"{name}: implicate {i}")
        if not isinstance(df, pd.DataFrame):
            raise DataError(
                f"{name}: implicate {i} is a {type(df).__name__}, expected a DataFrame"
            )
    return out


def release_kind(release: Any) -> str | None:
    """``"partial"``, ``"full"`` or ``"protected"`` when the release says so
    (``SyntheticData.kind``, a release folder's manifest), else None; ``"dp"`` (differentially
    private synthetic data) is ``"full"``."""
    kind = getattr(release, "kind", None)
    if kind == "dp":
        return "full"
    return str(kind) if kind in ("partial", "full", "protected") else None
