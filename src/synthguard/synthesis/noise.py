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
its manifest).

**Noise by the sparsity of nearby confidential values** (:class:`SparsityNoise`,
``{"kind": "sparsity", "k": 5, "bandwidth": 1}``), the design of the IRS non-filers file
(Bowen et al. 2020; course §5.1.1: "sequential CART models with additional noise added based
on the sparsity of nearby observations in the confidential distribution"): each drawn value
``v`` moves by ``N(0, (bandwidth · d_k(v))²)``, where ``d_k(v)`` is the distance from ``v`` to
its ``k``-th nearest value of the confidential column. A value in a dense region (many
confidential records nearby) barely moves; an outlier, whose donor is easiest to recognise,
moves by about the gap to its neighbours; a point mass held by at least ``k`` records (zeros)
stays. Unlike kernel noise, the bandwidth reads the confidential distribution, as that file
did; the release's provenance records ``k`` and ``bandwidth`` only.

**Laplace or Gaussian noise at a stated epsilon or rho** (:class:`DPNoise`):
``noise={"income": {"kind": "laplace", "epsilon": 1.0, "lower": 0, "upper": 150000,
"ledger": ledger}}`` (or ``"kind": "gaussian", "rho": 0.5``) clamps each drawn value to the
public ``[lower, upper]`` and adds noise from OpenDP's samplers through
:mod:`synthguard.dp` (Laplace scale ``b = S / epsilon``, Dwork, McSherry, Nissim & Smith
2006; Gaussian ``sigma = S / sqrt(2 rho)``, rho-zCDP, Bun & Steinke 2016, Prop. 1.6), with
sensitivity ``S = upper - lower`` unless given. Every draw of the column (each implicate,
each stratum, each constraint redraw) is charged to the :class:`~synthguard.dp.PrivacyLedger`
passed in (``ledger``: the object or the path of its file), before any noise is drawn: a
charge over budget raises :class:`~synthguard.errors.PrivacyBudgetError` and nothing is
released.

**What this does not do: it does not make the release differentially private.** The noise
protects each released value of this column as a view of the value it was drawn from (for
``cart`` a confidential donor's value: the Laplace mechanism on that one value, so a record
drawn as donor ``k`` times has spent ``k`` epsilons); the models that chose the donors and
every other column were fitted on the confidential data without noise, and nothing bounds
what they reveal. The ledger records the budget of the noise steps, not a guarantee for the
file. For a release that is DP as a whole, use a DP synthesizer (:mod:`synthguard.dp`;
``start=`` takes its output as the first columns, and the report then says the guarantee
covers those columns only).

OpenDP's samplers cannot be seeded, so a column with DP noise does not reproduce from the
synthesizer's seed; ``"seeded": true`` draws the noise from the synthesizer's generator
instead, for simulations and tests only (numpy's samplers are not hardened, Mironov 2012;
each such draw warns with :class:`~synthguard.errors.PrivacyWarning`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["DPNoise", "KernelNoise", "NoiseStep", "SparsityNoise", "resolve_noise"]


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


@dataclass(frozen=True)
class SparsityNoise:
    """Noise by the sparsity of nearby confidential values (see the module docstring)."""

    column: str
    k: int = 5
    bandwidth: float = 1.0
    reference: np.ndarray | None = field(default=None, repr=False, compare=False)

    def fit(self, conf_values: Any) -> SparsityNoise:
        """A copy holding the confidential column's sorted values (missing values dropped)."""
        v = np.asarray(conf_values, dtype=float)
        return SparsityNoise(self.column, self.k, self.bandwidth,
                             np.sort(v[~np.isnan(v)]))

    def kth_distance(self, values: np.ndarray) -> np.ndarray:
        """``d_k(v)``: the distance from each value to its k-th nearest confidential value."""
        ref = self.reference
        if ref is None or ref.size == 0:
            raise ParameterError(f"noise for column '{self.column}': kind 'sparsity' needs the "
                                 "confidential values; it is fitted by the synthesizer")
        v = np.asarray(values, dtype=float)
        k = min(int(self.k), ref.size)
        pos = np.searchsorted(ref, v)
        # the k nearest of a sorted array lie among the k values on each side of v's place
        window = pos[:, None] + np.arange(-k, k)[None, :]
        inside = (window >= 0) & (window < ref.size)
        dist = np.where(inside, np.abs(ref[np.clip(window, 0, ref.size - 1)] - v[:, None]),
                        np.inf)
        return np.partition(dist, k - 1, axis=1)[:, k - 1]

    def apply(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``values`` (no missing) each moved by ``N(0, (bandwidth · d_k)²)``."""
        v = np.asarray(values, dtype=float)
        if v.size == 0:
            return v.copy()
        h = self.bandwidth * self.kth_distance(v)
        return v + rng.normal(0.0, 1.0, v.size) * h

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "sparsity", "k": self.k, "bandwidth": self.bandwidth}


@dataclass
class DPNoise:
    """Clamp-then-noise at a stated epsilon (Laplace) or rho (Gaussian) on each draw of a
    column, charged to a privacy ledger (see the module docstring: *not* a DP release)."""

    column: str
    mechanism: str  # "laplace" or "gaussian"
    lower: float
    upper: float
    epsilon: float | None = None
    rho: float | None = None
    sensitivity: float | None = None
    seeded: bool = False
    ledger: Any = field(default=None, repr=False, compare=False)

    @property
    def bound_sensitivity(self) -> float:
        """``S``: the given sensitivity, else ``upper - lower``."""
        return float(self.upper - self.lower if self.sensitivity is None else self.sensitivity)

    @property
    def scale(self) -> float:
        """Laplace scale ``S / epsilon`` or Gaussian ``sigma = S / sqrt(2 rho)``."""
        if self.mechanism == "laplace":
            assert self.epsilon is not None
            return self.bound_sensitivity / self.epsilon
        assert self.rho is not None
        return self.bound_sensitivity / math.sqrt(2.0 * self.rho)

    @property
    def label(self) -> str:
        return f"synthesis noise on column '{self.column}' ({self.mechanism})"

    def apply(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``values`` clamped to ``[lower, upper]`` plus noise; the ledger is charged first."""
        from synthguard.dp import _noise

        if self.ledger is None:
            raise ParameterError(
                f"noise for column '{self.column}': DP noise is charged to a privacy ledger, "
                "and a saved synthesizer does not keep one; attach it before sampling: "
                f"synthesizer.noise_['{self.column}'].ledger = PrivacyLedger.open(path)"
            )
        v = np.clip(np.asarray(values, dtype=float), self.lower, self.upper)
        if self.mechanism == "laplace":
            assert self.epsilon is not None
            self.ledger.charge(self.label, self.epsilon)
        else:
            assert self.rho is not None
            self.ledger.charge_rho(self.label, self.rho)
        if v.size == 0:
            return v
        source = _noise.resolve_noise(rng, stacklevel=4) if self.seeded else None
        if self.mechanism == "laplace":
            return _noise.add_laplace(v, self.scale, source)
        return _noise.add_gaussian(v, self.scale, source)

    def to_dict(self) -> dict[str, Any]:
        from synthguard.dp._noise import NOISE_NUMPY, NOISE_OPENDP

        out: dict[str, Any] = {"kind": self.mechanism, "lower": self.lower, "upper": self.upper,
                               "sensitivity": self.bound_sensitivity, "scale": self.scale}
        out["epsilon" if self.mechanism == "laplace" else "rho"] = (
            self.epsilon if self.mechanism == "laplace" else self.rho)
        out["noise_source"] = NOISE_NUMPY if self.seeded else NOISE_OPENDP
        out["guarantee"] = ("each released value of this column, as a view of the value it "
                            "was drawn from; the release as a whole is not differentially "
                            "private")
        return out

    def __getstate__(self) -> dict[str, Any]:
        # a ledger (a lock, a file) is not pickled with a synthesizer: attach it again
        state = dict(self.__dict__)
        state["ledger"] = None
        return state


#: a noise step of a column's draws
NoiseStep = KernelNoise | SparsityNoise | DPNoise


def _number(item: Mapping[str, Any], key: str, where: str, *, positive: bool = False
            ) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ParameterError(f"{where}: '{key}' must be a finite number")
    if positive and not value > 0:
        raise ParameterError(f"{where}: '{key}' must be > 0")
    return float(value)


def _ledger(value: Any, where: str) -> Any:
    from synthguard.dp import PrivacyLedger

    if isinstance(value, str | os.PathLike):
        if not os.path.exists(value):
            raise ParameterError(
                f"{where}: ledger file not found; create it with "
                "PrivacyLedger(epsilon=..., delta=..., path=...) first"
            )
        return PrivacyLedger.open(value)
    if not (callable(getattr(value, "charge", None))
            and callable(getattr(value, "charge_rho", None))):
        raise ParameterError(
            f"{where}: DP noise needs 'ledger', a synthguard.dp.PrivacyLedger (or the path of "
            "its file) the noise is charged to"
        )
    return value


def _dp_noise(column: str, item: Mapping[str, Any], where: str) -> DPNoise:
    kind = item["kind"]
    param = "epsilon" if kind == "laplace" else "rho"
    allowed = {"kind", param, "lower", "upper", "sensitivity", "seeded", "ledger"}
    unknown = set(item) - allowed
    if unknown:
        raise ParameterError(f"{where}: unknown fields {', '.join(sorted(unknown))} (kind "
                             f"'{kind}' takes {', '.join(sorted(allowed - {'kind'}))})")
    budget = _number(item, param, where, positive=True)
    if budget is None:
        raise ParameterError(f"{where}: kind '{kind}' needs '{param}' (> 0)")
    lower, upper = _number(item, "lower", where), _number(item, "upper", where)
    if lower is None or upper is None or not lower < upper:
        raise ParameterError(
            f"{where}: DP noise needs public clamping bounds 'lower' < 'upper' (not read from "
            "the data: bounds taken from the confidential values leak them)"
        )
    sens = _number(item, "sensitivity", where, positive=True)
    seeded = item.get("seeded", False)
    if not isinstance(seeded, bool):
        raise ParameterError(f"{where}: 'seeded' must be true or false")
    return DPNoise(str(column), kind, lower, upper,
                   epsilon=budget if kind == "laplace" else None,
                   rho=budget if kind == "gaussian" else None,
                   sensitivity=sens, seeded=seeded, ledger=_ledger(item.get("ledger"), where))


def _sparsity_noise(column: str, item: Mapping[str, Any], where: str) -> SparsityNoise:
    unknown = set(item) - {"kind", "k", "bandwidth"}
    if unknown:
        raise ParameterError(f"{where}: unknown fields {', '.join(sorted(unknown))} (kind "
                             "'sparsity' takes k, bandwidth)")
    k, b = item.get("k", 5), item.get("bandwidth", 1.0)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ParameterError(f"{where}: 'k' must be a positive integer")
    if isinstance(b, bool) or not isinstance(b, int | float) or not b > 0:
        raise ParameterError(f"{where}: 'bandwidth' must be a positive number")
    return SparsityNoise(column, int(k), float(b))


def resolve_noise(
    spec: Mapping[str, Any] | None, numeric: Mapping[str, bool], visit: list[str]
) -> dict[str, NoiseStep]:
    """Check ``noise=``: column -> ``"kernel"``, ``{"kind": "kernel", "ntiles": k,
    "bandwidth": b}``, or DP noise ``{"kind": "laplace", "epsilon": e, "lower": l, "upper":
    u, "ledger": ledger}`` / ``{"kind": "gaussian", "rho": r, ...}``; numeric synthesized
    columns only."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise ParameterError(
            "parameter 'noise': expected a mapping column -> noise, e.g. "
            "{'income': {'kind': 'kernel', 'ntiles': 10}}"
        )
    out: dict[str, NoiseStep] = {}
    for column, item in spec.items():
        where = f"parameter 'noise' for column '{column}'"
        if column not in visit or not numeric.get(column, False):
            raise ParameterError(f"{where}: noise applies to synthesized numeric columns")
        item = {"kind": item} if isinstance(item, str) else item
        if isinstance(item, Mapping) and item.get("kind") in ("laplace", "gaussian"):
            out[str(column)] = _dp_noise(str(column), item, where)
            continue
        if isinstance(item, Mapping) and item.get("kind") == "sparsity":
            out[str(column)] = _sparsity_noise(str(column), item, where)
            continue
        if not isinstance(item, Mapping) or item.get("kind") != "kernel":
            raise ParameterError(f"{where}: expected kind 'kernel', 'sparsity', 'laplace' or "
                                 "'gaussian'")
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


def without_ledgers(spec: Any) -> Any:
    """``noise=`` as given, with every ``ledger`` entry set to None (for pickling: a ledger
    holds a lock and a file, and is attached again after loading)."""
    if not isinstance(spec, Mapping):
        return spec
    return {c: ({**item, "ledger": None} if isinstance(item, Mapping) and "ledger" in item
                else item) for c, item in spec.items()}
