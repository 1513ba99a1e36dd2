"""Analysis-specific utility for regressions: fit the analyst's model on the confidential data
and on every implicate, combine the implicates (Reiter 2003 / 2002) and compare coefficient by
coefficient (interval overlap, SSO, standardised difference)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError
from synthguard.utility._compare import comparison_columns
from synthguard.utility._inputs import check_conf, check_level
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["RegressionComparison", "compare_regression"]

Family = Literal["gaussian", "binomial", "poisson", "multinomial", "ordinal"]
_FAMILIES = ("gaussian", "binomial", "poisson", "multinomial", "ordinal")


@dataclass(frozen=True)
class RegressionComparison(ResultDisplay, Summarized):
    """Coefficients of one regression on the confidential data and on the release.

    Attributes
    ----------
    formula, family : the model.
    table : one row per coefficient (``term``): confidential estimate, se and CI; combined
        synthetic estimate, se, df and CI (``rule`` names the combining rule, ``m`` the
        implicates); ``overlap_snoke`` and ``overlap_dr``; ``sign_match``,
        ``significance_match``, ``overlap_match``, ``sso_match``; ``std_difference``
        ``(β̄_syn - β_conf) / se(β_conf)``.
    mean_overlap : mean Snoke overlap over coefficients (1 best, negative for gaps).
    sso_share : share of coefficients with an SSO match.
    max_abs_std_difference : largest absolute standardised difference.
    level : confidence level of the intervals.
    """

    formula: str
    family: str
    table: pd.DataFrame
    mean_overlap: float
    sso_share: float
    max_abs_std_difference: float
    level: float

    goal: ClassVar[str] = "maximize"
    min_value: ClassVar[float] = -np.inf
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "mean_overlap": MetricInfo("mean_overlap", "maximize", -np.inf, 1.0,
                                   description="mean CI overlap (Snoke et al. 2018)"),
        "sso_share": MetricInfo("sso_share", "maximize", 0.0, 1.0,
                                description="share of coefficients with SSO match"),
        "max_abs_std_difference": MetricInfo("max_abs_std_difference", "minimize", 0.0, np.inf,
                                             description="largest |standardized difference|"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> str:
        return (
            f"{self.formula} ({self.family}): mean CI overlap {self.mean_overlap:.3f}, "
            f"SSO match for {self.sso_share:.0%} of {len(self.table)} coefficients, "
            f"largest |standardized difference| {self.max_abs_std_difference:.3g}"
        )


def _align_categories(conf: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """Give the implicate's columns the confidential categories so design matrices match."""
    out = df
    for c in conf.columns:
        if c in df.columns and isinstance(conf[c].dtype, pd.CategoricalDtype):
            if not isinstance(df[c].dtype, pd.CategoricalDtype) or list(
                df[c].cat.categories
            ) != list(conf[c].cat.categories):
                if out is df:
                    out = df.copy()
                out[c] = pd.Categorical(df[c], categories=conf[c].cat.categories,
                                        ordered=conf[c].cat.ordered)
    return out


def _fit(formula: str, data: pd.DataFrame, family: str) -> Any:
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    if family in ("multinomial", "ordinal"):
        return _fit_categorical(formula, data, family)
    if family == "gaussian":
        return smf.ols(formula, data=data).fit()
    fam = sm.families.Binomial() if family == "binomial" else sm.families.Poisson()
    return smf.glm(formula, data=data, family=fam).fit()


@dataclass(frozen=True)
class _CategoricalFit:
    """What :func:`compare_regression` reads from a fit: coefficients, standard errors, Wald
    intervals, the number of records."""

    params: pd.Series
    bse: pd.Series
    nobs: int

    def conf_int(self, alpha: float) -> np.ndarray:
        from scipy.stats import norm

        z = norm.ppf(1 - alpha / 2)
        p, se = self.params.to_numpy(), self.bse.to_numpy()
        return np.column_stack([p - z * se, p + z * se])


def _fit_categorical(formula: str, data: pd.DataFrame, family: str) -> _CategoricalFit:
    """A multinomial logit (``nnet::multinom``'s model, synthpop's ``multinom.synds``) or a
    proportional-odds logistic regression (``MASS::polr``, synthpop's ``polr.synds``).

    The outcome's levels are its categories' order (a pandas ``Categorical``; otherwise sorted,
    as R's ``factor``). Multinomial terms are named ``term[level]``, each level against the
    first; the ordinal model's terms are its slopes (``logit P(y <= k) = zeta_k - x'beta``, as
    ``polr``), its cut points left out of the comparison."""
    import patsy
    import statsmodels.api as sm
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    lhs, sep, rhs = formula.partition("~")
    outcome = lhs.strip()
    if not sep or outcome not in data.columns:
        raise ParameterError(f"parameter 'formula': the outcome of {formula!r} must be a column")
    y_raw = data[outcome]
    levels = (list(y_raw.cat.categories) if isinstance(y_raw.dtype, pd.CategoricalDtype)
              else sorted(y_raw.dropna().unique().tolist()))
    keep = y_raw.notna()
    x = patsy.dmatrix(rhs, data.loc[keep], return_type="dataframe", NA_action="drop")
    codes = pd.Categorical(y_raw.loc[x.index], categories=levels).codes
    if (codes < 0).any() or len(levels) < 3 - (family == "ordinal"):
        raise ParameterError(f"parameter 'formula': outcome '{outcome}' needs at least "
                             f"{3 - (family == 'ordinal')} levels")
    if family == "multinomial":
        res = sm.MNLogit(codes, x).fit(method="newton", maxiter=200, disp=0)
        names = [f"{t}[{levels[j + 1]}]" for j in range(len(levels) - 1) for t in x.columns]
        params = np.asarray(res.params).T.ravel()
        bse = np.asarray(res.bse).T.ravel()
    else:
        slopes = x.drop(columns=[c for c in x.columns if c == "Intercept"])
        endog = pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(range(len(levels))),
                                                    ordered=True), index=x.index)
        res = OrderedModel(endog, slopes, distr="logit").fit(method="newton", maxiter=100,
                                                            disp=False)
        names = list(slopes.columns)
        params = np.asarray(res.params)[: len(names)]
        bse = np.asarray(res.bse)[: len(names)]
    return _CategoricalFit(pd.Series(params, index=names), pd.Series(bse, index=names),
                           len(codes))


