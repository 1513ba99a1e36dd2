"""The DP part of the risk–utility report: every privacy ledger the releases charged, their
total under sequential composition, and each DP release's error before spending, after
fitting and against the confidential data.

For each DP release made by a synthesizer that states its error (MST, AIM, the stratified and
field-group synthesizers; :mod:`synthguard.dp.synthesizers.error`), one row per marginal
order k gives

* **expected TV before spending**: ½ a c / N̂ averaged over the measured k-way marginals (a
  the mean absolute noise of a cell, c the cells): what the noise scale alone implies, known
  before any budget is spent. AIM's noise changes from round to round, so its figure is shown
  only when the synthesizer says what it assumes (``provenance["expected_error_basis"]``);
* **TV to its noisy measurements after fitting**: ½ ‖p̂_r − y_r / N̂‖₁, the fitted model against
  its own noisy measurements, and the bound residual + noise TV on its expected true error
  (triangle inequality). Both come from noisy quantities only: post-processing, no privacy
  cost;
* **true TV**: the mean total-variation distance over all k-way marginals of the release
  against the confidential data (:mod:`synthguard.evaluation.workload_error`), on the release's
  own public domain: its numeric columns at the bins it used (``provenance["bins"]``), which
  is where the bound applies. A release that did not record its bins (an older synthguard)
  shows the evaluation's figure, numeric columns at the confidential quantiles, with a note
  that it is not comparable with the bound. It reads the confidential data: it is in this
  report, which the ledger does not cover.

Several ledgers (``synthguard evaluate`` of releases made with different ledger files) are
shown one by one and then pooled under sequential composition (Dwork & Roth 2014, Thm 3.16;
zCDP: Bun & Steinke 2016, Lemma 2.3): ε's and δ's add, ρ's add and the pooled ρ is converted
at the δ left (Canonne, Kamath & Steinke 2020). That total holds when the releases were made
from the same confidential data, the case of one evaluation.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from synthguard.data.safe_load import read_json
from synthguard.evaluation.workload_error import release_bins
from synthguard.report.safety import format_number, safe_error

__all__ = [
    "DP_DETAILS_KEY",
    "DPReleaseInfo",
    "accuracy_context",
    "accuracy_line",
    "composed_ledger",
    "dp_info_from_folder",
    "dp_info_from_provenance",
    "dp_info_of",
    "ledger_rows",
    "ledgers_context",
    "manifest_details",
]

DP_DETAILS_KEY = "dp error"
"""Key of a release manifest's ``details`` holding the DP error records (see
:func:`manifest_details`)."""

# methods whose expected error before spending is a figure of the noise they will draw;
# AIM's noise is re-planned each round, so its figure needs the synthesizer's own basis
_ADAPTIVE = ("aim",)
_AIM_NOT_STATED = (
    "AIM's expected error before spending is not stated: its noise is re-planned every round "
    "(annealed, and the last round spends what is left), so the noise of its first rounds "
    "does not predict the error of what it measures")


@dataclass(frozen=True)
class DPReleaseInfo:
    """What a report needs to know about one DP release, from public quantities only.

    Attributes
    ----------
    method : the DP synthesizer ('mst', 'aim', ...) or None for a DP start.
    epsilon, delta : the budget the release's fit spent.
    expected : expected error before spending by marginal order (records as
        :func:`~synthguard.dp.synthesizers.error.planned_error` returns, ``order`` a column).
    fitted : error after fitting against its noisy measurements, by order.
    basis : what the expected figure assumes (AIM only states one when it knows it).
    start : the sentence for a synthesis started from DP columns (the guarantee covers those
        columns only).
    dp : False when the domain was read from the data (the release is not DP).
    bins : the public bin edges of its numeric columns (``{}`` when it binned none), or None
        when the release did not record them (made by an older synthguard).
    """

    method: str | None = None
    epsilon: float | None = None
    delta: float | None = None
    expected: list[dict[str, float]] = field(default_factory=list)
    fitted: list[dict[str, float]] = field(default_factory=list)
    basis: str | None = None
    start: str | None = None
    dp: bool = True
    bins: dict[str, list[float]] | None = None

    @property
    def expected_stated(self) -> bool:
        """True when the expected error is a figure the report may present as such."""
        return bool(self.expected) and (self.method not in _ADAPTIVE or bool(self.basis))

    @property
    def expected_note(self) -> str | None:
        """Why the expected error is not shown, when it exists but is not stated."""
        if self.expected and not self.expected_stated:
            return _AIM_NOT_STATED if self.method == "aim" else None
        return None


def _records(value: Any) -> list[dict[str, float]]:
    out = []
    for r in value or ():
        if isinstance(r, Mapping) and "order" in r:
            out.append({str(k): float(v) for k, v in r.items()
                        if isinstance(v, int | float) and not isinstance(v, bool)})
    return out


def dp_info_from_provenance(provenance: Mapping[str, Any] | None, *,
                            start: str | None = None) -> DPReleaseInfo | None:
    """The :class:`DPReleaseInfo` of a DP release's provenance (``DPSyntheticData.provenance``,
    or what :func:`manifest_details` stored), or of a DP start's sentence; None when neither."""
    if not isinstance(provenance, Mapping):
        provenance = {}
    if not provenance.get("method") and start is None:
        return None

    def num(key: str) -> float | None:
        v = provenance.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    basis = provenance.get("expected_error_basis")
    return DPReleaseInfo(
        method=None if provenance.get("method") is None else str(provenance["method"]),
        epsilon=num("epsilon"), delta=num("delta"),
        expected=_records(provenance.get("expected_error")),
        fitted=_records(provenance.get("fit_error")),
        basis=str(basis) if basis else None, start=start,
        dp=provenance.get("dp", True) is not False,
        bins=release_bins(provenance),
    )


