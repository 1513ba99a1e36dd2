"""How result objects show themselves: ``print(result)`` and notebooks show ``summary()``.

Every result class with a ``summary()`` method inherits :class:`Summarized`, so ``str(result)``
is the summary (not a dataclass repr thousands of characters long) and a notebook renders it
(a class with a richer ``_repr_html_``, e.g. a table, keeps its own).
"""

from __future__ import annotations

import html

__all__ = ["Summarized"]


class Summarized:
    """Mixin: ``__str__`` is ``summary()``; ``_repr_html_`` is the summary as preformatted text."""

    __slots__ = ()

    def __str__(self) -> str:
        return str(self.summary())  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(str(self))}</pre>"
