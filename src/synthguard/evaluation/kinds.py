"""How a release is measured: its kind (partial, full, protected), whether its rows align
with the confidential records, and which measures therefore do not apply."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from synthguard.data.implicates import release_kind
from synthguard.errors import ParameterError

__all__ = ["RECORD_LEVEL", "SAMPLE_KEY", "aligned", "from_disk", "is_sample", "kind_of",
           "sample_details", "undefined",
           "why_undefined"]

SAMPLE_KEY = "sample"
"""Key of a release manifest's ``details``: True when the release's rows are a sample of the
confidential records (``sdc.subsample``, a step that removed records), so the record-level
risk, which pairs released row i with confidential record i, is not defined for it."""


def is_sample(release: Any) -> bool:
    """True when ``release`` is a sample of the confidential records: it lists ``removed``
    records (:class:`~synthguard.sdc.ProtectedData`) or its manifest says so (a release folder
    read from disk, :data:`SAMPLE_KEY`)."""
    removed = getattr(release, "removed", None)
    if removed is not None and len(removed):
        return True
    details = getattr(getattr(release, "manifest", None), "details", None)
    return isinstance(details, dict) and details.get(SAMPLE_KEY) is True


def sample_details(release: Any) -> dict[str, bool]:
    """The manifest ``details`` entry recording that ``release`` is a sample (or nothing)."""
    return {SAMPLE_KEY: True} if is_sample(release) else {}


def kind_of(release: Any, implicates: list[pd.DataFrame], conf: pd.DataFrame, given: str | None) -> str:
    """The kind a release is measured as: ``given``, else what the release declares, else
    ``"full"``.

    Fully synthetic is the safe default. Partial (or protected) means each released row *is*
    the confidential record in the same position, and two things follow from it: record-level
    identification risk and match rates pair row i with confidential record i (Hu, Savitsky &
    Williams, eq. 1; Reiter & Mitra 2009), and inference uses the partial-synthesis combining
    rules, whose variance omits the between-imputation term that full synthesis adds (Reiter
    2003 vs. Raghunathan, Reiter & Rubin 2003). Assumed wrongly for a fully synthetic file
    that happens to have as many rows as the data, both give *wrong numbers* that look
    meaningful: risks computed from unrelated pairs of rows and confidence intervals too
    narrow. Assumed ``"full"`` wrongly for a partial release, the record-level measures are
    reported as *not defined* (a visible gap, with distance-based risks still computed) and the
    intervals are conservative. So a row correspondence is never guessed from the row count:
    it must be declared (``kinds``, ``SyntheticData.kind``, a manifest, ``--kind``).
    """
    if given is not None:
        return given
    kind = release_kind(release)
    if kind is not None:
        return kind
    if hasattr(release, "data") and isinstance(getattr(release, "data", None), pd.DataFrame):
        return "protected"
    return "full"


def from_disk(name: Any, release: Any) -> Any:
    """A release given as a path: read it (:func:`synthguard.data.loading.load_releases`),
    with its manifest's kind."""
    if not isinstance(release, str | os.PathLike):
        return release
    from synthguard.data.loading import load_releases

    loaded = load_releases([release])
    if len(loaded) != 1:
        raise ParameterError(f"release '{name}': the folder holds {len(loaded)} releases; pass "
                             f"each release folder under its own name")
    return next(iter(loaded.values()))


def aligned(kind: str, implicates: list[pd.DataFrame], conf: pd.DataFrame) -> bool:
    """Rows of the release correspond one to one with the confidential rows."""
    if kind == "full":
        return False
    return all(len(df) == len(conf) for df in implicates)


RECORD_LEVEL = frozenset({"mean_identification_risk", "max_identification_risk",
                           "expected_match_risk", "true_match_rate"})
_NEEDS_HOLDOUT = frozenset({"membership_auc", "closer_to_data", "closer_to_data_excess"})


def undefined(kind: str, implicates: list[pd.DataFrame], conf: pd.DataFrame,
               holdout: pd.DataFrame | None) -> frozenset[str]:
    """Metrics that do not apply to a release (rather than failed on it)."""
    return frozenset(why_undefined(kind, implicates, conf, holdout))


def why_undefined(kind: str, implicates: list[pd.DataFrame], conf: pd.DataFrame,
                  holdout: pd.DataFrame | None) -> dict[str, str]:
    """Metric -> why it does not apply to a release, in words for the verdict's "not
    judged" (e.g. ``"no holdout given"``)."""
    out: dict[str, str] = {}
    if not aligned(kind, implicates, conf):
        why = ("not defined for a fully synthetic release: its rows are not the records"
               if kind == "full" else "the release's rows do not line up with the records")
        out.update(dict.fromkeys(RECORD_LEVEL, why))
    if holdout is None:
        out.update(dict.fromkeys(_NEEDS_HOLDOUT, "no holdout given"))
    return out
