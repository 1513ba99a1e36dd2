"""Noise inside synthesis: kernel noise within n-tiles of a drawn numeric column.

``Synthesizer(noise={"income": {"kind": "kernel", "ntiles": 10}})`` adds, after each draw of
the column (and after its transform is inverted), Gaussian kernel noise to every drawn
value, with a bandwidth set **within the n-tile** of the drawn values the value falls in, as
the Urban Institute's tidysynthesis adds noise to synthetic values:

* the drawn values are split into ``ntiles`` groups of equal size by rank;
* in group ``g`` of ``n_g`` values with standard deviation ``s_g`` and interquartile range
  ``IQR_g``, the bandwidth is Silverman's rule of thumb (Silverman 1986, eq. 3.31),
  ``h_g = bandwidth * 0.9 * min(s_g, IQR_g / 1.34) * n_g^(-1/5)`` (``bandwidth`` scales it,
  default 1);
* each value moves by ``N(0, h_g^2)``; point masses (a group whose values are all equal,
  such as zeros) stay as they are.

The bandwidths are computed from the *synthetic* draws, so they add no information about
the confidential data. Each noise step is recorded in the release's provenance (and so in
its manifest). Noise from the DP room at a stated epsilon or rho is not offered here: a DP
guarantee needs the noise on a query of the confidential data, not on a synthetic value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["KernelNoise", "resolve_noise"]


@dataclass(frozen=True)
class KernelNoise:
    """Kernel noise within n-tiles (see the module docstring)."""

    column: str
    ntiles: int = 10
    bandwidth: float = 1.0

    def apply(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``values`` (no missing) with kernel noise added within their n-tiles."""
        v = np.asarray(values, dtype=float)
        n = len(v)
        if n < 2:
            return v.copy()
        out = v.copy()
        order = np.argsort(v, kind="stable")
        for g in np.array_split(order, min(int(self.ntiles), n)):
            x = v[g]
            if len(x) < 2 or np.ptp(x) == 0:
                continue
            q75, q25 = np.percentile(x, [75, 25])
            spread = np.std(x, ddof=1)
            iqr = (q75 - q25) / 1.34
            scale = min(spread, iqr) if iqr > 0 else spread
            h = self.bandwidth * 0.9 * scale * len(x) ** (-0.2)
            out[g] = x + rng.normal(0.0, h, len(x))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "kernel", "ntiles": self.ntiles, "bandwidth": self.bandwidth}


def resolve_noise(
    spec: Mapping[str, Any] | None, numeric: Mapping[str, bool], visit: list[str]
) -> dict[str, KernelNoise]:
    """Check ``noise=``: column -> ``"kernel"`` or ``{"kind": "kernel", "ntiles": k,
    "bandwidth": b}``, numeric synthesized columns only."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise ParameterError(
            "parameter 'noise': expected a mapping column -> noise, e.g. "
            "{'income': {'kind': 'kernel', 'ntiles': 10}}"
        )
    out: dict[str, KernelNoise] = {}
    for column, item in spec.items():
        where = f"parameter 'noise' for column '{column}'"
        if column not in visit or not numeric.get(column, False):
            raise ParameterError(f"{where}: noise applies to synthesized numeric columns")
        item = {"kind": item} if isinstance(item, str) else item
        if not isinstance(item, Mapping) or item.get("kind") != "kernel":
            raise ParameterError(f"{where}: expected kind 'kernel'")
        unknown = set(item) - {"kind", "ntiles", "bandwidth"}
        if unknown:
            raise ParameterError(f"{where}: unknown fields {', '.join(sorted(unknown))}")
        k, b = item.get("ntiles", 10), item.get("bandwidth", 1.0)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ParameterError(f"{where}: 'ntiles' must be a positive integer")
        if isinstance(b, bool) or not isinstance(b, int | float) or not b > 0:
            raise ParameterError(f"{where}: 'bandwidth' must be a positive number")
        out[str(column)] = KernelNoise(str(column), int(k), float(b))
    return out
