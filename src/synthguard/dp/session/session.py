"""Session: statistics on demand from a confidential file, within a budget, per privacy unit.

The curator model of the course (§6.2.2): a data steward answers queries against a fixed
budget, "a debit card with a set budget" rather than a limitless credit card. A session

* declares a privacy unit (a row, or an id column such as a household) and its contribution
  bounds, and bounds every query's data itself by seeded random truncation
  (:mod:`.bounding`) — the user never does;
* charges the unit-level cost of every query on its :class:`~synthguard.dp.PrivacyLedger`
  (persisted with ``ledger=`` a path, tamper-evident) **before** any noise is drawn, each line
  naming the unit it protects, and refuses a query that would overspend, saying what is left;
* states the noise and the (1 − α) interval half-width of each value before spending
  (:meth:`Session.plan`, ``dry_run=True``) and releases every value with its interval.

Missing values in an aggregation's column leave their rows out of that aggregation (its count
in a mean is the count of the values it averages). The rule reads one row at a time, so the
rows a unit keeps are a subset of its bounded rows and every sensitivity holds.

Budget split inside a query (sequential composition, Dwork & Roth 2014, Thm 3.16): declared
clamping-bound estimations take their declared ε first; private key selection takes a share as
if it were one more aggregation of weight 1; the rest is split over the aggregations in
proportion to their weights (default equal). With ``accuracy`` targets instead of ``epsilon``
each aggregation gets the ε its target needs (half-width = Δ ln(1/α)/ε solved for ε) and the
query costs their sum (a private key selection takes their mean more).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, check_random_state
from synthguard.data._backend import is_dask_collection
from synthguard.dp import _noise
from synthguard.dp.accountant import Budget, Charge, PrivacyLedger, _make_charge
from synthguard.dp.session.bounding import _ID, bound
from synthguard.dp.session.intervals import check_alpha
from synthguard.dp.session.measure import NoisePlan, measure, noise_plan, quantile_values
from synthguard.dp.session.publish import publish
from synthguard.dp.session.result import QueryResult
from synthguard.dp.session.selection import select_keys
from synthguard.dp.session.spec import Aggregation, parse_aggregations
from synthguard.dp.session.unit import ROW, PrivacyUnit
from synthguard.errors import DataError, ParameterError, PrivacyBudgetError

__all__ = ["Session"]

_TOL = 1e-12


class Session:
    """Differentially private statistics on demand, charged per privacy unit.

    Parameters
    ----------
    data : the confidential pandas DataFrame, or a Dask DataFrame: each unit is then bounded
        in its partition after a shuffle on the id, the statistics are exact tree sums and
        the noise is drawn once here (:mod:`synthguard.dp.session.dask`; count,
        count_distinct, sum, mean and variance over public keys).
    privacy_unit : ``None``/``"row"`` (one row per person) or the id column of the unit.
    max_rows : R, rows kept per unit (required for an id column).
    max_groups : G, groups of one query a unit may touch (default: no bound beyond R).
    max_rows_per_group : Rg, rows a unit may keep in one group (default R).
    epsilon, delta : the session's budget (unit level). ``delta`` > 0 is needed only for
        keys selected privately.
    ledger : a path (the ledger persists there and is restored from it; its budget must equal
        ``epsilon``/``delta``) or a :class:`PrivacyLedger`; default an in-memory ledger.
    random_state : seeds the random truncation of the bounding (not the noise).
    noise_random_state : SIMULATION ONLY: seeded numpy noise instead of OpenDP's samplers
        (emits a PrivacyWarning; never for releases).

    Examples
    --------
    >>> import pandas as pd
    >>> from synthguard.dp import Session
    >>> persons = pd.DataFrame({"hid": [1, 1, 2, 3, 3, 3], "sex": list("MFMFFM"),
    ...                         "hours": [40, 35, 50, 20, 45, 38]})
    >>> s = Session(persons, privacy_unit="hid", max_rows=3, epsilon=1.0)
    >>> r = s.query(by={"sex": ["M", "F"]}, aggregations={"n": "count"}, epsilon=0.5)
    >>> list(r.to_frame().columns)
    ['sex', 'n', 'n_lower', 'n_upper']
    >>> s.spent.epsilon
    0.5
    """

    def __init__(self, data: Any, *, privacy_unit: str | None = None,
                 max_rows: int | None = None, max_groups: int | None = None,
                 max_rows_per_group: int | None = None, epsilon: float, delta: float = 0.0,
                 ledger: str | os.PathLike[str] | PrivacyLedger | None = None,
                 random_state: RandomState = None,
                 noise_random_state: RandomState = None) -> None:
        self.is_dask = is_dask_collection(data)
        if not isinstance(data, pd.DataFrame) and not self.is_dask:
            raise ParameterError("parameter 'data': expected a pandas or Dask DataFrame")
        self.unit = PrivacyUnit.make(privacy_unit, max_rows, max_groups, max_rows_per_group)
        if not self.unit.is_row:
            if self.unit.column not in data.columns:
                raise DataError(f"privacy unit '{self.unit.column}': no such column; give the "
                                "id column of the unit, or privacy_unit='row'")
            missing = data[self.unit.column].isna().any()
            if self.is_dask:
                missing = missing.compute()
            if missing:
                raise DataError(f"privacy unit '{self.unit.column}': some rows have no id; a "
                                "row without a unit cannot be bounded: drop or fill them first")
        self.data = data
        if isinstance(ledger, PrivacyLedger):
            self.ledger = ledger
        else:
            self.ledger = PrivacyLedger(epsilon=epsilon, delta=delta, path=ledger)
        self._check_ledger_unit()
        self.random_state = random_state
        self._rng = check_random_state(random_state)
        self._noise_rs = noise_random_state
        self._noise_rng: np.random.Generator | None = None
        self._n_queries = 0

    # ----------------------------------------------------------------- budget
    def _check_ledger_unit(self) -> None:
        mine = self.unit.column
        for u in self.ledger.privacy_units:
            theirs = ROW if u is None else u
            if theirs != mine:
                raise ParameterError(
                    f"parameter 'ledger': it holds charges protecting unit '{theirs}', this "
                    f"session protects '{mine}'; amounts for different units do not add up: "
                    "use a ledger for this unit")

    @property
    def spent(self) -> Budget:
        """The unit-level (ε, δ) spent on the ledger so far."""
        return self.ledger.spent

    @property
    def remaining(self) -> Budget:
        return self.ledger.remaining

    # ----------------------------------------------------------------- planning
    def _keys(self, by: Any) -> tuple[list[str], pd.DataFrame | None]:
        """(key columns, public key frame or None when the keys are to be selected)."""
        if by is None:
            return [], pd.DataFrame(index=[0])
        if isinstance(by, str):
            by = [by]
        if isinstance(by, Mapping):
            cols = list(by)
            levels = []
            for c in cols:
                lv = list(by[c]) if not isinstance(by[c], str) else [by[c]]
                if not lv or len(set(map(str, lv))) != len(lv):
                    raise ParameterError(f"parameter 'by': column '{c}': expected a non-empty "
                                         "list of distinct public levels")
                levels.append(lv)
            grid = pd.MultiIndex.from_product(levels, names=cols).to_frame(index=False)
            for c in cols:
                self._column(c)
            return cols, grid
        if isinstance(by, Sequence) and by and all(isinstance(c, str) for c in by):
            cols = list(by)
            for c in cols:
                self._column(c)
            return cols, None
        raise ParameterError("parameter 'by': expected {column: [public levels]} or a list of "
                             "columns whose keys are selected privately")

    def _column(self, c: str) -> None:
        if c not in self.data.columns:
            raise DataError(f"column '{c}': not in the data")

    def _split(self, aggs: list[Aggregation], epsilon: float, private: bool,
               accuracy: Mapping[str, float] | None, alpha: float, k: int
               ) -> tuple[dict[str, float], float, float]:
        """(ε per aggregation, ε of the selection, ε of the bound estimations)."""
        est = math.fsum(a.estimate_epsilon for a in aggs if a.estimate is not None)
        if accuracy is not None:
            need = {}
            for a in aggs:
                if a.name not in accuracy:
                    raise ParameterError(f"parameter 'accuracy': no target for aggregation "
                                         f"'{a.name}'; give every aggregation a half-width")
                if a.kind not in ("count", "count_distinct", "sum") or (
                        a.kind == "sum" and a.bounds is None):
                    raise ParameterError(
                        f"parameter 'accuracy': aggregation '{a.name}' ({a.kind}): a target "
                        "half-width sets epsilon for count, count_distinct and sum with given "
                        "bounds; give the others an epsilon")
                target = float(accuracy[a.name])
                if not math.isfinite(target) or target <= 0:
                    raise ParameterError(f"parameter 'accuracy': '{a.name}': expected a "
                                         "half-width > 0")
                one = noise_plan(a, 1.0, self.unit, k, alpha)
                need[a.name] = one.halfwidth / target  # half-width ∝ 1/ε
            sel = (sum(need.values()) / len(need)) if private else 0.0
            return need, sel, est
        rest = epsilon - est
        if rest <= 0:
            raise ParameterError("parameter 'epsilon': the bound estimations ask for all of the "
                                 "query's epsilon or more; give the query more or them less")
        total_w = math.fsum(a.weight for a in aggs) + (1.0 if private else 0.0)
        shares = {a.name: rest * a.weight / total_w for a in aggs}
        return shares, (rest / total_w if private else 0.0), est

    def plan(self, *, by: Any = None, aggregations: Any, epsilon: float | None = None,
             alpha: float = 0.05, accuracy: Mapping[str, float] | None = None) -> pd.DataFrame:
        """What a query would spend and how accurate each value would be; spends nothing.

        One row per aggregation: its ε share, unit-level l1 sensitivity, Laplace scale(s) and
        the (1 − α) half-width (count, sum, count_distinct: exact; mean and variance: it
        depends on the group's size and is NaN here; quantile: ``rank_error`` rows).
        """
        return self._plan(by, aggregations, epsilon, alpha, accuracy)[0]

    def _plan(self, by: Any, aggregations: Any, epsilon: float | None, alpha: float,
              accuracy: Mapping[str, float] | None) -> tuple[pd.DataFrame, dict[str, Any]]:
        alpha = check_alpha(alpha)
        aggs = parse_aggregations(aggregations)
        for a in aggs:
            for col in a.columns:
                self._column(col)
                if not pd.api.types.is_numeric_dtype(self.data[col].dtype):
                    raise DataError(f"column '{col}': {a.kind} needs numeric values")
        cols, public = self._keys(by)
        private = public is None
        # k: the number of groups; for selected keys unknown, so G is bounded by R alone
        k = len(public) if public is not None else 10**9
        if (epsilon is None) == (accuracy is None):
            raise ParameterError("give the query 'epsilon' or 'accuracy' targets (half-width "
                                 "per aggregation), one of them")
        if epsilon is not None:
            epsilon = float(epsilon)
            if not math.isfinite(epsilon) or epsilon <= 0:
                raise ParameterError("parameter 'epsilon': expected a number > 0")
        shares, sel, est = self._split(aggs, epsilon or 0.0, private, accuracy, alpha, k)
        plans = [noise_plan(a, shares[a.name], self.unit, k, alpha) for a in aggs]
        total = math.fsum(shares.values()) + sel + est
        rows = [_plan_row(p) for p in plans]
        if private:
            rows.append({"aggregation": "(key selection)", "kind": "partition selection",
                         "epsilon": sel, "sensitivity": float(self.unit.groups(k))})
        for a in aggs:
            if a.estimate is not None:
                rows.append({"aggregation": f"({a.name} bounds)", "kind": "quantile estimate",
                             "epsilon": a.estimate_epsilon, "sensitivity": float(self.unit.max_rows)})
        frame = pd.DataFrame(rows)
        frame["privacy_unit"] = self.unit.describe()
        info = {"aggs": aggs, "cols": cols, "public": public, "k": k, "plans": plans,
                "selection_epsilon": sel, "epsilon": total, "alpha": alpha}
        return frame, info

    # ----------------------------------------------------------------- querying
    def query(self, *, by: Any = None, aggregations: Any, epsilon: float | None = None,
              alpha: float = 0.05, delta: float | None = None,
              accuracy: Mapping[str, float] | None = None, label: str | None = None,
              dry_run: bool = False, raw_noisy: bool = False) -> QueryResult:
        """Answer one query: one bounding pass, the ledger charged, then the noise.

        Parameters
        ----------
        by : ``{column: [public levels]}`` (every combination is a group, empty ones
            included), or a list of columns whose keys are selected privately (charged, needs
            ``delta``), or None (one group: the whole data).
        aggregations : name -> aggregation (:mod:`synthguard.dp.session.spec`).
        epsilon : the query's unit-level ε, split as the module docstring says.
        alpha : intervals are (1 − α) intervals for the noise.
        delta : δ of the private key selection (only with keys to select).
        accuracy : name -> target half-width, instead of ``epsilon``: the ε is computed.
        label : the query's name on the ledger (default ``query N``).
        dry_run : return the plan as a result with no values; spend nothing.
        raw_noisy : False (default) publishes counts as non-negative integers and clamps a
            sum whose bounds fix its sign, intervals clamped too (post-processing, no
            privacy cost, :mod:`synthguard.dp.session.publish`); True the raw noisy values.

        Raises
        ------
        PrivacyBudgetError
            The query would overspend; nothing is charged and no noise drawn.
        """
        frame_plan, info = self._plan(by, aggregations, epsilon, alpha, accuracy)
        private = info["public"] is None
        d = 0.0 if delta is None else float(delta)
        if private and not 0 < d < 1:
            raise ParameterError("parameter 'delta': keys selected privately (by=[columns]) "
                                 "need 0 < delta < 1, e.g. 1e-9; or give public keys "
                                 "by={column: [levels]}")
        if not private and d != 0:
            raise ParameterError("parameter 'delta': only a private key selection spends "
                                 "delta; leave it out with public keys")
        self._n_queries += 1
        label = label or f"query {self._n_queries}"
        eps_q = info["epsilon"]
        data = self._prepare(info)  # every check on the data before anything is charged
        if dry_run:
            return QueryResult(pd.DataFrame(), frame_plan, label, eps_q, d,
                               self.unit.describe(), info["alpha"], "none (dry run)",
                               "selected" if private else "public", raw_noisy=raw_noisy)
        self._charge(label, info, d)
        return self._answer(label, info, d, frame_plan, data, raw_noisy)

    def _charge(self, label: str, info: dict[str, Any], delta: float) -> None:
        eps_q = info["epsilon"]
        rem = self.ledger.remaining
        if eps_q > rem.epsilon * (1 + _TOL) + _TOL or delta > rem.delta * (1 + _TOL) + _TOL:
            raise PrivacyBudgetError(
                f"query '{label}' refused: it costs epsilon={eps_q:.6g}, delta={delta:.3g} per "
                f"{self.unit.column}, and only epsilon={rem.epsilon:.6g}, delta={rem.delta:.3g} "
                f"is left of the budget epsilon={self.ledger.epsilon:g}, "
                f"delta={self.ledger.delta:g}; nothing was spent: ask for less or stop")
        unit = self.unit.column
        bounds = self.unit.describe()
        lines: list[Charge] = []
        for a in info["aggs"]:
            if a.estimate is not None:
                lines.append(_make_charge(f"{label}: {a.name} bounds (DP quantiles)",
                                          a.estimate_epsilon, 0.0, 0.0, unit))
        if info["public"] is None:
            lines.append(_make_charge(f"{label}: key selection ({', '.join(info['cols'])})",
                                      info["selection_epsilon"], delta, 0.0, unit))
        for a, p in zip(info["aggs"], info["plans"]):
            lines.append(_make_charge(f"{label}: {a.name} = {a.describe()} [{bounds}]",
                                      p.epsilon, 0.0, 0.0, unit))
        self.ledger.put_many(lines)

    def _noise(self) -> np.random.Generator | None:
        if self._noise_rs is None:
            return None
        if self._noise_rng is None:
            self._noise_rng = _noise.resolve_noise(self._noise_rs, stacklevel=5)
        return self._noise_rng

    def _prepare(self, info: dict[str, Any]) -> pd.DataFrame:
        """The columns a query reads, its rows (public keys: those in the keys), checked."""
        cols: list[str] = info["cols"]
        public: pd.DataFrame | None = info["public"]
        aggs: list[Aggregation] = info["aggs"]
        needed = list(dict.fromkeys([*cols, *(c for a in aggs for c in a.columns)]
                                    + ([] if self.unit.is_row else [self.unit.column])))
        data = self.data[needed]
        if self.is_dask:
            from synthguard.dp.session.dask import check_dask_query

            check_dask_query(aggs, public)
            if public is not None and cols:
                data = data.map_partitions(_keep_keys, cols, public, meta=data._meta)
            return data
        if public is not None and cols:
            data = data[_in_keys(data, cols, public)]
        return data

    def _answer(self, label: str, info: dict[str, Any], delta: float,
                frame_plan: pd.DataFrame, data: pd.DataFrame,
                raw_noisy: bool = False) -> QueryResult:
        cols: list[str] = info["cols"]
        public: pd.DataFrame | None = info["public"]
        aggs: list[Aggregation] = info["aggs"]
        rng = self._noise()
        if self.is_dask:
            return self._answer_dask(label, info, delta, frame_plan, data, raw_noisy, rng)
        bounded = bound(data, self.unit, cols, self._rng)
        keys = public
        if keys is None:
            keys = select_keys(bounded, cols, _ID, info["selection_epsilon"], delta,
                               self.unit.groups(info["k"]), rng)
            bounded = bounded[_in_keys(bounded, cols, keys)]
        k = len(keys)
        codes = _codes(bounded, cols, keys)
        units = bounded[_ID].to_numpy()
        out = keys.reset_index(drop=True).copy() if cols else pd.DataFrame(index=range(1))
        plans: list[NoisePlan] = []
        used_bounds: dict[str, Any] = {}
        for a, p in zip(aggs, info["plans"]):
            if a.kind == "regression":
                self._regression(out, a, p, bounded, codes, k, info["alpha"], rng)
                plans.append(p)
                continue
            x = None if a.column is None else bounded[a.column].to_numpy(dtype=float)
            c_a, u_a = codes, units
            if x is not None:  # missing values are left out of this aggregation (row-wise)
                keep = ~np.isnan(x)
                x, c_a, u_a = x[keep], codes[keep], units[keep]
            b = a.bounds
            if a.estimate is not None:
                assert x is not None
                b = _estimate_bounds(x, a, self.unit.max_rows, rng)
                p = noise_plan(a, p.epsilon, self.unit, info["k"], info["alpha"], b)
            used_bounds[a.name] = None if b is None else [float(b[0]), float(b[1])]
            plans.append(p)
            m = measure(a, p, c_a, u_a, x, k, info["alpha"], b, rng)
            value, lower, upper = publish(a, m.value, m.lower, m.upper, b, raw_noisy)
            out[a.name] = value
            out[f"{a.name}_lower"] = lower
            out[f"{a.name}_upper"] = upper
        if any(a.estimate is not None for a in aggs):
            rows = [_plan_row(p) for p in plans]
            frame_plan = pd.concat([pd.DataFrame(rows), frame_plan.iloc[len(plans):]],
                                   ignore_index=True)
            frame_plan["privacy_unit"] = self.unit.describe()
        return QueryResult(out, frame_plan, label, info["epsilon"], delta, self.unit.describe(),
                           info["alpha"], _noise.noise_source(self._noise_rs),
                           "selected" if public is None else "public", used_bounds,
                           raw_noisy=raw_noisy)

    def _answer_dask(self, label: str, info: dict[str, Any], delta: float,
                     frame_plan: pd.DataFrame, data: Any, raw_noisy: bool,
                     rng: np.random.Generator | None) -> QueryResult:
        from synthguard.dp.session.bounding import salts
        from synthguard.dp.session.dask import dask_sums
        from synthguard.dp.session.measure import release

        cols: list[str] = info["cols"]
        keys: pd.DataFrame = info["public"]
        aggs: list[Aggregation] = info["aggs"]
        k = len(keys)
        sums = dask_sums(data, self.unit, cols, keys, aggs, salts(self._rng))
        out = keys.reset_index(drop=True).copy() if cols else pd.DataFrame(index=range(1))
        for a, p in zip(aggs, info["plans"]):
            m = release(a, p, sums[a.name], k, info["alpha"], a.bounds, rng)
            value, lower, upper = publish(a, m.value, m.lower, m.upper, a.bounds, raw_noisy)
            out[a.name] = value
            out[f"{a.name}_lower"] = lower
            out[f"{a.name}_upper"] = upper
        return QueryResult(out, frame_plan, label, info["epsilon"], delta, self.unit.describe(),
                           info["alpha"], _noise.noise_source(self._noise_rs), "public",
                           {a.name: None if a.bounds is None else list(map(float, a.bounds))
                            for a in aggs}, raw_noisy=raw_noisy)

    @staticmethod
    def _regression(out: pd.DataFrame, a: Aggregation, p: NoisePlan, bounded: pd.DataFrame,
                    codes: np.ndarray, k: int, alpha: float,
                    rng: np.random.Generator | None) -> None:
        """Columns ``<name>_<term>`` (and ``_lower``/``_upper``) of a regression, per group."""
        from synthguard.dp.session.regression import regression_values

        z = bounded[list(a.columns)].to_numpy(dtype=float)
        keep = ~np.isnan(z).any(axis=1)  # rows missing any of its columns are left out
        z, c_a = z[keep], codes[keep]
        res = [regression_values(z[c_a == g, :-1], z[c_a == g, -1], list(a.all_bounds),
                                 np.array(list(p.scales.values())), alpha, rng)
               for g in range(k)]
        for j, term in enumerate(a.terms):
            col = f"{a.name}_{term}"
            out[col] = [r[0][j] for r in res]
            out[f"{col}_lower"] = [r[1][j] for r in res]
            out[f"{col}_upper"] = [r[2][j] for r in res]

    def __repr__(self) -> str:
        s = self.spent
        return (f"Session(privacy_unit={self.unit.describe()!r}, budget epsilon="
                f"{self.ledger.epsilon:g}, spent epsilon={s.epsilon:.6g})")


def _plan_row(p: NoisePlan) -> dict[str, Any]:
    return {"aggregation": p.name, "kind": p.kind, "epsilon": p.epsilon,
            "sensitivity": p.sensitivity,
            "noise_scale": "; ".join(f"{k}={v:.4g}" for k, v in p.scales.items()),
            "halfwidth": p.halfwidth, "rank_error": p.rank_error}


def _keep_keys(data: pd.DataFrame, cols: list[str], keys: pd.DataFrame) -> pd.DataFrame:
    return data[_in_keys(data, cols, keys)]


def _in_keys(data: pd.DataFrame, cols: list[str], keys: pd.DataFrame) -> np.ndarray:
    if not cols:
        return np.ones(len(data), dtype=bool)
    return _codes(data, cols, keys, strict=False) >= 0


def _codes(data: pd.DataFrame, cols: list[str], keys: pd.DataFrame, *,
           strict: bool = True) -> np.ndarray:
    """Position of each row's key in ``keys`` (−1 when absent); levels compared as text.

    Each column is coded against its levels in ``keys`` and the codes combined in mixed
    radix, so no per-row tuple is built."""
    if not cols:
        return np.zeros(len(data), dtype=np.int64)
    row_code = np.zeros(len(data), dtype=np.int64)
    key_code = np.zeros(len(keys), dtype=np.int64)
    missing = np.zeros(len(data), dtype=bool)
    for c in cols:
        kt = _as_text(keys[c])
        levels = pd.Index(pd.unique(kt))
        kc = levels.get_indexer(pd.Index(kt))
        col = data[c]
        # the distinct values as text, then every row through its value's code: one pass
        vc, uniq = pd.factorize(col, use_na_sentinel=True)
        lut = levels.get_indexer(pd.Index(_as_text(pd.Series(uniq, dtype=col.dtype))))
        rc = np.where(vc >= 0, lut[np.maximum(vc, 0)] if len(lut) else -1, -1)
        missing |= (rc < 0) | col.isna().to_numpy()
        row_code = row_code * len(levels) + np.maximum(rc, 0)
        key_code = key_code * len(levels) + kc
    codes = pd.Index(key_code).get_indexer(pd.Index(row_code))
    codes[missing] = -1
    if strict and (codes < 0).any():  # pragma: no cover - rows are filtered first
        raise DataError("a row's key is not among the query's keys")
    return np.asarray(codes, dtype=np.int64)


def _as_text(values: pd.Series) -> pd.Series:
    """Levels as text, a whole float written as an integer: a code column read as floats
    (missing values among its codes) matches the integer levels a user declares."""
    if pd.api.types.is_float_dtype(values):
        return values.map(lambda v: str(int(v)) if pd.notna(v) and float(v).is_integer()
                          else str(v))
    return values.astype(str)


def _estimate_bounds(x: np.ndarray, a: Aggregation, max_rows: int,
                     rng: np.random.Generator | None) -> tuple[float, float]:
    """DP 1st and 99th percentiles of ``x`` in the declared range, ε/2 each; a unit's R rows
    make each one's loss R times its per-row ε (group privacy)."""
    assert a.estimate is not None
    e_row = a.estimate_epsilon / 2.0 / max_rows
    codes = np.zeros(x.size, dtype=np.int64)
    lo = float(quantile_values(x, codes, 1, 0.01, a.estimate, e_row, rng)[0])
    hi = float(quantile_values(x, codes, 1, 0.99, a.estimate, e_row, rng)[0])
    if not lo < hi:
        lo, hi = a.estimate
    return lo, hi
