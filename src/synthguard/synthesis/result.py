"""``SyntheticData``: the release a synthesizer returns."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data.io import write_table
from synthguard.errors import ParameterError

__all__ = ["SyntheticData"]


@dataclass(frozen=True, eq=False)
class SyntheticData(Summarized):
    """A synthetic release: ``m`` implicates and how they were made.

    Attributes
    ----------
    implicates : list of DataFrame
        The ``m`` synthetic data sets. In partial synthesis each has the confidential rows in
        their original order (kept columns identical); in full synthesis ``n`` new rows.
    kind : {"partial", "full"}
        Partial synthesis (some columns kept, Reiter 2003 combining rules) or full synthesis
        (Raghunathan, Reiter & Rubin 2003; Reiter 2002 rules).
    m : int
        Number of implicates.
    seed : int or None
        The seed that reproduces the release when passed as ``random_state`` again (None when a
        Generator was passed, whose seed cannot be known).
    synthesized : list of str
        Columns synthesized, in visit order.
    kept : list of str
        Columns copied unchanged from the confidential data.
    methods : dict
        Column -> name of the method that synthesized it.
    weights : ndarray or None
        Likelihood weights the models were fit with (risk weights of Hu, Savitsky & Williams,
        survey weights), or None.
    diagnostics : object or None
        Disclosure diagnostics of the synthesizer (:class:`SynthesisDiagnostics`).
    provenance : dict
        Everything else needed to repeat the run: visit sequence, predictor matrix, strata,
        method parameters, package versions.
    safeguards : SafeguardReport or None
        What the default safeguards did to each implicate (replicated uniques found, redrawn,
        removed; extreme values coded): :class:`synthguard.synthesis.safeguards.SafeguardReport`.
    constraints : ConstraintReport or None
        Records redrawn and forced per constraint and implicate
        (:class:`synthguard.synthesis.enforce.ConstraintReport`); None without constraints.
    households : HouseholdReport or None
        Household synthesis (``household=``): households and persons per implicate,
        replicated unique households found, redrawn and removed, members breaking each rule
        within a household (:class:`synthguard.synthesis.households.HouseholdReport`).
    """

    implicates: list[pd.DataFrame]
    kind: str
    m: int
    seed: int | None
    synthesized: list[str]
    kept: list[str]
    methods: dict[str, str]
    weights: np.ndarray | None = None
    diagnostics: Any = None
    provenance: dict[str, Any] = field(default_factory=dict)
    safeguards: Any = None
    constraints: Any = None
    households: Any = None

    def __len__(self) -> int:
        return self.m

    @property
    def dropped(self) -> list[str]:
        """Columns of the confidential data left out of the release: those dropped
        (``drop``, identifiers) and those neither synthesized nor kept (``left_out``)."""
        cols = [*(self.provenance.get("dropped") or ()), *(self.provenance.get("left_out") or ())]
        return [str(c) for c in dict.fromkeys(cols)]

    def __getitem__(self, i: int) -> pd.DataFrame:
        return self.implicates[i]

    def to_frame(self) -> pd.DataFrame:
        """All implicates stacked, with an ``implicate`` column (1..m) first."""
        frames = []
        for i, df in enumerate(self.implicates, start=1):
            f = df.reset_index(drop=True)
            f.insert(0, "implicate", i)
            frames.append(f)
        return pd.concat(frames, ignore_index=True)

    def summary(self) -> str:
        """A short text description of the release."""
        n_rows = len(self.implicates[0]) if self.implicates else 0
        lines = [
            f"Synthetic data: {self.kind} synthesis, m = {self.m} implicates of "
            f"{n_rows} rows x {self.implicates[0].shape[1] if self.implicates else 0} columns",
            f"seed: {self.seed}",
            f"synthesized ({len(self.synthesized)}): "
            + ", ".join(f"{c} [{self.methods.get(c, '?')}]" for c in self.synthesized),
            f"kept ({len(self.kept)}): " + (", ".join(self.kept) if self.kept else "none"),
        ]
        strata = self.provenance.get("strata")
        if strata:
            lines.append(f"strata: {', '.join(strata)}")
        start_line = start_summary(self.provenance.get("start"))
        if start_line:
            lines.append(start_line)
        left_out = self.provenance.get("left_out")
        if left_out:
            lines.append(f"left out of the release: {', '.join(left_out)}")
        if self.weights is not None:
            lines.append("fit with likelihood weights")
        if self.diagnostics is not None and hasattr(self.diagnostics, "summary"):
            lines.append(self.diagnostics.summary())
        elif self.safeguards is not None:
            lines.append(self.safeguards.summary())
        if self.constraints is not None and hasattr(self.constraints, "summary"):
            lines.append(self.constraints.summary())
        if self.households is not None and hasattr(self.households, "summary"):
            lines.append(self.households.summary())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"SyntheticData(kind={self.kind!r}, m={self.m}, seed={self.seed}, "
            f"synthesized={self.synthesized!r}, kept={self.kept!r})"
        )

    def _repr_html_(self) -> str:
        import html

        head = self.implicates[0].head(10).to_html() if self.implicates else ""
        return f"<pre>{html.escape(self.summary())}</pre><p>implicate 1, first rows:</p>{head}"

    def write(
        self, directory: str | os.PathLike[str], *, prefix: str = "synthetic", ext: str = ".csv"
    ) -> list[Path]:
        """Write one file per implicate, ``<prefix>_<i>.csv`` (i = 1..m), each atomically, and
        the folder's ``synthguard_manifest.json`` (kind, m, seed, methods, kept and dropped
        columns; :mod:`synthguard.data.manifest`), so ``synthguard evaluate`` reads these
        implicates, and no other file, with this release's kind.

        Returns the paths of the implicates written.
        """
        if not ext.startswith("."):
            ext = "." + ext
        if not prefix or os.sep in prefix:
            raise ParameterError("parameter 'prefix': expected a plain file-name prefix")
        from synthguard.data.manifest import ReleaseManifest, write_manifest

        d = Path(directory)
        paths = [
            write_table(df, d / f"{prefix}_{i}{ext}")
            for i, df in enumerate(self.implicates, start=1)
        ]
        write_manifest(d, ReleaseManifest(
            kind=self.kind, implicates=tuple(p.name for p in paths), seed=self.seed,
            methods=dict(self.methods), kept=tuple(self.kept),
            dropped=tuple(self.dropped),
            columns=tuple(str(c) for c in self.implicates[0].columns) if self.implicates else (),
            details={**({"safeguards": self.safeguards.to_record()}
                        if hasattr(self.safeguards, "to_record") else {}),
                     **({} if self.households is None else {
                         "household": self.households.to_dict()})},
        ))
        return paths


def start_summary(start: Any) -> str | None:
    """One line saying where a release's start columns came from (``provenance["start"]``);
    for a DP start, its method and budget and that the guarantee covers those columns only."""
    if not isinstance(start, Mapping) or not start.get("columns"):
        return None
    cols = ", ".join(str(c) for c in start["columns"])
    origin = start.get("origin") or {}
    if origin.get("kind") == "dp":
        delta = float(origin.get("delta") or 0.0)
        budget = f"epsilon = {float(origin['epsilon']):g}" + (
            f", delta = {delta:g}" if delta else "")
        return (f"start: {cols} come from a differentially private synthesizer "
                f"({origin.get('method', '?')}, {budget}); the DP guarantee covers these "
                f"columns only, the other columns are synthesized from the confidential data "
                f"and the release as a whole is not differentially private")
    where = origin.get("description") or origin.get("kind", "a given frame")
    return f"start: {cols} given ({where}); the other columns are synthesized conditional on them"
