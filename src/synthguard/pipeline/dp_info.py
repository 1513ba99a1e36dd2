"""What the report and a release's manifest say about the DP releases of a run: each DP
synthesizer's error before spending and after fitting, and a DP start's sentence
(:mod:`synthguard.report.dp_section`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synthguard.report.dp_section import DPReleaseInfo, dp_info_from_provenance, manifest_details

__all__ = ["dp_info", "dp_infos", "dp_manifest_details"]


def _start_sentence(provenance: Mapping[str, Any]) -> str | None:
    start = provenance.get("start")
    origin = start.get("origin") if isinstance(start, Mapping) else None
    if not isinstance(origin, Mapping) or origin.get("kind") != "dp":
        return None
    from synthguard.synthesis.result import start_summary

    return start_summary(start)


def dp_info(release: Any) -> DPReleaseInfo | None:
    """The DP information of one release: a DP synthesizer's release (its provenance states
    its method, budget and error) or a synthesis started from DP columns; else None."""
    from synthguard.dp.synthesizers.result import DPSyntheticData

    prov = getattr(release, "provenance", None)
    if not isinstance(prov, Mapping):
        return None
    if isinstance(release, DPSyntheticData):
        return dp_info_from_provenance(prov)
    sentence = _start_sentence(prov)
    return None if sentence is None else DPReleaseInfo(start=sentence)


def dp_infos(releases: Mapping[str, Any]) -> dict[str, DPReleaseInfo]:
    """:func:`dp_info` of every release that has one, by name."""
    out = {}
    for name, rel in releases.items():
        info = dp_info(rel)
        if info is not None:
            out[str(name)] = info
    return out


def dp_manifest_details(release: Any) -> dict[str, Any]:
    """The manifest ``details`` entry that lets ``synthguard evaluate`` show the same later."""
    return manifest_details(dp_info(release))
