"""Disclosure rules for everything the report prints or draws.

A report goes to a release board and often further; it must never carry a
confidential value. The rules, applied to every number, label and figure built
from the confidential data:

* **statistics are rounded** to a few significant figures (:func:`round_sig`), so
  a mean or a percentile cannot be inverted back into a record's value;
* **extremes appear as ranges**, never as values (:func:`value_range`), as Hu,
  Savitsky & Williams' Table 2 shows the family-income range of the riskiest
  records instead of their incomes; a record's range is never narrower than a floor
  (the wider of 10% of the column's interquartile range and the data's rounding unit)
  and records in the outer 1% (or the outer ``min_cell`` records of a small column)
  are pooled as "bottom 1%" / "top 1%" (:func:`record_range`);
* **moments are winsorised**: means and standard deviations are of the values clipped
  at the same rounded quantiles the histograms use, which have ``min_cell`` records
  beyond them (:func:`winsorised_moments`), so one extreme record cannot be recovered
  from a printed sd and n (an sd of 1,420,000 over 3,000 records is not an outlier of
  77,777,777 times √3000);
* **small cells are suppressed** (:class:`Redactor`): a category level held by fewer
  than ``min_cell`` confidential records is never named (its label is replaced by
  ``"(suppressed)"``) and its count is shown as ``"< min_cell"``;
* **figures of confidential distributions** are binned between rounded quantiles
  (values beyond them fall into open-ended edge bins), ECDFs are evaluated on a
  grid rather than at data points, and no scatter of raw confidential values is
  drawn (see :mod:`synthguard.report.figures`);
* **error messages** of foreign libraries may quote data values, so only the
  exception type of a non-synthguard error is reported (:func:`safe_error`); every
  note and error printed passes :meth:`Redactor.text`, which withholds any small
  category level it names (a regression term such as ``C(country)[T.<level>]``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema
from synthguard.errors import safe_error  # re-exported: the report's rules name it

__all__ = [
    "SUPPRESSED",
    "Redactor",
    "format_number",
    "record_range",
    "round_sig",
    "rounding_unit",
    "safe_error",
    "tail_bounds",
    "value_range",
    "winsorised_moments",
]

SUPPRESSED = "(suppressed)"


def round_sig(x: float, digits: int = 3) -> float:
    """``x`` rounded to ``digits`` significant figures (NaN and 0 pass through)."""
    if x is None or not np.isfinite(x) or x == 0:
        return float(x) if x is not None else math.nan
    return float(round(x, digits - 1 - math.floor(math.log10(abs(x)))))


def format_number(x: Any, digits: int = 3) -> str:
    """A statistic for print: rounded to ``digits`` significant figures, thousands separated.

    Integers below ``10**digits`` print exactly; larger magnitudes lose their trailing digits
    (987654.321 → ``"988,000"``). Missing values print as an en dash.
    """
    if x is None:
        return "–"
    if isinstance(x, bool | np.bool_):
        return "yes" if x else "no"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not np.isfinite(v):
        return "–"
    r = round_sig(v, digits)
    if r == 0:
        return "0"
    if abs(r) >= 10 ** (digits - 1):
        return f"{r:,.0f}"
    if abs(r) < 1e-3:
        return f"{r:.{digits - 1}e}"
    decimals = digits - 1 - math.floor(math.log10(abs(r)))
    return f"{r:.{max(decimals, 0)}f}"


def _nice_floor(x: float) -> float:
    """The largest 1-, 2- or 5-times power of ten not above ``|x|`` (with the sign of ``x``)."""
    if x == 0 or not np.isfinite(x):
        return 0.0
    mag = 10.0 ** math.floor(math.log10(abs(x)))
    for step in (5.0, 2.0, 1.0):
        if abs(x) >= step * mag:
            return math.copysign(step * mag, x)
    return math.copysign(mag, x)  # pragma: no cover - unreachable


def value_range(x: float) -> str:
    """A coarse range holding ``x`` for print instead of the value itself.

    The range runs between consecutive "nice" numbers of the 1–2–5 sequence
    (…, 50,000, 100,000, 200,000, 500,000, …): 987654.321 → ``"500,000 – 1,000,000"``.
    Negative values mirror it; 0 prints as ``"0"``.
    """
    if x is None or not np.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    lo = _nice_floor(abs(x))
    mag = 10.0 ** math.floor(math.log10(lo))
    unit = lo / mag
    hi = {1.0: 2.0, 2.0: 5.0, 5.0: 10.0}.get(round(unit), 10.0) * mag
    a, b = (lo, hi) if x > 0 else (-hi, -lo)
    return f"{format_number(a, 3)} – {format_number(b, 3)}"


def _nice_ceil(x: float) -> float:
    """The smallest 1-, 2- or 5-times power of ten not below ``x > 0``."""
    mag = 10.0 ** math.floor(math.log10(x))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * mag >= x * (1 - 1e-12):
            return step * mag
    return 10.0 * mag  # pragma: no cover - unreachable


def rounding_unit(values: np.ndarray, max_values: int = 20_000) -> float:
    """The data's resolution: the largest power of ten (10⁻⁶ … 10¹⁵) of which every value is
    a multiple (1 for whole dollars, 0.01 for cents, 1,000 for incomes rounded to thousands).

    Looked at on the first ``max_values`` finite values (the unit only widens a range)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)][:max_values]
    v = v[v != 0]
    if v.size == 0:
        return 1.0
    unit = 1e-6
    for k in range(-6, 16):
        step = 10.0 ** k
        q = v / step
        if np.all(np.abs(q - np.round(q)) <= 1e-6 * np.maximum(1.0, np.abs(q))):
            unit = step
        else:
            break
    return unit