def manifest_details(info: DPReleaseInfo | None) -> dict[str, Any]:
    """What a release folder's manifest keeps (under ``details[DP_DETAILS_KEY]``) so that
    ``synthguard evaluate`` can show the release's DP error later: public figures only."""
    return {} if info is None else {DP_DETAILS_KEY: dataclasses.asdict(info)}


def dp_info_from_folder(folder: str | Path, manifest: Any) -> DPReleaseInfo | None:
    """The DP information of a release folder: its manifest's ``details[DP_DETAILS_KEY]``
    (``synthguard run``), else ``metadata/provenance.json`` (``synthguard dp synthesize``)."""
    details = getattr(manifest, "details", None) or {}
    stored = details.get(DP_DETAILS_KEY)
    if isinstance(stored, Mapping):
        names = {f.name for f in dataclasses.fields(DPReleaseInfo)}
        kw = {k: v for k, v in stored.items() if k in names}
        kw["expected"] = _records(kw.get("expected"))
        kw["fitted"] = _records(kw.get("fitted"))
        kw["bins"] = release_bins({"bins": kw.get("bins")})
        try:
            return DPReleaseInfo(**kw)
        except TypeError:
            return None
    for name in getattr(manifest, "metadata", ()) or ():
        if Path(name).name != "provenance.json":
            continue
        try:
            doc = read_json(Path(folder) / name, what="a provenance file")
        except ValueError:
            return None
        if isinstance(doc, Mapping):
            return dp_info_from_provenance(doc.get("provenance"))
    return None


# ---------------------------------------------------------------- the text line (CLI)
def _by_order(records: list[dict[str, float]], key: str) -> dict[int, float]:
    return {int(r["order"]): r[key] for r in records if key in r}


def accuracy_line(info: DPReleaseInfo | None) -> str | None:
    """One line for a terminal: the expected TV by order (when stated) and the fit's residual
    and bound; for AIM without a stated basis, says the expectation is not stated."""
    if info is None:
        return None
    parts = []
    if info.expected_stated:
        exp = _by_order(info.expected, "expected_tv")
        if exp:
            parts.append("expected before spending: " + ", ".join(
                f"{k}-way TV {v:.3g}" for k, v in sorted(exp.items())))
    elif info.expected_note:
        parts.append("expected before spending: not stated for AIM (its noise is re-planned "
                      "every round)")
    res, bound = _by_order(info.fitted, "residual_tv"), _by_order(info.fitted, "bound_tv")
    if res:
        parts.append("after fit, against its noisy measurements: " + ", ".join(
            f"{k}-way TV {v:.3g} (bound on the true error {bound.get(k, math.nan):.3g})"
            for k, v in sorted(res.items())))
    return "; ".join(parts) or None


