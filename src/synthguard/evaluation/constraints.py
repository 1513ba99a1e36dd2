"""Constraints in the evaluation and the report: records of the data and of each release
that break a rule every record should keep.

``evaluate(..., constraints=[...])`` checks every constraint
(:func:`synthguard.synthesis.check_constraints`) on the confidential data and on every
implicate of every release. Each release gets the headline metric ``constraint_violations``
(the largest number of broken (record, constraint) pairs over its implicates), and a
**default threshold of zero** judges it: one impossible record in a release fails it, as a
board that finds one stops trusting the file. The report shows the table: per constraint,
the confidential records it applies to and breaks (printed as the report prints counts of
confidential records) and, per release, the records breaking it in its worst implicate
(:func:`synthguard.report.constraints_section.constraint_table`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from synthguard.data.constraints import check_constraints, parse_constraints

__all__ = ["ConstraintEvaluation", "evaluate_constraints"]

#: The metric name and its default threshold (no violation in a release).
METRIC = "constraint_violations"
DEFAULT_LIMIT = 0.0


@dataclass(frozen=True)
class ConstraintEvaluation:
    """Constraint checks of the data and of each release.

    Attributes
    ----------
    constraints : the constraints' texts.
    data : :func:`check_constraints` of the confidential data (applies_to, violations,
        share per constraint).
    releases : release -> DataFrame, one row per constraint, one column per implicate
        (1..m), the records breaking it.
    """

    constraints: tuple[str, ...]
    data: pd.DataFrame
    releases: Mapping[str, pd.DataFrame]

    def violations(self, release: str) -> float | None:
        """The metric: the largest total of broken (record, constraint) pairs over the
        release's implicates (None when the release could not be checked)."""
        t = self.releases.get(release)
        if t is None or t.empty:
            return None
        return float(t.sum(axis=0).max())


def evaluate_constraints(
    conf: pd.DataFrame, implicates: Mapping[str, Sequence[pd.DataFrame]], constraints: Any,
    *, household: str | None = None,
) -> ConstraintEvaluation | None:
    """Check ``constraints`` on the data and on each release's implicates (None: no
    constraints). A release lacking a column a constraint names is not checked for it
    (its row is left out of that release's table). Rules within a household
    (``count(...)``, ``head.<column>``; :mod:`synthguard.data.household_rules`) read the
    ``household`` id column of the data and of each implicate."""
    parsed = parse_constraints(constraints, list(conf.columns))
    if not parsed:
        return None
    data = check_constraints(conf, parsed, household=household)
    out: dict[str, pd.DataFrame] = {}
    for name, impl in implicates.items():
        usable = [c for c in parsed if all(all(k in df.columns for k in c.columns)
                                            and (not c.members or household in df.columns)
                                            for df in impl)]
        cols = {i: check_constraints(df, usable, household=household)["violations"]
                if usable else pd.Series(
            dtype="int64") for i, df in enumerate(impl, start=1)}
        out[str(name)] = pd.DataFrame(cols)
    return ConstraintEvaluation(tuple(c.text for c in parsed), data, out)