def tail_bounds(values: np.ndarray, min_cell: int = 10, digits: int = 2
                ) -> tuple[float, float, float]:
    """The rounded quantiles ``(lo, hi)`` beyond which values count as extreme, and the tail
    share ``p`` they cut: ``p = max(1%, min_cell / n)`` on each side, so at least ``min_cell``
    records lie beyond each bound; the quantiles are rounded to ``digits`` significant figures,
    or to as many more as keep two different quantiles apart (years 2007 and 2009 are not
    both 2,000).

    The same bounds make the histograms' edges (:mod:`synthguard.report.figures`), clip the
    printed moments (:func:`winsorised_moments`) and pool extreme records
    (:func:`record_range`). Returns NaNs when fewer than ``2 * min_cell`` finite values.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    n = v.size
    p = max(0.01, min_cell / max(n, 1))
    if n < 2 * min_cell or p >= 0.5:
        return math.nan, math.nan, p
    lo, hi = rounded_quantiles(v, [p, 1 - p], digits=digits)
    raw_lo, raw_hi = np.quantile(v, [p, 1 - p])
    # a column far from zero (years 2007-2009) rounds both bounds to one number and would
    # print every value as that number: add digits until the bounds part as the data's do
    while lo == hi and raw_lo < raw_hi and digits < 8:
        digits += 1
        lo, hi = rounded_quantiles(v, [p, 1 - p], digits=digits)
    return float(lo), float(hi), p


def winsorised_moments(values: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """Mean and sample sd (ddof 1) of ``values`` clipped to ``[lo, hi]`` (winsorised).

    Clipping at :func:`tail_bounds` caps what one record adds: with ``n`` values, a record
    moves the mean by at most ``(hi - lo) / n`` and cannot be recovered from the sd times
    √n, because at least ``min_cell`` records sit at each bound (Dixon 1960's winsorised
    mean). NaN when the bounds are NaN or fewer than two values are finite.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size < 2 or not (np.isfinite(lo) and np.isfinite(hi)):
        return math.nan, math.nan
    c = np.clip(v, lo, hi)
    return float(c.mean()), float(c.std(ddof=1))


def record_range(x: float, values: np.ndarray, *, min_cell: int = 10) -> str:
    """The range printed for one confidential record's value ``x`` of a numeric column.

    * a value below (above) the column's rounded lower (upper) tail bound
      (:func:`tail_bounds`) prints as ``"bottom 1%"`` (``"top 1%"``; the share is the tail
      share ``p``, at least ``min_cell`` records), never as a range that names its size;
    * otherwise the 1–2–5 range of :func:`value_range`, widened when narrower than the floor
      ``max(IQR / 10, 2 · unit)`` (IQR the column's interquartile range, unit its
      :func:`rounding_unit`; two units, so that a range of a whole-number column always holds
      at least two possible values) to the cell of a grid of width ``W`` — the smallest 1–2–5
      number not below the floor — that holds ``x``: ``"2.00 – 5.00"`` for an income of 3 in
      a column whose IQR is 50,000 becomes ``"bottom 1%"`` (or ``"0 – 5,000"`` when 3 is not
      in the bottom tail).

    Ranges include their lower end and exclude their upper end.
    """
    if x is None or not np.isfinite(x):
        return "–"
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    lo_b, hi_b, p = tail_bounds(v, min_cell)
    pct = f"{round_sig(100 * p, 2):g}%"
    if not np.isfinite(lo_b):
        return "(withheld: too few values)"
    if x < lo_b:
        return f"bottom {pct}"
    if x > hi_b:
        return f"top {pct}"
    q1, q3 = np.quantile(v, [0.25, 0.75])
    unit = rounding_unit(v)
    floor = max(0.1 * float(q3 - q1), 2.0 * unit)
    if x == 0:
        a, b = 0.0, 0.0
    else:
        text = value_range(x)
        a, b = (float(t.replace(",", "")) for t in text.rsplit(" – ", 1))
    if b - a < floor:
        w = _nice_ceil(floor)
        a = math.floor(x / w) * w
        b = a + w
    return f"{_edge_text(a, unit)} – {_edge_text(b, unit)}"


def _edge_text(x: float, unit: float) -> str:
    """A range end: whole numbers of a whole-number column without decimals (``"2"``, not
    ``"2.00"``), others as :func:`format_number`."""
    if unit >= 1 and float(x).is_integer():
        return f"{x:,.0f}"
    return format_number(x, 3)


