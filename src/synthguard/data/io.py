"""Read and write the file formats agencies keep microdata in.

CSV (``.csv``, ``.tsv``, ``.txt``), Excel (``.xlsx``, ``.xlsm``, through openpyxl), Parquet
(``.parquet``, ``.pq``), Stata (``.dta``), SAS (``.sas7bdat``, ``.xpt``) and SPSS (``.sav``,
``.zsav``) through pandas and pyreadstat. Writes are atomic (a temporary file renamed into
place), so a failed run never leaves a half-written release behind.

:func:`read_table` checks what pandas lets through silently: a file of another format under a
text name (recognised by its first bytes), ragged CSV rows, duplicate column names (pandas
renames them ``Income.1``), and warns (:class:`~synthguard.errors.InputWarning`) about names or
levels with spaces around them and levels that look like missing-value codes.
"""

from __future__ import annotations

import csv
import os
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import FileFormatError, InputWarning, SynthguardError

__all__ = ["MISSING_CODES", "READERS", "read_table", "write_table"]

#: Levels that usually stand for a missing value; read_table warns when a column holds one.
MISSING_CODES: tuple[str, ...] = (
    "?", ".", "..", "-", "NA", "N/A", "n/a", "na", "NULL", "null", "None", "missing",
    "-7", "-8", "-9", "-99", "-999", "-9999",
)
#: Numeric codes read_table suspects when one is a column's only negative value.
_NUMERIC_CODES = (-7.0, -8.0, -9.0, -99.0, -999.0, -9999.0)
_TEXT_EXT = (".csv", ".tsv", ".txt")


def _read_csv(p: Path, **kw: Any) -> pd.DataFrame:
    sep = "\t" if p.suffix.lower() == ".tsv" else kw.pop("sep", ",")
    return pd.read_csv(p, sep=sep, **kw)


def _read_excel(p: Path, **kw: Any) -> pd.DataFrame:
    # header=None: pandas would rename a duplicate name to 'Income.1' before we could see it
    header = kw.pop("header", 0)
    if "sheet_name" not in kw:
        import openpyxl

        wb = openpyxl.load_workbook(p, read_only=True)
        sheets = list(wb.sheetnames)
        wb.close()
        if len(sheets) > 1:
            warnings.warn(
                f"file '{p}' has {len(sheets)} sheets; reading the first, {sheets[0]!r}; to read "
                f"another, save it as its own file (in Python: read_table(path, sheet_name=...))",
                InputWarning, stacklevel=4)
    raw = pd.read_excel(p, engine="openpyxl", header=None, **kw)
    if header is None or raw.empty:
        return raw
    names = [("" if pd.isna(v) else str(v)) for v in raw.iloc[int(header)]]
    _refuse_duplicates(p, names)
    df = raw.iloc[int(header) + 1:].reset_index(drop=True)
    df.columns = pd.Index(names)
    return df.infer_objects()


def _read_xls(p: Path, **kw: Any) -> pd.DataFrame:
    try:
        import xlrd  # noqa: F401
    except ImportError:
        raise FileFormatError(
            f"file '{p}' is an Excel 97-2003 workbook (.xls), which needs the package xlrd; "
            f"save it as .xlsx or CSV"
        ) from None
    return pd.read_excel(p, **kw)


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
    ".xlsx": _read_excel,
    ".xlsm": _read_excel,
    ".xls": _read_xls,
    ".parquet": lambda p, **kw: pd.read_parquet(p, **kw),
    ".pq": lambda p, **kw: pd.read_parquet(p, **kw),
    ".dta": lambda p, **kw: pd.read_stata(p, **kw),
    ".sas7bdat": _read_sas,
    ".xpt": _read_sas,
    ".sav": _read_sav,
    ".zsav": _read_sav,
}


