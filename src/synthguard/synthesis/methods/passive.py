"""``passive``: a column that is a function of columns synthesized before it.

A derived column (a recode, a sum, a ratio, a code of a label) is not modelled: it is computed
from the synthetic values of the columns it derives from, so it stays exactly consistent with
them in the release (synthpop's ``passive`` method, given as ``"~ formula"``; Nowok, Raab &
Dibben 2016, sec. 3.3).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import check_weights
from synthguard.synthesis.methods.columns import ColumnsMethod, GroupKeys, split_names
from synthguard.synthesis.registry import register_method

__all__ = ["MAX_CUT_DISAGREEMENT", "PassiveMethod"]

#: Largest share of records whose value may differ from their bin's (``breaks``; checked).
MAX_CUT_DISAGREEMENT = 0.01

_ASSIGN = re.compile(r"^\s*`?[^`=]+`?\s*=(?!=)")


def _clean_formula(formula: str) -> str:
    """``"y = a + b"``, ``"~ I(a + b)"`` and ``"a + b"`` all mean the expression ``a + b``."""
    text = formula.strip()
    if text.startswith("~"):
        text = text[1:].strip()
        m = re.fullmatch(r"I\((.*)\)", text, re.S)
        if m:
            text = m.group(1)
    return _ASSIGN.sub("", text, count=1).strip()


@register_method("passive")
class PassiveMethod(ColumnsMethod):
    """A column computed from columns synthesized (or kept) before it, never modelled.

    Give exactly one of

    * ``of="a"`` or ``of="a+b"``: the column is a function of these columns, read from the
      confidential data as a lookup table (each combination of their values maps to the one
      value the column takes with it). :meth:`fit` refuses a column that is not such a
      function (two records sharing the combination and differing in the column). Adult's
      ``education_num`` is ``passive:of=education``.
    * ``of="age", breaks="24.5,34.5,44.5,59.5,64.5"``: the column is an interval binning of
      one numeric column (an age group of an age; R's ``cut(age, breaks)``, which synthpop's
      SD2011 example uses for ``agegr``). A value ``x`` falls in bin ``i``, the number of
      break points below it (intervals closed on the right, ``(b_i, b_{i+1}]``, as ``cut``),
      a missing ``x`` in a bin of its own; each bin releases the level (or value) most of
      its confidential records hold. :meth:`fit` refuses breaks that the data contradict in
      more than 1% of the records (:data:`MAX_CUT_DISAGREEMENT`); a record whose level is
      missing though its source value is known takes its bin's level in the release.
      ``synthguard init`` proposes such breaks (see
      :func:`~synthguard.synthesis.dependencies.interval_binnings`).
    * ``formula="log(income) - log(hours)"``: an expression of the predictor columns,
      evaluated by :meth:`pandas.DataFrame.eval` (arithmetic, comparisons, ``log``, ``exp``,
      ``sqrt``, ``abs``, ...; column names with spaces in backticks). ``"y = expr"`` and
      synthpop's ``"~ I(expr)"`` are read as ``expr``.
    * ``func=callable`` (Python only): ``func(frame)`` returns one value per row of ``frame``,
      the predictor columns with categorical ones as pandas ``Categorical`` of their levels.
      A synthesizer saved with a ``func`` needs it importable (a module-level function, not a
      lambda).

    With ``formula`` or ``func`` and ``check=True`` (default), :meth:`fit` checks that the
    expression reproduces the confidential column (numbers to a relative 1e-9, NaN where NaN),
    so a wrong formula is caught before it is released. A categorical column's expression
    gives its labels; each label the expression gives in the data is mapped to the code of the
    level it goes with, and a label never seen in the data raises in :meth:`draw`.

    Weights do not change a passive column (it is not estimated). Missing values follow the
    definition: a lookup reproduces the column's missing values, an expression gives NaN where
    it does.

    Parameters
    ----------
    of : str or list of str, optional
        The columns the lookup reads.
    breaks : str or list of float, optional
        With ``of`` naming one numeric column: the break points of its binning, increasing
        (text joined by ``,``, as plans and the command line write them).
    formula : str, optional
        The expression.
    func : callable, optional
        The function of the predictor frame.
    check : bool, default True
        Refuse a formula or function that does not reproduce the confidential column.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthguard.synthesis.methods import PassiveMethod
    >>> X = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    >>> m = PassiveMethod(formula="2 * a + 1").fit(X, np.array([3.0, 5.0, 7.0]))
    >>> m.draw(pd.DataFrame({"a": [10.0]}), np.random.default_rng(0)).tolist()
    [21.0]
    """

    supports_weights = True
    #: computed from released columns: the synthesizer never tail-codes it on its own
    derived: ClassVar[bool] = True

    def __init__(
        self,
        *,
        of: str | list[str] | None = None,
        breaks: str | list[float] | None = None,
        formula: str | None = None,
        func: Callable[[pd.DataFrame], Any] | None = None,
        check: bool = True,
    ) -> None:
        self.of = of
        self.breaks = breaks
        self.formula = formula
        self.func = func
        self.check = check

    # -------------------------------------------------------------------- helpers

    def _mode(self) -> str:
        given = [k for k in ("of", "formula", "func") if getattr(self, k) is not None]
        if len(given) != 1:
            raise MethodError(
                "method 'passive': give exactly one of 'of' (the columns it is a function of, "
                "e.g. 'passive:of=education'), 'formula' (e.g. 'passive:formula=a + b') or "
                "'func' (a Python function of the predictor frame)"
            )
        if getattr(self, "breaks", None) is not None and given[0] != "of":
            raise MethodError("method 'passive': 'breaks' bins the column named by 'of', e.g. "
                              "'passive:of=age:breaks=24.5,34.5'")
        if given[0] == "formula" and not isinstance(self.formula, str):
            raise MethodError("method 'passive': 'formula' must be text, e.g. 'a + b'")
        if given[0] == "func" and not callable(self.func):
            raise MethodError("method 'passive': 'func' must be callable, func(frame) -> values")
        return given[0]

    def _evaluate(self, X: pd.DataFrame) -> np.ndarray:
        try:
            if self.func is not None:
                out = self.func(X.copy())
            else:
                out = X.eval(_clean_formula(str(self.formula)), engine="python")
        except Exception as e:  # the user's expression: say which, not what the data hold
            raise MethodError(
                f"method 'passive': evaluating the {'function' if self.func else 'formula'} "
                f"failed ({type(e).__name__}); it may name only columns synthesized or kept "
                f"before this one"
            ) from None
        values = np.asarray(getattr(out, "to_numpy", lambda: out)(), dtype=object).ravel() \
            if not np.isscalar(out) else np.full(len(X), out, dtype=object)
        if values.shape != (len(X),):
            raise MethodError(
                "method 'passive': the formula or function must give one value per record"
            )
        return values

    # -------------------------------------------------------------------- fit / draw

    def fit(
        self, X: Any, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> PassiveMethod:
        """Learn the lookup (``of``) or check the expression against the confidential column."""
        mode = self._mode()
        y = np.asarray(y)
        self.categorical_ = bool(y.dtype == bool or np.issubdtype(y.dtype, np.integer))
        check_weights(self.name, weights, len(y), self.supports_weights)
        if mode == "of" and getattr(self, "breaks", None) is not None:
            return self._fit_cut(X, y)
        if mode == "of":
            names = split_names(self.of, "of", self.name)
            X = self._check_frame(X, names)
            keys = GroupKeys(X, names)
            k = keys(X)
            order = np.argsort(k, kind="stable")
            ks, ys = k[order], y[order]
            first = np.r_[True, ks[1:] != ks[:-1]]
            start = np.flatnonzero(first)
            same = ys == np.repeat(ys[start], np.diff(np.r_[start, len(ys)]))
            if not self.categorical_:
                same |= np.isnan(ys) & np.repeat(np.isnan(ys[start]), np.diff(np.r_[start, len(ys)]))
            if not same.all():
                raise MethodError(
                    f"method 'passive': the column is not a function of "
                    f"{', '.join(repr(c) for c in names)} in the data (records sharing their "
                    f"values differ in it); use 'nested:parent=...' or a model such as 'cart'"
                )
            self.names_ = names
            self.keys_ = keys
            self.lookup_keys_ = ks[start]
            self.lookup_values_ = ys[start].copy()
            self.fitted_ = True
            return self
        X = self._check_frame(X, [])
        values = self._evaluate(X)
        if self.categorical_:
            labels = pd.Series(values, dtype=object)
            pairs = pd.DataFrame({"label": labels.astype(str).where(labels.notna(), None),
                                  "code": y})
            per_label = pairs.drop_duplicates()
            if per_label["label"].duplicated().any():
                raise MethodError(
                    "method 'passive': the formula or function gives the same label to records "
                    "of different levels of the column; it does not define this column"
                )
            self.label_codes_ = dict(zip(per_label["label"], per_label["code"].astype(np.int64)))
        else:
            got = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=np.float64)
            if self.check:
                yv = np.asarray(y, dtype=np.float64)
                ok = np.isclose(got, yv, rtol=1e-9, atol=0.0, equal_nan=True)
                if not ok.all():
                    raise MethodError(
                        "method 'passive': the formula or function does not reproduce the "
                        "column in the data (it differs in some records); fix it, or pass "
                        "check=False to release it as defined"
                    )
        self.fitted_ = True
        return self

    def _cut_points(self) -> np.ndarray:
        raw = self.breaks
        try:
            parts = [p for p in raw.split(",")] if isinstance(raw, str) else list(raw)  # type: ignore[arg-type]
            b = np.array([float(p) for p in parts], dtype=np.float64)
        except (TypeError, ValueError):
            b = np.array([np.nan])
        if len(b) == 0 or not np.all(np.isfinite(b)) or np.any(np.diff(b) <= 0):
            raise MethodError(
                "method 'passive': 'breaks' must be increasing numbers, e.g. "
                "'breaks=24.5,34.5,44.5'"
            )
        return b

    def _bins(self, X: pd.DataFrame) -> np.ndarray:
        """Bin of each row: the number of break points below its value (missing: -1)."""
        x = X[self.names_[0]].to_numpy(dtype=np.float64)
        out = np.searchsorted(self.breaks_, x, side="left").astype(np.int64)
        out[np.isnan(x)] = -1
        return out

    def _fit_cut(self, X: Any, y: np.ndarray) -> PassiveMethod:
        """Each bin's most frequent value of ``y`` (``breaks``; see the class docstring)."""
        names = split_names(self.of, "of", self.name)
        if len(names) != 1:
            raise MethodError("method 'passive': 'breaks' bins one column; give 'of=<column>'")
        X = self._check_frame(X, names)
        if isinstance(X[names[0]].dtype, pd.CategoricalDtype):
            raise MethodError(
                f"method 'passive': 'breaks' bins a numeric column; {names[0]!r} is categorical"
            )
        self.names_ = names
        self.breaks_ = self._cut_points()
        k = self._bins(X)
        # modal value per bin: count the distinct (bin, value) pairs, NaN one value
        yv = pd.Series(y)
        pairs = pd.DataFrame({"k": k, "y": yv}).value_counts(dropna=False).reset_index()
        pairs = pairs.sort_values(["k", "count"], ascending=[True, False], kind="stable")
        first = pairs.drop_duplicates("k")
        disagree = len(y) - int(first["count"].sum())
        if self.check and disagree > MAX_CUT_DISAGREEMENT * len(y):
            raise MethodError(
                f"method 'passive': the column is not a binning of {names[0]!r} at these "
                f"breaks (more than {MAX_CUT_DISAGREEMENT:.0%} of the records fall in a bin "
                f"of another value); check the breaks, or model the column"
            )
        self.lookup_keys_ = first["k"].to_numpy(dtype=np.int64)
        self.lookup_values_ = first["y"].to_numpy(dtype=y.dtype if self.categorical_
                                                   else np.float64)
        self.fitted_ = True
        return self

    @property
    def sources_(self) -> tuple[str, ...]:
        """The columns whose drawn values must be values of the data: with ``of`` the lookup
        table is keyed on them, so a smoothed or redrawn value would have no entry; a formula
        or function evaluates any value, and so do ``breaks`` (every value has a bin), so
        they need none."""
        self._check_fitted("fitted_")
        if getattr(self, "breaks_", None) is not None:
            return ()
        return tuple(self.names_) if self.of is not None else ()

    def draw(self, X: Any, rng: np.random.Generator) -> np.ndarray:
        """The column's value for each row of ``X`` (no randomness is used)."""
        self._check_fitted("fitted_")
        check_random_state(rng)
        if self.of is not None:
            X = self._check_frame(X, self.names_)
            cut = getattr(self, "breaks_", None) is not None
            k = self._bins(X) if cut else self.keys_(X)
            pos = np.searchsorted(self.lookup_keys_, k)
            pos = np.minimum(pos, len(self.lookup_keys_) - 1)
            hit = self.lookup_keys_[pos] == k
            if not hit.all():
                raise MethodError(
                    f"method 'passive': some drawn combinations of "
                    f"{', '.join(repr(c) for c in self.names_)} never occur in the data, so the "
                    f"column has no value for them; synthesize those columns jointly (e.g. "
                    f"'nested') or model this column"
                )
            out = self.lookup_values_[pos]
            return out.astype(np.int64) if self.categorical_ else out.astype(np.float64)
        X = self._check_frame(X, [])
        values = self._evaluate(X)
        if not self.categorical_:
            return np.array(pd.to_numeric(pd.Series(values), errors="coerce"), dtype=np.float64)
        labels = pd.Series(values, dtype=object)
        labels = labels.astype(str).where(labels.notna(), None)
        codes = labels.map(self.label_codes_)
        if codes.isna().any():
            raise MethodError(
                "method 'passive': the formula or function gave labels the column never takes "
                "in the data; a categorical passive column may only give its own levels"
            )
        return codes.to_numpy(dtype=np.int64)
