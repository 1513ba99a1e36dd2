"""The privacy unit and its contribution bounds: what one charge protects, and how much of the
data one unit can change.

Neighbouring relation (unit-level add/remove): two data sets are neighbours when one is the
other with **all the rows of one unit** added or removed (Wilson et al. 2020, "Differentially
private SQL with bounded user contribution", §2; OpenDP's ``Context`` with a privacy unit). The
row as a unit (``privacy_unit=None`` or ``"row"``) is the usual row-level add/remove relation.

After the session's bounding (:mod:`synthguard.dp.session.bounding`) a unit holds at most
``R = max_rows`` rows in all, touches at most ``G = max_groups`` groups of a query and holds
at most ``Rg = max_rows_per_group`` rows in each. Removing a unit therefore changes a
per-group vector of counts by at most ``min(R, G·Rg)`` in l1 norm (at most ``Rg`` in one
group, in at most ``G`` groups, at most ``R`` in all): the l1 sensitivities of
:meth:`PrivacyUnit.rows_l1` and :meth:`PrivacyUnit.groups_l1` (Wilson et al. 2020, §3;
Dwork & Roth 2014, Def. 3.1 applied to the unit-level relation).
"""

from __future__ import annotations

from dataclasses import dataclass

from synthguard.errors import ParameterError

__all__ = ["ROW", "PrivacyUnit"]

ROW = "row"


def _positive_int(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ParameterError(f"parameter '{name}': expected a whole number >= 1 or None")
    return int(value)


@dataclass(frozen=True)
class PrivacyUnit:
    """A privacy unit (``"row"`` or an id column) and its contribution bounds.

    Parameters
    ----------
    column : ``"row"`` (every row its own unit) or the id column of the unit (``"hid"``).
    max_rows : R, rows kept per unit (1 for the row unit).
    max_groups : G, groups of one query a unit may touch (None: as many as the query has).
    max_rows_per_group : Rg, rows a unit may keep in one group (None: ``max_rows``).
    """

    column: str = ROW
    max_rows: int = 1
    max_groups: int | None = None
    max_rows_per_group: int | None = None

    @classmethod
    def make(cls, privacy_unit: str | None, max_rows: int | None, max_groups: int | None,
             max_rows_per_group: int | None) -> PrivacyUnit:
        """Validate the session's parameters into a unit."""
        column = ROW if privacy_unit is None else privacy_unit
        if not isinstance(column, str) or not column:
            raise ParameterError("parameter 'privacy_unit': expected 'row' or an id column name")
        r = _positive_int(max_rows, "max_rows")
        g = _positive_int(max_groups, "max_groups")
        rg = _positive_int(max_rows_per_group, "max_rows_per_group")
        if column == ROW:
            if (r or 1) != 1 or (rg or 1) != 1:
                raise ParameterError("parameter 'max_rows': the row as privacy unit holds one "
                                     "row; give privacy_unit=<id column> for several rows per "
                                     "unit")
            return cls(ROW, 1, g, None)
        if r is None:
            raise ParameterError(
                f"parameter 'max_rows': privacy unit '{column}' needs a bound on its rows "
                "(e.g. max_rows=5 for households of up to five persons); rows beyond it are "
                "dropped at random by the session"
            )
        if rg is not None and rg > r:
            rg = r
        return cls(column, r, g, rg)

    @property
    def is_row(self) -> bool:
        return self.column == ROW

    def rows_per_group(self) -> int:
        """Rg, or R when not set."""
        return self.max_rows_per_group or self.max_rows

    def groups(self, n_groups: int) -> int:
        """G_eff = min(G, number of groups, R): a unit with R rows touches at most R groups."""
        g = n_groups if self.max_groups is None else min(self.max_groups, n_groups)
        return max(1, min(g, self.max_rows if not self.is_row else 1))

    def rows_l1(self, n_groups: int) -> int:
        """l1 change of a per-group row count when one unit is removed: min(R, G_eff·Rg)."""
        return min(self.max_rows, self.groups(n_groups) * self.rows_per_group())

    def groups_l1(self, n_groups: int) -> int:
        """l1 change of a per-group count of distinct units: G_eff (one per touched group)."""
        return self.groups(n_groups)

    def describe(self) -> str:
        """The unit and its bounds in words, for labels and reports."""
        if self.is_row:
            return "row"
        parts = [f"max_rows={self.max_rows}"]
        if self.max_groups is not None:
            parts.append(f"max_groups={self.max_groups}")
        if self.max_rows_per_group is not None:
            parts.append(f"max_rows_per_group={self.max_rows_per_group}")
        return f"{self.column} ({', '.join(parts)})"