def _sniff(p: Path) -> tuple[str, str] | None:
    """What a file is by its first bytes, when that is not text: (description, advice)."""
    with open(p, "rb") as f:
        head = f.read(64)
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        try:
            with zipfile.ZipFile(p) as z:
                names = z.namelist()
        except zipfile.BadZipFile:
            names = []
        if any(n.startswith("xl/") for n in names):
            return "an Excel workbook", "save it as CSV or pass it with its .xlsx name"
        if "mimetype" in names and any(n == "content.xml" for n in names):
            return "an OpenDocument spreadsheet", "save it as CSV or .xlsx"
        return "a zip archive", "unzip it and pass the data file inside"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return ("an Excel 97-2003 workbook (or another old Office file)",
                "save it as CSV or .xlsx")
    if head.startswith(b"PAR1"):
        return "a Parquet file", "pass it with a .parquet name"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip-compressed file", "decompress it (gunzip) first"
    if head.startswith((b"$FL2", b"$FL3")):
        return "an SPSS file", "pass it with a .sav name"
    if head.startswith(b"<stata_dta>"):
        return "a Stata file", "pass it with a .dta name"
    if head.startswith(b"HEADER RECORD*******"):
        return "a SAS transport file", "pass it with a .xpt name"
    if head.startswith(b"%PDF"):
        return "a PDF document", "export the table from its source as CSV"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return ("UTF-16 text (Excel's 'Unicode Text')",
                "save it as 'CSV UTF-8' (in Python: read_table(path, encoding='utf-16', sep='\\t'))")
    return None


def _text_encoding(kw: dict[str, Any]) -> str:
    enc = kw.get("encoding") or "utf-8"
    return "utf-8-sig" if enc.lower().replace("_", "-") in ("utf-8", "utf8") else str(enc)


def _csv_sep(p: Path, kw: dict[str, Any]) -> str:
    return "\t" if p.suffix.lower() == ".tsv" else str(kw.get("sep", ","))


def _rows(p: Path, kw: dict[str, Any]) -> Iterable[tuple[int, int]]:
    """(line number, number of fields) of each non-blank CSV record, the header first."""
    with open(p, newline="", encoding=_text_encoding(kw), errors="replace") as f:
        reader = csv.reader(f, delimiter=_csv_sep(p, kw),
                            skipinitialspace=bool(kw.get("skipinitialspace", False)))
        for row in reader:
            if row:
                yield reader.line_num, len(row)


