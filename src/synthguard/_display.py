"""How result objects show themselves: ``print(result)`` and notebooks show ``summary()``.

Every result class with a ``summary()`` method inherits :class:`Summarized`, so ``str(result)``
is the summary (not a dataclass repr thousands of characters long) and a notebook renders it
(a class with a richer ``_repr_html_``, e.g. a table, keeps its own).
"""

from __future__ import annotations

import html

__all__ = ["MIN_CELL", "Summarized", "cell_count", "cell_share", "cell_value"]

#: The small-cell rule: a count of confidential records below this (but not 0) is never shown
#: exactly, in a summary, a manifest or a report (the report's ``min_cell``; Hundepool et al.
#: 2012, sec. 4.2, the frequency rule). ``Redactor.min_cell`` defaults to it.
MIN_CELL = 10


def cell_count(n: int, min_cell: int = MIN_CELL) -> str:
    """A count derived from confidential data, for print: ``"1,204"``, or ``"< 10"`` when
    ``0 < n < min_cell`` (the small-cell rule)."""
    n = int(n)
    if 0 < n < min_cell:
        return f"< {min_cell}"
    return f"{n:,}"


def cell_value(n: int, min_cell: int = MIN_CELL) -> int | str:
    """A count for a manifest or provenance file: the count itself, or the text ``"< 10"``
    when ``0 < n < min_cell`` (the small-cell rule: a manifest travels with the release)."""
    n = int(n)
    return f"< {min_cell}" if 0 < n < min_cell else n


def cell_share(n: int, total: int, min_cell: int = MIN_CELL) -> str:
    """``"1,204 of 30,162 (4.0 %)"``; under the small-cell rule ``"< 10 of 30,162
    (< 0.03 %)"``: neither the count nor its share names a few records exactly."""
    n, total = int(n), int(total)
    if total <= 0:
        return f"{cell_count(n, min_cell)} of 0"
    if 0 < n < min_cell:
        return f"< {min_cell} of {total:,} (< {_pct(min_cell / total)} %)"
    return f"{n:,} of {total:,} ({_pct(n / total)} %)"


def _pct(x: float) -> str:
    p = 100 * x
    return f"{p:.1f}" if p >= 0.1 or p == 0 else f"{p:.2g}"


class Summarized:
    """Mixin: ``__str__`` is ``summary()``; ``_repr_html_`` is the summary as preformatted text."""

    __slots__ = ()

    def __str__(self) -> str:
        return str(self.summary())  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(str(self))}</pre>"
