"""Start-up of a command: its heavy modules imported with the cyclic garbage collector paused.

A ``synthguard synthesize`` process is timed whole (issue 14), and about a third of its CPU
time went to the garbage collector: importing pandas, scikit-learn and SciPy creates some
half a million objects, which trigger collections while they load and are then scanned
again by every full collection during the fit (none of them is garbage). A command imports
what it needs inside :func:`importing`: the collector is off while they load, and everything
loaded so far is then moved out of its reach (:func:`gc.freeze`, the use CPython documents
for long-lived start-up objects) before it is switched back on, so the command's own garbage
is still collected as usual. The command group undoes the freeze (:func:`thawed`) when the
command returns, so a process that runs several commands (tests, notebooks) collects those
objects again afterwards. Nothing about the results depends on it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["importing", "thawed"]


@contextmanager
def importing() -> Iterator[None]:
    """Run the block (a command's imports) with the garbage collector off, then freeze every
    object tracked so far and restore the collector's state."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def thawed() -> Iterator[None]:
    """Run the block (a command) and then return frozen objects to the collector."""
    try:
        yield
    finally:
        gc.unfreeze()
