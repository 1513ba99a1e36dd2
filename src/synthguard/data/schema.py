"""Column kinds and the schema of a confidential data set.

Every module asks the schema what a column is; none guesses on its own.
Kinds (the vocabulary of the field):

* ``categorical``: unordered levels (race, region), missing values become a level of their own
  when synthesizing, as synthpop does;
* ``ordinal``: ordered levels (education), from an ordered pandas Categorical or an override;
* ``binary``: exactly two levels (sex, urban/rural, 0/1 flags);
* ``count``: non-negative integers (number of kids, employees);
* ``numeric``: continuous values (income, expenditure).

Inference rules (:func:`infer_schema`), overridable per column:

* pandas ``category`` dtype: ``ordinal`` if ordered, else ``binary`` with two levels, else ``categorical``;
* ``bool`` or text with two levels: ``binary``; other text: ``categorical``;
* numbers whose only values are 0 and 1: ``binary``;
* non-negative numbers of an integer dtype: ``count``; other numbers (floats, even when
  integer-valued): ``numeric``.

Coded categories stored as numbers (race 1..6) are inferred as ``count``:
declare them, e.g. ``overrides={"Race": "categorical"}`` or store them as a
pandas Categorical.

Identifiers (record numbers, household ids, names, uuids) are flagged, whatever their kind,
with ``ColumnSchema.identifier`` (:func:`id_like_columns`, rules in :func:`identifier_reason`).
An identifier says nothing about the population and points at one person: it must never be
synthesized, released or used as a predictor, and the synthesizer refuses one unless it is
dropped or declared. A schema override of a column is such a declaration: the column is
then not an identifier, unless the override says so (``"identifier"`` or
``{"identifier": True}``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data._backend import refuse_dask
from synthguard.data.counts import ValueCounts
from synthguard.errors import DataError, SchemaError

__all__ = [
    "ColumnSchema",
    "Kind",
    "Schema",
    "id_like_columns",
    "identifier_reason",
    "infer_schema",
    "infer_schema_from_counts",
    "validate_frame",
]


class Kind(StrEnum):
    """The kind of a column."""

    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    BINARY = "binary"
    COUNT = "count"
    NUMERIC = "numeric"

    def __str__(self) -> str:
        return self.value

    @property
    def is_categorical(self) -> bool:
        """Levels (categorical, ordinal, binary) rather than numbers."""
        return self in (Kind.CATEGORICAL, Kind.ORDINAL, Kind.BINARY)

    @property
    def is_numeric(self) -> bool:
        """Numbers (numeric, count)."""
        return self in (Kind.NUMERIC, Kind.COUNT)


@dataclass(frozen=True)
class ColumnSchema:
    """What one column is.

    Attributes
    ----------
    name : column name.
    kind : :class:`Kind`.
    levels : the allowed levels of a categorical, ordinal or binary column, in order
        (sorted for unordered kinds); ``None`` for numbers.
    lower, upper : public bounds of a numeric or count column (``None``: unbounded). Synthetic
        values are kept inside them. They must come from public knowledge, not the data.
    has_missing : whether the confidential column has missing values.
    identifier : whether the column identifies records (a record number, a name, a key):
        inferred by :func:`identifier_reason` or declared. Never synthesized or released.
    """

    name: str
    kind: Kind
    levels: tuple[Any, ...] | None = None
    lower: float | None = None
    upper: float | None = None
    has_missing: bool = False
    identifier: bool = False

    @property
    def is_categorical(self) -> bool:
        return self.kind.is_categorical

    @property
    def is_numeric(self) -> bool:
        return self.kind.is_numeric

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python description (for plans and saved synthesizers). Levels are included:
        they are part of the public schema, not confidential values, except for an identifier,
        whose "levels" are the confidential ids: they are left out."""
        out: dict[str, Any] = {"kind": self.kind.value}
        if self.identifier:
            out["identifier"] = True
        elif self.levels is not None:
            out["levels"] = [_plain(v) for v in self.levels]
        if self.lower is not None:
            out["lower"] = self.lower
        if self.upper is not None:
            out["upper"] = self.upper
        out["has_missing"] = self.has_missing
        return out


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclass(frozen=True)
class Schema:
    """The ordered column schemas of a data set.

    Use :func:`infer_schema` to build one from a DataFrame; index it by column
    name; :meth:`validate` checks another frame (a release, new data) against it.
    """

    columns: Mapping[str, ColumnSchema] = field(default_factory=dict)

    def __getitem__(self, name: str) -> ColumnSchema:
        try:
            return self.columns[name]
        except KeyError:
            raise SchemaError(
                f"column '{name}' is not in the schema; known columns: {', '.join(self.columns)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self.columns

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns)

    def __len__(self) -> int:
        return len(self.columns)

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    def kind(self, name: str) -> Kind:
        return self[name].kind

    def categorical(self) -> list[str]:
        """Names of categorical, ordinal and binary columns."""
        return [n for n, c in self.columns.items() if c.is_categorical]

    def numeric(self) -> list[str]:
        """Names of numeric and count columns."""
        return [n for n, c in self.columns.items() if c.is_numeric]

    def identifiers(self) -> list[str]:
        """Names of the columns flagged as identifiers."""
        return [n for n, c in self.columns.items() if c.identifier]

    def subset(self, names: Iterable[str]) -> Schema:
        return Schema({n: self[n] for n in names})

    def with_column(self, col: ColumnSchema) -> Schema:
        cols = dict(self.columns)
        cols[col.name] = col
        return Schema(cols)

    def to_frame(self) -> pd.DataFrame:
        """One row per column: name, kind, number of levels, bounds, has_missing."""
        rows = [
            {
                "column": c.name,
                "kind": c.kind.value,
                "n_levels": None if c.levels is None else len(c.levels),
                "lower": c.lower,
                "upper": c.upper,
                "has_missing": c.has_missing,
                "identifier": c.identifier,
            }
            for c in self.columns.values()
        ]
        return pd.DataFrame(rows).set_index("column")

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {n: c.to_dict() for n, c in self.columns.items()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, Any]]) -> Schema:
        cols = {}
        for name, spec in d.items():
            kind = _parse_kind(name, spec.get("kind"))
            levels = spec.get("levels")
            cols[name] = ColumnSchema(
                name=name,
                kind=kind,
                levels=tuple(levels) if levels is not None else None,
                lower=spec.get("lower"),
                upper=spec.get("upper"),
                has_missing=bool(spec.get("has_missing", False)),
                identifier=bool(spec.get("identifier", False)),
            )
        return cls(cols)

    def validate(self, data: pd.DataFrame, *, columns: Iterable[str] | None = None) -> None:
        """Check that ``data`` agrees with the schema; raise one :class:`SchemaError` listing
        every problem (missing columns, unknown levels, out-of-bound or non-integer values).
        Messages give counts of rows, never values."""
        problems: list[str] = []
        names = list(columns) if columns is not None else self.names
        for name in names:
            if name not in data.columns:
                problems.append(f"column '{name}' is missing; the schema expects it")
                continue
            col = self[name]
            s = data[name]
            if col.is_categorical and col.levels is not None:
                bad = (~s.isna()) & (~s.isin(list(col.levels)))
                if bad.any():
                    problems.append(
                        f"column '{name}': {int(bad.sum())} rows hold levels that the schema "
                        f"does not list; add the levels to the schema or recode them"
                    )
            elif col.is_numeric:
                num = pd.to_numeric(s, errors="coerce")
                nonnum = num.isna() & ~s.isna()
                if nonnum.any():
                    problems.append(
                        f"column '{name}': expected numbers but {int(nonnum.sum())} rows hold text"
                    )
                vals = num.to_numpy(dtype=float, na_value=np.nan)
                if col.lower is not None and np.any(vals < col.lower):
                    problems.append(
                        f"column '{name}': {int(np.sum(vals < col.lower))} rows below the lower bound"
                    )
                if col.upper is not None and np.any(vals > col.upper):
                    problems.append(
                        f"column '{name}': {int(np.sum(vals > col.upper))} rows above the upper bound"
                    )
                if col.kind is Kind.COUNT:
                    finite = vals[~np.isnan(vals)]
                    if np.any(finite != np.round(finite)):
                        problems.append(
                            f"column '{name}': declared count but holds non-integer values; "
                            f"declare it numeric"
                        )
        if problems:
            raise SchemaError("data does not match the schema", problems)


