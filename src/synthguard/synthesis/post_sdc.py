"""SDC applied to a release that already exists: synthpop's ``sdc()``.

synthguard's synthesizer applies its safeguards while it draws (replicated uniques redrawn,
extremes and rare values withheld). A release made elsewhere — by synthpop, by SDV, by hand —
gets synthpop's after-the-fact steps here, with synthpop's semantics (Nowok, Raab & Dibben
2016, ``sdc(object, data, keys, rm.uniques.in.orig, rm.replicated.uniques, recode.vars,
bottom.top.coding, recode.exclude, smooth.vars)``), implicate by implicate:

* **bottom and top coding** (``recode={"age": (None, 90)}``): a released value below the
  bottom code becomes the bottom code, one above the top code the top code; values listed in
  ``recode_exclude`` (missing-value codes such as −8) are left alone;
* **replicated uniques** (``rm_replicated_uniques=True``): a released record that is unique in
  its implicate on ``keys`` (default: every column) and equal to a record unique in the data
  is removed (missing equals missing);
* **uniques found in the data** (``rm_uniques_in_orig=True``): every released record unique in
  its implicate whose keys occur in the data at all is removed (it includes the replicated
  uniques);
* **smoothing** (``smooth=["income"]``): a numeric column's released values, sorted, are
  replaced by a smoothing spline fitted to them against their ranks, each value taking the
  smoothed value at its rank (synthpop: ``smooth.spline(sort(y))``; here SciPy's
  ``make_smoothing_spline``, whose penalty is chosen by generalised cross-validation as R's
  is, on every point rather than R's knot subset, so smoothed values are close to synthpop's,
  not equal). Values in ``recode_exclude`` are not smoothed.

The steps run in synthpop's order: recoding, removal, smoothing. Counts of what was done are
kept in the result and shown under the small-cell rule (fewer than 10 written ``< 10``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized, cell_count
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError

__all__ = ["SDCApplied", "apply_sdc"]


@dataclass(frozen=True)
class SDCApplied(Summarized):
    """A release after :func:`apply_sdc`.

    Attributes
    ----------
    implicates : the released frames, one per implicate.
    removed : records removed per implicate (replicated uniques, or uniques found in the data).
    bottom_coded, top_coded : per recoded column, values recoded per implicate.
    smoothed : the columns smoothed.
    """

    implicates: list[pd.DataFrame]
    removed: tuple[int, ...]
    bottom_coded: dict[str, tuple[int, ...]]
    top_coded: dict[str, tuple[int, ...]]
    smoothed: tuple[str, ...]

    def summary(self) -> str:
        lines = [f"SDC applied to {len(self.implicates)} implicate(s):"]
        for c in self.bottom_coded:
            lines.append(f"  {c}: bottom-coded {cell_count(sum(self.bottom_coded[c]))}, "
                         f"top-coded {cell_count(sum(self.top_coded[c]))} value(s)")
        if self.removed:
            lines.append(f"  records removed: {cell_count(sum(self.removed))}")
        if self.smoothed:
            lines.append(f"  smoothed: {', '.join(self.smoothed)}")
        return "\n".join(lines)


def _key_strings(df: pd.DataFrame, keys: list[str]) -> pd.Series:
    """One hashable value per record on ``keys``; missing equals missing, and a number reads
    the same whether its column is integer or float (30 == 30.0)."""
    parts = []
    for k in keys:
        v = df[k]
        if pd.api.types.is_numeric_dtype(v) and not pd.api.types.is_bool_dtype(v):
            v = v.astype("Float64")
        parts.append(v.astype("string").fillna("\x00NA"))
    out = parts[0]
    for p in parts[1:]:
        out = out + "\x1f" + p
    return out


def _smooth(values: np.ndarray) -> np.ndarray:
    from scipy.interpolate import make_smoothing_spline

    n = values.size
    if n < 5 or np.ptp(values) == 0:
        return values.copy()
    order = np.argsort(values, kind="stable")
    ys = values[order]
    x = np.arange(1, n + 1, dtype=np.float64)
    smoothed = make_smoothing_spline(x, ys)(x)
    out = np.empty(n)
    out[order] = smoothed
    return out


def apply_sdc(
    release: Any,
    conf: pd.DataFrame,
    *,
    keys: Sequence[str] | None = None,
    rm_uniques_in_orig: bool = False,
    rm_replicated_uniques: bool = False,
    recode: Mapping[str, tuple[float | None, float | None]] | None = None,
    recode_exclude: Mapping[str, Sequence[Any]] | None = None,
    smooth: Sequence[str] | None = None,
) -> SDCApplied:
    """synthpop's ``sdc()`` on an existing release (module docstring).

    Parameters
    ----------
    release : a frame, a list of frames (implicates) or a release object.
    conf : the confidential data (for the uniques).
    keys : the columns on which records are compared (default: the release's columns).
    rm_uniques_in_orig, rm_replicated_uniques : synthpop's flags.
    recode : column -> ``(bottom, top)``; ``None`` for no code on that side.
    recode_exclude : column -> values never recoded or smoothed (missing-value codes).
    smooth : numeric columns to smooth.

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"age": [20, 30, 30, 95], "sex": ["f", "m", "m", "f"]})
    >>> rel = pd.DataFrame({"age": [20, 30, 99, 30], "sex": ["f", "m", "f", "m"]})
    >>> out = apply_sdc(rel, conf, rm_replicated_uniques=True, recode={"age": (None, 90)})
    >>> out.implicates[0]["age"].tolist(), out.removed
    ([30, 90, 30], (1,))
    """
    imps = [df.copy() for df in as_implicates(release)]
    if not imps:
        raise DataError("apply_sdc: the release has no implicates")
    cols = list(imps[0].columns)
    key_cols = cols if keys is None else list(keys)
    for k in key_cols:
        if k not in conf.columns or any(k not in df.columns for df in imps):
            raise DataError(f"apply_sdc: key column '{k}' must be in the data and the release")
    recode = dict(recode or {})
    exclude = {c: list(v) for c, v in dict(recode_exclude or {}).items()}
    smooth_cols = list(smooth or [])
    for c, codes in recode.items():
        if c not in cols:
            raise DataError(f"apply_sdc: column '{c}' in 'recode' is not in the release")
        if not (isinstance(codes, tuple | list) and len(codes) == 2):
            raise ParameterError(f"apply_sdc: 'recode' for column '{c}' must be (bottom, top); "
                                 "use None for no code on a side")
    for c in smooth_cols + list(recode):
        if not pd.api.types.is_numeric_dtype(imps[0][c]):
            raise DataError(f"apply_sdc: column '{c}' must be numeric to recode or smooth")

    bottom: dict[str, list[int]] = {c: [] for c in recode}
    top: dict[str, list[int]] = {c: [] for c in recode}
    removed: list[int] = []
    conf_keys = _key_strings(conf, key_cols)
    conf_counts = conf_keys.value_counts()
    unique_in_conf = set(conf_counts.index[conf_counts.to_numpy() == 1])
    in_conf = set(conf_counts.index)
    out: list[pd.DataFrame] = []
    for df in imps:
        for c, (lo, hi) in recode.items():
            v = df[c]
            free = ~v.isin(exclude.get(c, []))
            below = free & v.notna() & (v < lo) if lo is not None else pd.Series(False, v.index)
            above = free & v.notna() & (v > hi) if hi is not None else pd.Series(False, v.index)
            bottom[c].append(int(below.sum()))
            top[c].append(int(above.sum()))
            if below.any() or above.any():
                whole = all(x is None or float(x).is_integer() for x in (lo, hi))
                if not (pd.api.types.is_integer_dtype(v) and whole):
                    v = v.astype(np.float64)
                df[c] = v.mask(below, lo).mask(above, hi)
        if rm_uniques_in_orig or rm_replicated_uniques:
            ks = _key_strings(df, key_cols)
            counts = ks.map(ks.value_counts())
            target = in_conf if rm_uniques_in_orig else unique_in_conf
            drop = (counts == 1) & ks.isin(target)
            removed.append(int(drop.sum()))
            df = df.loc[~drop.to_numpy()].reset_index(drop=True)
        for c in smooth_cols:
            v = df[c]
            smoothable = (~v.isin(exclude.get(c, [])) & v.notna()).to_numpy()
            vals = np.array(v.to_numpy(dtype=np.float64, na_value=np.nan))
            vals[smoothable] = _smooth(vals[smoothable])
            df[c] = vals
        out.append(df)
    return SDCApplied(
        implicates=out,
        removed=tuple(removed),
        bottom_coded={c: tuple(v) for c, v in bottom.items()},
        top_coded={c: tuple(v) for c, v in top.items()},
        smoothed=tuple(smooth_cols),
    )
