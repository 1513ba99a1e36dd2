"""``synthguard dp synthesize DATA --dask TARGET``: MST fitted on Dask
(:class:`synthguard.scale.MSTSynthesizer`).

Every 1- and 2-way marginal MST can read is counted by Dask in one pass (per partition, summed
in integers on the client: the counts equal the pandas counts); the noise is then drawn once on
the client by the same code as without ``--dask`` and the ledger is charged once. The
synthetic records are drawn on the workers, one partition of at most a million rows per task
with its own seed from the ``--seed``'s ``SeedSequence`` (same seed and ``--n``, same
release; up to a million rows, the release of the command without ``--dask``), and written by
the workers as one Parquet folder per implicate (``dp_mst_<i>.parquet/``). The domain must be
public (``--levels``, ``--bins``): levels read from the data (``--levels-from-data``) are
refused, as are the other methods (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["dp_class_on_dask", "dp_data_on_dask", "write_implicates"]


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


def write_implicates(implicates: list[Any], folder: Path, method: str) -> list[str]:
    """Write the lazy implicates as Parquet folders ``dp_<method>_<i>.parquet`` in ``folder``,
    each partition drawn and written by a worker (progress on stderr). Returns their names."""
    from synthguard.cli._dask import dask_progress
    from synthguard.scale.progress import compute

    names = [f"dp_{method}_{i}.parquet" for i in range(1, len(implicates) + 1)]
    pending = [f.to_parquet(str(folder / n), write_index=False, compute=False)
               for f, n in zip(implicates, names, strict=True)]
    try:
        with dask_progress("drawing the records on Dask", quiet=False) as progress:
            compute(*pending, progress=progress)
    except BaseException:
        click.echo("note: the privacy budget is charged in the ledger, but the records could "
                   "not be drawn or written; nothing else was written", err=True)
        raise
    return names
