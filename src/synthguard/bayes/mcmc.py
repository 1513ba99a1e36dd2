"""MCMC building blocks shared by the weighted Bayesian models.

* :func:`effective_sample_size` -- Geyer's (1992) initial monotone sequence estimator.
* :func:`slice_step` -- one univariate slice-sampling update with stepping out and
  shrinkage (Neal 2003, section 4, figures 3 and 5).

Both work on plain numpy arrays, so any model can use them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from synthguard._display import Summarized

__all__ = ["MCMCDiagnostics", "effective_sample_size", "slice_step"]


def _autocorrelation(x: np.ndarray) -> np.ndarray:
    """Sample autocorrelations rho_0..rho_{n-1} of a 1-D chain, by FFT (biased estimator)."""
    n = x.size
    xc = x - x.mean()
    size = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(xc, size)
    acov = np.fft.irfft(f * np.conj(f), size)[:n] / n
    return acov / acov[0]


def effective_sample_size(chain: np.ndarray) -> np.ndarray | float:
    """Effective sample size of an MCMC chain by Geyer's initial monotone sequence.

    With autocorrelations rho_k, the pair sums Gamma_m = rho_{2m} + rho_{2m+1} are
    summed while positive (initial positive sequence) and forced to be non-increasing
    (initial monotone sequence); the integrated autocorrelation time is
    tau = -1 + 2 sum_m Gamma_m and ESS = n / tau (Geyer 1992, "Practical Markov chain
    Monte Carlo", Statistical Science 7, section 3.3).

    Parameters
    ----------
    chain : array of shape ``(n,)`` or ``(n, d)``; one column per scalar parameter.

    Returns
    -------
    float for a 1-D chain, else an array of ``d`` values. A constant chain gives ``nan``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> 9000 < effective_sample_size(rng.normal(size=10_000)) < 11000
    True
    """
    arr = np.asarray(chain, dtype=float)
    if arr.ndim == 1:
        return float(_ess_1d(arr))
    return np.array([_ess_1d(arr[:, j]) for j in range(arr.shape[1])])


def _ess_1d(x: np.ndarray) -> float:
    n = x.size
    if n < 4 or not np.all(np.isfinite(x)) or np.ptp(x) == 0:
        return float("nan")
    rho = _autocorrelation(x)
    m_max = n // 2
    pairs = rho[: 2 * m_max : 2] + rho[1 : 2 * m_max : 2]
    positive = pairs > 0
    stop = int(np.argmin(positive)) if not positive.all() else pairs.size
    gam = np.minimum.accumulate(pairs[: max(stop, 1)])
    tau = -1.0 + 2.0 * float(gam.sum())
    tau = max(tau, 1.0 / np.log10(max(n, 10)))  # cap ESS at n log10 n for antithetic chains
    return n / tau


def slice_step(
    x0: float,
    logp: Callable[[float], float],
    logp0: float,
    width: float,
    rng: np.random.Generator,
    max_steps: int = 50,
) -> tuple[float, float, int]:
    """One univariate slice-sampling update (Neal 2003, stepping out and shrinkage).

    The update leaves the density ``exp(logp)`` invariant: draw a level
    ``log u = logp(x0) - Exponential(1)``, step an interval of ``width`` out until both
    ends lie below the level, then sample uniformly in it, shrinking towards ``x0``
    on rejection.

    Returns
    -------
    (x1, logp(x1), number of logp evaluations)
    """
    level = logp0 - rng.exponential()
    left = x0 - width * rng.random()
    right = left + width
    j = int(rng.integers(max_steps))
    k = max_steps - 1 - j
    evals = 0
    while j > 0:
        evals += 1
        if logp(left) <= level:
            break
        left -= width
        j -= 1
    while k > 0:
        evals += 1
        if logp(right) <= level:
            break
        right += width
        k -= 1
    while True:
        x1 = left + (right - left) * rng.random()
        lp1 = logp(x1)
        evals += 1
        if lp1 > level:
            return x1, lp1, evals
        if x1 < x0:
            left = x1
        else:
            right = x1


@dataclass(frozen=True)
class MCMCDiagnostics(Summarized):
    """What an MCMC fit did: draws kept, burn-in, thinning, acceptance and effective sizes.

    Attributes
    ----------
    n_draws, burn_in, thin : the run (``burn_in + n_draws * thin`` iterations in all).
    acceptance : acceptance rate per Metropolis block (empty for pure Gibbs or slice).
    ess : effective sample size of each monitored quantity over the kept draws
        (:func:`effective_sample_size`).
    seconds : wall time of the run.
    """

    n_draws: int
    burn_in: int
    thin: int
    acceptance: dict[str, float] = field(default_factory=dict)
    ess: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def min_ess(self) -> float:
        """The smallest effective sample size over the monitored quantities."""
        vals = [v for v in self.ess.values() if np.isfinite(v)]
        return float(min(vals)) if vals else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """One row per monitored quantity: ESS and ESS per kept draw."""
        rows = [
            {"quantity": k, "ess": v, "ess_per_draw": v / self.n_draws} for k, v in self.ess.items()
        ]
        return pd.DataFrame(rows, columns=["quantity", "ess", "ess_per_draw"])

    def summary(self) -> str:
        acc = ", ".join(f"{k} {v:.2f}" for k, v in self.acceptance.items()) or "n/a"
        return (
            f"{self.n_draws} draws kept after {self.burn_in} burn-in iterations, thin {self.thin}; "
            f"acceptance: {acc}; min ESS {self.min_ess:.0f}; {self.seconds:.1f} s"
        )
