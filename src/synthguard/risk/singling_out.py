"""Singling-out attack of anonymeter (Giomi et al. 2023; Cohen & Nissim 2020)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.data import as_implicates
from synthguard.errors import ConvergenceError, DataError, ParameterError
from synthguard.risk._attack_data import Coded, code_frames
from synthguard.risk._attack_stats import (
    AttackRisk,
    attack_risk,
    check_confidence,
    check_n_attacks,
)
from synthguard.risk._patterns import check_columns

__all__ = ["singling_out"]

Term = tuple[int, str, float]  # (column, operator, value or code); value unused for null tests
Query = tuple[Term, ...]

_NUM_OPS = ("eq", "ne", "gt", "lt", "ge", "le")
_CAT_OPS = ("eq", "ne")
_BATCH = 1000
_IDLE_BATCHES = 50  # stop after this many batches without a new query


def singling_out(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    mode: str = "multivariate",
    n_attacks: int = 500,
    n_cols: int = 3,
    control: pd.DataFrame | None = None,
    columns: Sequence[str] | None = None,
    max_attempts: int | None = 10_000_000,
    confidence_level: float = 0.95,
    implicate: int = 0,
    random_state: RandomState = None,
) -> AttackRisk:
    r"""Singling-out risk of a release, as anonymeter's ``SinglingOutEvaluator``.

    An attacker with only the release writes predicates ("queries") that match exactly one
    synthetic record and claims each singles out one real person. A query *succeeds* when it
    matches exactly one record of the confidential data (Article 29 Working Party's singling
    out; Cohen & Nissim 2020). Duplicate rows are dropped from every data set first.

    * ``mode="univariate"``: one-column queries built from rare synthetic values: a value held
      by one record (``col == v``), the extremes (``col <= min``, ``col >= max``) and a single
      missing value (``col is null``); shuffled, those singling out in the release are kept.
    * ``mode="multivariate"``: a random synthetic record and ``n_cols`` random columns; each
      condition is ``col == v`` for a categorical column, ``col >= v`` for a numeric value
      above the column's median and ``col <= v`` otherwise, ``col is null`` for a missing one.
      Queries that single out in the release and were not seen before are kept until
      ``n_attacks`` are found, ``max_attempts`` records were tried, or 50 batches of 1000
      records in a row brought no new query (the release has no more; anonymeter would go on
      to ``max_attempts``).
    * baseline: ``n_attacks`` random queries on random columns (1 for univariate), each
      condition a random synthetic value and a random operator (==, != and for numeric
      columns also <, >, <=, >=); successes are counted on the confidential data.
    * control: the same queries against a control set (confidential records not used to make
      the release). When its size differs from the confidential data's, the number of
      successes is rescaled by f(N_conf) / f(N_control) with f(n) = a / (n + 1) [1 - (n w + 1)
      (1 - w)^n], the number of queries of effective weight w expected to single out in n
      records (Cohen & Nissim 2020), a and w fitted by least squares to the successes on
      random subsets of the control set (10 sizes x 5 repeats).

    Rates use ``n_attacks`` as denominator (as anonymeter, also when fewer queries were found;
    ``details["n_queries"]`` says how many). Risk = (attack rate - control rate) / (1 - control
    rate) with a Wilson-score interval; see :class:`AttackRisk`.

    Parameters
    ----------
    conf : the confidential records used to make the release.
    synthetic : the release (one implicate is attacked: ``implicate``).
    mode : "multivariate" (default) or "univariate".
    n_attacks : number of queries to find (>= 1).
    n_cols : columns per multivariate query.
    control : confidential records not used to make the release (strongly recommended).
    columns : columns the attacker uses (default: the columns of ``conf`` in the release).
    max_attempts : cap on the records tried in multivariate mode (None: no cap).
    confidence_level : of the interval.
    implicate : which implicate of a multiple release to attack.
    random_state : seed of the queries, the baseline and the control-size correction.

    Returns
    -------
    AttackRisk

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"age": [21, 35, 35, 50, 64], "job": list("abbcd")})
    >>> r = singling_out(conf, conf, mode="univariate", n_attacks=4, random_state=0)
    >>> r.n_success  # a copy hands out every rare value
    4
    """
    if mode not in ("univariate", "multivariate"):
        raise ParameterError("parameter 'mode': expected 'univariate' or 'multivariate'")
    n_attacks_i = check_n_attacks(n_attacks)
    assert n_attacks_i is not None
    conf_level = check_confidence(confidence_level)
    syn = _pick(synthetic, implicate)
    cols = _columns(conf, syn, control, columns)
    if mode == "multivariate":
        if isinstance(n_cols, bool) or not isinstance(n_cols, int) or not 1 <= n_cols <= len(cols):
            raise ParameterError(
                f"parameter 'n_cols': expected an integer from 1 to the number of columns "
                f"({len(cols)})"
            )
    if max_attempts is not None and (isinstance(max_attempts, bool) or max_attempts < 1):
        raise ParameterError("parameter 'max_attempts': expected a positive integer or None")
    rng, seed = resolve_seed(random_state)
    frames = [conf[cols].drop_duplicates(), syn[cols].drop_duplicates()]
    if control is not None:
        frames.append(control[cols].drop_duplicates())
    coded = code_frames(frames, cols)
    v_conf, v_syn = coded.values[0], coded.values[1]
    if mode == "univariate":
        queries = _univariate_queries(coded, v_syn, n_attacks_i, rng)
        n_base_cols = 1
    else:
        queries = _multivariate_queries(coded, v_syn, n_attacks_i, n_cols, max_attempts, rng)
        n_base_cols = n_cols
    conf_index = _Index(v_conf, coded.numeric)
    n_success = _singles_out(conf_index, queries)
    baseline = _random_queries(coded, v_syn, n_attacks_i, n_base_cols, rng)
    n_baseline = _singles_out(conf_index, baseline)
    n_control: float | None = None
    correction = 1.0
    if control is not None:
        v_ctrl = coded.values[2]
        n_control = float(_singles_out(_Index(v_ctrl, coded.numeric), queries))
        if v_ctrl.shape[0] != v_conf.shape[0] and queries and n_control > 0:  # 0 stays 0
            correction = _size_correction(v_ctrl, coded, queries, v_conf.shape[0], rng)
            n_control *= correction
    return attack_risk(
        f"singling out ({mode})",
        n_attacks=n_attacks_i,
        n_success=n_success,
        n_baseline_attacks=n_attacks_i,
        n_baseline=n_baseline,
        n_control_attacks=n_attacks_i if control is not None else None,
        n_control=n_control,
        confidence_level=conf_level,
        random_state=seed,
        details={
            "mode": mode,
            "n_cols": 1 if mode == "univariate" else n_cols,
            "n_queries": len(queries),
            "columns": tuple(cols),
            "control_size_correction": correction,
        },
    )


# ----------------------------------------------------------------------------- internals


def _pick(synthetic: Any, implicate: int) -> pd.DataFrame:
    imps = as_implicates(synthetic)
    if isinstance(implicate, bool) or not isinstance(implicate, int) or not (
        0 <= implicate < len(imps)
    ):
        raise ParameterError(
            f"parameter 'implicate': expected an index from 0 to {len(imps) - 1}"
        )
    return imps[implicate]


def _columns(
    conf: pd.DataFrame, syn: pd.DataFrame, control: pd.DataFrame | None, columns: Any
) -> list[str]:
    if not isinstance(conf, pd.DataFrame):
        raise DataError("conf: expected a pandas DataFrame of the confidential data")
    if columns is None:
        cols = [c for c in conf.columns if c in syn.columns]
    else:
        cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols:
        raise DataError("the confidential data and the release share no column")
    check_columns(conf, cols, name="conf", role="attack")
    check_columns(syn, cols, name="synthetic", role="attack")
    if control is not None:
        if not isinstance(control, pd.DataFrame):
            raise DataError("control: expected a pandas DataFrame of held-out records")
        check_columns(control, cols, name="control", role="attack")
    if len(conf) == 0 or len(syn) == 0 or (control is not None and len(control) == 0):
        raise DataError("the confidential data, the release and the control set need rows")
    return cols


def _term_mask(v: np.ndarray, rows: np.ndarray | None, term: Term, numeric: bool) -> np.ndarray:
    j, op, val = term
    x = v[:, j] if rows is None else v[rows, j]
    miss = np.isnan(x) if numeric else x < 0
    if op == "isnull":
        return miss
    if op == "notnull":
        return ~miss
    with np.errstate(invalid="ignore"):
        if op == "eq":
            hit = x == val
        elif op == "ne":
            hit = x != val
        elif op == "gt":
            hit = x > val
        elif op == "lt":
            hit = x < val
        elif op == "ge":
            hit = x >= val
        else:
            hit = x <= val
    return hit & ~miss


class _Index:
    """Rows of a coded array sorted by each column, so that the rows matching one condition
    (``==``, ``<=``, ``>=``, ``<``, ``>``, ``is null``) are a slice found by binary search;
    a query is then checked only on the rows of its most selective condition."""

    def __init__(self, v: np.ndarray, numeric: Sequence[bool]) -> None:
        self.v = v
        self.numeric = tuple(numeric)
        self._combos: dict[
            tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
        ] = {}
        self.order = np.argsort(v, axis=0, kind="stable")  # NaN last, code -1 first
        self.sorted = np.take_along_axis(v, self.order, axis=0)
        n = v.shape[0]
        self.present = np.array(
            [
                (n - int(np.isnan(v[:, j]).sum()), n) if num else (int((v[:, j] < 0).sum()), 0)
                for j, num in enumerate(self.numeric)
            ]
        )

    def span(self, term: Term) -> tuple[int, int] | None:
        """[lo, hi) in the column's sort order of the rows matching ``term`` (None: no slice)."""
        j, op, val = term
        col = self.sorted[:, j]
        n = col.shape[0]
        if self.numeric[j]:
            first, last = 0, int(self.present[j, 0])  # present values are col[:last]
            if op == "isnull":
                return last, n
        else:
            first, last = int(self.present[j, 0]), n  # codes -1 come first
            if op == "isnull":
                return 0, first
        seg = col[first:last]
        if op == "eq":
            return first + int(np.searchsorted(seg, val, "left")), first + int(
                np.searchsorted(seg, val, "right")
            )
        if op == "ge":
            return first + int(np.searchsorted(seg, val, "left")), last
        if op == "gt":
            return first + int(np.searchsorted(seg, val, "right")), last
        if op == "le":
            return first, first + int(np.searchsorted(seg, val, "right"))
        if op == "lt":
            return first, first + int(np.searchsorted(seg, val, "left"))
        return None

    def singles_out_many(self, queries: Sequence[Query]) -> np.ndarray:
        """:meth:`singles_out` of every query, the equality queries on categorical columns
        (``col == code`` / ``col is null``, the multivariate attack's queries on categorical
        data) answered together: the rows' code combinations on the query's columns are
        counted once per column set (a mixed-radix key per row, sorted) and each query is a
        binary search for its key, whose count must be 1. Other queries are checked one by
        one."""
        out = np.zeros(len(queries), dtype=bool)
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, q in enumerate(queries):
            if len(q) > 1 and all(not self.numeric[j] and op in ("eq", "isnull") for j, op, _ in q):
                groups.setdefault(tuple(t[0] for t in q), []).append(i)
            else:
                out[i] = self.singles_out(q)
        for cols, idx in groups.items():
            table = self._combinations(cols)
            if table is None:
                out[idx] = [self.singles_out(queries[i]) for i in idx]
                continue
            keys, counts, radix, sizes = table
            codes = np.array([[t[2] if t[1] == "eq" else -1.0 for t in queries[i]] for i in idx])
            shifted = codes.astype(np.int64) + 1
            inside = (shifted < sizes).all(axis=1)  # a code no row has cannot match
            wanted = np.where(inside, shifted @ radix, -1)
            pos = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
            out[idx] = inside & (keys[pos] == wanted) & (counts[pos] == 1)
        return out

    def _combinations(
        self, cols: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """The distinct mixed-radix keys of the rows' codes on ``cols`` (code + 1, so a
        missing code -1 is 0), their counts, the radices and each column's size (largest
        shifted code + 1); None when the key would not fit in 63 bits."""
        cache = self._combos
        if cols not in cache:
            codes = self.v[:, list(cols)].astype(np.int64) + 1
            sizes = [int(codes[:, k].max(initial=0)) + 1 for k in range(len(cols))]
            if float(np.prod(np.asarray(sizes, dtype=np.float64))) >= 2.0**62:
                cache[cols] = None
            else:
                radix = np.cumprod([1, *sizes[:0:-1]])[::-1].astype(np.int64)
                keys, counts = np.unique(codes @ radix, return_counts=True)
                cache[cols] = (keys, counts, radix, np.asarray(sizes, dtype=np.int64))
        return cache[cols]

    def singles_out(self, query: Query) -> bool:
        """Whether exactly one row matches every condition of ``query``.

        The rows of the most selective condition are checked against the others in growing
        chunks, stopping as soon as a second match is found (most queries fail fast)."""
        spans = [self.span(t) for t in query]
        if len(query) == 1 and spans[0] is not None:
            return spans[0][1] - spans[0][0] == 1
        sizes = [(sp[1] - sp[0]) if sp is not None else self.v.shape[0] + 1 for sp in spans]
        best = int(np.argmin(sizes))
        sp = spans[best]
        others = [t for i, t in enumerate(query) if i != best]
        if sp is None:
            t0 = query[best]
            chunks = [np.flatnonzero(_term_mask(self.v, None, t0, self.numeric[t0[0]]))]
        else:
            lo, hi = sp
            if hi - lo <= 0:
                return False
            col = self.order[:, query[best][0]]
            chunks = []
            step = 64
            while lo < hi:
                chunks.append(col[lo : min(hi, lo + step)])
                lo += step
                step *= 4
        found = 0
        for rows in chunks:
            for term in others:
                if rows.size == 0:
                    break
                rows = rows[_term_mask(self.v, rows, term, self.numeric[term[0]])]
            found += int(rows.size)
            if found > 1:
                return False
        return found == 1


def _singles_out(index: _Index, queries: Sequence[Query]) -> int:
    """Number of ``queries`` that match exactly one row."""
    return int(index.singles_out_many(queries).sum())


def _keep_singling_out(
    syn: _Index, candidates: Sequence[Query], kept: list[Query], seen: set[Query], limit: int
) -> None:
    hits = syn.singles_out_many(candidates)
    for q, hit in zip(candidates, hits, strict=True):
        if len(kept) >= limit:
            return
        if q in seen:
            continue
        if hit:
            seen.add(q)
            kept.append(q)


def _univariate_queries(
    coded: Coded, v_syn: np.ndarray, n: int, rng: np.random.Generator
) -> list[Query]:
    cands: list[Query] = []
    for j, numeric in enumerate(coded.numeric):
        x = v_syn[:, j]
        miss = np.isnan(x) if numeric else x < 0
        if int(miss.sum()) == 1:
            cands.append(((j, "isnull", 0.0),))
        present = x[~miss]
        if numeric and present.size:
            cands.append(((j, "le", float(present.min())),))
            cands.append(((j, "ge", float(present.max())),))
        vals, counts = np.unique(present, return_counts=True)
        cands.extend(((j, "eq", float(val)),) for val in vals[counts == 1])
    order = rng.permutation(len(cands))
    kept: list[Query] = []
    _keep_singling_out(_Index(v_syn, coded.numeric), [cands[i] for i in order], kept, set(), n)
    return kept


def _multivariate_queries(
    coded: Coded, v_syn: np.ndarray, n: int, n_cols: int, max_attempts: int | None,
    rng: np.random.Generator,
) -> list[Query]:  # fmt: skip
    p = len(coded.columns)
    num = np.asarray(coded.numeric)
    with np.errstate(all="ignore"):
        medians = np.array(
            [np.nanmedian(v_syn[:, j]) if num[j] and np.isfinite(v_syn[:, j]).any() else np.nan
             for j in range(p)]
        )  # fmt: skip
    by_name = np.argsort(np.asarray(coded.columns, dtype=object).astype(str), kind="stable")
    rank = np.empty(p, dtype=np.int64)
    rank[by_name] = np.arange(p)
    kept: list[Query] = []
    seen: set[Query] = set()
    attempts = idle = 0
    batch = _BATCH if max_attempts is None else min(_BATCH, max_attempts)
    n_syn = v_syn.shape[0]
    index = _Index(v_syn, coded.numeric)
    while len(kept) < n:
        if max_attempts is not None and attempts >= max_attempts:
            break
        rows = rng.integers(low=0, high=n_syn, size=batch)
        chosen = [rng.choice(p, size=n_cols, replace=False) for _ in range(batch)]
        cands = []
        for r, cs in zip(rows, chosen):
            terms = []
            for j in sorted(cs, key=lambda c: rank[c]):
                val = v_syn[r, j]
                if (num[j] and np.isnan(val)) or (not num[j] and val < 0):
                    terms.append((int(j), "isnull", 0.0))
                elif num[j]:
                    terms.append((int(j), "ge" if val > medians[j] else "le", float(val)))
                else:
                    terms.append((int(j), "eq", float(val)))
            cands.append(tuple(terms))
        before = len(kept)
        _keep_singling_out(index, cands, kept, seen, n)
        attempts += batch
        idle = 0 if len(kept) > before else idle + 1
        if idle >= _IDLE_BATCHES:  # the release holds no further singling-out query
            break
    return kept


def _random_queries(
    coded: Coded, v_syn: np.ndarray, n: int, n_cols: int, rng: np.random.Generator
) -> list[Query]:
    p = len(coded.columns)
    values: list[list[float | None]] = []
    for j, numeric in enumerate(coded.numeric):
        x = v_syn[:, j]
        miss = np.isnan(x) if numeric else x < 0
        vals: list[float | None] = [float(u) for u in np.unique(x[~miss])]
        if miss.any():
            vals.append(None)
        values.append(vals)
    out: list[Query] = []
    for _ in range(n):
        cs = rng.choice(p, size=min(n_cols, p), replace=False)
        terms = []
        for j in sorted(int(c) for c in cs):
            choices = values[j]
            val = choices[int(rng.integers(len(choices)))] if choices else None
            ops = _NUM_OPS if coded.numeric[j] else _CAT_OPS
            op = ops[int(rng.integers(len(ops)))]
            if val is None:
                terms.append((j, "isnull" if op == "eq" else "notnull", 0.0))
            else:
                terms.append((j, op, val))
        out.append(tuple(terms))
    return out


def _so_integral(n: np.ndarray, w: float) -> np.ndarray:
    """Integral over weights 0..w of n w' (1 - w')^(n - 1) (Cohen & Nissim 2020)."""
    return (1.0 - (n * w + 1.0) * (1.0 - w) ** n) / (n + 1.0)


def _size_correction(
    v_ctrl: np.ndarray, coded: Coded, queries: list[Query], n_conf: int,
    rng: np.random.Generator,
) -> float:  # fmt: skip
    n_c = v_ctrl.shape[0]
    try:
        return _fit_size_correction(v_ctrl, coded, queries, n_conf, rng, min(1000, n_c))
    except ConvergenceError:
        # anonymeter's sizes span [1000, n_c]: with a control set only a little larger than
        # 1000, or successes flat in the size, least squares wanders off; the same least
        # squares solved on a grid of w (for each w the best scale is closed-form) cannot
        return _fit_size_correction(v_ctrl, coded, queries, n_conf, rng, max(n_c // 10, 10),
                                    grid=True)


def _fit_size_correction(
    v_ctrl: np.ndarray, coded: Coded, queries: list[Query], n_conf: int,
    rng: np.random.Generator, smallest: int, grid: bool = False,
) -> float:  # fmt: skip
    from scipy.optimize import curve_fit

    n_c = v_ctrl.shape[0]
    sizes, successes = [], []
    for size in np.linspace(min(smallest, n_c), n_c, 10).astype(int):
        for _ in range(5):
            sub = v_ctrl[rng.choice(n_c, size=int(size), replace=False)]
            successes.append(_singles_out(_Index(sub, coded.numeric), queries))
            sizes.append(int(size))
    x = np.asarray(sizes, dtype=np.float64)
    y = np.asarray(successes, dtype=np.float64)

    def model(n: np.ndarray, w_eff: float, scale: float) -> np.ndarray:
        return scale * _so_integral(n, w_eff)

    if grid:
        best, popt_g = np.inf, (1.0, 0.0)
        for w in np.logspace(-8, 0, 801):
            g = _so_integral(x, float(w))
            gg = float(g @ g)
            if gg <= 0:
                continue
            scale = max(float(g @ y) / gg, 0.0)
            sse = float(np.sum((y - scale * g) ** 2))
            if sse < best:
                best, popt_g = sse, (float(w), scale)
        den = float(model(np.array([float(n_c)]), *popt_g)[0])
        return 1.0 if den <= 0 else float(model(np.array([float(n_conf)]), *popt_g)[0]) / den
    w0 = 1.0 / x.max()
    p0 = (w0, 1.0 / float(_so_integral(np.array([x.max()]), w0)[0]))
    try:
        popt, _ = curve_fit(model, x, y, p0=p0, bounds=(0, (1, np.inf)))
    except (RuntimeError, ValueError) as exc:
        raise ConvergenceError(
            "singling_out: the control-size correction could not be fitted; give a control "
            "set of the same size as the confidential data"
        ) from exc
    den = float(model(np.array([float(n_c)]), *popt)[0])
    if den <= 0:
        return 1.0
    return float(model(np.array([float(n_conf)]), *popt)[0]) / den
