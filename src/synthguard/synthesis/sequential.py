"""The sequential synthesizer, kept importable under its former module name.

The code lives in three modules since the split of this module (issue 16):

- :mod:`synthguard.synthesis.engine`: the block engine, the only fit and draw loop
  (:func:`fit_block`, :func:`draw_block`, strata, threads);
- :mod:`synthguard.synthesis.params`: parameter resolution (:func:`resolve_plan`);
- :mod:`synthguard.synthesis.synthesizer`: the :class:`Synthesizer` estimator and
  :func:`synthesize`.

Old imports (``from synthguard.synthesis.sequential import Synthesizer``) and synthesizers
saved before the split (their pickles name this module's classes) keep working.
"""

from __future__ import annotations

from synthguard.synthesis.engine import (
    BlockModel,
    ColumnSpec,
    _ColumnModel,
    _Constant,
    _Part,
    draw_block,
    fit_block,
)
from synthguard.synthesis.synthesizer import Synthesizer, synthesize

#: The former private name of :class:`~synthguard.synthesis.engine.ColumnSpec`.
_ColumnSpec = ColumnSpec

__all__ = ["BlockModel", "ColumnSpec", "Synthesizer", "draw_block", "fit_block", "synthesize"]

# names a synthesizer pickled before the split refers to
_PICKLED = (_ColumnModel, _Constant, _Part)
