"""Measures the evaluation computes and judges, one module each.

A module here computes one measure of the data and one release and registers its
:class:`~synthguard.evaluation.metrics.Metric` (with ``compute=``) by calling
:func:`~synthguard.evaluation.metrics.register_metric` at import. The metric registry imports
every module of this package on first use, so a new measure is one module (and its test):
it then appears in :func:`synthguard.evaluate`, the report's comparison table and glossary,
thresholds in Python, plans and ``--threshold``, with no other edit.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__: list[str] = []  # each module registers its metric; nothing to import from here

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"synthguard.evaluation.measures.{_info.name}")
