"""Read releases written to disk back as implicates (for ``synthguard evaluate``).

A release on disk is a data file (one implicate), a folder of data files (its
implicates, in natural order: ``syn_2`` before ``syn_10``), or a folder of such
folders (several releases, e.g. a run's ``releases/`` folder).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from synthguard.data.io import READERS, read_table
from synthguard.errors import FileFormatError

__all__ = ["read_releases"]


def _natural(p: Path) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]


def _data_files(folder: Path) -> list[Path]:
    return sorted(
        (f for f in folder.iterdir() if f.is_file() and f.suffix.lower() in READERS
         and not f.name.startswith(".")),
        key=_natural,
    )


def read_releases(paths: Iterable[str | os.PathLike[str]]) -> dict[str, list[pd.DataFrame]]:
    """Release name → implicates, from files and folders (see the module docstring).

    Raises
    ------
    FileFormatError
        A path that does not exist, a folder with no data files, or two releases with the
        same name.
    """
    out: dict[str, list[pd.DataFrame]] = {}

    def add(name: str, files: list[Path]) -> None:
        if name in out:
            raise FileFormatError(f"two releases are named '{name}'; rename a file or folder")
        out[name] = [read_table(f) for f in files]

    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise FileFormatError(f"release path '{p}' does not exist")
        if p.is_file():
            add(p.stem, [p])
            continue
        files = _data_files(p)
        subdirs = sorted((d for d in p.iterdir() if d.is_dir() and _data_files(d)), key=_natural)
        if files:
            add(p.name, files)
        elif subdirs:
            for d in subdirs:
                add(d.name, _data_files(d))
        else:
            raise FileFormatError(
                f"release folder '{p}' holds no data files ({', '.join(sorted(READERS))})"
            )
    if not out:
        raise FileFormatError("no releases given; pass files or folders of implicates")
    return out
