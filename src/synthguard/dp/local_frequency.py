"""Local-DP frequency oracles beyond randomized response: OUE and OLH (Wang et al. 2017).

Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency
Estimation" (USENIX Security), frame every protocol as *pure*: a report y supports a set of
values S(y); a respondent with value v supports v with probability p* and a respondent with any
other value supports v with probability q*. The count of v among n respondents is estimated by

    ĉ(v) = (Σ_j 1[v ∈ S(y_j)] − n q*) / (p* − q*),

unbiased, with variance over the randomization (respondents fixed, n_v of them holding v)

    Var[ĉ(v)] = [n_v p*(1 − p*) + (n − n_v) q*(1 − q*)] / (p* − q*)²      (their eq. 2)

and Var* = n q*(1 − q*)/(p* − q*)² when n_v is small (their eq. 3).

* **Optimized unary encoding (OUE, their §4.3)**: the value is one-hot encoded over the k public
  categories and each bit is reported independently; a 1 stays 1 with p = 1/2, a 0 becomes 1
  with q = 1/(e^ε + 1). It is ε-LDP (two values differ in two bits: ln[p(1−q)/((1−p)q)] = ε)
  and Var* = n · 4e^ε/(e^ε − 1)², independent of k. Each report has k bits.
* **Optimized local hashing (OLH, their §4.4)**: each respondent draws a hash function H from a
  family mapping the k categories to g values, hashes the value, and reports H with the hashed
  value randomized by generalized randomized response over g (truth with p = e^ε/(e^ε + g − 1)).
  S(H, y) = {v : H(v) = y}, so p* = p and q* = 1/g for a pairwise-independent family, and the
  optimal g is e^ε + 1, giving the same Var* as OUE with reports of O(log k) bits.

The hash family here is the Carter–Wegman family over the prime field GF(g): with v written in
base g as digits x(v) ∈ GF(g)^m, H_{a,b}(v) = (a · x(v) + b) mod g for a uniform (a, b).
For v ≠ v' the pair (H(v), H(v')) is uniform on GF(g)², so q* = 1/g holds exactly (not only for
an idealized random function), which the tests check by enumerating the whole family. g must
therefore be prime; by default it is the prime minimizing Var* (near e^ε + 1).

Noise: ``random_state=None`` draws every coin with OpenDP's randomized-response samplers (one
call per bit or report, slow: about 50 µs each) and the hash functions with the operating
system's cryptographic generator; a seed uses numpy (simulation only; PrivacyWarning).
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState
from synthguard.dp import _noise
from synthguard.dp.randomized_response import RREstimate
from synthguard.errors import DataError, ParameterError

__all__ = [
    "LocalHashReports",
    "frequency_variance",
    "olh_estimate",
    "olh_g",
    "olh_hash",
    "olh_perturb",
    "oue_estimate",
    "oue_perturb",
    "oue_probabilities",
]


def _check_epsilon(epsilon: float) -> float:
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ParameterError("parameter 'epsilon': expected a finite number > 0")
    return epsilon


def _codes(values: Any, categories: Any) -> tuple[np.ndarray, pd.Index]:
    cats = pd.Index(list(categories))
    if cats.has_duplicates or len(cats) < 2:
        raise ParameterError("parameter 'categories': expected at least 2 distinct levels")
    codes = cats.get_indexer(pd.Series(np.asarray(values, dtype=object).ravel()))
    if (codes < 0).any():
        raise DataError(
            "local frequency oracle: values outside the public 'categories' (or missing values);"
            " recode them (a public rule) first")
    return codes.astype(np.int64), cats


def frequency_variance(n: int, n_v: Any, p: float, q: float) -> Any:
    """Var[ĉ(v)] = [n_v p(1−p) + (n − n_v) q(1−q)]/(p − q)² of a pure LDP protocol's count
    estimate (Wang et al. 2017, eq. 2); with ``n_v = 0`` it is their Var* (eq. 3)."""
    nv = np.asarray(n_v, dtype=np.float64)
    var = (nv * p * (1 - p) + (n - nv) * q * (1 - q)) / (p - q) ** 2
    return float(var) if np.ndim(n_v) == 0 else var


def _estimate(support: np.ndarray, n: int, p: float, q: float) -> RREstimate:
    est = (support - n * q) / (p - q)
    var = frequency_variance(n, np.clip(est, 0.0, n), p, q)  # plug-in n̂_v
    return RREstimate(est, var, n, p, q)


# ----------------------------------------------------------------------------- OUE
def oue_probabilities(epsilon: float) -> tuple[float, float]:
    """OUE's bit probabilities: p = P(1 → 1) = 1/2 and q = P(0 → 1) = 1/(e^ε + 1)."""
    return 0.5, 1.0 / (math.exp(_check_epsilon(epsilon)) + 1.0)


