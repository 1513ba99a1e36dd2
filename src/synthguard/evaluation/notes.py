"""Warnings raised while measuring, kept as notes for the report."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from synthguard.errors import SynthguardWarning

__all__ = ["Notes"]


class Notes:
    """Collect synthguard warnings raised inside a block (other warnings pass through)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SynthguardWarning)
            out = fn(*args, **kwargs)
        for w in caught:
            if issubclass(w.category, SynthguardWarning):
                msg = f"{w.category.__name__}: {w.message}"
                if msg not in self.messages:
                    self.messages.append(msg)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out
