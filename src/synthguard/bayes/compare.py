"""Compare releases of one sensitive target the way Hu, Savitsky & Williams do.

For each release (the confidential Data, the unweighted Synthesizer, the Marginal and
Pairwise risk-weighted synthesizers, Top-coding, ...):

* risk profile of the record-level identification risk IR_i (eq. 2 for the data, eq. 1
  averaged over the L implicates for a release): mean, quartiles, IQR, maximum and the count
  above a threshold (0.5 in section 2.3.2) -- their Figures 2, 5, 8;
* whack-a-mole records: risk up by at least ``whack`` (0.25) against the baseline
  (the unweighted Synthesizer) -- Figures 3, 5b, 9;
* ECDF utility U_max and U_avg (Woo et al. 2009; Tables 5 and 7);
* estimates with confidence intervals of the mean, median and 90% quantile and, given a
  formula, regression coefficients, combined over implicates with the partial-synthesis
  rules (Reiter 2003) -- Tables 4 and 6, Figures 7 and 10.

The record-level risk, its profile and the whack-a-mole records are the report's own
(:mod:`synthguard.risk.profile`), so a comparison here and a report give the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard._random import RandomState, check_random_state
from synthguard.data import as_implicates
from synthguard.errors import ParameterError
from synthguard.risk.profile import record_risk, risk_profile, whack_a_mole
from synthguard.utility import compare_regression, compare_statistics, ecdf_utility

__all__ = ["ReleaseComparison", "compare_releases"]


@dataclass(frozen=True, eq=False)
class ReleaseComparison(Summarized):
    """Risk and utility of several releases of one target.

    Attributes
    ----------
    risk : one row per release: ``mean``, ``q25``, ``median``, ``q75``, ``iqr``, ``max``,
        ``n_above`` (records with IR_i > threshold), ``n_whack_a_mole``.
    per_record : IR_i of every record (rows) for every release (columns).
    utility : ``u_max`` and ``u_avg`` per release (0 for the data).
    estimates : one row per (release, statistic): ``estimate``, ``lower``, ``upper``, ``length``.
    threshold, whack, baseline : settings.
    """

    risk: pd.DataFrame
    per_record: pd.DataFrame
    utility: pd.DataFrame
    estimates: pd.DataFrame
    threshold: float
    whack: float
    baseline: str | None

    def whack_a_mole(self, release: str) -> np.ndarray:
        """Row positions whose risk rose by at least ``whack`` against the baseline."""
        if self.baseline is None or release not in self.per_record:
            raise ParameterError(
                f"release '{release}': whack-a-mole needs a baseline and a release in the comparison"
            )
        return np.flatnonzero(whack_a_mole(self.per_record[self.baseline].to_numpy(),
                                           self.per_record[release].to_numpy(), self.whack))

    def to_frame(self) -> pd.DataFrame:
        """Risk profile and ECDF utility, one row per release."""
        return self.risk.join(self.utility)

    def summary(self) -> str:
        """The risk-utility table as text (statistics of risks only, no data values)."""
        return self.to_frame().to_string(float_format=lambda v: f"{v:.4f}")


@renamed(target="targets")
def compare_releases(
    conf: pd.DataFrame,
    releases: Mapping[str, Any],
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float = 0.2,
    relative: bool = True,
    baseline: str | None = "Synthesizer",
    threshold: float = 0.5,
    whack: float = 0.25,
    statistics: Sequence[str] = ("mean", "median", "q90"),
    formula: str | None = None,
    terms: Sequence[str] | None = None,
    level: float = 0.95,
    n_boot: int = 200,
    random_state: RandomState = None,
) -> ReleaseComparison:
    """Risk profiles, whack-a-mole counts, ECDF utility and estimates of several releases.

    Parameters
    ----------
    conf : confidential data.
    releases : name -> release (SyntheticData, ProtectedData, DataFrame or list of
        implicates, rows aligned with ``conf``). ``None`` stands for the confidential data
        itself (risk by eq. 2).
    keys, targets, radius, relative : the intruder's knowledge (see
        :func:`synthguard.risk.identification_risk`); ``targets`` names the one numeric
        target the releases synthesize (a name, or a list of one).
    baseline : the release the whack-a-mole increase is measured against (None: skip).
    threshold : risk level counted in ``n_above`` (0.5 as the paper's section 2.3.2).
    whack : the increase that makes a whack-a-mole record (0.25, Figure 3).
    statistics : statistics of the target (``compare_statistics`` names).
    formula, terms : a regression (statsmodels formula) and the coefficients to report.
    level, n_boot, random_state : interval level; bootstrap resamples and seed.

    Returns
    -------
    ReleaseComparison
    """
    rng = check_random_state(random_state)
    if baseline is not None and baseline not in releases:
        raise ParameterError(f"parameter 'baseline': '{baseline}' is not one of the releases")
    per: dict[str, np.ndarray] = {}
    util: dict[str, tuple[float, float]] = {}
    est_rows: list[dict[str, Any]] = []
    tlist = [targets] if isinstance(targets, str) else list(targets)
    if len(tlist) != 1:
        raise ParameterError(
            "parameter 'targets': compare_releases compares releases of one target; pass one "
            "column name")
    target = tlist[0]
    y = conf[target].to_numpy(dtype=float)
    for name, rel in releases.items():
        per[name] = record_risk(conf, rel, keys=keys, targets=target, radius=radius,
                                relative=relative)
        if rel is None:
            util[name] = (0.0, 0.0)
        else:
            vals = [df[target].to_numpy(dtype=float) for df in as_implicates(rel)]
            eu = ecdf_utility(y, vals)
            util[name] = (eu.u_max, eu.u_avg)
        seed = int(rng.integers(2**31))
        syn = conf if rel is None else rel
        st = compare_statistics(
            conf, syn, statistics=list(statistics), columns=[target], level=level,
            n_boot=n_boot, random_state=seed,
        ).to_frame()
        side = "conf" if rel is None else "syn"
        for _, row in st.iterrows():
            est_rows.append(_est_row(name, str(row.get("statistic", "")), row, side))
        if formula is not None:
            rt = compare_regression(formula, conf, syn, level=level).table
            for _, row in rt.iterrows():
                term = str(row.get("term", ""))
                if terms is None or term in terms:
                    est_rows.append(_est_row(name, term, row, side))
    per_record = pd.DataFrame(per, index=conf.index)
    rows = []
    for name, r in per.items():
        n_wm = (
            int(whack_a_mole(per[baseline], r, whack).sum())
            if baseline is not None and name != baseline and releases[name] is not None
            else 0
        )
        profile = risk_profile(r, threshold)
        rows.append(
            {"release": name, "mean": profile.mean, "q25": profile.q25,
             "median": profile.median, "q75": profile.q75, "iqr": profile.iqr,
             "max": profile.max, "n_above": profile.n_above, "n_whack_a_mole": n_wm}
        )
    risk = pd.DataFrame(rows).set_index("release")
    utility = pd.DataFrame(util, index=["u_max", "u_avg"]).T.rename_axis("release")
    estimates = pd.DataFrame(est_rows)
    return ReleaseComparison(
        risk=risk, per_record=per_record, utility=utility, estimates=estimates,
        threshold=threshold, whack=whack, baseline=baseline,
    )


def _est_row(release: str, statistic: str, row: pd.Series, side: str) -> dict[str, Any]:
    est, lo, hi = (float(row[f"{side}_{k}"]) for k in ("estimate", "lower", "upper"))
    return {"release": release, "statistic": statistic, "estimate": est, "lower": lo,
            "upper": hi, "length": hi - lo}
