"""Design-based variances by Taylor linearization for a stratified cluster sample.

The design is the usual one of survey packages for a first stage drawn with replacement
(or whose sampling fraction is negligible): ``H`` strata, ``n_h`` primary sampling units
(PSUs) in stratum ``h``, clusters nested in strata (R ``survey``'s ``nest = TRUE``). For an
estimator linearized as ``θ̂ - θ ≈ Σ_i z_i`` (``z_i`` already carries the weight ``w_i``),

``v(θ̂) = Σ_h n_h/(n_h - 1) Σ_{c∈h} (z_hc - z̄_h)²``,  ``z_hc = Σ_{i∈c} z_i``,
``z̄_h = Σ_c z_hc / n_h``

(Woodruff 1971; Binder 1983; Wolter 2007, ch. 6; Lumley 2010, sec. 2.2 and appendix C —
R ``survey``'s ``svyrecvar`` for one stage with ``fpc`` absent). Without clusters every record
is its own PSU; without strata there is one stratum. Domain estimators keep the whole design
(records outside the domain contribute ``z_i = 0``), as ``survey::svyby`` does.

Checked against R ``survey`` 4.1 on ANES 2020 (``tests/reference/survey_anes.json``).
Python survey packages were considered: ``samplics`` 0.6 is archived by its authors (it warns
so on import) and ``svy`` needs polars and a compiled extension, so the formula above is
written here, in a dozen lines, and tested against R.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.errors import DataError, ParameterError

__all__: list[str] = []


@dataclass(frozen=True)
class SurveyDesign:
    """Weights and the PSU/stratum structure of one data set."""

    weights: np.ndarray  # (n,) positive
    psu: np.ndarray  # (n,) PSU index 0..P-1 (nested in strata)
    stratum_of_psu: np.ndarray  # (P,) stratum index 0..H-1
    n_psu: np.ndarray  # (H,) PSUs per stratum
    lonely_psu: str = "fail"

    @property
    def degrees_of_freedom(self) -> int:
        """Design degrees of freedom: PSUs minus strata."""
        return int(self.n_psu.sum() - self.n_psu.size)


def _codes(s: pd.Series) -> np.ndarray:
    codes, _ = pd.factorize(s, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64)


def design_from(
    df: pd.DataFrame,
    weights: str | None,
    strata: str | None,
    clusters: str | None,
    *,
    where: str,
    default_weight: float = 1.0,
    lonely_psu: str = "fail",
) -> SurveyDesign:
    """The design of ``df``: its weight, strata and cluster columns where it has them.

    A column named but absent from ``df`` (a release that carries no design variable) is
    replaced by its simple counterpart: the weight ``default_weight`` for every record, one
    stratum, every record its own PSU.
    """
    if lonely_psu not in ("fail", "certainty"):
        raise ParameterError(
            f"parameter 'lonely_psu': expected 'fail' or 'certainty', got {lonely_psu!r}"
        )
    n = len(df)
    if weights is not None and weights in df.columns:
        try:
            w = pd.to_numeric(df[weights], errors="raise").to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise DataError(f"{where}: weight column '{weights}' is not numeric") from None
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise DataError(
                f"{where}: weight column '{weights}' has missing, infinite or negative values; "
                "give every record a non-negative weight"
            )
    else:
        w = np.full(n, float(default_weight))
    if strata is not None and strata in df.columns:
        h = _codes(df[strata])
        if np.any(h < 0):
            raise DataError(f"{where}: strata column '{strata}' has missing values")
    else:
        h = np.zeros(n, dtype=np.int64)
    if clusters is not None and clusters in df.columns:
        c = _codes(df[clusters])
        if np.any(c < 0):
            raise DataError(f"{where}: cluster column '{clusters}' has missing values")
        # nest clusters in strata: a PSU is a (stratum, cluster) pair
        pair = h * (int(c.max()) + 1) + c
        uniq, psu = np.unique(pair, return_inverse=True)
        stratum_of_psu = uniq // (int(c.max()) + 1)
    else:
        psu = np.arange(n, dtype=np.int64)
        stratum_of_psu = h
    n_psu = np.bincount(stratum_of_psu, minlength=int(h.max()) + 1 if n else 0)
    if lonely_psu == "fail" and np.any(n_psu == 1):
        raise DataError(
            f"{where}: a stratum of '{strata}' has a single primary sampling unit, so its "
            "variance cannot be estimated; merge strata, or pass lonely_psu='certainty' to let "
            "such strata contribute no variance"
        )
    return SurveyDesign(w, np.asarray(psu, dtype=np.int64), stratum_of_psu, n_psu, lonely_psu)


def linearized_variance(design: SurveyDesign, z: np.ndarray, group: np.ndarray,
                        n_groups: int) -> np.ndarray:
    """Variances of ``n_groups`` estimators whose linearization values are ``z``.

    ``z`` has one value per record and ``group[i]`` says which estimator (domain) record ``i``
    belongs to (``-1``: none, ``z_i = 0``); every record belongs to at most one. Returns
    ``v`` of shape ``(n_groups,)`` by the formula of the module docstring, computed from the
    sparse (PSU, group) totals in ``O(n log n)``.
    """
    keep = (group >= 0) & (z != 0)
    if not keep.any():
        return np.zeros(n_groups)
    psu = design.psu[keep]
    g = group[keep]
    key = psu * n_groups + g
    uniq, inv = np.unique(key, return_inverse=True)
    tot = np.bincount(inv, weights=z[keep])  # z_hc per (PSU, group) present
    u_psu = uniq // n_groups
    u_g = uniq % n_groups
    n_strata = design.n_psu.size
    sk = design.stratum_of_psu[u_psu] * n_groups + u_g
    s1 = np.bincount(sk, weights=tot, minlength=n_strata * n_groups).reshape(n_strata, n_groups)
    s2 = np.bincount(sk, weights=tot * tot, minlength=n_strata * n_groups).reshape(
        n_strata, n_groups
    )
    nh = design.n_psu.astype(float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        vh = np.where(nh > 1, nh / (nh - 1) * (s2 - s1 * s1 / nh), 0.0)
    return np.maximum(vh.sum(axis=0), 0.0)