def oue_perturb(values: Any, epsilon: float, categories: Any,
                random_state: RandomState = None) -> np.ndarray:
    """Optimized unary encoding (Wang et al. 2017, §4.3): one report of k bits per respondent.

    Returns an (n, k) boolean array; column j is the reported bit of ``categories[j]``.
    The report is ε-LDP: the one-hot bit of the true value stays 1 with probability 1/2, every
    other bit becomes 1 with probability 1/(e^ε + 1).
    """
    codes, cats = _codes(values, categories)
    p, q = oue_probabilities(epsilon)
    n, k = codes.size, len(cats)
    onehot = np.zeros((n, k), dtype=bool)
    onehot[np.arange(n), codes] = True
    rng = _noise.resolve_noise(random_state)
    if rng is not None:
        u = rng.random((n, k))
        return np.where(onehot, u < p, u < q)
    dp = _noise._opendp()
    keep_one = dp.m.make_randomized_response_bool(p)  # a 1 reported truthfully w.p. 1/2
    keep_zero = dp.m.make_randomized_response_bool(1.0 - q)
    out = np.empty((n, k), dtype=bool)
    for i in range(n):
        for j in range(k):
            out[i, j] = keep_one(True) if onehot[i, j] else keep_zero(False)
    return out


def oue_estimate(reports: Any, epsilon: float) -> RREstimate:
    """Unbiased counts ĉ(v) = (Σ_j B_j[v] − n q)/(p − q) from OUE reports (an (n, k) bit array),
    with their variance [n_v p(1−p) + (n − n_v) q(1−q)]/(p − q)² at the plug-in n̂_v
    (Wang et al. 2017, eq. 2; Var* = n · 4e^ε/(e^ε − 1)² for rare values)."""
    bits = np.asarray(reports)
    if bits.ndim != 2 or bits.shape[0] < 1 or bits.shape[1] < 2:
        raise ParameterError(
            "parameter 'reports': expected the (respondents x categories) bits of oue_perturb")
    if not np.isin(bits, (0, 1)).all():
        raise ParameterError("parameter 'reports': OUE reports are bits (0/1 or booleans)")
    p, q = oue_probabilities(epsilon)
    return _estimate(bits.sum(axis=0).astype(np.float64), bits.shape[0], p, q)


# ----------------------------------------------------------------------------- OLH
def _is_prime(g: int) -> bool:
    return g >= 2 and all(g % f for f in range(2, math.isqrt(g) + 1))


_G_MAX = 65_537  # above ε ≈ 11 the optimum g = e^ε + 1 is capped here (Var* is flat in g)


def olh_g(epsilon: float) -> int:
    """The prime g minimizing OLH's Var* ∝ q(1−q)/(p − q)², p = e^ε/(e^ε + g − 1), q = 1/g
    (the unconstrained optimum is g = e^ε + 1; Wang et al. 2017, §4.4), among primes up to
    65,537."""
    e = math.exp(_check_epsilon(epsilon))

    def var(g: int) -> float:
        p, q = e / (e + g - 1), 1.0 / g
        return q * (1 - q) / (p - q) ** 2

    top = min(max(3, int(e + 1) * 2 + 2), _G_MAX)
    sieve = np.ones(top + 1, dtype=bool)
    sieve[:2] = False
    for f in range(2, math.isqrt(top) + 1):
        if sieve[f]:
            sieve[f * f::f] = False
    return min((int(g) for g in np.flatnonzero(sieve)), key=var)


@dataclass(frozen=True)
class LocalHashReports:
    """OLH reports: respondent j sends the hash (a_j, b_j) and the randomized hash value y_j.

    ``a`` is (n, m), ``b`` and ``y`` are (n,), values in GF(g); ``categories`` are the public
    levels (their position is the value hashed)."""

    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    g: int
    epsilon: float
    categories: tuple[Any, ...]

    @property
    def n(self) -> int:
        return int(self.y.size)


