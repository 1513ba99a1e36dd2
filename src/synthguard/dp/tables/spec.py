"""What a DP table is: a cross-classification of declared columns, written ``"county x sex"``.

A table's cells are *every* combination of the columns' public levels (zero cells included):
which cells are empty is itself confidential, so the cell list comes from the declared domain,
never from the data (see :mod:`synthguard.dp.synthesizers._domain`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from synthguard.errors import ParameterError

__all__ = ["TableSpec", "parse_table", "parse_tables"]

_SPLIT = re.compile(r"\s+[x×*]\s+|\s*[×*]\s*")


@dataclass(frozen=True)
class TableSpec:
    """A table: its name (used for files and ledger lines) and its columns."""

    name: str
    columns: tuple[str, ...]


def parse_table(spec: str | Sequence[str] | TableSpec) -> TableSpec:
    """``"county x sex x agegroup"`` (or ``×``/``*``, or a list of columns) → TableSpec."""
    if isinstance(spec, TableSpec):
        return spec
    if isinstance(spec, str):
        cols = [c.strip() for c in _SPLIT.split(spec.strip()) if c.strip()]
    else:
        cols = [str(c) for c in spec]
    if not cols or len(set(cols)) != len(cols):
        raise ParameterError(
            f"parameter 'tables': table '{spec}' needs one or more distinct columns, "
            "written 'county x sex x agegroup'")
    return TableSpec("_x_".join(re.sub(r"\W+", "-", c) for c in cols), tuple(cols))


def parse_tables(tables: Sequence[str | Sequence[str] | TableSpec]) -> list[TableSpec]:
    """Parse several tables; names must be distinct."""
    if isinstance(tables, str) or not tables:
        raise ParameterError(
            "parameter 'tables': expected a list of tables, e.g. ['state x sex', 'county']")
    out = [parse_table(t) for t in tables]
    names = [t.name for t in out]
    if len(set(names)) != len(names):
        raise ParameterError("parameter 'tables': the same table is listed twice")
    return out
