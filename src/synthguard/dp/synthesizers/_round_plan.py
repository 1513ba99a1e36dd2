"""How many AIM rounds are left, from a round budget and from the measured time per round.

AIM (McKenna et al. 2022, Algorithm 1) fixes its noise from a nominal number of rounds
T = 16d and runs until the budget is spent; its running time is unbounded. Under a wall-time
budget, a fixed T either leaves most of ρ for one last measurement when time runs out (on Adult
at ε = 1: 16 of a planned 240 rounds done, about 80 % of ρ spent on the final marginal) or stops
early. Here the rounds still possible are re-estimated before every round from the time the
previous rounds took, and the round's noise is set so that what is left of ρ lasts exactly that
many rounds:

    R = ⌊(budget − elapsed) / τ − reserve⌋,  ρ_round = ρ_left / R,
    σ = √(1 / (2 · 0.9 ρ_round)),  ε_select = √(8 · 0.1 ρ_round)

(the paper's split: 0.9 of a round's ρ for the Gaussian measurement, 1/(2σ²)-zCDP, and 0.1 for
the exponential mechanism, ε²/8-zCDP). τ is the longest of the last round and the mean of the
last three (rounds grow slower as the model grows) and ``reserve`` the rounds' worth of time
kept for the work after the last round (AIM's final refit: ``final_iters / iters`` rounds; without
it a 280 s budget on the loaded machine ended after 543 s); the first round, before any is measured,
keeps AIM's initial noise. AIM keeps its own schedule on top: the noise is never larger than
AIM's annealed σ, so a round may spend more (annealing halves σ when the model stops moving)
and the budget then ends before the time does. The plan is recomputed every round, so the
noise rises again when rounds turn out faster than planned. With R = 1 the round is the
last and spends all that is left. The planner only reads the clock and counts: it touches no
data, so the number of rounds it allows is not a privacy cost (but a release under a time
budget depends on the machine's speed and does not reproduce across machines).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["RoundPlanner", "round_noise"]


def round_noise(rho_round: float) -> tuple[float, float]:
    """(σ, ε) of one AIM round spending ``rho_round``: 0.9 for the measurement, 0.1 to select."""
    return math.sqrt(1.0 / (2.0 * 0.9 * rho_round)), math.sqrt(8.0 * 0.1 * rho_round)


@dataclass
class RoundPlanner:
    """Rounds left under ``max_rounds`` and/or ``max_seconds`` (None: unbounded).

    Call :meth:`start` when the clock should start (before the first measurement), then
    :meth:`begin` at the start of each round (it records the previous round's duration) and
    :meth:`rounds_left` to plan it. ``clock`` is injectable for tests; ``reserve`` is the
    time, in rounds, kept for the work after the last round.
    """

    max_rounds: int | None = None
    max_seconds: float | None = None
    clock: Callable[[], float] = time.monotonic
    reserve: float = 0.0
    durations: list[float] = field(default_factory=list)
    by_time: bool = False
    _t0: float = 0.0
    _last: float | None = None
    _round: int = 0

    def start(self, t0: float | None = None) -> None:
        """Start the rounds now; the time budget counts from ``t0`` (default: now)."""
        now = self.clock()
        self._t0 = now if t0 is None else float(t0)
        self._last = None

    def begin(self) -> int:
        """Start a round: record the previous round's duration; return this round's number."""
        now = self.clock()
        if self._last is not None:
            self.durations.append(now - self._last)
        self._last = now
        self._round += 1
        return self._round

    def seconds_per_round(self) -> float | None:
        if not self.durations:
            return None
        recent = self.durations[-3:]
        return max(recent[-1], sum(recent) / len(recent))

    def rounds_left(self) -> int | None:
        """Rounds still possible including the current one (≥ 1), or None when unbounded.

        Sets :attr:`by_time`: whether the time budget, not the round budget, gave the answer."""
        left: list[int] = []
        by_time: int | None = None
        if self.max_rounds is not None:
            left.append(int(self.max_rounds) - self._round + 1)
        if self.max_seconds is not None:
            remaining = float(self.max_seconds) - (self.clock() - self._t0)
            tau = self.seconds_per_round()
            if tau is not None and tau > 0:  # no round measured yet: no time plan
                by_time = int((remaining - self.reserve * tau) // tau)
            elif remaining <= 0:
                by_time = 1
        if by_time is not None:
            left.append(by_time)
        self.by_time = by_time is not None and by_time <= min(left)
        return max(1, min(left)) if left else None