def _digits(k: int, g: int) -> np.ndarray:
    """Base-g digits of 0..k−1 as a (k, m) array, m = number of digits of k − 1 (at least 1)."""
    m = 1
    while g**m < k:
        m += 1
    v = np.arange(k)
    return np.stack([(v // g**i) % g for i in range(m)], axis=1)


def olh_hash(a: np.ndarray, b: np.ndarray, values: np.ndarray, g: int, k: int) -> np.ndarray:
    """H_{a,b}(v) = (a · x(v) + b) mod g with x(v) the base-g digits of v (Carter & Wegman 1979).

    ``a``: (n, m), ``b``: (n,), ``values``: codes in 0..k−1, broadcast against the respondents
    ((n,) for one value each, or (n, k) for every value)."""
    x = _digits(k, g)[values]  # (..., m)
    if x.ndim == 3:  # (n, k, m)
        return (np.einsum("nkm,nm->nk", x, a) + b[:, None]) % g
    return ((x * a).sum(axis=-1) + b) % g


def olh_perturb(values: Any, epsilon: float, categories: Any, g: int | None = None,
                random_state: RandomState = None) -> LocalHashReports:
    """Optimized local hashing (Wang et al. 2017, §4.4): hash, then randomized response over g.

    Each respondent draws (a, b) uniformly from GF(g)^m × GF(g), computes h = H_{a,b}(v) and
    reports y = h with probability p = e^ε/(e^ε + g − 1), otherwise one of the other g − 1 values
    uniformly (ε-LDP: ln(p/q) = ε with q = 1/(e^ε + g − 1)). ``g`` (prime) defaults to
    :func:`olh_g`.
    """
    epsilon = _check_epsilon(epsilon)
    codes, cats = _codes(values, categories)
    g = olh_g(epsilon) if g is None else int(g)
    if not _is_prime(g):
        raise ParameterError("parameter 'g': expected a prime number of hash values (e.g. 3)")
    k, n = len(cats), codes.size
    m = _digits(k, g).shape[1]
    e = math.exp(epsilon)
    p = e / (e + g - 1)
    rng = _noise.resolve_noise(random_state)
    if rng is not None:
        a = rng.integers(0, g, size=(n, m))
        b = rng.integers(0, g, size=n)
        h = olh_hash(a, b, codes, g, k)
        keep = rng.random(n) < p
        y = np.where(keep, h, (h + rng.integers(1, g, size=n)) % g) if g > 1 else h
    else:
        a = np.array([[secrets.randbelow(g) for _ in range(m)] for _ in range(n)],
                     dtype=np.int64).reshape(n, m)
        b = np.array([secrets.randbelow(g) for _ in range(n)], dtype=np.int64)
        h = olh_hash(a, b, codes, g, k)
        dp = _noise._opendp()
        if g == 2:
            rr = dp.m.make_randomized_response_bool(p)
            y = np.fromiter((int(rr(bool(v))) for v in h), dtype=np.int64, count=n)
        else:
            rr = dp.m.make_randomized_response(list(range(g)), p)
            y = np.fromiter((rr(int(v)) for v in h), dtype=np.int64, count=n)
    return LocalHashReports(a=np.asarray(a, dtype=np.int64), b=np.asarray(b, dtype=np.int64),
                            y=np.asarray(y, dtype=np.int64), g=g, epsilon=epsilon,
                            categories=tuple(cats))


def olh_estimate(reports: LocalHashReports) -> RREstimate:
    """Unbiased counts ĉ(v) = (#{j : H_j(v) = y_j} − n/g)/(p − 1/g) from OLH reports, with the
    variance of :func:`frequency_variance` at p* = e^ε/(e^ε + g − 1), q* = 1/g
    (Wang et al. 2017, §4.4)."""
    if not isinstance(reports, LocalHashReports):
        raise ParameterError("parameter 'reports': expected the LocalHashReports of olh_perturb")
    g, k, n = reports.g, len(reports.categories), reports.n
    if n < 1:
        raise ParameterError("parameter 'reports': no reports to estimate from")
    e = math.exp(reports.epsilon)
    p, q = e / (e + g - 1), 1.0 / g
    hashed = olh_hash(reports.a, reports.b, np.broadcast_to(np.arange(k), (n, k)), g, k)
    support = (hashed == reports.y[:, None]).sum(axis=0).astype(np.float64)
    return _estimate(support, n, p, q)
