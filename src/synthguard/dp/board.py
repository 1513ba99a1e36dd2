"""ε for a board: what each charged budget means, as a factor on an attacker's odds, in words.

ε-DP bounds how much any one person's data can change what is released: for every output,
P(output | with the person) ≤ e^ε · P(output | without). So whatever an attacker believed
before, their odds on any statement about that person can grow by at most a factor e^ε
(Dwork & Roth 2014, §2.3; Wood et al. 2018, "Differential Privacy: A Primer for a
Non-technical Audience", §4; the course's §7.11). From a 50/50 prior the attacker can become
at most e^ε/(1 + e^ε) sure. With (ε, δ)-DP the bound may fail with probability δ. zCDP lines
are converted to (ε, δ) with the tight conversion (Canonne, Kamath & Steinke 2020) at the
ledger's δ.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from synthguard.dp.conversion import rho_to_epsilon

__all__ = ["epsilon_table", "epsilon_words"]


def epsilon_words(epsilon: float, delta: float = 0.0) -> str:
    """One sentence a board can read for a budget ε (and δ).

    Examples
    --------
    >>> epsilon_words(1.0)[-70:]
    'by at most a factor of 2.72; a 50/50 guess can become at most 73% sure'
    """
    if not math.isfinite(epsilon):
        return "no bound: the privacy loss is not limited"
    factor = math.exp(epsilon) if epsilon < 700 else math.inf
    post = 1.0 / (1.0 + math.exp(-epsilon))
    if post < 0.995:
        sure = f"at most {100 * post:.0f}% sure"
    else:
        sure = f"virtually certain (wrong at most once in {1.0 + factor:.3g} tries)"
    text = (f"an attacker's odds about any one person can change by at most a factor of "
            f"{factor:.3g}; a 50/50 guess can become {sure}")
    if delta > 0:
        text += f", except with probability {delta:.3g}"
    return text


_NOT_DP_WORDS = ("NOT differentially private (its levels or bins were read from the data): no "
                 "bound on what an attacker can learn")


def epsilon_table(source: Any, delta: float = 0.0) -> pd.DataFrame:
    """A table for a board: one row per ledger charge (and the total), or per ε given.

    ``source`` is a :class:`~synthguard.dp.PrivacyLedger` (each zCDP line is converted alone
    at the ledger's δ; the total is the ledger's spent budget) or an iterable of ε values (or
    ``(label, ε)`` pairs) with a common ``delta``. Columns: label, epsilon, delta, e^epsilon,
    max_posterior (from a 50/50 prior), meaning.

    Examples
    --------
    >>> t = epsilon_table([0.1, 1.0, 5.0])
    >>> [round(v, 3) for v in t["e^epsilon"]]
    [1.105, 2.718, 148.413]
    """
    rows: list[tuple[str, float, float, str | None]] = []
    if hasattr(source, "charges") and hasattr(source, "spent"):
        d = float(getattr(source, "delta", 0.0))
        n_not = 0
        for c in source.charges:
            if not getattr(c, "dp", True):  # a NOT DP line guarantees nothing: no odds
                n_not += 1
                rows.append((c.label, math.nan, math.nan, _NOT_DP_WORDS))
                continue
            eps = c.epsilon
            if c.rho > 0:
                eps += rho_to_epsilon(c.rho, d) if 0 < d < 1 else math.inf
            rows.append((c.label, eps, c.delta if c.rho == 0 else d, None))
        s = source.spent
        rows.append(("TOTAL", s.epsilon, s.delta, None if not n_not else (
            f"for the DP lines only, {epsilon_words(s.epsilon, s.delta)}; the {n_not} NOT DP "
            "line(s) have no such bound")))
    else:
        for item in source if isinstance(source, Iterable) else [source]:
            label, eps = item if isinstance(item, tuple) else (f"epsilon {item:g}", item)
            rows.append((str(label), float(eps), float(delta), None))
    out = []
    for label, eps, d, words in rows:
        none = math.isnan(eps)
        out.append({"label": label, "epsilon": eps, "delta": d,
                    "e^epsilon": math.nan if none else math.exp(eps) if eps < 700 else math.inf,
                    "max_posterior": (math.nan if none else 1.0 / (1.0 + math.exp(-eps))
                                      if eps < 700 else 1.0),
                    "meaning": words or epsilon_words(eps, d)})
    return pd.DataFrame(out, columns=["label", "epsilon", "delta", "e^epsilon",
                                      "max_posterior", "meaning"])
