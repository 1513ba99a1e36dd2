"""The manifest of a release folder: what the folder holds and how it was made.

Every command that writes a release (``synthesize``, ``protect``, ``dp synthesize``,
``run``) writes one layout::

    <folder>/<prefix>_1.csv ... <prefix>_m.csv   the implicates, and nothing else with a data name
    <folder>/metadata/...                         diagnostics, provenance, a DP ledger (never data)
    <folder>/synthguard_manifest.json             this manifest

The manifest says which files are the implicates, so a reader never mistakes a
diagnostics table for an implicate, and what kind of release the folder is
(``full``, ``partial``, ``protected`` or ``dp``), so an evaluation needs no guess.

:func:`release_folder` writes a release atomically: everything goes to a temporary
sibling folder that replaces the target only once complete, so a re-run with fewer
implicates leaves none of the earlier run's files behind, and a failed run leaves the
earlier release untouched.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from synthguard.data.safe_load import read_json
from synthguard.errors import FileFormatError, ParameterError

__all__ = [
    "LEDGER_RECORD",
    "MANIFEST_KINDS",
    "MANIFEST_NAME",
    "METADATA_DIR",
    "ReleaseManifest",
    "check_release_target",
    "read_manifest",
    "release_folder",
    "replace_folder",
    "software_versions",
    "write_manifest",
]

MANIFEST_NAME = "synthguard_manifest.json"
METADATA_DIR = "metadata"
LEDGER_RECORD = f"{METADATA_DIR}/ledger_record.json"
MANIFEST_KINDS = ("full", "partial", "protected", "dp", "not-dp")
_FORMAT = "synthguard-release"
_VERSION = 1


def software_versions() -> dict[str, str]:
    """Versions of synthguard, Python, numpy and pandas (recorded in every manifest)."""
    import numpy as np
    import pandas as pd

    from synthguard import __version__

    return {"synthguard": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__}


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class ReleaseManifest:
    """What a release folder holds.

    Attributes
    ----------
    kind : ``"full"`` (fully synthetic: rows stand for no confidential record),
        ``"partial"`` (partially synthetic: rows are the confidential records, ``kept``
        columns copied), ``"protected"`` (traditional SDC of the confidential records) or
        ``"dp"`` (differentially private synthetic data; evaluated as fully synthetic) or
        ``"not-dp"`` (made by a DP synthesizer whose levels or bins were read from the data:
        NOT differentially private; evaluated as fully synthetic).
    implicates : file names of the implicates, relative to the folder, in order.
    seed : the seed that reproduces the release (None when unknown or not seedable).
    methods : column → method that made it.
    kept : columns copied unchanged from the confidential data.
    dropped : confidential columns left out of the release.
    columns : the release's columns.
    ledger : the privacy ledger file (DP releases), relative to the folder.
    ledger_record : a read-only copy of that ledger as it stood when the release was
        written, inside the folder (``metadata/ledger_record.json``): it travels with the
        folder, so the release's spending can be read after a move breaks ``ledger``.
    spent : the ledger's total spend (``epsilon``, ``delta``, ``rho``) when the release was
        written (DP releases).
    metadata : other files of the release (diagnostics, provenance), relative to the folder.
    versions : synthguard, python, numpy and pandas versions that wrote it.
    created : UTC time of writing (ISO 8601).
    details : anything else the writer records (DP method and budget, SDC steps).
    """

    kind: str
    implicates: tuple[str, ...]
    seed: int | None = None
    methods: Mapping[str, str] = field(default_factory=dict)
    kept: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    ledger: str | None = None
    spent: Mapping[str, float] | None = None
    metadata: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=software_versions)
    created: str = field(default_factory=_now)
    details: Mapping[str, Any] = field(default_factory=dict)
    ledger_record: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in MANIFEST_KINDS:
            raise ParameterError(f"release manifest: unknown kind; use one of "
                                 f"{', '.join(MANIFEST_KINDS)}")
        if not self.implicates:
            raise ParameterError("release manifest: a release needs at least one implicate")
        for name in (*self.implicates, *self.metadata, *([self.ledger] if self.ledger else [])):
            if not isinstance(name, str) or not name or Path(name).is_absolute():
                raise ParameterError("release manifest: file names must be relative paths")
        inside = (*self.implicates, *self.metadata,
                  *([self.ledger_record] if self.ledger_record else []))
        for name in inside:
            if not isinstance(name, str) or not name or Path(name).is_absolute():
                raise ParameterError("release manifest: file names must be relative paths")
            if ".." in Path(name).parts:
                raise ParameterError("release manifest: implicates and metadata must lie "
                                     "inside the release folder")

    @property
    def m(self) -> int:
        """Number of implicates."""
        return len(self.implicates)

    @property
    def evaluation_kind(self) -> str:
        """The kind :func:`synthguard.evaluate` measures it as (``dp``, ``not-dp`` → ``full``)."""
        return "full" if self.kind in ("dp", "not-dp") else self.kind

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": _FORMAT, "format_version": _VERSION,
            "kind": self.kind, "m": self.m, "implicates": list(self.implicates),
            "seed": self.seed, "methods": dict(self.methods), "kept": list(self.kept),
            "dropped": list(self.dropped), "columns": list(self.columns),
            "ledger": self.ledger, "spent": None if self.spent is None else dict(self.spent),
            "metadata": list(self.metadata), "versions": dict(self.versions),
            "created": self.created, "details": dict(self.details),
            "ledger_record": self.ledger_record,
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> ReleaseManifest:
        if not isinstance(doc, Mapping) or doc.get("format") != _FORMAT:
            raise ValueError("not a synthguard release manifest")
        if int(doc.get("format_version", 0)) > _VERSION:
            raise ValueError("written by a newer synthguard")
        implicates = tuple(str(f) for f in doc["implicates"])
        if "m" in doc and int(doc["m"]) != len(implicates):
            raise ValueError("m differs from the number of implicates listed")
        seed = doc.get("seed")
        spent = doc.get("spent")
        return cls(
            kind=str(doc["kind"]), implicates=implicates,
            seed=None if seed is None else int(seed),
            methods={str(k): str(v) for k, v in dict(doc.get("methods") or {}).items()},
            kept=tuple(str(c) for c in doc.get("kept") or ()),
            dropped=tuple(str(c) for c in doc.get("dropped") or ()),
            columns=tuple(str(c) for c in doc.get("columns") or ()),
            ledger=None if doc.get("ledger") is None else str(doc["ledger"]),
            spent=None if spent is None else {str(k): float(v) for k, v in dict(spent).items()},
            metadata=tuple(str(f) for f in doc.get("metadata") or ()),
            versions={str(k): str(v) for k, v in dict(doc.get("versions") or {}).items()},
            created=str(doc.get("created", "")),
            details=dict(doc.get("details") or {}),
            ledger_record=(None if doc.get("ledger_record") is None
                           else str(doc["ledger_record"])),
        )


def write_manifest(folder: str | os.PathLike[str], manifest: ReleaseManifest) -> Path:
    """Write ``manifest`` to ``folder/synthguard_manifest.json`` atomically; return its path.

    Raises
    ------
    FileFormatError
        An implicate listed in the manifest is not in the folder.
    """
    d = Path(folder)
    # an implicate is a file, or a Parquet folder (one file per partition, written by Dask)
    absent = [f for f in manifest.implicates if not (d / f).exists()]
    if absent:
        raise FileFormatError(f"release folder '{d}': implicate file(s) {', '.join(absent)} "
                              f"listed in the manifest were not written")
    target = d / MANIFEST_NAME
    tmp = d / f".{MANIFEST_NAME}.tmp"
    tmp.write_text(json.dumps(manifest.to_dict(), indent=2, default=str), encoding="utf-8")
    tmp.replace(target)
    return target


def read_manifest(folder: str | os.PathLike[str]) -> ReleaseManifest | None:
    """The manifest of ``folder``, or None when it has none (a folder written by hand or by an
    older synthguard).

    Raises
    ------
    FileFormatError
        The manifest exists but cannot be read, or lists an implicate that is not there.
    """
    d = Path(folder)
    path = d / MANIFEST_NAME
    if not path.is_file():
        return None
    try:
        manifest = ReleaseManifest.from_dict(read_json(path, what="a manifest"))
    except (ValueError, KeyError, TypeError) as e:
        why = str(e) if isinstance(e, ValueError) else "not valid JSON"
        raise FileFormatError(f"release folder '{d}': {MANIFEST_NAME} cannot be read ({why}); "
                              f"write the release again or remove the manifest") from None
    # an implicate is a file, or a Parquet folder (one file per partition, written by Dask)
    absent = [f for f in manifest.implicates if not (d / f).exists()]
    if absent:
        raise FileFormatError(f"release folder '{d}': implicate file(s) {', '.join(absent)} "
                              f"listed in {MANIFEST_NAME} are missing; write the release again")
    return manifest


def _release_like(entry: Path, depth: int = 1) -> bool:
    """An entry a release folder (today's or an older synthguard's) or a folder of release
    folders (a run's ``releases/``) may hold."""
    from synthguard.data.io import READERS

    if entry.name.startswith(".") or entry.name in (MANIFEST_NAME, "report.html"):
        return True  # report.html: the page a release of DP statistics carries
    if entry.is_dir():
        if entry.name == METADATA_DIR or (entry / MANIFEST_NAME).is_file():
            return True
        return depth > 0 and all(_release_like(e, depth - 1) for e in entry.iterdir())
    return entry.suffix.lower() in READERS or entry.suffix.lower() == ".json"


def _holds_release(d: Path) -> bool:
    return (d / MANIFEST_NAME).is_file() or any(
        (e / MANIFEST_NAME).is_file() for e in d.iterdir() if e.is_dir())


def check_release_target(out: str | os.PathLike[str], *, force: bool,
                         inputs: Iterable[str | os.PathLike[str]] = (),
                         option: str = "option --out") -> None:
    """Refuse to write a release into ``out`` when that would lose or mix files.

    An empty or absent folder is fine. A folder holding anything (an earlier release) is
    refused unless ``force``; with ``force`` the whole folder is replaced, so it is refused
    still when it holds files no release holds (sub-folders, documents) or one of ``inputs``
    (the confidential data), or is the working folder or one of its parents.

    Raises
    ------
    ParameterError
        The folder cannot be written as asked; the message names it and what to do.
    """
    d = Path(out)
    if not d.exists():
        return
    if not d.is_dir():
        raise ParameterError(f"{option}: '{d}' is a file; give a folder for the release")
    entries = list(d.iterdir())
    if not entries:
        return
    what = "an earlier release" if _holds_release(d) else "files"
    if not force:
        raise ParameterError(
            f"{option}: folder '{d}' already holds {what}; choose a new folder, or pass "
            f"--force to replace the whole release"
        )
    here = Path.cwd().resolve()
    target = d.resolve()
    if target == here or target in here.parents:
        raise ParameterError(f"{option}: --force would replace folder '{d}', which "
                             f"holds the working folder; write the release to a sub-folder")
    for inp in inputs:
        p = Path(inp).resolve()
        if target in p.parents:
            raise ParameterError(f"{option}: --force would replace folder '{d}', which "
                                 f"holds the input file '{Path(inp).name}'; choose another folder")
    foreign = sorted(e.name for e in entries if not _release_like(e))
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise ParameterError(f"{option}: --force replaces the whole folder '{d}', but it "
                             f"holds files no release holds ({shown}); choose another folder")


@contextmanager
def release_folder(out: str | os.PathLike[str], *, force: bool = False,
                   inputs: Iterable[str | os.PathLike[str]] = (),
                   option: str = "option --out") -> Iterator[Path]:
    """Write a release into ``out`` through a temporary sibling folder.

    Yields the temporary folder; write the implicates, metadata and manifest into it. When
    the block ends without error the folder replaces ``out`` (an earlier release there is
    removed as a whole: only with ``force``, see :func:`check_release_target`); on error it is
    removed and ``out`` is left as it was.
    """
    target = Path(out)
    check_release_target(target, force=force, inputs=inputs, option=option)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.new-"))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    replace_folder(tmp, target)


def replace_folder(new: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Move the complete folder ``new`` to ``target``, replacing whatever ``target`` held (two
    renames within one parent folder, each atomic; the old folder is removed last)."""
    src, dst = Path(new), Path(target)
    old = None
    if dst.exists():
        old = Path(tempfile.mkdtemp(dir=dst.parent, prefix=f".{dst.name}.old-"))
        os.rmdir(old)
        os.replace(dst, old)
    try:
        os.replace(src, dst)
    except BaseException:
        if old is not None:
            os.replace(old, dst)
        shutil.rmtree(src, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
