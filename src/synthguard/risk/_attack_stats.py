"""Success rates and residual risk of the anonymeter attacks (Giomi et al. 2023).

Each attack is run three times: against the confidential records used to make the release
(the *attack*), as random guessing (the *baseline*) and against a *control* set of
confidential records that were not used. A success rate is estimated with the Wilson score
interval (Wilson 1927), at confidence level c with z = Phi^-1((1 + c) / 2):

    rate  = (k + z^2 / 2) / (n + z^2)
    error = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)

for k successes in n attacks. The privacy risk is the attack's excess over the control,
relative to the room for improvement over the control (Giomi et al. 2023, eq. 1):

    risk = (rate_attack - rate_control) / (1 - rate_control)

with the error propagated to first order, sqrt((e_a / (1 - r_c))^2 + (e_c (r_a - 1) /
(1 - r_c)^2)^2); without a control set the risk is the attack rate. Risk and interval
(risk +- error) are clipped to [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError

__all__ = ["AttackRisk", "attack_risk", "wilson"]


def wilson(n_total: int, n_success: float, confidence_level: float) -> tuple[float, float]:
    """Wilson score estimate and error of a success rate (anonymeter's ``success_rate``)."""
    from scipy.stats import norm

    if n_total <= 0:
        return float("nan"), float("nan")
    z = float(norm.ppf(0.5 * (1.0 + confidence_level)))
    z2 = z * z
    var = n_success * (n_total - n_success) / n_total
    den = n_total + z2
    return (n_success + 0.5 * z2) / den, (z / den) * math.sqrt(max(var, 0.0) + 0.25 * z2)


def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


@dataclass(frozen=True, eq=False)
class AttackRisk(Summarized):
    """Result of an anonymeter-style privacy attack (Giomi et al. 2023).

    Attributes
    ----------
    risk : privacy risk in [0, 1]: the attack's success over the control's, relative to what
        the control leaves (the attack rate when no control set was given). Higher is riskier.
    ci : (low, high) confidence interval of the risk at ``confidence_level``.
    attack_rate, baseline_rate, control_rate : Wilson estimates of the success rates of the
        attack on the confidential records, of random guessing and of the attack on the
        control records (None without control); ``*_error`` their error bounds.
    n_attacks, n_success : attacks made on the confidential records and successes;
        ``n_baseline_attacks``, ``n_baseline``, ``n_control_attacks``, ``n_control`` alike
        (``n_control`` is size-corrected, so may be fractional, for singling out).
    attack_beats_baseline : whether the attack did better than random guessing; when it did
        not, the attack is too weak for its risk to mean much (anonymeter warns then).
    details : the attack's settings (mode, columns, secret, ...).
    """

    attack: str
    risk: float
    ci: tuple[float, float]
    attack_rate: float
    attack_rate_error: float
    baseline_rate: float
    baseline_rate_error: float
    control_rate: float | None
    control_rate_error: float | None
    n_attacks: int
    n_success: int
    n_baseline_attacks: int
    n_baseline: int
    n_control_attacks: int | None
    n_control: float | None
    confidence_level: float
    random_state: int | None
    details: dict[str, Any] = field(default_factory=dict)

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    @property
    def attack_beats_baseline(self) -> bool:
        return self.attack_rate > self.baseline_rate

    @property
    def baseline_risk(self) -> float:
        """The baseline's success rate clipped to [0, 1] (anonymeter's ``risk(baseline=True)``)."""
        return _clip(self.baseline_rate)

    def to_frame(self) -> pd.DataFrame:
        """One row per run (attack, baseline, control): attacks, successes, rate, error."""
        rows: list[tuple[str, Any, Any, Any, Any]] = [
            ("attack", self.n_attacks, self.n_success, self.attack_rate, self.attack_rate_error),
            ("baseline", self.n_baseline_attacks, self.n_baseline, self.baseline_rate,
             self.baseline_rate_error),
        ]  # fmt: skip
        if self.control_rate is not None:
            rows.append(
                ("control", self.n_control_attacks, self.n_control, self.control_rate,
                 self.control_rate_error)
            )  # fmt: skip
        return pd.DataFrame(
            rows, columns=["run", "n_attacks", "n_success", "rate", "error"]
        ).set_index("run")

    def summary(self) -> str:
        lo, hi = self.ci
        lines = [
            f"{self.attack} risk {self.risk:.3f} ({self.confidence_level:.0%} CI "
            f"{lo:.3f}-{hi:.3f})",
            f"  attack   {self.n_success}/{self.n_attacks} successes, rate {self.attack_rate:.3f}",
            f"  baseline {self.n_baseline}/{self.n_baseline_attacks}, rate "
            f"{self.baseline_rate:.3f}",
        ]
        if self.control_rate is not None:
            lines.append(
                f"  control  {self.n_control:.1f}/{self.n_control_attacks}, rate "
                f"{self.control_rate:.3f}"
            )
        else:
            lines.append("  no control set: the risk is the attack rate (an upper bound)")
        if not self.attack_beats_baseline:
            lines.append("  the attack is no better than random guessing: the risk is not reliable")
        return "\n".join(lines)


def attack_risk(
    attack: str,
    *,
    n_attacks: int,
    n_success: int,
    n_baseline_attacks: int,
    n_baseline: int,
    n_control_attacks: int | None,
    n_control: float | None,
    confidence_level: float,
    random_state: int | None,
    details: dict[str, Any],
) -> AttackRisk:
    """Rates, residual risk and its interval (anonymeter's ``EvaluationResults.risk``)."""
    ra, ea = wilson(n_attacks, n_success, confidence_level)
    rb, eb = wilson(n_baseline_attacks, n_baseline, confidence_level)
    rc = ec = None
    if n_control is not None and n_control_attacks:
        rc, ec = wilson(n_control_attacks, n_control, confidence_level)
    if rc is None or ec is None:
        value, err = ra, ea
    elif rc >= 1.0:
        value, err = float("nan"), float("nan")  # no room left: the risk is undefined
    else:
        value = (ra - rc) / (1.0 - rc)
        err = math.sqrt((ea / abs(1.0 - rc)) ** 2 + (ec * (ra - 1.0) / (1.0 - rc) ** 2) ** 2)
    if math.isnan(value):
        risk, ci = float("nan"), (float("nan"), float("nan"))
    else:
        risk, ci = _clip(value), (_clip(value - err), _clip(value + err))
    return AttackRisk(
        attack=attack,
        risk=risk,
        ci=ci,
        attack_rate=ra,
        attack_rate_error=ea,
        baseline_rate=rb,
        baseline_rate_error=eb,
        control_rate=rc,
        control_rate_error=ec,
        n_attacks=n_attacks,
        n_success=n_success,
        n_baseline_attacks=n_baseline_attacks,
        n_baseline=n_baseline,
        n_control_attacks=n_control_attacks,
        n_control=n_control,
        confidence_level=confidence_level,
        random_state=random_state,
        details=details,
    )


def control_counts(
    attack: Callable[[Any], tuple[int, int]], control: Any | None,
) -> tuple[int | None, float | None]:
    """``(attacks, successes)`` of the same attack run on the control records, or
    ``(None, None)`` without a control set (Giomi et al. 2023: the control rate is what the
    release tells about records it was not made from)."""
    if control is None:
        return None, None
    n_att, n_success = attack(control)
    return n_att, float(n_success)


def check_confidence(confidence_level: float) -> float:
    try:
        c = float(confidence_level)
    except (TypeError, ValueError):
        raise ParameterError("parameter 'confidence_level': expected a number in (0, 1)") from None
    if not 0.0 < c < 1.0:
        raise ParameterError("parameter 'confidence_level': expected a number in (0, 1)")
    return c


def check_n_attacks(n_attacks: int | None, name: str = "n_attacks") -> int | None:
    if n_attacks is None:
        return None
    if isinstance(n_attacks, bool) or not isinstance(n_attacks, int) or n_attacks < 1:
        raise ParameterError(f"parameter '{name}': expected a positive integer (or None: all)")
    return int(n_attacks)
