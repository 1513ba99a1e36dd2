"""Discriminant-based general utility: propensity scores of "synthetic vs confidential" and the
pMSE, pMSE ratio, standardised pMSE, SPECKS, AUC and variable importance computed from them
(Woo et al. 2009; Snoke, Raab, Nowok, Dibben & Slavkovic 2018; Urban Institute course, ch. 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.data._backend import any_dask, dask_backend
from synthguard.errors import ParameterError
from synthguard.utility._design import Design, stacked_design
from synthguard.utility._inputs import (
    case_weights,
    check_conf,
    check_weights_column,
    resolve,
)
from synthguard.utility._metric import MetricInfo, ResultDisplay
from synthguard.utility._propensity import (
    NullLogistic,
    check_onehot_levels,
    fit_logistic,
    make_tree,
    predict_logistic,
)
from synthguard.utility.ecdf import ecdf_distances

__all__ = ["PMSEResult", "pmse"]

Model = Literal["logistic", "cart", "boosting", "rf"]
Validation = Literal["holdout", "cv"]


@dataclass(frozen=True)
class PMSEResult(ResultDisplay, Summarized):
    """Propensity-score utility of a release, averaged over implicates.

    Attributes
    ----------
    pmse : ``(1/N) Σ (p̂_i - c)^2`` with ``c = n_syn/N`` (0 = indistinguishable).
    expected_null : expected pMSE under the null (see ``null_method``).
    null_sd : standard deviation of the pMSE under the null.
    ratio : ``pmse / expected_null`` (about 1 when the release is as good as the null).
    standardized : ``(pmse - expected_null) / null_sd``.
    specks : Kolmogorov–Smirnov distance between the propensity-score ECDFs of the
        confidential and synthetic rows (SPECKS).
    auc : area under the ROC curve of the propensity scores (0.5 = no better than chance).
    S_pMSE : synthpop's ``S_pMSE`` (``utility.gen``; Raab, Nowok & Dibben 2021), under
        synthpop's name and convention: ``pMSE / E`` with the analytic null (then equal to
        ``ratio``), but ``pMSE / (E / 2)`` with the permutation null, because synthpop's
        ``utility.gen`` halves the mean pMSE of the permuted fits; so ``S_pMSE = 2 * ratio``
        there and a synthpop user's S_pMSE threshold applies to it unchanged. NaN where
        synthpop has no such figure (``model="boosting"``, or a ``validation``).
    PO50 : synthpop's ``PO50``: the percentage of scored rows that the propensity score
        classifies correctly at 0.5 (above 0.5: synthetic), minus 50 (0 = chance).
    U : synthpop's ``U``: the Mann–Whitney statistic of the synthetic rows' scores against
        the confidential rows' (``wilcox.test``), i.e. ``auc * n_conf * n_syn`` over the
        scored rows (weighted AUC times the row counts when weighted).
    importance : per variable, averaged over implicates — the Wald chi-square of the
        variable's coefficients (logistic), or the drop in AUC when the variable's values are
        permuted among the scored rows (cart, boosting).
    implicates : per-implicate values.
    model, null_method, validation : how it was computed; ``null_method`` is ``"analytic"``
        (Snoke et al. 2018: ``E = (k-1)(1-c)^2 c / N``, ``SD = sqrt(2(k-1)) (1-c)^2 c / N``,
        ``k`` parameters including the intercept) or ``"permutation"`` (labels permuted and the
        same model refitted ``n_permutations`` times).
    k : parameters of the logistic propensity model including the intercept (mean over
        implicates; NaN for trees).
    c : share of synthetic rows in the stacked data.
    seed : the seed used (None when a Generator was passed).
    """

    pmse: float
    expected_null: float
    null_sd: float
    ratio: float
    standardized: float
    specks: float
    auc: float
    importance: pd.Series
    implicates: pd.DataFrame
    model: str
    null_method: str
    validation: str | None
    k: float
    c: float
    S_pMSE: float = float("nan")
    PO50: float = float("nan")
    U: float = float("nan")
    seed: int | None = None

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 0.25
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "pmse": MetricInfo("pmse", "minimize", 0.0, 0.25, description="propensity score MSE"),
        "ratio": MetricInfo("ratio", "target", 0.0, np.inf, 1.0, "pMSE / null expectation"),
        "standardized": MetricInfo(
            "standardized", "target", -np.inf, np.inf, 0.0, "(pMSE - E) / SD under the null"
        ),
        "specks": MetricInfo("specks", "minimize", 0.0, 1.0, description="KS of propensities"),
        "auc": MetricInfo("auc", "target", 0.0, 1.0, 0.5, "AUC of the discriminator"),
        "S_pMSE": MetricInfo("S_pMSE", "target", 0.0, np.inf, 1.0,
                             "synthpop's S_pMSE (utility.gen's null convention)"),
    }

    def to_frame(self) -> pd.DataFrame:
        """Per-implicate table (pmse, expected_null, null_sd, ratio, standardized, specks, auc,
        S_pMSE, PO50, U, k, c)."""
        return self.implicates.copy()

    def summary(self) -> str:
        m = len(self.implicates)
        val = f", {self.validation} validation" if self.validation else ""
        peer = ""
        if not np.isnan(self.S_pMSE):
            why = (" (2 x ratio: utility.gen halves the permuted null)"
                   if self.null_method == "permutation" else "")
            peer = f"; synthpop's S_pMSE {self.S_pMSE:.4g}{why}"
        return (
            f"pMSE ({self.model} propensity model{val}, {self.null_method} null, m = {m}): "
            f"pMSE {self.pmse:.4g}, ratio {self.ratio:.4g} (1 = as expected under the null), "
            f"standardized {self.standardized:.4g}, SPECKS {self.specks:.4g}, "
            f"AUC {self.auc:.4g} (0.5 = indistinguishable){peer}"
        )


def _fit_predict(
    model: str, design: Design, y: np.ndarray, train: np.ndarray | slice,
    test: np.ndarray | slice,
    params: dict[str, Any], seed: int, want_importance: bool, sw: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Fit on rows ``train``, return propensities for rows ``test``, column importances, k.
    ``sw``: case weights of every row (None: unweighted)."""
    from sklearn.metrics import roc_auc_score

    X = design.X
    sw_tr = None if sw is None else sw[train]
    sw_te = None if sw is None else sw[test]
    if model == "logistic":
        fit = fit_logistic(X[train], y[train], sample_weight=sw_tr)
        p = predict_logistic(fit, X[test])
        imp = None
        if want_importance:
            beta = fit.coef[1:]
            cov = fit.cov[1:, 1:]
            imp = np.zeros(len(design.variables))
            for g in np.unique(design.groups):
                idx = np.flatnonzero(design.groups == g)
                b = beta[idx]
                imp[g] = float(b @ np.linalg.pinv(cov[np.ix_(idx, idx)]) @ b)
        return p, imp, fit.rank
    cat = design.categorical
    Xtr, Xte = X[train], X[test]
    if cat is not None and cat.any() and X[:, cat].max() >= 254:
        # too many levels for native categorical splits: order the levels instead
        Xtr, Xte = _order_levels(Xtr, Xte, y[train], cat)
        cat = None
    clf = make_tree(model, params, seed, cat)
    if sw_tr is None:
        clf.fit(Xtr, y[train])
    else:
        clf.fit(Xtr, y[train], sample_weight=sw_tr)
    p = clf.predict_proba(Xte)[:, 1]
    if model == "rf" and isinstance(train, slice) and isinstance(test, slice):
        # fitted and scored on the same rows: each row's out-of-bag propensity, from the trees
        # grown without it (Breiman 2001), so the forest cannot score its own memory
        oob = np.asarray(getattr(clf, "oob_decision_function_", np.full((len(p), 2), np.nan)))
        p = np.where(np.isfinite(oob[:, 1]), oob[:, 1], p)
    imp = None
    if want_importance:
        imp = np.zeros(len(design.variables))
        base = (roc_auc_score(y[test], p, sample_weight=sw_te) if len(np.unique(y[test])) == 2
                else 0.5)
        rng = np.random.default_rng(seed)
        Xt = Xte.copy()
        for g in np.unique(design.groups):
            idx = np.flatnonzero(design.groups == g)
            saved = Xt[:, idx].copy()
            Xt[:, idx] = saved[rng.permutation(len(saved))]
            imp[g] = base - roc_auc_score(y[test], clf.predict_proba(Xt)[:, 1],
                                          sample_weight=sw_te)
            Xt[:, idx] = saved
    return p, imp, -1


