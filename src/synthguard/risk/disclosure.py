"""Identity and attribute disclosure measures of synthpop's ``disclosure()`` (Raab, Nowok &
Dibben 2024, "Practical privacy metrics for synthetic data", synthpop 1.9 vignette).

See :func:`disclosure` for the definitions and :func:`multi_disclosure` for several targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import renamed, renamed_fields
from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError
from synthguard.risk._check_2way import check_2way, r_labels
from synthguard.risk._common import as_list
from synthguard.risk._disclosure_tables import (
    MEASURES,
    CodedColumn,
    as_value_list,
    code_column,
    combine_codes,
    cont_na_for,
    implicate_measures,
)
from synthguard.risk._patterns import check_columns

__all__ = ["Disclosure", "MultiDisclosure", "disclosure", "multi_disclosure"]

_HEADLINE = ("uio", "uis", "uisio", "repu", "dorig", "dsyn", "iso", "dis", "disco", "disdio",
             "dcap", "tcap")  # fmt: skip


@renamed_fields(target="targets")
@dataclass(frozen=True, eq=False)
class Disclosure(Summarized):
    """synthpop's disclosure measures of one target from a set of keys.

    Every measure is a share in [0, 1] (synthpop prints percentages); attributes hold the mean
    over implicates and :meth:`to_frame` gives one row per implicate. Higher is riskier.

    Attributes
    ----------
    uio, uis, uisio, repu : identity measures UiO, UiS, UiOiS, repU.
    dorig, dsyn, iso, dis, disco, disdio : attribute measures Dorig, Dsyn, iS, DiS, DiSCO,
        DiSDiO.
    dcap, tcap : correct attribution probabilities DCAP and TCAP; ``base_capd``, ``capd``,
        ``caps`` are baseCAPd, CAPd and CAPs.
    max_denom, mean_denom : largest and mean count d_tq of the cells counted in DiSCO (means
        over implicates).
    check_1way : per implicate, the target level with most DiSCO records, their number and their
        share of DiSCO, and whether it passes ``thresh_1way`` (synthpop's ``check_1way``: the
        disclosure may come from one dominant level rather than from the keys).
    check_2way : synthpop's ``check_2way``: the (target level, key level) pairs for which one
        key alone may disclose the target, one row per pair and implicate (column
        ``implicate``, then synthpop's ``target_key_levs, npairs, key, key_total,
        key_target_total, PctTargetKeyLevel``; see ``thresh_2way`` of :func:`disclosure`).
        Empty when nothing is flagged; None when not computed (the Dask backend).
    keys, targets : the keys and the one target measured (``targets``, as the parameter; its
        old name ``target`` works one release with a RenamedWarning).
    """

    uio: float
    uis: float
    uisio: float
    repu: float
    dorig: float
    dsyn: float
    iso: float
    dis: float
    disco: float
    disdio: float
    dcap: float
    tcap: float
    base_capd: float
    capd: float
    caps: float
    max_denom: float
    mean_denom: float
    keys: tuple[str, ...]
    targets: str
    n_conf: int
    n_implicates: int
    per_implicate: pd.DataFrame = field(repr=False)
    check_1way: pd.DataFrame = field(repr=False)
    check_2way: pd.DataFrame | None = field(default=None, repr=False)

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    @property
    def check1_flagged(self) -> bool:
        """True when some implicate's DiSCO is dominated by one target level."""
        return bool(self.check_1way["flagged"].any())

    @property
    def check2_flagged(self) -> bool:
        """True when some (target level, key level) pair passes ``thresh_2way``."""
        return self.check_2way is not None and len(self.check_2way) > 0

    def to_frame(self) -> pd.DataFrame:
        """One row per implicate (index 1..m), the measures as columns."""
        return self.per_implicate.copy()

    def summary(self) -> str:
        lines = [
            f"Disclosure of '{self.targets}' from keys {', '.join(self.keys)} "
            f"({self.n_conf} confidential records, {self.n_implicates} implicate(s); % of "
            f"records, mean over implicates)",
            f"  identity:  UiO {self.uio:.2%}  UiS {self.uis:.2%}  UiOiS {self.uisio:.2%}  "
            f"repU {self.repu:.2%}",
            f"  attribute: Dorig {self.dorig:.2%}  Dsyn {self.dsyn:.2%}  iS {self.iso:.2%}  "
            f"DiS {self.dis:.2%}  DiSCO {self.disco:.2%}  DiSDiO {self.disdio:.2%}",
            f"  CAP:       baseCAPd {self.base_capd:.2%}  CAPd {self.capd:.2%}  "
            f"DCAP {self.dcap:.2%}  TCAP {self.tcap:.2%}",
        ]
        if self.check1_flagged:
            lines.append(
                "  check_1way: one level of the target makes most of DiSCO; it may be known "
                "without the keys (consider not_targetslev)"
            )
        if self.check2_flagged:
            lines.append(
                "  check_2way: for some target levels one key alone nearly determines the "
                "target in the original; see check_2way (consider exclude_keys/"
                "exclude_keylevs/exclude_targetlevs)"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>" + self.per_implicate.to_html()


@renamed(target="targets", ngroups_target="ngroups_targets", not_targetlev="not_targetslev",
         use_target_na="use_targets_na")
def disclosure(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    cont_na: Mapping[str, Any] | None = None,
    ngroups_targets: int = 0,
    ngroups_keys: int | Sequence[int] | Mapping[str, int] = 0,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetslev: Any = None,
    use_targets_na: bool = True,
    use_keys_na: bool | Sequence[bool] | Mapping[str, bool] = True,
    exclude_keys: Sequence[str] | None = None,
    exclude_keylevs: Sequence[Any] | None = None,
    exclude_targetlevs: Sequence[Any] | None = None,
    thresh_1way: tuple[float, float] = (50, 90),
    thresh_2way: tuple[float, float] = (4, 80),
) -> Disclosure:
    r"""Identity and attribute disclosure of a release for one target (synthpop's ``disclosure``).

    Scenario (Raab, Nowok & Dibben 2024): an intruder knows the keys of people in the
    confidential data, believes the release is the real data, looks them up in it and reads off
    the target. The keys of a record form its quasi-identifier q. With d_tq (s_tq) the number of
    confidential (synthetic) records with quasi-identifier q and target level t, d_.q and s_.q
    their sums over t, pd_tq = d_tq / d_.q, ps_tq = s_tq / s_.q, N_d and N_s the numbers of
    records, and [.] the indicator:

    Identity (counts of quasi-identifiers, i.e. of unique records):

    ```text
    UiO   = sum_q [d_.q = 1] / N_d                 (unique in original)
    UiS   = sum_q [s_.q = 1] / N_s                 (unique in synthetic)
    UiOiS = sum_q [d_.q = 1][s_.q > 0] / N_d       (unique in original, found in synthetic)
    repU  = sum_q [d_.q = 1][s_.q = 1] / N_d       (replicated uniques)
    ```

    Attribute (records whose target would be disclosed):

    ```text
    Dorig  = sum_tq s.t. pd_tq = 1 of d_tq / N_d   (disclosive in original: q has one level)
    Dsyn   = sum_tq s.t. ps_tq = 1 of s_tq / N_s   (disclosive in synthetic, as if real)
    iS     = sum_tq d_tq [s_.q > 0] / N_d          (q found in synthetic)
    DiS    = sum_tq d_tq [some t': ps_t'q = 1] / N_d (q disclosive in synthetic)
    DiSCO  = sum_tq d_tq [ps_tq = 1] / N_d         (disclosive in synthetic, correct original)
    DiSDiO = sum_tq d_tq [ps_tq = 1][pd_tq = 1] / N_d (... and disclosive in original)
    ```

    Correct attribution probabilities (Appendix 2; Taub et al. 2018, Little et al. 2022):

    ```text
    baseCAPd = sum_t (d_t. / N_d)^2;  CAPd = sum_tq pd_tq d_tq / N_d;
    CAPs = sum_tq ps_tq s_tq / N_s;   DCAP = sum_tq ps_tq d_tq / N_d;
    TCAP = DiSCO N_d / sum_q d_.q [s_.q > 0]   (DiSCO among the records whose q is in both)
    ```

    The recommended pair is repU (identity) and DiSCO (attribute), each compared with the
    original's UiO and Dorig. The tables run over the union of q and t levels of both data
    sets; only cells present in either are built, by grouping integer codes (no pairs of
    records are compared), so 100k x 100k records with 6 keys take about a second.

    Exclusions follow synthpop 1.9 exactly: they zero cells of every table after the
    disclosive cells were found (so DiS and DiSCO keep their definitions) and before all
    measures, identity ones included, are summed; N_d and N_s stay the full record counts.
    With ``exclude_ov_denom_lim`` TCAP can therefore exceed 1, as in synthpop (its numerator
    keeps cells whose synthetic cell was excluded from the denominator).

    Parameters
    ----------
    conf : the confidential data.
    synthetic : a release (SyntheticData, DataFrame or list of implicates); each implicate needs
        the key and target columns (any number of rows).
    keys : the key variables (quasi-identifiers) known to the intruder.
    targets : the variable to be disclosed (not a key): a name, or a list of one (for several
        use :func:`multi_disclosure`, which takes the same parameters).
    cont_na : {column: value or values} of special codes of numeric columns (synthpop's
        ``cont.na``, e.g. ``{"income": -8}``); kept as levels of their own when grouping.
    ngroups_targets, ngroups_keys : group a numeric target / numeric keys into about this many
        quantile groups of the confidential and all synthetic values (synthpop's
        ``ngroups_target`` / ``ngroups_keys`` via ``classInt`` quantile breaks, intervals
        closed on the left); 0 (default) uses every distinct value as a level. Non-numeric
        columns are never grouped. ``ngroups_keys`` may be one number or one per key.
    denom_lim, exclude_ov_denom_lim : with ``exclude_ov_denom_lim=True`` cells whose count
        exceeds ``denom_lim`` are excluded from all measures.
    not_targetslev : target level(s) excluded from all measures (synthpop's ``not.targetlev``;
        e.g. a level that ``check_1way`` flags).
    use_targets_na : False excludes missing target values (when the confidential target has
        any), synthpop's ``usetargetNA``.
    use_keys_na : False (for all keys, or per key as a sequence or mapping) excludes records
        whose key is missing, synthpop's ``usekeysNA``.
    exclude_keys, exclude_keylevs, exclude_targetlevs : equal-length sequences; entry i
        excludes the cells whose key ``exclude_keys[i]`` has level ``exclude_keylevs[i]`` and
        whose target has level ``exclude_targetlevs[i]`` (a known 2-way relationship).
    thresh_1way : (count, percent) for the 1-way check: the most disclosive target level is
        flagged when it has more than ``count`` DiSCO records and more than ``percent`` % of
        them.
    thresh_2way : (count, percent) for the 2-way check (synthpop's ``check_2way``): from the
        DiSCO cells with more than ``count`` records, every (target level t, level l of one
        key) pair is weighted by those cells' counts (``npairs``), and is flagged when more than
        ``percent`` % of the original records with key level l have target level t
        (``PctTargetKeyLevel``); see :attr:`Disclosure.check_2way`.

    Returns
    -------
    Disclosure

    Raises
    ------
    DataError : a key or target column is missing, or a ``cont_na`` code is not in the data.
    ParameterError : bad option values (target among keys, ngroups of 1, unknown levels, ...).

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"age": [30, 30, 40, 50], "sex": list("ffmm"),
    ...                      "ill": ["y", "y", "n", "y"]})
    >>> syn = pd.DataFrame({"age": [30, 40, 40, 60], "sex": list("fmmm"),
    ...                     "ill": ["y", "n", "n", "y"]})
    >>> r = disclosure(conf, syn, keys=["age", "sex"], targets="ill")
    >>> r.uio, r.repu, r.dorig, r.disco
    (0.5, 0.0, 1.0, 0.75)
    """
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    names = [targets] if isinstance(targets, str) else list(targets)
    if len(names) != 1 or not isinstance(names[0], str):
        raise ParameterError(
            "parameter 'targets': disclosure measures one target column; pass one name, or "
            "use multi_disclosure(targets=[...]) for several")
    target = names[0]
    if target in keys_l:
        raise ParameterError(f"parameter 'targets': '{target}' is also a key; pick another")
    imps = _implicates(conf, synthetic, [*keys_l, target])
    key_cols = _code_keys(conf, imps, keys_l, cont_na, ngroups_keys)
    return _one_target(
        conf, imps, keys_l, key_cols, target,
        cont_na=cont_na, ngroups_target=ngroups_targets, denom_lim=denom_lim,
        exclude_ov_denom_lim=exclude_ov_denom_lim, not_targetlev=not_targetslev,
        use_target_na=use_targets_na, use_keys_na=use_keys_na, exclude_keys=exclude_keys,
        exclude_keylevs=exclude_keylevs, exclude_targetlevs=exclude_targetlevs,
        thresh_1way=thresh_1way, thresh_2way=thresh_2way,
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class MultiDisclosure(Summarized):
    """:func:`disclosure` for several targets from the same keys (synthpop's
    ``multi.disclosure``).

    Attributes
    ----------
    results : {target: Disclosure}.
    uio, repu : identity measures from the keys (mean over implicates; they do not depend on
        the target unless exclusions are set, and are then those of the first target).
    max_disco : the largest DiSCO over the targets; ``max_disco_target`` names it.
    """

    results: dict[str, Disclosure]
    keys: tuple[str, ...]
    uio: float
    repu: float
    max_disco: float
    max_disco_target: str

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    def to_frame(self) -> pd.DataFrame:
        """One row per target: the mean measures, and whether check_1way flags it."""
        rows = []
        for t, r in self.results.items():
            row = {m: getattr(r, m) for m in _HEADLINE}
            row["check1_flagged"] = r.check1_flagged
            rows.append(pd.Series(row, name=t))
        return pd.DataFrame(rows).rename_axis("target")

    def summary(self) -> str:
        lines = [
            f"Disclosure from keys {', '.join(self.keys)} (% of confidential records)",
            f"  identity: UiO {self.uio:.2%}, repU {self.repu:.2%}",
            "  attribute: target  Dorig  DiSCO",
        ]
        for t, r in sorted(self.results.items(), key=lambda kv: kv[1].disco):
            flag = "  (1-way check)" if r.check1_flagged else ""
            lines.append(f"    {t}: {r.dorig:.2%}  {r.disco:.2%}{flag}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>" + self.to_frame().to_html()


def multi_disclosure(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    keys: Sequence[str],
    targets: Sequence[str] | None = None,
    cont_na: Mapping[str, Any] | None = None,
    ngroups_targets: int | Mapping[str, int] = 0,
    ngroups_keys: int | Sequence[int] | Mapping[str, int] = 0,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetslev: Mapping[str, Any] | None = None,
    use_targets_na: bool | Mapping[str, bool] = True,
    use_keys_na: bool | Sequence[bool] | Mapping[str, bool] = True,
    thresh_1way: tuple[float, float] = (50, 90),
    thresh_2way: tuple[float, float] = (4, 80),
) -> MultiDisclosure:
    """:func:`disclosure` of every target from the same keys (synthpop's ``multi.disclosure``).

    ``targets`` defaults to every column of the release that is not a key (and is in
    ``conf``). Per-target options are mappings {target: value}; a single value applies to all.
    The keys are coded once. See :func:`disclosure` for the measures and the other options.
    """
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    imps0 = as_implicates(synthetic)
    if targets is None:
        targets_l = [c for c in imps0[0].columns if c not in keys_l and c in conf.columns]
    else:
        targets_l = as_list(targets, name="targets")
    if not targets_l:
        raise ParameterError("parameter 'targets': no column left to use as a target")
    both = [t for t in targets_l if t in keys_l]
    if both:
        raise ParameterError(f"parameter 'targets': {both} are also keys; a target cannot be a key")
    imps = _implicates(conf, synthetic, [*keys_l, *targets_l])
    key_cols = _code_keys(conf, imps, keys_l, cont_na, ngroups_keys)

    def per(value: Any, t: str, name: str) -> Any:
        if isinstance(value, Mapping):
            unknown = [k for k in value if k not in targets_l]
            if unknown:
                raise ParameterError(f"parameter '{name}': {unknown} are not targets")
            return value.get(t)
        return value

    results = {}
    for t in targets_l:
        results[t] = _one_target(
            conf, imps, keys_l, key_cols, t,
            cont_na=cont_na, ngroups_target=per(ngroups_targets, t, "ngroups_targets") or 0,
            denom_lim=denom_lim, exclude_ov_denom_lim=exclude_ov_denom_lim,
            not_targetlev=per(not_targetslev or {}, t, "not_targetslev"),
            use_target_na=bool(per(use_targets_na, t, "use_targets_na") in (True, None)),
            use_keys_na=use_keys_na, exclude_keys=None, exclude_keylevs=None,
            exclude_targetlevs=None, thresh_1way=thresh_1way, thresh_2way=thresh_2way,
        )  # fmt: skip
    return assemble_multi(results, keys_l)


def assemble_multi(results: dict[str, Disclosure], keys: Sequence[str]) -> MultiDisclosure:
    """The :class:`MultiDisclosure` of per-target results (in the order of the targets)."""
    targets_l = list(results)
    first = results[targets_l[0]]
    worst = max(targets_l, key=lambda t: results[t].disco)
    return MultiDisclosure(
        results=results,
        keys=tuple(keys),
        uio=first.uio,
        repu=first.repu,
        max_disco=results[worst].disco,
        max_disco_target=worst,
    )


# ----------------------------------------------------------------------------- internals


def _implicates(conf: pd.DataFrame, synthetic: Any, columns: list[str]) -> list[pd.DataFrame]:
    if not isinstance(conf, pd.DataFrame):
        raise DataError("conf: expected a pandas DataFrame of the confidential data")
    check_columns(conf, columns, name="conf", role="key/target")
    imps = as_implicates(synthetic)
    for i, f in enumerate(imps):
        check_columns(f, columns, name=f"synthetic implicate {i + 1}", role="key/target")
    if len(conf) == 0 or any(len(f) == 0 for f in imps):
        raise DataError("disclosure: the confidential data and every implicate need rows")
    return imps


def _check_ngroups(value: Any, name: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ParameterError(f"parameter '{name}': expected an integer >= 2, or 0 not to group")
    if value == 1:
        raise ParameterError(f"parameter '{name}': 1 group would hide the variable; use >= 2")
    return int(value)


def _per_key(value: Any, keys: list[str], name: str, default: Any) -> list[Any]:
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in keys]
        if unknown:
            raise ParameterError(f"parameter '{name}': {unknown} are not keys")
        return [value.get(k, default) for k in keys]
    if isinstance(value, str) or not isinstance(value, Sequence):
        return [value] * len(keys)
    out = list(value)
    if len(out) != len(keys):
        raise ParameterError(f"parameter '{name}': give one value, one per key, or a mapping")
    return out


def _check_cont_na(conf: pd.DataFrame, cont_na: Mapping[str, Any] | None) -> None:
    if cont_na is None:
        return
    if not isinstance(cont_na, Mapping):
        raise ParameterError("parameter 'cont_na': expected a mapping {column: code(s)}")
    for c in cont_na:
        if c not in conf.columns:
            raise DataError(f"parameter 'cont_na': column '{c}' is not in the confidential data")
        col = conf[c]
        for v in cont_na_for(cont_na, c):
            if not bool((col == v).any()):
                raise DataError(
                    f"parameter 'cont_na': a code given for column '{c}' does not occur in the "
                    f"confidential data; remove it or check the column"
                )


def _code_keys(
    conf: pd.DataFrame,
    imps: list[pd.DataFrame],
    keys: list[str],
    cont_na: Mapping[str, Any] | None,
    ngroups_keys: Any,
) -> list[CodedColumn]:
    _check_cont_na(conf, cont_na)
    ng = [_check_ngroups(v, "ngroups_keys") for v in _per_key(ngroups_keys, keys, "ngroups_keys", 0)]
    return [
        code_column(
            [conf[k]] + [f[k] for f in imps], ngroups=g, cont_na=cont_na_for(cont_na, k), name=k
        )
        for k, g in zip(keys, ng)
    ]


def _level_codes(col: CodedColumn, levels: list[Any], what: str) -> list[int]:
    out = []
    for lev in levels:
        hit = [
            i
            for i, (lab, val) in enumerate(zip(col.labels, col.values))
            if (lev is None and val is None)
            or (lev is not None and val is not None and _eq(val, lev))
            or (isinstance(lev, str) and lab == lev)
        ]
        if not hit:
            raise ParameterError(
                f"parameter '{what}': a level given is not a level of the column in the data; "
                f"pass values as they appear (interval labels such as '[a,b)' when grouped)"
            )
        out.extend(hit)
    return out


def _eq(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _one_target(
    conf: pd.DataFrame,
    imps: list[pd.DataFrame],
    keys: list[str],
    key_cols: list[CodedColumn],
    target: str,
    *,
    cont_na: Mapping[str, Any] | None,
    ngroups_target: int,
    denom_lim: int,
    exclude_ov_denom_lim: bool,
    not_targetlev: Any,
    use_target_na: bool,
    use_keys_na: Any,
    exclude_keys: Sequence[str] | None,
    exclude_keylevs: Sequence[Any] | None,
    exclude_targetlevs: Sequence[Any] | None,
    thresh_1way: tuple[float, float],
    thresh_2way: tuple[float, float] = (4, 80),
) -> Disclosure:
    ngroups_target = _check_ngroups(ngroups_target, "ngroups_target")
    if isinstance(denom_lim, bool) or not isinstance(denom_lim, int | np.integer) or denom_lim < 1:
        raise ParameterError("parameter 'denom_lim': expected an integer >= 1")
    if len(thresh_1way) != 2:
        raise ParameterError("parameter 'thresh_1way': expected (count, percent)")
    if len(thresh_2way) != 2:
        raise ParameterError("parameter 'thresh_2way': expected (count, percent)")
    tcol = code_column(
        [conf[target]] + [f[target] for f in imps],
        ngroups=ngroups_target,
        cont_na=cont_na_for(cont_na, target),
        name=target,
    )
    use_na = [bool(v) for v in _per_key(use_keys_na, keys, "use_keys_na", True)]
    excl_t = _level_codes(tcol, as_value_list(not_targetlev), "not_targetlev")
    n_conf = len(conf)
    if not use_target_na and tcol.missing >= 0 and (tcol.codes[:n_conf] == tcol.missing).any():
        excl_t.append(tcol.missing)
    pairs: list[tuple[int, int, int]] = []  # (key index, key code, target code)
    if exclude_keys is not None or exclude_keylevs is not None or exclude_targetlevs is not None:
        ek = as_list(exclude_keys, name="exclude_keys")
        ekl = list(exclude_keylevs or [])
        etl = list(exclude_targetlevs or [])
        if not (len(ek) == len(ekl) == len(etl)):
            raise ParameterError(
                "parameters 'exclude_keys', 'exclude_keylevs', 'exclude_targetlevs': give "
                "sequences of the same length (one entry per excluded key-target pair)"
            )
        for k, kl, tl in zip(ek, ekl, etl):
            if k not in keys:
                raise ParameterError(f"parameter 'exclude_keys': '{k}' is not a key")
            j = keys.index(k)
            for kcode in _level_codes(key_cols[j], [kl], "exclude_keylevs"):
                for tcode in _level_codes(tcol, [tl], "exclude_targetlevs"):
                    pairs.append((j, kcode, tcode))

    offsets = np.cumsum([n_conf] + [len(f) for f in imps])
    kcodes_all = [c.codes for c in key_cols]
    q_all = combine_codes(kcodes_all)
    rows = []
    checks = []
    checks2 = []
    for j in range(len(imps)):
        sel = np.r_[0:n_conf, offsets[j] : offsets[j + 1]]
        q = q_all[sel]
        t = tcol.codes[sel]
        kc = [c[sel] for c in kcodes_all]

        def keep_cell(tk: np.ndarray, rep: np.ndarray, kc: list[np.ndarray] = kc) -> np.ndarray:
            keep = np.ones(tk.size, dtype=bool)
            if excl_t:
                keep &= ~np.isin(tk, excl_t)
            for i, col in enumerate(key_cols):
                if not use_na[i] and col.missing >= 0:
                    keep &= kc[i][rep] != col.missing
            for i, kcode, tcode in pairs:
                keep &= ~((tk == tcode) & (kc[i][rep] == kcode))
            return keep

        m = implicate_measures(
            q, t, n_conf, keep_cell=keep_cell, denom_lim=denom_lim,
            exclude_ov_denom_lim=exclude_ov_denom_lim,
        )  # fmt: skip
        rep = np.asarray(m["cell_rep"])
        c2 = check_2way(
            np.asarray(m["disco_cells"]), np.asarray(m["cell_target"]), [c[rep] for c in kc],
            t[:n_conf], [c[:n_conf] for c in kc], r_labels(tcol.labels, tcol.values),
            [r_labels(c.labels, c.values) for c in key_cols],
            keys, thresh_2way,
        )  # fmt: skip
        c2.insert(0, "implicate", j + 1)
        checks2.append(c2)
        row, check = implicate_row(m, tcol.labels, thresh_1way)
        rows.append(row)
        checks.append(check)
    return assemble_disclosure(rows, checks, keys, target, n_conf,
                               check_2way=pd.concat(checks2, ignore_index=True))


def implicate_row(
    m: dict[str, Any], labels: Sequence[str], thresh_1way: tuple[float, float]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One implicate's row of measures and its check_1way entry, from the measures of
    :func:`~synthguard.risk._disclosure_tables.cell_measures` (``labels``: the target's)."""
    m = dict(m)
    by_level = np.asarray(m.pop("by_target_level"))
    m.pop("target_margin")
    for extra in ("disco_cells", "cell_target", "cell_rep"):
        m.pop(extra, None)
    total = float(by_level.sum())
    top = int(np.argmax(by_level)) if by_level.size else 0
    n_top = float(by_level[top]) if by_level.size else 0.0
    share = n_top / total if total > 0 else 0.0
    check = {
        "level": labels[top] if by_level.size else None,
        "n_disclosive": n_top,
        "share_of_disclosive": share,
        "flagged": bool(n_top > thresh_1way[0] and share * 100 > thresh_1way[1]),
    }
    return m, check


def assemble_disclosure(
    rows: list[dict[str, Any]], checks: list[dict[str, Any]], keys: Sequence[str], target: str,
    n_conf: int, check_2way: pd.DataFrame | None = None,
) -> Disclosure:
    """The :class:`Disclosure` of one target from its per-implicate rows and checks
    (``check_2way``: the flagged pairs of all implicates, None when not computed)."""
    idx = pd.RangeIndex(1, len(rows) + 1, name="implicate")
    frame = pd.DataFrame(rows, index=idx)[list(MEASURES)]
    means = frame.mean(axis=0)
    return Disclosure(
        **{name: float(means[name]) for name in MEASURES},
        keys=tuple(keys),
        targets=target,
        n_conf=n_conf,
        n_implicates=len(rows),
        per_implicate=frame,
        check_1way=pd.DataFrame(checks, index=idx),
        check_2way=check_2way,
    )