def _parse_kind(name: str, kind: Any) -> Kind:
    if isinstance(kind, Kind):
        return kind
    try:
        return Kind(str(kind).lower())
    except ValueError:
        raise SchemaError(
            f"column '{name}': unknown kind '{kind}'; use one of "
            f"{', '.join(k.value for k in Kind)}"
        ) from None


def _is_text(s: pd.Series) -> bool:
    return _is_text_dtype(s.dtype)


def _is_text_dtype(dtype: Any) -> bool:
    return bool(
        pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
    ) and not isinstance(dtype, pd.CategoricalDtype)


def _sorted_levels(values: Iterable[Any]) -> tuple[Any, ...]:
    vals = list(values)
    try:
        return tuple(sorted(vals))
    except TypeError:
        return tuple(sorted(vals, key=str))


def _infer_column(name: str, vc: ValueCounts) -> ColumnSchema:
    """The kind of a column from its value counts (all the rules read)."""
    has_missing = vc.n_missing > 0
    present = vc.present().values
    dtype = vc.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        levels = tuple(_plain(v) for v in dtype.categories)
        if dtype.ordered:
            kind = Kind.ORDINAL
        elif len(levels) == 2:
            kind = Kind.BINARY
        else:
            kind = Kind.CATEGORICAL
        return ColumnSchema(name, kind, levels, has_missing=has_missing)
    if pd.api.types.is_bool_dtype(dtype):
        return ColumnSchema(name, Kind.BINARY, (False, True), has_missing=has_missing)
    if _is_text_dtype(dtype):
        levels = _sorted_levels(_plain(v) for v in present)
        kind = Kind.BINARY if len(levels) == 2 else Kind.CATEGORICAL
        return ColumnSchema(name, kind, levels, has_missing=has_missing)
    if pd.api.types.is_numeric_dtype(dtype):
        vals = present.to_numpy(dtype=float)
        uniq = np.unique(vals)
        if len(uniq) <= 2 and set(uniq.tolist()) <= {0.0, 1.0} and len(uniq) == 2:
            levels = tuple(_plain(v) for v in np.unique(present.to_numpy()))
            return ColumnSchema(name, Kind.BINARY, levels, has_missing=has_missing)
        if pd.api.types.is_integer_dtype(dtype) and len(vals) and vals.min() >= 0:
            return ColumnSchema(name, Kind.COUNT, lower=0.0, has_missing=has_missing)
        return ColumnSchema(name, Kind.NUMERIC, has_missing=has_missing)
    raise SchemaError(
        f"column '{name}': dtype {dtype} is not supported; convert it to numbers "
        f"or text (dates: to a number such as days since a reference date)"
    )