@dataclass(frozen=True)
class Redactor:
    """Which category labels of the confidential data may be printed.

    A level held by fewer than ``min_cell`` confidential records (in any of the frames
    given, e.g. training data and holdout) is *unsafe*: it is never named, and any
    text containing it (a regression term such as ``C(region)[T.<level>]``, a one-hot
    column name) is replaced as a whole.

    Build one with :meth:`from_data`.
    """

    min_cell: int = 10
    unsafe: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_data(
        cls,
        frames: Iterable[pd.DataFrame],
        schema: Schema | None = None,
        *,
        min_cell: int = 10,
    ) -> Redactor:
        """Collect the unsafe levels of every categorical column of ``frames``.

        Categorical columns are those the schema calls categorical, ordinal or binary, plus
        any text column (a label is text whatever the schema says).
        """
        unsafe: set[str] = set()
        for df in frames:
            for name in df.columns:
                s = df[name]
                is_cat = (schema is not None and name in schema and schema[name].is_categorical)
                is_text = isinstance(s.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(
                    s.dtype
                )
                if not (is_cat or is_text):
                    continue
                counts = s.astype("object").value_counts(dropna=True)
                unsafe.update(str(v) for v, c in counts.items() if c < min_cell)
                if isinstance(s.dtype, pd.CategoricalDtype):
                    # declared levels with no record at all are also a "small cell"
                    unsafe.update(str(v) for v in s.cat.categories if v not in counts.index)
        return cls(min_cell=min_cell, unsafe=frozenset(unsafe))

    def is_safe(self, label: Any) -> bool:
        return str(label) not in self.unsafe

    def label(self, text: Any) -> str:
        """``text`` if it names no unsafe level, else ``"(suppressed)"``.

        A text containing an unsafe level of four or more characters is replaced whole;
        shorter levels (codes such as ``"5"``) only when they are the whole text or a
        bracketed/``=``-separated part of it, so column names are not mangled.
        """
        s = str(text)
        if s in self.unsafe:
            return SUPPRESSED
        for level in self.unsafe:
            if len(level) >= 4 and level in s:
                return SUPPRESSED
            if level and any(
                s.endswith(suffix) or (suffix + ":") in s
                for suffix in (f"[T.{level}]", f"[{level}]", f"={level}", f"_{level}")
            ):
                return SUPPRESSED
        return s

    def text(self, message: Any) -> str:
        """A message (a note, an error) for print with every unsafe level it names withheld.

        Unlike :meth:`label`, which replaces a whole label, only the part naming the level is
        replaced: the term around a level of four or more characters (``C(country)[T.<level>]``
        → ``(suppressed)``), or a shorter level where it stands as a term or a quoted value
        (``[T.5]``, ``'5'``, ``=5``).
        """
        s = str(message)
        for level in sorted(self.unsafe, key=len, reverse=True):
            if not level:
                continue
            esc = re.escape(level)
            if len(level) >= 4:
                # the whole token around it (a formula term, a one-hot column name)
                s = re.sub(r"[^\s,;'\"]*" + esc + r"[^\s,;:'\"]*", SUPPRESSED, s)
                s = s.replace(level, SUPPRESSED)
            else:
                s = re.sub(r"[^\s,;'\"]*\[(?:T\.)?" + esc + r"\]", SUPPRESSED, s)
                s = re.sub(r"(['\"])" + esc + r"\1", SUPPRESSED, s)
                s = re.sub(r"(?<=[=_])" + esc + r"(?![\w.])", SUPPRESSED, s)
        return s

    def count(self, n: float) -> str:
        """A confidential cell count for print: exact when ``>= min_cell``, else ``"< min_cell"``."""
        if n is None or not np.isfinite(n):
            return "–"
        if 0 < n < self.min_cell:
            return f"< {self.min_cell}"
        return f"{int(n):,}"

    def labels(self, texts: Iterable[Any]) -> list[str]:
        return [self.label(t) for t in texts]

    def frame(self, df: pd.DataFrame, *, digits: int = 3) -> pd.DataFrame:
        """A table for print: labels in the index, columns and text cells redacted; numbers rounded."""
        out = df.copy()
        out.index = pd.Index(self.labels(out.index), name=out.index.name)
        out.columns = pd.Index(self.labels(out.columns))
        for c in range(out.shape[1]):
            col = out.iloc[:, c]
            if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
                out.iloc[:, c] = col  # keep numbers; rounding happens when formatted
            else:
                out[out.columns[c]] = [self.label(v) if isinstance(v, str) else v for v in col]
        return out.map(lambda v: format_number(v, digits) if _is_number(v) else v)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def rounded_quantiles(values: np.ndarray, probs: Iterable[float], digits: int = 2) -> np.ndarray:
    """Quantiles of confidential ``values`` rounded to ``digits`` significant figures."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return np.array([math.nan for _ in probs])
    return np.array([round_sig(float(q), digits) for q in np.quantile(v, list(probs))])


def redact_mapping(d: Mapping[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A mapping with its keys redacted (values untouched)."""
    return {redactor.label(k): v for k, v in d.items()}
