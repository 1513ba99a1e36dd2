"""Read releases written to disk back as implicates (for ``synthguard evaluate``).

A release on disk is a data file (one implicate), a release folder, or a folder of
release folders (several releases, e.g. a run's ``releases/`` folder).

A release folder with a manifest (:mod:`synthguard.data.manifest`) is read as the
manifest says: its implicates are the files it lists, its kind is the kind it
records, its DP ledger the file it names. A folder without one (written by hand or
by an older synthguard) is read as before: every data file in it is an implicate,
in natural order (``syn_2`` before ``syn_10``), except diagnostics tables an older
``synthguard synthesize`` wrote (``*_diagnostics.csv``), which are skipped and named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from synthguard.data.io import READERS, read_table
from synthguard.data.manifest import MANIFEST_NAME, METADATA_DIR, ReleaseManifest, read_manifest
from synthguard.errors import FileFormatError

__all__ = ["LoadedRelease", "load_releases", "read_releases"]

_LEGACY_METADATA = re.compile(r".*_diagnostics$", re.IGNORECASE)


def _natural(p: Path) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]


def _data_files(folder: Path) -> list[Path]:
    return sorted(
        (f for f in folder.iterdir() if f.is_file() and f.suffix.lower() in READERS
         and not f.name.startswith(".")),
        key=_natural,
    )


def _is_release_dir(d: Path) -> bool:
    return d.is_dir() and not d.name.startswith(".") and d.name != METADATA_DIR and (
        (d / MANIFEST_NAME).is_file() or bool(_data_files(d)))


@dataclass(frozen=True)
class LoadedRelease:
    """A release read from disk.

    ``implicates`` and ``kind`` make it a release :func:`synthguard.evaluate` accepts as it
    is: the kind recorded in the manifest is used (``dp`` measured as ``full``).

    Attributes
    ----------
    name : the release's name (its file or folder name).
    path : the file or folder read.
    implicates : the implicates, in order.
    manifest : the folder's manifest, or None.
    skipped : files of the folder not read as implicates (an older synthguard's diagnostics).
    """

    name: str
    path: Path
    implicates: list[pd.DataFrame] = field(repr=False)
    manifest: ReleaseManifest | None = None
    skipped: tuple[str, ...] = ()

    @property
    def kind(self) -> str | None:
        """The evaluation kind the manifest declares, or None without a manifest."""
        return None if self.manifest is None else self.manifest.evaluation_kind

    @property
    def ledger_path(self) -> Path | None:
        """The DP ledger file the manifest names (resolved against the folder), or None."""
        if self.manifest is None or self.manifest.ledger is None:
            return None
        return (self.path / self.manifest.ledger).resolve()

    @property
    def ledger_record_path(self) -> Path | None:
        """The read-only copy of the ledger kept inside the release folder (written with the
        release, so it survives a move that breaks :attr:`ledger_path`), or None."""
        if self.manifest is None or self.manifest.ledger_record is None:
            return None
        return self.path / self.manifest.ledger_record

    @property
    def is_dp(self) -> bool:
        """True when the manifest declares a DP release (kind ``dp`` or ``not-dp``: both
        charged a ledger)."""
        return self.manifest is not None and self.manifest.kind in ("dp", "not-dp")

    def describe(self) -> str:
        """One line: what the release is and where that was read from."""
        m = len(self.implicates)
        if self.manifest is not None:
            text = (f"release '{self.name}': {self.manifest.kind} (from {MANIFEST_NAME}), "
                    f"m = {m}")
            if self.manifest.ledger is not None:
                text += f", privacy ledger {self.manifest.ledger}"
            return text
        return f"release '{self.name}': no {MANIFEST_NAME}, m = {m}"


def _read_folder(name: str, folder: Path, read: Callable[[Path], Any]) -> LoadedRelease:
    manifest = read_manifest(folder)
    if manifest is not None:
        files = [folder / f for f in manifest.implicates]
        skipped: tuple[str, ...] = ()
    else:
        found = _data_files(folder)
        files = [f for f in found if not _LEGACY_METADATA.fullmatch(f.stem)]
        skipped = tuple(f.name for f in found if f not in files)
        if not files:
            raise FileFormatError(f"release folder '{folder}' holds no implicates (only "
                                  f"diagnostics: {', '.join(skipped)})")
    return LoadedRelease(name=name, path=folder, implicates=[read(f) for f in files],
                         manifest=manifest, skipped=skipped)


def load_releases(paths: Iterable[str | os.PathLike[str]], *,
                  read: Callable[[Path], Any] | None = None) -> dict[str, LoadedRelease]:
    """Release name → :class:`LoadedRelease`, from files and folders (see the module docstring).

    ``read`` reads one implicate (a file, or a Parquet folder a manifest lists); default
    :func:`~synthguard.data.io.read_table`. ``synthguard evaluate --dask`` passes the lazy
    Dask reader (:func:`synthguard.scale.read_dataset`).

    Raises
    ------
    FileFormatError
        A path that does not exist, a folder with no data files, an unreadable manifest or
        one listing a missing file, or two releases with the same name.
    """
    out: dict[str, LoadedRelease] = {}
    reader: Callable[[Path], Any] = read if read is not None else read_table

    def add(rel: LoadedRelease) -> None:
        if rel.name in out:
            raise FileFormatError(f"two releases are named '{rel.name}'; rename a file or folder")
        out[rel.name] = rel

    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise FileFormatError(f"release path '{p}' does not exist")
        if p.is_file():
            add(LoadedRelease(name=p.stem, path=p, implicates=[reader(p)]))
            continue
        if (p / MANIFEST_NAME).is_file() or _data_files(p):
            add(_read_folder(p.name, p, reader))
            continue
        subdirs = sorted((d for d in p.iterdir() if _is_release_dir(d)), key=_natural)
        if not subdirs:
            raise FileFormatError(
                f"release folder '{p}' holds no data files ({', '.join(sorted(READERS))})"
            )
        for d in subdirs:
            add(_read_folder(d.name, d, reader))
    if not out:
        raise FileFormatError("no releases given; pass files or folders of implicates")
    return out


def read_releases(paths: Iterable[str | os.PathLike[str]]) -> dict[str, list[pd.DataFrame]]:
    """Release name → implicates, from files and folders (see :func:`load_releases`)."""
    return {name: rel.implicates for name, rel in load_releases(paths).items()}