# ---------------------------------------------------------------- the report's context
def accuracy_context(ev: Any, infos: Mapping[str, DPReleaseInfo]) -> list[dict[str, Any]]:
    """One table per DP release: by marginal order, the measured marginals, the expected TV
    before spending, the TV to its noisy measurements after fitting and its bound, and the
    true TV of the evaluation (metrics ``tv_1way`` ...)."""
    out = []
    for name, info in infos.items():
        rel = ev.releases.get(name) if hasattr(ev, "releases") else None
        metrics = dict(getattr(rel, "metrics", None) or {})
        true, true_note = _true_tv(ev, name, info, {
            int(k[3]): v for k, v in metrics.items()
            if k.startswith("tv_") and k.endswith("way") and k[3:-3].isdigit()
            and v is not None})
        exp = _by_order(info.expected, "expected_tv") if info.expected_stated else {}
        n_exp = _by_order(info.expected, "marginals")
        res = _by_order(info.fitted, "residual_tv")
        bound = _by_order(info.fitted, "bound_tv")
        n_fit = _by_order(info.fitted, "marginals")
        orders = sorted({*exp, *res, *true} if (info.expected or info.fitted) else set())

        def cell(d: dict[int, float], k: int, digits: int = 3) -> str:
            return format_number(d[k], digits) if k in d and math.isfinite(d[k]) else "—"

        measured = {**n_exp, **n_fit}
        rows = [[f"{k}-way", str(int(measured[k])) if k in measured else "—", cell(exp, k),
                 cell(res, k),
                 cell(bound, k), cell(true, k)] for k in orders]
        notes = []
        if info.expected_note:
            notes.append(info.expected_note)
        elif info.expected_stated and info.basis:
            notes.append(f"Expected error: {info.basis}.")
        if true_note and orders:
            notes.append(true_note)
        if not info.dp:
            notes.append("The domain was read from the data: this release is NOT "
                         "differentially private.")
        budget = None
        if info.epsilon is not None:
            budget = f"ε = {info.epsilon:.4g}" + (
                f", δ = {info.delta:.3g}" if info.delta else "")
        out.append({"name": name, "method": info.method, "budget": budget,
                    "start": info.start, "rows": rows, "notes": notes})
    return out


def _true_tv(ev: Any, name: str, info: DPReleaseInfo, evaluated: dict[int, float]
             ) -> tuple[dict[int, float], str | None]:
    """The true TV of a DP release by order on its own public domain (its recorded bins),
    and a note; the evaluation's figures (confidential quantiles) with a note saying they are
    not comparable with the bound when the release recorded no bins."""
    from synthguard.evaluation.workload_error import workload_error

    imps = list((getattr(ev, "implicates", None) or {}).get(name) or [])
    conf = getattr(ev, "conf", None)
    if info.method is None or conf is None or not imps:
        return evaluated, None
    cols = [c for c in conf.columns if all(c in df.columns for df in imps)]
    binned = [c for c in cols if c in (info.bins or {})]
    if info.bins is None:
        schema = getattr(ev, "schema", None)
        numeric = [c for c in cols
                   if schema is not None and c in schema and schema[c].is_numeric]
        if not numeric or not evaluated:
            return evaluated, None
        return evaluated, (
            "True TV: this release does not record the bins it used (made by an older "
            "synthguard), so its numeric columns are binned at the confidential data's "
            "quantiles, not at the release's public bins: the figure is not comparable with "
            "the bound. Make the release again to compare them.")
    try:
        true = workload_error(conf[cols], [df[cols] for df in imps], bins=info.bins,
                              random_state=getattr(ev, "seed", None))
    except Exception as e:
        return {}, f"True TV on the release's own domain could not be computed: {safe_error(e)}"
    where = (f"its numeric column(s) {', '.join(map(str, binned))} at the public bins it "
             f"used, " if binned else "")
    return true, (f"True TV is measured on the release's own public domain ({where}every "
                  f"other column at its levels), where the bound applies. The comparison "
                  f"table's k-way TV bins numeric columns at the confidential data's "
                  f"quantiles instead, so it also counts what the bins hide.")


