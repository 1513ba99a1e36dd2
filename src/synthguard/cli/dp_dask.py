"""``synthguard dp synthesize DATA --dask TARGET``: MST fitted on Dask
(:class:`synthguard.scale.MSTSynthesizer`).

Every 1- and 2-way marginal MST can read is counted by Dask in one pass (per partition, summed
in integers on the client: the counts equal the pandas counts); the noise is then drawn once on
the client by the same code as without ``--dask`` and the ledger is charged once, so with the
same seed the release equals the pandas command's. The domain must be public (``--levels``,
``--bins``): levels read from the data (``--levels-from-data``) are refused, as are the other
methods (exit 2). The synthetic records are drawn on the client and written as CSV, as without
``--dask``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["dp_class_on_dask", "dp_data_on_dask"]


def dp_data_on_dask(data: Path, read_kw: dict[str, Any], target: Any, *, method: str,
                    levels_from_data: bool) -> Any:
    """DATA read lazily for the Dask MST, after refusing what the Dask path does not take."""
    from synthguard.cli._dask import dask_input

    if method != "mst":
        raise click.UsageError(f"--method {method} is not available with --dask (Dask runs "
                               f"mst: synthguard.scale.MSTSynthesizer); use --method mst or run "
                               f"without --dask")
    return dask_input(data, read_kw, target, **{"--levels-from-data": levels_from_data})


def dp_class_on_dask() -> Any:
    """The DP synthesizer class of the Dask path."""
    from synthguard.scale import MSTSynthesizer

    return MSTSynthesizer
