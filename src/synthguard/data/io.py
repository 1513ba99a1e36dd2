"""Read and write the file formats agencies keep microdata in.

CSV (``.csv``, ``.tsv``, ``.txt``), Parquet (``.parquet``, ``.pq``), Stata (``.dta``),
SAS (``.sas7bdat``, ``.xpt``) and SPSS (``.sav``, ``.zsav``) through pandas and
pyreadstat. Writes are atomic (a temporary file renamed into place), so a failed
run never leaves a half-written release behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from synthguard.errors import FileFormatError

__all__ = ["READERS", "read_table", "write_table"]


def _read_csv(p: Path, **kw: Any) -> pd.DataFrame:
    sep = "\t" if p.suffix.lower() == ".tsv" else kw.pop("sep", ",")
    return pd.read_csv(p, sep=sep, **kw)


def _read_sav(p: Path, **kw: Any) -> pd.DataFrame:
    import pyreadstat

    df, _meta = pyreadstat.read_sav(str(p), apply_value_formats=kw.pop("labels", False), **kw)
    return df


def _read_sas(p: Path, **kw: Any) -> pd.DataFrame:
    fmt = "xport" if p.suffix.lower() == ".xpt" else "sas7bdat"
    return pd.read_sas(p, format=fmt, **kw)  # type: ignore[call-overload,no-any-return]


READERS: dict[str, Callable[..., pd.DataFrame]] = {
    ".csv": _read_csv,
    ".tsv": _read_csv,
    ".txt": _read_csv,
    ".parquet": lambda p, **kw: pd.read_parquet(p, **kw),
    ".pq": lambda p, **kw: pd.read_parquet(p, **kw),
    ".dta": lambda p, **kw: pd.read_stata(p, **kw),
    ".sas7bdat": _read_sas,
    ".xpt": _read_sas,
    ".sav": _read_sav,
    ".zsav": _read_sav,
}


def read_table(path: str | os.PathLike[str], **kwargs: Any) -> pd.DataFrame:
    """Read a data file into a DataFrame, choosing the reader from the extension.

    Raises
    ------
    FileFormatError
        The file does not exist, the extension is unknown, or the reader fails (wrong
        format, corrupt file, a CSV whose fields are separated by ';', tab or '|' instead of
        commas). The message names the file and the format tried.
    """
    p = Path(path)
    if not p.exists():
        raise FileFormatError(f"file '{p}' does not exist; check the path")
    if p.is_dir():
        raise FileFormatError(f"'{p}' is a folder, not a data file")
    ext = p.suffix.lower()
    reader = READERS.get(ext)
    if reader is None:
        raise FileFormatError(
            f"file '{p}': unknown extension '{ext}'; supported: {', '.join(sorted(READERS))}"
        )
    try:
        df = reader(p, **kwargs)
    except Exception as e:  # readers raise many types; we report one
        if isinstance(e, UnicodeDecodeError) and reader is _read_csv:
            raise FileFormatError(
                f"file '{p}' is not UTF-8 text; save it as UTF-8 (in Python: read_table(path, "
                f"encoding='latin-1') or the encoding it was written in)"
            ) from None
        raise FileFormatError(
            f"file '{p}' could not be read as {ext[1:]} ({type(e).__name__}); "
            f"check that the file is complete and of the format its extension says"
        ) from None
    if not isinstance(df, pd.DataFrame):
        raise FileFormatError(f"file '{p}' did not read into a table")
    if ext in (".csv", ".txt") and "sep" not in kwargs and df.shape[1] == 1:
        # a header like 'a;b;c' read as one column: the rows would be released as whole strings
        other = next((s for s in (";", "\t", "|") if s in str(df.columns[0])), None)
        if other is not None:
            raise FileFormatError(
                f"file '{p}' reads as one column whose name contains {other!r}: its fields look "
                f"separated by {other!r}, not commas; save it as comma-separated CSV with '.' as "
                f"the decimal point (in Python: read_table(path, sep={other!r}))"
            )
    return df


def write_table(data: pd.DataFrame, path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Write ``data`` to ``path`` (format from the extension) atomically; return the path.

    Raises
    ------
    FileFormatError
        The extension is unknown, or the format cannot hold the data (e.g. text outside
        latin-1 in a Stata file, spaces in SPSS variable names). Nothing is written.
    """
    p = Path(path)
    ext = p.suffix.lower()
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=ext)
    os.close(fd)
    try:
        if ext in (".csv", ".txt"):
            data.to_csv(tmp, index=False, **kwargs)
        elif ext == ".tsv":
            data.to_csv(tmp, index=False, sep="\t", **kwargs)
        elif ext in (".parquet", ".pq"):
            data.to_parquet(tmp, index=False, **kwargs)
        elif ext == ".dta":
            data.to_stata(tmp, write_index=False, **kwargs)
        elif ext in (".sav", ".zsav"):
            import pyreadstat

            pyreadstat.write_sav(data, tmp, **kwargs)
        else:
            raise FileFormatError(
                f"cannot write '{p}': unknown extension '{ext}'; use .csv, .parquet, .dta or .sav"
            )
        os.replace(tmp, p)
    except (OSError, FileFormatError):
        raise
    except Exception as e:  # writers raise many types, some quoting a value; we report one
        raise FileFormatError(
            f"cannot write '{p}' as {ext[1:]} ({type(e).__name__}): the format cannot hold "
            f"these column names or values; write .csv or .parquet instead"
        ) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p