def ledger_rows(ledger: Any) -> dict[str, Any]:
    """One ledger for the template: its charges (columns, text rows), its totals and, when
    there is something to show, the ε table for a board."""
    try:
        frame = ledger.to_frame()
    except Exception as e:
        return {"error": safe_error(e), "columns": [], "rows": [], "totals": [], "board": None}
    frame = frame.reset_index() if frame.index.name is not None else frame
    cols = [str(c) for c in frame.columns]
    rows = [[format_number(v, 4) if isinstance(v, int | float | np.number) else str(v)
             for v in row] for row in frame.itertuples(index=False)]
    totals = []
    for attr in ("epsilon", "delta", "spent", "remaining"):
        v = getattr(ledger, attr, None)
        if v is None or callable(v):
            continue
        if hasattr(v, "epsilon"):
            eps = float(v.epsilon)
            if attr == "remaining" and abs(eps) <= 1e-12 * max(1.0, float(ledger.epsilon)):
                eps = 0.0  # the tight conversion is inverted by bisection: a residue, not budget
            text = f"ε {eps:.4g}, δ {float(getattr(v, 'delta', 0.0)):.3g}"
            if attr == "spent" and float(getattr(v, "rho", 0.0) or 0.0) > 0:
                text += f" (ρ {float(v.rho):.4g} zCDP)"
        else:
            text = f"{v:.4g}" if isinstance(v, float) else str(v)
        totals.append((attr, text))
    from synthguard.report.dp_tables import board_rows

    return {"error": None, "columns": cols, "rows": rows, "totals": totals,
            "board": board_rows(ledger)}


def composed_ledger(ledgers: Mapping[str, Any]) -> Any:
    """One in-memory ledger holding every charge of ``ledgers`` (labels prefixed with the
    ledger's name) under their summed budgets: its ``spent`` is the sequential composition."""
    from synthguard.dp import PrivacyLedger

    eps = math.fsum(float(lg.epsilon) for lg in ledgers.values())
    delta = math.fsum(float(lg.delta) for lg in ledgers.values())
    pooled = PrivacyLedger(epsilon=eps, delta=min(delta, 1.0 - 1e-12))
    charges = [dataclasses.replace(c, label=f"{name}: {c.label}")
               for name, lg in ledgers.items() for c in lg.charges]
    if charges:
        pooled.put_many(charges)
    return pooled


def ledgers_context(ledger: Any) -> dict[str, Any] | None:
    """The template's DP ledger context: ``ledgers`` (one table per ledger, named) and, with
    several, ``composed`` (their total under sequential composition) or its error."""
    if ledger is None:
        return None
    named = dict(ledger) if isinstance(ledger, Mapping) else {"": ledger}
    if not named:
        return None
    items = []
    for name, lg in named.items():
        ctx = ledger_rows(lg)
        ctx["name"] = name
        items.append(ctx)
    composed = None
    if len(named) > 1:
        try:
            s = composed_ledger(named).spent
            composed = {"error": None, "epsilon": f"{s.epsilon:.4g}",
                        "delta": f"{s.delta:.3g}", "rho": f"{s.rho:.4g}",
                        "sum": f"{math.fsum(lg.spent.epsilon for lg in named.values()):.4g}"}
        except Exception as e:  # an unreadable ledger: say so, show the others
            composed = {"error": safe_error(e)}
    return {"ledgers": items, "composed": composed}



def dp_info_of(loaded: Mapping[str, Any]) -> dict[str, DPReleaseInfo]:
    """Release name → :class:`DPReleaseInfo` of the release folders read by ``synthguard
    evaluate`` (:class:`~synthguard.data.loading.LoadedRelease`) that carry one."""
    out = {}
    for name, r in loaded.items():
        manifest = getattr(r, "manifest", None)
        if manifest is None:
            continue
        info = dp_info_from_folder(r.path, manifest)
        if info is not None:
            out[str(name)] = info
    return out
