"""Read a Parquet folder or CSV files into a Dask DataFrame; write releases from the workers.

Inputs (:func:`read_dataset`): a Parquet folder (a dataset written by Spark, Arrow, pandas or
Dask: every ``*.parquet`` file under it), one Parquet file, one CSV file, or a glob of CSV
files (``"conf/part-*.csv"``). Partitions are the Parquet files or row groups, or CSV blocks
of ``blocksize`` bytes: the partitioning is what a seeded release depends on (see
:mod:`synthguard.synthesis._on_dask.synthesis`), and it is the same each time the same files are read.

Outputs (:func:`write_implicates`): one Parquet folder per implicate (``synthetic_1.parquet/``,
``synthetic_2.parquet/``, ... each holding one file per partition, which
:func:`synthguard.data.read_table` and every Parquet reader open as one table, written by the workers, never
gathered on the client), or one CSV per implicate on request.
"""

from __future__ import annotations

import glob as _glob
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from synthguard._dask.progress import Progress, compute
from synthguard.errors import FileFormatError, ParameterError

__all__ = ["pending_writes", "read_dataset", "write_implicates"]

_CSV = (".csv", ".txt", ".csv.gz", ".csv.bz2")
_GLOB_CHARS = ("*", "?", "[")


def _is_csv(name: str) -> bool:
    return name.lower().endswith(_CSV)


def read_dataset(
    path: str | os.PathLike[str],
    *,
    blocksize: str | int = "64MB",
    na_values: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
) -> Any:
    """Read ``path`` lazily into a ``dask.dataframe.DataFrame``.

    Parameters
    ----------
    path : a Parquet folder or file, a CSV file, or a glob of CSV files.
    blocksize : bytes per partition of CSV input (Parquet keeps its files' partitions).
    na_values : values that mean missing in CSV files, besides an empty field and ``NA``.
    columns : read only these columns.

    Raises
    ------
    FileFormatError
        Nothing at ``path``, a glob that matches no file or mixes formats, a folder without
        Parquet files, or an extension that is neither CSV nor Parquet. The message names the
        path, never a value.
    """
    import dask.dataframe as dd

    text = os.fspath(path)
    cols = None if columns is None else list(columns)
    if any(ch in text for ch in _GLOB_CHARS):
        files = sorted(_glob.glob(text))
        if not files:
            raise FileFormatError(f"'{text}' matches no file; check the pattern")
        if all(_is_csv(f) for f in files):
            return dd.read_csv(files, blocksize=blocksize, na_values=list(na_values or []),
                               usecols=cols)
        if all(f.lower().endswith(".parquet") for f in files):
            return _known_categories(dd.read_parquet(files, columns=cols))
        raise FileFormatError(
            f"'{text}' matches files of several formats or of a format other than CSV and "
            f"Parquet; give a glob of .csv files or a Parquet folder"
        )
    p = Path(text)
    if not p.exists():
        raise FileFormatError(f"'{p}' does not exist; check the path")
    if p.is_dir():
        if not any(p.rglob("*.parquet")):
            raise FileFormatError(
                f"folder '{p}' holds no .parquet files; give a Parquet folder or a glob of "
                f"CSV files such as '{p}/*.csv'"
            )
        return _known_categories(dd.read_parquet(str(p), columns=cols))
    if p.suffix.lower() == ".parquet":
        return _known_categories(dd.read_parquet(str(p), columns=cols))
    if _is_csv(p.name):
        return dd.read_csv(str(p), blocksize=blocksize, na_values=list(na_values or []),
                           usecols=cols)
    raise FileFormatError(
        f"file '{p}': the Dask path reads Parquet (a folder or a .parquet file) and CSV "
        f"(a file or a glob); convert it, or read it without --dask"
    )


def _known_categories(frame: Any) -> Any:
    """``frame`` with the levels of its categorical columns read (one pass over those columns
    only). A Parquet dictionary column is read with levels Dask has not read yet; a release
    made from it would otherwise be written with text levels (its type unknown when the
    schema is written), so its values would no longer equal the data's (1 vs '1')."""
    import pandas as pd
    from dask.dataframe.utils import has_known_categories

    unknown = [c for c in frame.columns
               if isinstance(frame._meta[c].dtype, pd.CategoricalDtype)
               and not has_known_categories(frame[c])]
    if not unknown:
        return frame
    # the levels read by categorize(), set by astype: a frame left as a categorize() step
    # cannot be cut to one column (dask-expr's projection raises KeyError on the others)
    dtypes = frame[unknown].categorize(columns=unknown)._meta.dtypes
    return frame.astype({c: dtypes[c] for c in unknown})


def write_implicates(
    implicates: Sequence[Any],
    folder: str | os.PathLike[str],
    *,
    prefix: str = "synthetic",
    fmt: str = "parquet",
    progress: Progress | None = None,
) -> list[str]:
    """Write each implicate (a Dask DataFrame) under ``folder``; return the names written,
    relative to ``folder``, in order (what a release manifest lists).

    ``fmt="parquet"`` writes folder ``PREFIX_i.parquet/`` with one ``part.N.parquet`` per
    partition;
    ``fmt="csv"`` writes one ``PREFIX_i.csv`` (the partitions appended in order, so a reader
    without Dask opens it). The workers write, all implicates in one Dask computation;
    nothing is gathered on the client. ``progress(done, tasks)`` is called as the scheduler
    finishes tasks (:func:`synthguard._dask.progress.compute`).

    Raises
    ------
    ParameterError
        An unknown ``fmt``.
    """
    names, pending = pending_writes(implicates, folder, prefix=prefix, fmt=fmt)
    compute(*pending, progress=progress)
    return names


def pending_writes(implicates: Sequence[Any], folder: str | os.PathLike[str], *,
                   prefix: str = "synthetic", fmt: str = "parquet") -> tuple[list[str], list[Any]]:
    """The names :func:`write_implicates` writes and its writes, not yet computed (so a
    caller can compute them with other results of the same graph, in one pass)."""
    if fmt not in ("parquet", "csv"):
        raise ParameterError("parameter 'fmt': use 'parquet' or 'csv'")
    base = Path(folder)
    base.mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    pending = []
    for i, ddf in enumerate(implicates, start=1):
        if fmt == "parquet":
            name = f"{prefix}_{i}.parquet"
            pending.append(ddf.to_parquet(str(base / name), write_index=False, compute=False))
        else:
            name = f"{prefix}_{i}.csv"
            pending.append(ddf.to_csv(str(base / name), single_file=True, index=False,
                                      compute=False))
        names.append(name)
    return names, pending
