"""Randomized response: local differential privacy, one respondent at a time.

Binary randomized response (Warner 1965): each respondent answers truthfully with probability
p and gives the other answer with probability q = 1 − p. Generalized randomized response
(direct encoding; Wang, Blocki, Li & Jha 2017) for k categories: report the true category with
probability p and each other category with probability q = (1 − p)/(k − 1).

Privacy: the mechanism is ε-LDP with ε = ln(p/q) (course, "ε-LDP protocol"), so a budget ε
gives p = e^ε / (e^ε + k − 1) (for k = 2: p = e^ε/(e^ε + 1)).

Estimation: with ñ reports of a category among n respondents, E[ñ] = n_v p + (n − n_v) q, so
n̂_v = (ñ − n q)/(p − q) is unbiased (course, "Randomized response"); its variance over the
randomization, respondents fixed, is [n_v p(1−p) + (n − n_v) q(1−q)]/(p − q)²
= n q(1−q)/(p−q)² + n_v (1−p−q)/(p−q) (Wang et al. 2017, eq. 2), estimated by plugging in n̂_v.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState
from synthguard.dp import _noise
from synthguard.errors import DataError, ParameterError

__all__ = [
    "RREstimate",
    "randomized_response",
    "randomized_response_estimate",
    "rr_epsilon",
    "rr_probability",
]


def rr_probability(epsilon: float, k: int = 2) -> float:
    """Truth probability p = e^ε / (e^ε + k − 1) of ε-LDP randomized response over k categories."""
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ParameterError("parameter 'epsilon': expected a finite number > 0")
    if int(k) < 2:
        raise ParameterError("parameter 'k': expected at least 2 categories")
    return 1.0 / (1.0 + (int(k) - 1) * math.exp(-epsilon))


def rr_epsilon(p: float, k: int = 2) -> float:
    """The LDP ε = ln(p/q), q = (1 − p)/(k − 1), of randomized response with truth probability p."""
    p = float(p)
    if not 0 < p < 1:
        raise ParameterError("parameter 'p': expected 0 < p < 1")
    q = (1.0 - p) / (int(k) - 1)
    return abs(math.log(p / q))


def _truth_probability(p: float | None, epsilon: float | None, k: int) -> float:
    if (p is None) == (epsilon is None):
        raise ParameterError("randomized response: give exactly one of 'p' and 'epsilon'")
    if p is None:
        return rr_probability(float(epsilon), k)  # type: ignore[arg-type]
    p = float(p)
    if not 0 < p < 1 or math.isclose(p, 1.0 / k):
        raise ParameterError(
            f"parameter 'p': expected 0 < p < 1 and p != 1/{k} (at p = 1/k the answers carry "
            "no information)"
        )
    return p


def randomized_response(
    values: Any,
    p: float | None = None,
    epsilon: float | None = None,
    categories: Any = None,
    random_state: RandomState = None,
) -> np.ndarray:
    """Randomize each respondent's answer (binary Warner 1965, or generalized for k categories).

    Parameters
    ----------
    values : true answers; booleans when ``categories`` is None.
    p : probability of reporting the truth (q = (1 − p)/(k − 1) for each other answer).
    epsilon : alternatively the LDP budget; p = e^ε/(e^ε + k − 1).
    categories : the public list of possible answers (k ≥ 2); None for booleans.
    random_state : None draws every coin with OpenDP (one call per respondent, ≈ 50 µs each);
        a seed or Generator uses numpy (simulation only; PrivacyWarning).

    Returns
    -------
    numpy array of reported answers (booleans, or values from ``categories``).
    """
    if categories is None:
        arr = np.asarray(values)
        if arr.dtype != bool:
            raise ParameterError(
                "randomized_response: values are not booleans; pass the public 'categories'"
            )
        cats = pd.Index([False, True])
        codes = arr.astype(np.int64).ravel()
    else:
        cats = pd.Index(list(categories))
        if cats.has_duplicates or len(cats) < 2:
            raise ParameterError("parameter 'categories': expected at least 2 distinct levels")
        codes = cats.get_indexer(pd.Series(np.asarray(values, dtype=object)))
        if (codes < 0).any():
            raise DataError(
                "randomized_response: values outside the public 'categories' (or missing "
                "values); recode them (a public rule) first"
            )
    k = len(cats)
    prob = _truth_probability(p, epsilon, k)
    rng = _noise.resolve_noise(random_state)
    if rng is not None:
        keep = rng.random(codes.size) < prob
        # a uniformly chosen *other* category: shift by 1..k-1 modulo k
        other = (codes + rng.integers(1, k, size=codes.size)) % k
        reported = np.where(keep, codes, other)
    else:
        dp = _noise._opendp()
        if prob < 1.0 / k:
            raise ParameterError(
                f"parameter 'p': OpenDP's randomized response needs p >= 1/{k}; pass a larger p"
            )
        if k == 2:
            m = dp.m.make_randomized_response_bool(prob)
            reported = np.fromiter((m(bool(c)) for c in codes), dtype=np.int64, count=codes.size)
        else:
            m = dp.m.make_randomized_response(list(range(k)), prob)
            reported = np.fromiter((m(int(c)) for c in codes), dtype=np.int64, count=codes.size)
    if categories is None:
        return reported.astype(bool)
    return np.asarray(cats.take(reported))


@dataclass(frozen=True)
class RREstimate:
    """Unbiased estimate of true counts from randomized responses, with its variance."""

    estimate: Any
    variance: Any
    n: int
    p: float
    q: float

    @property
    def std_error(self) -> Any:
        return np.sqrt(self.variance)

    @property
    def proportion(self) -> Any:
        return np.asarray(self.estimate) / self.n

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"estimate": np.atleast_1d(self.estimate),
                             "std_error": np.atleast_1d(self.std_error),
                             "proportion": np.atleast_1d(self.proportion)})


def randomized_response_estimate(
    n_reported: Any, n: int, p: float, k: int = 2
) -> RREstimate:
    """Unbiased estimate n̂ = (ñ − n q)/(p − q) of the true count(s) (Warner 1965; Wang et al. 2017).

    Parameters
    ----------
    n_reported : ñ, the number reporting a category (a scalar, or one count per category).
    n : number of respondents.
    p : truth probability; q = (1 − p)/(k − 1).
    k : number of categories.

    Examples
    --------
    The course's example: n = 100,000, p = 0.6, ñ = 44,166 reported smokers.

    >>> round(float(randomized_response_estimate(44166, 100000, 0.6).estimate))
    20830
    """
    n = int(n)
    if n < 1:
        raise ParameterError("parameter 'n': expected a positive number of respondents")
    k = int(k)
    if k < 2:
        raise ParameterError("parameter 'k': expected at least 2 categories")
    p = float(p)
    q = (1.0 - p) / (k - 1)
    if not 0 < p < 1 or math.isclose(p, q):
        raise ParameterError("parameter 'p': expected 0 < p < 1 with p != (1 - p)/(k - 1)")
    nr = np.asarray(n_reported, dtype=np.float64)
    if np.any(nr < 0) or np.any(nr > n):
        raise ParameterError("parameter 'n_reported': expected counts between 0 and n")
    est = (nr - n * q) / (p - q)
    nv = np.clip(est, 0.0, n)
    var = (nv * p * (1 - p) + (n - nv) * q * (1 - q)) / (p - q) ** 2
    if np.ndim(n_reported) == 0:
        return RREstimate(float(est), float(var), n, p, q)
    return RREstimate(est, var, n, p, q)
