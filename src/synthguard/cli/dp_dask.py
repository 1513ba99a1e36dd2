"""``synthguard dp synthesize DATA --dask TARGET``: MST, AIM or the stratified synthesizer
fitted on Dask (:class:`synthguard.scale.MSTSynthesizer`, :class:`synthguard.scale.AIMSynthesizer`,
:class:`synthguard.scale.StratifiedSynthesizer`).

What the method reads of the data is counted by Dask in one pass (per partition, summed in
integers: the counts equal the pandas counts): MST's 1- and 2-way marginals, AIM's 1-way and
candidate marginals, the stratified synthesizer's full contingency table. The noise is then drawn once on the client by the same
code as without ``--dask`` and the ledger is charged once. The synthetic records are drawn on
the workers, one partition of at most a million rows per task with its own seed from the
``--seed``'s ``SeedSequence`` (same seed and ``--n``, same release; up to a million rows, the
release of the command without ``--dask``), and written by the workers as one Parquet folder
per implicate (``dp_<method>_<i>.parquet/``). The domain must be public (``--levels``,
``--bins``): levels read from the data (``--levels-from-data``) are refused, as are the other
methods (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["ON_DASK", "dp_class_on_dask", "dp_data_on_dask", "write_implicates"]

#: the methods ``--dask`` runs (:func:`dp_class_on_dask` gives their classes)
ON_DASK = ("mst", "aim", "stratified")


def dp_data_on_dask(data: Path, read_kw: dict[str, Any], target: Any, *, method: str,
                    levels_from_data: bool) -> Any:
    """DATA read lazily for a DP synthesizer on Dask, after refusing what the Dask path does
    not take (another method, levels read from the data)."""
    from synthguard.cli._dask import dask_input

    if method not in ON_DASK:
        raise click.UsageError(f"--method {method} is not available with --dask (Dask runs "
                               f"mst, aim and stratified: synthguard.scale.MSTSynthesizer, "
                               f"AIMSynthesizer and StratifiedSynthesizer); use one of them or "
                               f"run without --dask")
    return dask_input(data, read_kw, target, **{"--levels-from-data": levels_from_data})


def dp_class_on_dask(method: str) -> Any:
    """The DP synthesizer class of the Dask path for ``method`` (one of :data:`ON_DASK`)."""
    from synthguard.scale import AIMSynthesizer, MSTSynthesizer, StratifiedSynthesizer

    return {"mst": MSTSynthesizer, "aim": AIMSynthesizer,
            "stratified": StratifiedSynthesizer}[method]


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