def _arrow_sees_ragged(p: Path, kw: dict[str, Any]) -> bool:
    """Fast check (pyarrow's C++ parser, one column converted): does any record have another
    number of fields than the header? True also when pyarrow cannot tell."""
    import pyarrow.csv as pacsv

    bad: list[int] = []

    def handler(row: Any) -> str:
        bad.append(1)
        return "skip"

    try:
        enc = _text_encoding(kw)
        first = _csv_header(p, kw)
        if not first:
            return True
        pacsv.read_csv(
            p,
            read_options=pacsv.ReadOptions(use_threads=True, encoding="utf8" if enc == "utf-8-sig" else enc),
            parse_options=pacsv.ParseOptions(delimiter=_csv_sep(p, kw), invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(include_columns=[first[0]],
                                                 column_types={first[0]: "string"}),
        )
    except Exception:  # pyarrow reads a little differently from pandas: let the exact scan decide
        return True
    return bool(bad)


def _ragged(p: Path, kw: dict[str, Any]) -> FileFormatError | None:
    """The error to raise when a CSV record has a different number of fields than the header."""
    if not _arrow_sees_ragged(p, kw):
        return None
    rows = iter(_rows(p, kw))
    first = next(rows, None)
    if first is None:
        return None
    n = first[1]
    bad = [(line, k) for line, k in rows if k != n]
    if not bad:
        return None
    line, k = bad[0]
    more = f" ({len(bad)} such lines in all)" if len(bad) > 1 else ""
    return FileFormatError(
        f"file '{p}': line {line} has {k} fields but the header has {n}{more}; a value holding "
        f"the separator needs quotes, or a separator is missing or extra; fix those lines"
    )


def _csv_header(p: Path, kw: dict[str, Any]) -> list[str] | None:
    return next((row for row in _csv_records(p, kw)), None)


def _csv_records(p: Path, kw: dict[str, Any]) -> Iterable[list[str]]:
    with open(p, newline="", encoding=_text_encoding(kw), errors="replace") as f:
        for row in csv.reader(f, delimiter=_csv_sep(p, kw)):
            if row:
                yield row


def _names(columns: Iterable[Any], limit: int = 8) -> str:
    cols = [repr(str(c)) for c in columns]
    more = f" and {len(cols) - limit} more" if len(cols) > limit else ""
    return ", ".join(cols[:limit]) + more


def _refuse_duplicates(p: Path, names: Sequence[str], strip: bool = False) -> None:
    seen: dict[str, int] = {}
    for c in names:
        key = c.strip() if strip else c
        seen[key] = seen.get(key, 0) + 1
    dup = [c for c, k in seen.items() if k > 1]
    if dup:
        raise FileFormatError(
            f"file '{p}': column name(s) {_names(dup)} appear more than once; give every "
            f"column its own name"
        )


def _is_text(s: pd.Series) -> bool:
    return bool(pd.api.types.is_object_dtype(s.dtype) or pd.api.types.is_string_dtype(s.dtype))


def _clean(df: pd.DataFrame, na_values: Sequence[str], strip: bool) -> pd.DataFrame:
    """Trim spaces around names and text values (``strip``) and set ``na_values`` to missing."""
    df = df.copy()
    if strip:
        df.columns = pd.Index([c.strip() if isinstance(c, str) else c for c in df.columns])
    tokens = set(na_values)
    numbers = []
    for t in tokens:
        try:
            numbers.append(float(t))
        except ValueError:
            pass
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            s = s.astype(object)
        if _is_text(s):
            changed = False
            if strip:
                if pd.api.types.infer_dtype(s, skipna=True) == "string":
                    s = s.str.strip()
                else:
                    s = s.map(lambda v: v.strip() if isinstance(v, str) else v)
                s = s.mask(s.eq(""))
                changed = True
            if tokens and s.isin(tokens).any():
                s = s.mask(s.isin(tokens))
                changed = True
            if changed:
                try:
                    s = pd.to_numeric(s)  # ' 39' and ' ?' made the column text
                except (ValueError, TypeError):
                    pass
                df[c] = s
        elif numbers and pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            hit = s.isin(numbers)
            if hit.any():
                df[c] = s.mask(hit)
    return df


def _warn_suspicious(p: Path, df: pd.DataFrame, na_values: Sequence[str], strip: bool) -> None:
    """InputWarning for spaces around names or levels and levels that look like missing codes.

    Messages name columns and the code (a token such as '?' is no one's data), never a value.
    """
    given = set(na_values)
    codes = [t for t in MISSING_CODES if t not in given]
    spaced_names = [c for c in df.columns if isinstance(c, str) and c != c.strip()]
    spaced: list[Any] = []
    coded: dict[str, list[Any]] = {}
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            levels = [v for v in s.cat.categories if isinstance(v, str)]
        elif _is_text(s):
            levels = [v for v in pd.unique(s.dropna()) if isinstance(v, str)]
        elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            x = s.to_numpy(dtype=float, na_value=np.nan)
            neg = np.unique(x[x < 0])
            if len(neg) == 1 and float(neg[0]) in _NUMERIC_CODES and (x >= 0).any():
                v = float(neg[0])
                code = str(int(v))
                if code not in given:
                    coded.setdefault(code, []).append(c)
            continue
        else:
            continue
        if any(v != v.strip() for v in levels):
            spaced.append(c)
        found = {v.strip() for v in levels} & set(codes)
        for code in sorted(found):
            coded.setdefault(code, []).append(c)
    hint_strip = "pass strip=True (CLI: --strip) to trim them" if not strip else ""
    if spaced_names and not strip:
        warnings.warn(f"file '{p}': column name(s) {_names(spaced_names)} start or end with a "
                      f"space; {hint_strip}", InputWarning, stacklevel=3)
    if spaced and not strip:
        warnings.warn(f"file '{p}': levels of column(s) {_names(spaced)} start or end with a "
                      f"space, so ' a' and 'a' count as different levels; {hint_strip}",
                      InputWarning, stacklevel=3)
    for code, cols in coded.items():
        warnings.warn(
            f"file '{p}': column(s) {_names(cols)} hold {code!r}, which looks like a "
            f"missing-value code; if it is, pass na_values=[{code!r}] (CLI: --na-values "
            f"{code!r}) so it is not synthesized as a real value", InputWarning, stacklevel=3)


def read_table(path: str | os.PathLike[str], *, na_values: Sequence[str] | str | None = None,
               strip: bool = False, **kwargs: Any) -> pd.DataFrame:
    """Read a data file into a DataFrame, choosing the reader from the extension.

    Parameters
    ----------
    path : the file; its extension picks the reader (see ``READERS``).
    na_values : values that mean "missing" in this file, e.g. ``["?", "-9"]`` (added to pandas'
        defaults such as an empty field and ``NA``); in numeric columns a numeric token matches
        the number.
    strip : trim spaces around column names and text values (``" Male"`` becomes ``"Male"``),
        then read a column whose values are all numbers as numbers.
    **kwargs : passed to the reader (``pandas.read_csv``, ``pandas.read_excel``, ...).

    Raises
    ------
    FileFormatError
        The file does not exist, the extension is unknown, the file is of another format than
        its text extension says (an Excel workbook, zip, Parquet, gzip... named ``.csv``:
        recognised by its first bytes), a CSV record has more or fewer fields than the header
        (the message gives the line and both counts), two columns have the same name, or the
        reader fails. The message names the file, never a value.

    Warns
    -----
    InputWarning
        A column name or level starts or ends with a space, or a column holds a level that
        looks like a missing-value code (``?``, ``.``, ``NA``, ``-9`` and others in
        ``MISSING_CODES``; in a numeric column a code such as -9 that is its only negative
        value) not listed in ``na_values``. The warning names the columns.
    """
    p = Path(path)
    if not p.exists():
        raise FileFormatError(f"file '{p}' does not exist; check the path")
    ext = p.suffix.lower()
    if p.is_dir() and ext != ".parquet":  # a NAME.parquet folder is a partitioned Parquet file
        raise FileFormatError(f"'{p}' is a folder, not a data file")
    reader = READERS.get(ext)
    if reader is None:
        raise FileFormatError(
            f"file '{p}': unknown extension '{ext}'; supported: {', '.join(sorted(READERS))}"
        )
    tokens = [na_values] if isinstance(na_values, str) else [str(t) for t in (na_values or [])]
    text = reader is _read_csv
    if text:
        found = _sniff(p)
        if found is not None:
            what, advice = found
            raise FileFormatError(f"file '{p}' is {what}, not {ext[1:].upper()} text; {advice}")
        if p.stat().st_size == 0:
            raise FileFormatError(f"file '{p}' is empty")
    kw = dict(kwargs)
    if tokens and (text or reader is _read_excel):
        kw["na_values"] = tokens
    if strip and text:
        kw.setdefault("skipinitialspace", True)
    try:
        df = reader(p, **kw)
    except SynthguardError:
        raise
    except Exception as e:  # readers raise many types; we report one
        if isinstance(e, UnicodeDecodeError) and text:
            raise FileFormatError(
                f"file '{p}' is not UTF-8 text; save it as UTF-8 (in Python: read_table(path, "
                f"encoding='latin-1') or the encoding it was written in)"
            ) from None
        if text and isinstance(e, pd.errors.ParserError):
            ragged = _ragged(p, kw)
            if ragged is not None:
                raise ragged from None
        if text and isinstance(e, pd.errors.EmptyDataError):
            raise FileFormatError(f"file '{p}' holds no columns; is it empty?") from None
        raise FileFormatError(
            f"file '{p}' could not be read as {ext[1:]} ({type(e).__name__}); "
            f"check that the file is complete and of the format its extension says"
        ) from None
    if not isinstance(df, pd.DataFrame):
        raise FileFormatError(f"file '{p}' did not read into a table")
    if text:
        user_shaped = any(k in kwargs for k in ("names", "header", "index_col", "usecols"))
        if not user_shaped:
            # pandas fills short rows with missing values (the last column then has some) and
            # takes extra leading fields of every row as an index: both misalign the data
            if (df.shape[1] and df.iloc[:, -1].isna().any()) or not isinstance(df.index, pd.RangeIndex):
                ragged = _ragged(p, kw)
                if ragged is not None:
                    raise ragged
            header = _csv_header(p, kw)
            if header is not None:
                _refuse_duplicates(p, header, strip)
    if ext in (".csv", ".txt") and "sep" not in kwargs and df.shape[1] == 1:
        # a header like 'a;b;c' read as one column: the rows would be released as whole strings
        other = next((s for s in (";", "\t", "|") if s in str(df.columns[0])), None)
        if other is not None:
            raise FileFormatError(
                f"file '{p}' reads as one column whose name contains {other!r}: its fields look "
                f"separated by {other!r}, not commas; save it as comma-separated CSV with '.' as "
                f"the decimal point (in Python: read_table(path, sep={other!r}))"
            )
    _refuse_duplicates(p, [str(c) for c in df.columns], strip)
    if strip or (tokens and not (text or reader is _read_excel)):
        df = _clean(df, tokens, strip)
    _warn_suspicious(p, df, tokens, strip)
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