def compare_regression(
    formula: str,
    conf: Any,
    synthetic: Any,
    family: Family = "gaussian",
    method: Literal["partial", "full", "proper", "none"] = "partial",
    *,
    level: float = 0.95,
) -> RegressionComparison:
    """Compare a regression fitted to the confidential data and to the release.

    The model (a statsmodels/patsy formula) is fitted by OLS for ``family="gaussian"`` (t
    intervals with the residual degrees of freedom, as R's ``lm``/``confint``) and by a GLM
    with the canonical link for ``"binomial"`` and ``"poisson"`` (Wald intervals, as R's
    ``confint.default``); ``"multinomial"`` is a multinomial logit (R's ``nnet::multinom``,
    synthpop's ``multinom.synds``) and ``"ordinal"`` a proportional-odds logistic regression
    (``MASS::polr``, synthpop's ``polr.synds``), both with Wald intervals. On each implicate ``l`` the coefficient ``q^(l)`` and its squared
    standard error ``v^(l)`` are combined with :func:`synthguard.utility.combine` (``method``:
    Reiter 2003 for partially, Reiter 2002 for fully synthetic data, ``"proper"``: Raab, Nowok
    & Dibben 2016 for fully synthetic data from the posterior predictive; with one implicate
    ``"partial"``/``"full"`` fall back to their ``"simple"`` rule; ``"none"``: one
    SDC-protected file analysed as if it were the data, its own t or Wald interval, as Karr et
    al. 2006 compare masked files). Per coefficient the table gives both
    interval overlaps (Snoke et al. 2018; Drechsler & Reiter 2009), the SSO match (Barrientos
    et al. 2021) and the standardised difference ``(q̄_m - β̂_conf)/se(β̂_conf)``.

    Parameters
    ----------
    formula : e.g. ``"Expenditure ~ Income"``.
    conf : confidential DataFrame.
    synthetic : SyntheticData, list of DataFrames (implicates) or one DataFrame.
    family : ``"gaussian"``, ``"binomial"``, ``"poisson"``, ``"multinomial"`` or
        ``"ordinal"`` (the outcome's levels in its ``Categorical`` order).
    method : combining rule, ``"partial"``, ``"full"``, ``"proper"`` or ``"none"`` (one
        protected file, no synthesis: identical data give overlap 1).
    level : confidence level.

    Returns
    -------
    RegressionComparison

    Raises
    ------
    ParameterError
        Unknown family or method, or a formula statsmodels cannot fit.
    """
    if family not in _FAMILIES:
        raise ParameterError(
            f"parameter 'family': expected one of {', '.join(_FAMILIES)}, got {family!r}"
        )
    if method not in ("partial", "full", "proper", "none"):
        raise ParameterError(
            f"parameter 'method': expected 'partial', 'full', 'proper' or 'none', got {method!r}"
        )
    level = check_level(level)
    conf = check_conf(conf)
    imps = as_implicates(synthetic)
    try:
        fc = _fit(formula, conf, family)
    except ParameterError:
        raise
    except Exception as e:  # patsy / statsmodels raise many types for a bad formula
        raise ParameterError(
            f"parameter 'formula': statsmodels could not fit {formula!r} to the confidential "
            f"data ({type(e).__name__}); check the variable names and the formula syntax"
        ) from None
    terms = list(fc.params.index)
    ci = np.asarray(fc.conf_int(alpha=1 - level))
    q = np.empty((len(imps), len(terms)))
    v = np.empty_like(q)
    own_df = np.inf
    for i, df in enumerate(imps):
        try:
            fs = _fit(formula, _align_categories(conf, df), family)
        except Exception as e:
            raise DataError(
                f"synthetic implicate {i}: statsmodels could not fit the formula "
                f"({type(e).__name__}); check that the implicate has the formula's columns"
            ) from None
        q[i] = fs.params.reindex(terms).to_numpy()
        v[i] = (fs.bse.reindex(terms).to_numpy()) ** 2
        if family == "gaussian":  # OLS: t intervals on the residual df, as for the data
            own_df = float(fs.df_resid)
    bad = np.asarray(~np.isfinite(q).all(axis=0) | ~np.isfinite(v).all(axis=0))
    if bad.any():
        raise DataError(
            "synthetic implicates: coefficients "
            + ", ".join(repr(t) for t, b in zip(terms, bad.tolist()) if b)
            + " could not be estimated in every implicate (a level may be absent)"
        )
    table = comparison_columns(
        fc.params.to_numpy(), fc.bse.to_numpy(), ci[:, 0], ci[:, 1], q, v, method,
        int(fc.nobs), int(np.mean([len(df) for df in imps])), level,
        df=np.full(len(terms), own_df),
    )
    table.insert(0, "term", terms)
    return RegressionComparison(
        formula=formula,
        family=family,
        table=table,
        mean_overlap=float(table["overlap_snoke"].mean()),
        sso_share=float(table["sso_match"].astype(float).mean()),
        max_abs_std_difference=float(table["std_difference"].abs().max()),
        level=level,
    )