def _order_levels(
    Xtr: np.ndarray, Xte: np.ndarray, ytr: np.ndarray, categorical: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Recode each categorical column by the rank of its levels' share of synthetic rows in the
    training rows: for a binary outcome the best split of a categorical variable into two
    groups is among the splits of the levels so ordered (Breiman et al. 1984, sec. 4.2.2), so
    one ordered column lets CART find it without one-hot columns."""
    Xtr = Xtr.copy()
    Xte = Xte.copy()
    for j in np.flatnonzero(categorical):
        ctr = Xtr[:, j].astype(np.int64)
        cte = Xte[:, j].astype(np.int64)
        size = int(max(ctr.max(initial=0), cte.max(initial=0))) + 1
        n = np.bincount(ctr, minlength=size)
        s = np.bincount(ctr, weights=ytr, minlength=size)
        share = np.where(n > 0, s / np.maximum(n, 1), ytr.mean())
        rank = np.empty(size)
        rank[np.argsort(share, kind="stable")] = np.arange(size)
        Xtr[:, j] = rank[ctr]
        Xte[:, j] = rank[cte]
    return Xtr, Xte


def _propensities(
    model: str, design: Design, y: np.ndarray, validation: str | None, test_size: float,
    n_folds: int, params: dict[str, Any], rng: np.random.Generator, want_importance: bool,
    sw: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """Propensity scores for the evaluated rows; returns (rows, scores, importance, k)."""
    N = len(y)
    seed = int(rng.integers(2**31 - 1))
    if validation is None:
        every = slice(None)  # a view, not a copy of the design
        p, imp, k = _fit_predict(model, design, y, every, every, params, seed, want_importance,
                                 sw)
        return np.arange(N), p, imp, k
    # stratified assignment so both groups keep their share c in every part
    fold = np.empty(N, dtype=np.int64)
    for lab in (0, 1):
        idx = np.flatnonzero(y == lab)
        idx = idx[rng.permutation(idx.size)]
        if validation == "holdout":
            n_test = round(test_size * idx.size)
            fold[idx[:n_test]] = 1
            fold[idx[n_test:]] = 0
        else:
            fold[idx] = np.arange(idx.size) % n_folds
    if validation == "holdout":
        test = np.flatnonzero(fold == 1)
        p, imp, k = _fit_predict(
            model, design, y, np.flatnonzero(fold == 0), test, params, seed, want_importance, sw
        )
        return test, p, imp, k
    scores = np.empty(N)
    imps = []
    ks = []
    for f in range(n_folds):
        test = np.flatnonzero(fold == f)
        p, imp, k = _fit_predict(
            model, design, y, np.flatnonzero(fold != f), test, params, seed + f, want_importance,
            sw,
        )
        scores[test] = p
        ks.append(k)
        if imp is not None:
            imps.append(imp)
    return np.arange(N), scores, (np.mean(imps, axis=0) if imps else None), int(max(ks))


def _pmse_value(p: np.ndarray, y: np.ndarray, c: float, sw: np.ndarray | None = None) -> float:
    return float(np.average((p - c) ** 2, weights=sw))


def _s_pmse(value: float, e: float, null_method: str, model: str,
            validation: str | None) -> float:
    """synthpop's ``S_pMSE`` (``utility.gen``, synthpop 1.9): ``pMSE / E`` with the analytic
    null ``E = (k-1)(1-c)^2 c / N``; with permutations synthpop divides each permuted pMSE by
    2 before averaging, so ``S_pMSE = pMSE / (E / 2)``. NaN where synthpop computes none."""
    if validation is not None or model in ("boosting", "rf"):
        return float("nan")
    null = e if null_method == "analytic" else e / 2.0
    return value / null if null > 0 else float("inf")


@dask_backend
@renamed(synth="synthetic")
def pmse(
    conf: Any,
    synthetic: Any,
    model: Model = "logistic",
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    interactions: bool = False,
    maxorder: int | None = None,
    validation: Validation | None = None,
    test_size: float = 0.25,
    n_folds: int = 5,
    null: Literal["auto", "analytic", "permutation"] = "auto",
    n_permutations: int = 20,
    model_params: dict[str, Any] | None = None,
    n_threads: int | None = 1,
    random_state: RandomState = None,
    weights: str | None = None,
    sample_size: int = 100_000,
) -> PMSEResult:
    """Propensity-score mean squared error and the measures built on it.

    Stack the confidential (``n_conf`` rows, label 0) and synthetic (``n_syn`` rows, label 1)
    data, fit a propensity model and compute, with ``c = n_syn / N``:

    * ``pMSE = (1/N) Σ_i (p̂_i - c)^2`` (Woo et al. 2009; Snoke et al. 2018);
    * under the null, for a logistic model with ``k`` parameters (intercept included),
      ``E[pMSE] = (k-1)(1-c)^2 c / N`` and ``SD = sqrt(2(k-1)) (1-c)^2 c / N``
      (Snoke et al. 2018); the ratio ``pMSE / E`` and standardised ``(pMSE - E) / SD``;
    * SPECKS: the Kolmogorov–Smirnov distance between the ECDFs of ``p̂`` in the two groups;
    * AUC of ``p̂`` as a classifier (``sklearn.metrics.roc_auc_score``).

    Snoke et al.'s analytic null assumes the synthetic data come from a correct synthesis
    model *fitted to the confidential data*. Two independent samples from one distribution
    give ``E = (k-1) c (1-c) / N`` instead, ``1/(1-c)`` times larger (pMSE ratio about 2 for
    ``c = ½``); that is what the permutation null estimates. Trees and validated fits have no
    analytic null and always use permutations.

    Parameters
    ----------
    conf : confidential DataFrame.
    synthetic : the release (SyntheticData, list of DataFrames or one DataFrame); the measures
        are computed per implicate and averaged.
    model : ``"logistic"`` (main effects of the one-hot encoded variables; numeric variables
        standardised, missing values at the mean with an indicator), ``"cart"``
        (one Gini tree, default ``max_depth=10, min_samples_leaf=20``, grown by scikit-learn's
        histogram grower: numeric variables in at most 255 quantile bins, categorical
        variables split natively; see ``_propensity.HistCART``) or ``"boosting"``
        (``HistGradientBoostingClassifier``, 100 iterations, native categorical support) or
        ``"rf"`` (a random forest, the propensity model the course names beside CART: 100
        trees, ``min_samples_leaf=5``, √p variables per split; fitted on every row, each row
        is scored out of bag, by the trees that did not see it, Breiman 2001).
    schema : column kinds (default: inferred from ``conf``).
    columns : variables to use (default: all shared columns).
    interactions : add all two-way products of different variables' columns to the logistic
        model (the design grows quadratically; for a handful of variables).
    maxorder : synthpop's name for the same choice (``utility.gen(maxorder = )``): 0 main
        effects only, 1 all two-way interactions (R's ``t ~ .^2``, as ``interactions=True``;
        pMSE and S_pMSE equal synthpop 1.9-2's to 6 significant digits on SD2011). None
        (default) leaves it to ``interactions``; higher orders are not available yet.
    validation : None (fit and score all rows, as Snoke et al.), ``"holdout"`` (fit on
        ``1 - test_size`` of each group, score the rest) or ``"cv"`` (``n_folds`` out-of-fold
        scores), since flexible models memorise chance features (course, ch. 3).
    null : ``"auto"`` (analytic for in-sample logistic, permutation otherwise),
        ``"analytic"`` or ``"permutation"``.
    n_permutations : refits under permuted labels for the permutation null.
    model_params : keyword arguments for the scikit-learn model.
    n_threads : BLAS/OpenMP threads for the model fits (``threadpoolctl``); the default 1
        avoids the heavy oversubscription of busy shared machines, None leaves the libraries'
        own setting (all cores).
    random_state : seed or Generator (splits, permutations, trees).
    weights : sampling-weight column of the data, used as case weights: the propensity model
        is fitted with them (weighted log-likelihood; ``sample_weight`` of the trees), and
        the pMSE, SPECKS (weighted ECDFs) and AUC weigh each row by them, so the measures ask
        whether the release reproduces the *population* the weights estimate rather than the
        sample. Each data set's weights are rescaled to mean 1, so the two groups keep their
        shares and ``c = n_syn/N`` stays; an implicate without the column counts every record
        once. The column itself is left out of the model (unless named in ``columns``). The
        analytic null keeps Snoke et al.'s unweighted formula (an approximation under
        weights; ``null="permutation"`` permutes the labels, the weights staying with their
        rows). Weights of 1 give the unweighted results.

    Notes
    -----
    Backends: ``conf`` and ``synthetic`` may be Dask DataFrames. The model is then fitted on
    a documented reproducible sample of about ``sample_size`` rows of each data set
    (``DataFrame.sample(frac=min(1, sample_size / n), random_state=seed)``, per-partition
    seeds drawn from the integer ``random_state``), so the null expectation, ratio and
    standardized pMSE are those of the sample sizes used. ``sample_size`` is unused on pandas.

    Returns
    -------
    PMSEResult

    Raises
    ------
    ParameterError
        Unknown ``model``/``validation``/``null``, analytic null requested where none exists,
        ``test_size`` outside (0, 1), ``n_folds < 2``, ``n_permutations < 2``.
    """
    if maxorder is not None:
        if isinstance(maxorder, bool) or maxorder not in (0, 1):
            raise ParameterError(
                f"parameter 'maxorder': expected 0 (main effects) or 1 (two-way interactions), "
                f"got {maxorder!r}; higher orders are not available yet"
            )
        if interactions and maxorder == 0:
            raise ParameterError(
                "parameters 'maxorder' and 'interactions' disagree: maxorder=0 asks for main "
                "effects only; drop interactions=True or use maxorder=1"
            )
        interactions = maxorder == 1
    if any_dask(conf, synthetic):  # the pandas function on a reproducible sample
        from synthguard.utility._on_dask.measures import pmse_dask

        return pmse_dask(
            conf, synthetic, model, sample_size=sample_size, random_state=random_state,
            schema=schema, columns=columns, interactions=interactions, validation=validation,
            test_size=test_size, n_folds=n_folds, null=null, n_permutations=n_permutations,
            model_params=model_params, n_threads=n_threads, weights=weights,
        )
    if model not in ("logistic", "cart", "boosting", "rf"):
        raise ParameterError(
            f"parameter 'model': expected 'logistic', 'cart', 'boosting' or 'rf', got {model!r}"
        )
    if validation not in (None, "holdout", "cv"):
        raise ParameterError(
            f"parameter 'validation': expected None, 'holdout' or 'cv', got {validation!r}"
        )
    if null not in ("auto", "analytic", "permutation"):
        raise ParameterError(
            f"parameter 'null': expected 'auto', 'analytic' or 'permutation', got {null!r}"
        )
    if not 0.0 < test_size < 1.0:
        raise ParameterError("parameter 'test_size': expected a share strictly between 0 and 1")
    if n_folds < 2:
        raise ParameterError("parameter 'n_folds': expected at least 2 folds")
    analytic_ok = model == "logistic" and validation is None
    if null == "analytic" and not analytic_ok:
        raise ParameterError(
            "parameter 'null': the analytic null exists only for the in-sample logistic model; "
            "use null='permutation'"
        )
    null_method = "analytic" if (null == "auto" and analytic_ok) or null == "analytic" else (
        "permutation"
    )
    if null_method == "permutation" and n_permutations < 2:
        raise ParameterError("parameter 'n_permutations': expected at least 2")
    if interactions and model != "logistic":
        raise ParameterError(
            "parameter 'interactions': only for model='logistic'; trees find interactions"
        )
    params = dict(model_params or {})
    rng, seed = resolve_seed(random_state)
    check_conf(conf)
    check_weights_column(conf, weights)
    if columns is None and weights is not None:
        columns = [c for c in conf.columns if c != weights]
    conf, imps, schema, cols = resolve(conf, synthetic, schema, columns)
    dtype = np.float64 if model == "logistic" else np.float32

    with threadpool_limits(limits=n_threads):
        per, importance = _per_implicate(
            conf, imps, schema, cols, model, interactions, dtype, validation, test_size,
            n_folds, params, rng, null_method, n_permutations, weights,
        )
    mean = per.mean()
    return PMSEResult(
        pmse=float(mean["pmse"]),
        expected_null=float(mean["expected_null"]),
        null_sd=float(mean["null_sd"]),
        ratio=float(mean["ratio"]),
        standardized=float(mean["standardized"]),
        specks=float(mean["specks"]),
        auc=float(mean["auc"]),
        S_pMSE=float(mean["S_pMSE"]),
        PO50=float(mean["PO50"]),
        U=float(mean["U"]),
        importance=importance,
        implicates=per,
        model=model,
        null_method=null_method,
        validation=validation,
        k=float(mean["k"]),
        c=float(mean["c"]),
        seed=seed,
    )


def _per_implicate(
    conf: pd.DataFrame, imps: list[pd.DataFrame], schema: Schema, cols: list[str], model: str,
    interactions: bool, dtype: type, validation: str | None, test_size: float, n_folds: int,
    params: dict[str, Any], rng: np.random.Generator, null_method: str, n_permutations: int,
    weights: str | None = None,
) -> tuple[pd.DataFrame, pd.Series]:
    from sklearn.metrics import roc_auc_score

    rows = []
    importances = []
    cw = case_weights(conf, weights, "confidential data")
    for i, df in enumerate(imps):
        iw = case_weights(df, weights, f"synthetic implicate {i}")
        sw = (None if cw is None and iw is None else np.concatenate([
            np.ones(len(conf)) if cw is None else cw, np.ones(len(df)) if iw is None else iw]))
        if model == "logistic":
            check_onehot_levels([conf, df], schema, cols)
        design = stacked_design(
            conf, df, schema, cols, interactions=interactions, dtype=dtype,
            encoding="onehot" if model == "logistic" else "codes",
        )
        y = design.y
        N = len(y)
        c = float(y.sum() / N)
        ev, p, imp, k = _propensities(
            model, design, y, validation, test_size, n_folds, params, rng, True, sw
        )
        ye = y[ev]
        se = None if sw is None else sw[ev]
        value = _pmse_value(p, ye, c, se)
        if null_method == "analytic":
            e = (k - 1) * (1 - c) ** 2 * c / N
            sd = np.sqrt(2.0 * (k - 1)) * (1 - c) ** 2 * c / N
        else:
            perm = []
            # in-sample logistic: one design, refitted by the fixed-Hessian iteration
            null_fit = (NullLogistic(design.X, sw) if model == "logistic" and validation is None
                        else None)
            for _ in range(n_permutations):
                yp = y[rng.permutation(N)]
                if null_fit is not None:
                    rng.integers(2**31 - 1)  # the seed _propensities draws: same stream
                    evp, pp = np.arange(N), null_fit.predict(yp)
                else:
                    evp, pp, _, _ = _propensities(
                        model, design, yp, validation, test_size, n_folds, params, rng, False,
                        sw,
                    )
                sp = None if sw is None else sw[evp]
                cp = c if sw is None else float(np.average(yp, weights=sw))
                perm.append(_pmse_value(pp, yp[evp], cp, sp))
            e = float(np.mean(perm))
            sd = float(np.std(perm, ddof=1))
        if se is None:
            specks = ecdf_distances(p[ye == 0], p[ye == 1])[0]
        else:
            specks = ecdf_distances(p[ye == 0], p[ye == 1], se[ye == 0], se[ye == 1])[0]
        auc = float(roc_auc_score(ye, p, sample_weight=se))
        hit = (p > 0.5) == (ye == 1)
        n_syn_scored = int(ye.sum())
        rows.append(
            {
                "pmse": value,
                "expected_null": e,
                "null_sd": sd,
                "ratio": value / e if e > 0 else np.inf,
                "standardized": (value - e) / sd if sd > 0 else np.inf,
                "specks": specks,
                "auc": auc,
                "S_pMSE": _s_pmse(value, e, null_method, model, validation),
                "PO50": 100.0 * float(np.average(hit, weights=se)) - 50.0,
                "U": auc * n_syn_scored * (len(ye) - n_syn_scored),
                "k": float(k) if model == "logistic" else np.nan,
                "c": c,
            }
        )
        importances.append(
            pd.Series(imp if imp is not None else np.nan, index=design.variables, dtype=float)
        )
    per = pd.DataFrame(rows).rename_axis("implicate")
    importance = pd.concat(importances, axis=1).mean(axis=1).rename("importance")
    return per, importance.rename_axis("variable").sort_values(ascending=False)