def _apply_override(col: ColumnSchema, vc: ValueCounts, spec: Any) -> ColumnSchema:
    """The column as the user declared it. A declaration makes the column a non-identifier
    unless it says ``identifier`` (the kind name ``"identifier"`` or ``identifier: true``)."""
    name = col.name
    if isinstance(spec, ColumnSchema):
        return replace(spec, name=name, has_missing=col.has_missing)
    if isinstance(spec, str) and spec.strip().lower() == "identifier":
        spec = {"identifier": True}
    if isinstance(spec, str | Kind):
        spec = {"kind": spec}
    if not isinstance(spec, Mapping):
        raise SchemaError(
            f"override for column '{name}': expected a kind name or a mapping with 'kind', "
            f"'levels', 'lower', 'upper', 'identifier'"
        )
    unknown = set(spec) - {"kind", "levels", "lower", "upper", "identifier"}
    if unknown:
        raise SchemaError(
            f"override for column '{name}': unknown keys {sorted(unknown)}; "
            f"allowed: kind, levels, lower, upper, identifier"
        )
    ident = spec.get("identifier", False)
    if not isinstance(ident, bool | np.bool_):
        raise SchemaError(f"override for column '{name}': 'identifier' must be true or false")
    if ident:
        return replace(col, identifier=True)
    col = replace(col, identifier=False)
    if set(spec) <= {"identifier"}:
        return col
    kind = _parse_kind(name, spec.get("kind", col.kind))
    levels: tuple[Any, ...] | None
    if kind.is_categorical:
        if spec.get("levels") is not None:
            levels = tuple(spec["levels"])
        elif col.levels is not None and col.kind.is_categorical:
            levels = col.levels
        else:
            levels = _sorted_levels(_plain(v) for v in vc.present().values)
        if kind is Kind.BINARY and len(levels) != 2:
            raise SchemaError(
                f"column '{name}': declared binary but has {len(levels)} levels; "
                f"declare it categorical"
            )
        return ColumnSchema(name, kind, levels, has_missing=col.has_missing)
    if _is_text_dtype(vc.dtype) or isinstance(vc.dtype, pd.CategoricalDtype):
        num = pd.to_numeric(vc.values.astype("object"), errors="coerce")
        bad = np.asarray(num.isna() & vc.values.notna(), dtype=bool)
        if bad.any():
            raise SchemaError(
                f"column '{name}': declared {kind.value} but {int(vc.counts[bad].sum())} "
                f"rows hold text that is not a number; clean them or declare it categorical"
            )
    lower = spec.get("lower", 0.0 if kind is Kind.COUNT else None)
    upper = spec.get("upper")
    if lower is not None and upper is not None and lower > upper:
        raise SchemaError(f"column '{name}': lower bound exceeds upper bound")
    return ColumnSchema(name, kind, None, lower, upper, has_missing=col.has_missing)


def infer_schema(
    data: pd.DataFrame,
    overrides: Mapping[str, Any] | Schema | None = None,
) -> Schema:
    """Infer the kind of every column of ``data`` and apply the user's ``overrides``.

    Parameters
    ----------
    data : the confidential DataFrame (validated with :func:`validate_frame` first).
    overrides : per-column kind name (``"categorical"``), mapping
        (``{"kind": "numeric", "lower": 0}``), :class:`ColumnSchema`, or a whole :class:`Schema`.
        An override declares the column: it is not flagged as an identifier unless the
        override is ``"identifier"`` or holds ``"identifier": True`` (which keeps the
        inferred kind).

    Returns
    -------
    Schema

    Raises
    ------
    SchemaError
        An override names a column that is not in ``data``, an unknown kind, or a kind the
        data cannot have (text declared numeric).
    """
    return _build_schema(list(data.columns), lambda name: ValueCounts.of(data[name]), overrides)


def infer_schema_from_counts(
    counts: Mapping[str, ValueCounts],
    overrides: Mapping[str, Any] | Schema | None = None,
) -> Schema:
    """:func:`infer_schema` of the data whose columns hold the multisets ``counts`` (column
    name -> :class:`~synthguard.data.counts.ValueCounts`, in column order): every rule reads
    a column only through its dtype, its distinct values and how often each occurs, so the
    schema is the one :func:`infer_schema` gives the data themselves (it runs this same code
    on each column's counts). For data too big to hold (:mod:`synthguard.scale`), whose
    columns are counted elsewhere."""
    return _build_schema(list(counts), lambda name: counts[name], overrides)


def _build_schema(
    names: list[Any],
    counts_of: Callable[[Any], ValueCounts],
    overrides: Mapping[str, Any] | Schema | None,
) -> Schema:
    if isinstance(overrides, Schema):
        overrides = dict(overrides.columns)
    overrides = dict(overrides or {})
    unknown = [c for c in overrides if c not in names]
    if unknown:
        raise SchemaError(
            f"schema overrides name columns that are not in the data: {', '.join(map(str, unknown))}"
        )
    cols: dict[str, ColumnSchema] = {}
    problems: list[str] = []
    for name in names:
        vc = counts_of(name)  # one column's counts at a time
        try:
            if name in overrides:
                spec = overrides[name]
                if _is_text_dtype(vc.dtype) and not _declares_identifier_only(spec):
                    base = ColumnSchema(name, Kind.CATEGORICAL, None, has_missing=vc.n_missing > 0)
                else:
                    base = _infer_column(name, vc)
                col = _apply_override(base, vc, spec)
            else:
                col = _infer_column(name, vc)
                if _identifier_reason(str(name), vc) is not None:
                    col = replace(col, identifier=True)
        except SchemaError as e:
            problems.extend(e.problems)
            continue
        cols[str(name)] = col
    if problems:
        raise SchemaError("the schema cannot be built", problems)
    return Schema(cols)


def _declares_identifier_only(spec: Any) -> bool:
    if isinstance(spec, str):
        return spec.strip().lower() == "identifier"
    return isinstance(spec, Mapping) and set(spec) <= {"identifier"}


#: Name tokens that mark an identifier (after splitting on punctuation and camelCase).
_ID_TOKENS = frozenset({
    "id", "ids", "key", "uuid", "guid", "serial", "identifier", "hid", "hhid", "pid", "uid",
})
#: Whole names (lower case, punctuation removed) that mark an identifier.
_ID_NAMES = frozenset({
    "hhid", "pid", "uid", "rowid", "recid", "caseid", "respid", "personid", "serialno",
    "seqn", "rownum", "rownumber", "recordid", "unnamed0",
})
#: Share of distinct values above which a column with an identifier's name is one.
ID_NAME_DISTINCT_SHARE = 0.2
#: Share of distinct values above which text, or an integer sequence, is an identifier.
ID_DISTINCT_SHARE = 0.95
#: Fewest non-missing values for the rules that look at the data alone.
ID_MIN_VALUES = 20
#: Fewest distinct values of a column flagged by its name.
ID_NAME_MIN_DISTINCT = 10


def _name_tokens(name: str) -> list[str]:
    return [t.lower() for t in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)]


def _id_like_name(name: str) -> bool:
    if any(t in _ID_TOKENS for t in _name_tokens(name)):
        return True
    return re.sub(r"[^0-9a-z]", "", name.lower()) in _ID_NAMES


def identifier_reason(name: str, s: pd.Series) -> str | None:
    """Why column ``s`` (named ``name``) looks like an identifier, or None.

    A column is ID-like when

    * its name marks an identifier (a word such as ``id``, ``ID``, ``key``, ``serial``,
      ``uuid``, ``guid`` after splitting the name on punctuation and camelCase, so
      ``PersonID`` and ``household_id`` match and ``KidsCount`` does not; or a name such as
      ``hhid``, ``seqn``, ``Unnamed: 0``), at least ``ID_NAME_DISTINCT_SHARE`` (20%) of its
      non-missing values are distinct and at least ``ID_NAME_MIN_DISTINCT`` (10) values are
      (a household id in a file of persons; a ``region_id`` with a few dozen levels in a
      large file is a category, not an identifier); or
    * it holds text (or unordered categories) and at least ``ID_DISTINCT_SHARE`` (95%) of its
      values are distinct: names, e-mail addresses, free text; or
    * it holds integer values, at least 95% distinct, that form a sequence: their range
      ``max - min + 1`` is at most twice the number of distinct values (row numbers,
      serial numbers; counts and incomes spread far wider or repeat).

    The two data rules need at least ``ID_MIN_VALUES`` (20) non-missing values. Continuous
    numbers are distinct by nature and are never flagged by their values alone. The reason
    names no data value.
    """
    return _identifier_reason(name, ValueCounts.of(s))


def _identifier_reason(name: str, vc: ValueCounts) -> str | None:
    """:func:`identifier_reason` from the column's value counts (all its rules read)."""
    present = vc.present()
    n = present.n
    if n == 0 or pd.api.types.is_bool_dtype(vc.dtype):
        return None
    n_distinct = len(present.counts)
    if n_distinct < 2:
        return None
    share = n_distinct / n
    if (
        _id_like_name(name)
        and share >= ID_NAME_DISTINCT_SHARE
        and n_distinct >= ID_NAME_MIN_DISTINCT
    ):
        return "its name marks an identifier and many of its values are distinct"
    if n < ID_MIN_VALUES or share < ID_DISTINCT_SHARE:
        return None
    if isinstance(vc.dtype, pd.CategoricalDtype):
        if vc.dtype.ordered:
            return None
        return "(nearly) every value is a distinct level"
    if _is_text_dtype(vc.dtype):
        return "(nearly) every value is distinct text"
    if pd.api.types.is_numeric_dtype(vc.dtype):
        vals = present.values.to_numpy(dtype=float)
        if not np.all(vals == np.round(vals)):
            return None
        if vals.max() - vals.min() + 1 <= 2 * n_distinct:
            return "(nearly) every value is distinct and the values form an integer sequence"
    return None


def id_like_columns(data: pd.DataFrame) -> list[str]:
    """Names of the columns of ``data`` that look like identifiers, in column order.

    The rules are those of :func:`identifier_reason`; :func:`infer_schema` flags the same
    columns (``ColumnSchema.identifier``) unless they are declared. An identifier must be
    dropped before synthesis (``drop=[...]``, ``--drop COL``), never released nor used as a
    predictor.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"PersonID": range(1, 31), "age": [30, 40, 50] * 10})
    >>> id_like_columns(df)
    ['PersonID']
    """
    return [str(c) for c in data.columns if identifier_reason(str(c), data[c]) is not None]


def _numeric_like_text(s: pd.Series) -> int:
    """Number of non-missing entries of a text column that do not parse as numbers, when most do."""
    # Parse each distinct value once (value_counts), not every row: a text column of a million
    # rows usually holds few distinct strings.
    counts = s.value_counts(dropna=True)
    if counts.empty:
        return 0
    parsed = pd.to_numeric(pd.Series(counts.index.astype(str)).str.strip(), errors="coerce")
    bad = np.asarray(pd.isna(parsed))
    n_bad = int(counts.to_numpy()[bad].sum())
    n = int(counts.sum())
    if 0 < n_bad <= 0.2 * n and n - n_bad >= 5:
        return n_bad
    return 0


def validate_frame(
    data: Any,
    *,
    name: str = "data",
    text_overrides: Iterable[str] = (),
) -> pd.DataFrame:
    """Check confidential input at the boundary; return it unchanged (never mutated).

    Collects every problem into one :class:`DataError`:

    * not a DataFrame, no rows or no columns;
    * duplicate or non-string column names;
    * a column that is entirely missing;
    * numbers stored as text with stray strings (a column where most values are numbers);
    * infinite values in a numeric column.

    ``text_overrides`` lists columns the user declared categorical, which are exempt from
    the numbers-as-text check.
    """
    refuse_dask(data, name)
    if not isinstance(data, pd.DataFrame):
        raise DataError(
            f"{name}: expected a pandas DataFrame, got {type(data).__name__}; "
            f"read files with synthguard.data.read_table"
        )
    problems: list[str] = []
    if data.shape[1] == 0:
        problems.append(f"{name} has no columns")
    if data.shape[0] == 0:
        problems.append(f"{name} has no rows")
    if problems:
        raise DataError(f"{name} is empty", problems)
    cols = pd.Index(data.columns)
    dup = cols[cols.duplicated()].unique().tolist()
    if dup:
        problems.append(
            f"duplicate column names: {', '.join(map(str, dup))}; rename them so each is unique"
        )
    nonstr = [c for c in cols if not isinstance(c, str)]
    if nonstr:
        problems.append(
            f"{len(nonstr)} column names are not text; give every column a text name"
        )
    exempt = set(text_overrides)
    if not dup:
        for c in cols:
            s = data[c]
            if s.isna().all():
                problems.append(
                    f"column '{c}': every value is missing; drop the column or fill it"
                )
                continue
            if _is_text(s) and c not in exempt:
                n_bad = _numeric_like_text(s)
                if n_bad:
                    problems.append(
                        f"column '{c}': looks numeric but {n_bad} rows hold text that is not a "
                        f"number; clean them, or declare the column categorical"
                    )
            elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
                vals = s.to_numpy(dtype=float, na_value=np.nan)
                n_inf = int(np.isinf(vals).sum())
                if n_inf:
                    problems.append(
                        f"column '{c}': {n_inf} rows hold infinite values; replace them with "
                        f"missing values or finite numbers"
                    )
    if problems:
        raise DataError(f"{name} cannot be used as it is", problems)
    return data


def is_missing_scalar(v: Any) -> bool:
    """True for None and float NaN."""
    return v is None or (isinstance(v, float) and math.isnan(v))
