"""AIM's round planner: rounds left from the measured time per round, and noise that spends
what is left of ρ over exactly those rounds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import AIMSynthesizer
from synthguard.dp.synthesizers._round_plan import RoundPlanner, round_noise

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_round_noise_splits_the_round_nine_to_one():
    sigma, eps = round_noise(0.02)
    assert 0.5 / sigma**2 == pytest.approx(0.018)  # Gaussian: 1/(2σ²)-zCDP
    assert eps**2 / 8 == pytest.approx(0.002)  # exponential mechanism: ε²/8-zCDP


def test_rounds_left_follow_the_measured_time_per_round():
    clock = FakeClock()
    plan = RoundPlanner(max_seconds=100.0, clock=clock)
    clock.now = 4.0  # the 1-way measurements and first fit took 4 s: not a round
    plan.start(0.0)
    assert plan.begin() == 1
    assert plan.rounds_left() is None  # no round measured yet: AIM's own first round
    clock.now = 8.0  # round 1 took 4 s
    plan.begin()
    assert plan.rounds_left() == 23  # ⌊92 / 4⌋
    clock.now = 18.0  # round 2 took 10 s
    plan.begin()
    assert plan.seconds_per_round() == 10.0  # the last round, longer than the mean of 4 and 10
    assert plan.rounds_left() == 8  # ⌊82 / 10⌋
    clock.now = 23.0  # round 3 took 5 s: mean of (4, 10, 5) = 6.33 > 5
    plan.begin()
    assert plan.seconds_per_round() == pytest.approx(19 / 3)
    assert plan.rounds_left() == 12  # ⌊77 / 6.33⌋ = ⌊12.2⌋
    clock.now = 99.0
    assert plan.rounds_left() == 1  # out of time: this round is the last
    # a round budget and a time budget: the tighter one counts
    both = RoundPlanner(max_rounds=3, max_seconds=1000.0, clock=clock)
    both.start()
    both.begin()
    clock.now += 1.0
    both.begin()
    assert both.rounds_left() == 2
    assert RoundPlanner().rounds_left() is None
    # time kept for the final refit (1.5 rounds' worth): 4 s rounds, 92 s left -> ⌊23 - 1.5⌋
    kept = RoundPlanner(max_seconds=100.0, clock=clock, reserve=1.5)
    clock.now = 4.0
    kept.start(0.0)
    kept.begin()
    clock.now = 8.0
    kept.begin()
    assert kept.rounds_left() == 21


def test_planned_rounds_spend_the_budget_evenly_and_exactly():
    # a simulated AIM loop without annealing: every round takes 5 s, 60 s budget
    clock = FakeClock()
    plan = RoundPlanner(max_seconds=60.0, clock=clock)
    plan.start()
    plan.begin()  # round 0 (AIM's first, unplanned) takes 5 s
    rho, used, spent = 1.0, 0.1, []
    clock.now = 5.0
    while True:
        plan.begin()
        left = rho - used
        r = plan.rounds_left()
        sigma, eps = round_noise(left / r)
        if r == 1:
            sigma, eps = round_noise(left)
        cost = 0.5 / sigma**2 + eps**2 / 8
        spent.append(cost)
        used += cost
        clock.now += 5.0
        if r == 1:
            break
    assert len(spent) == 11  # rounds at 5, 10, ..., 55 s
    assert math.fsum(spent) == pytest.approx(0.9)
    np.testing.assert_allclose(spent, 0.9 / 11)  # the same noise in every round


def test_aim_under_a_time_budget_spends_exactly_its_rho():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 500)
    df = pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, 500)) % 3,
                       "c": rng.integers(0, 2, 500)})
    cats = {"a": [0, 1, 2], "b": [0, 1, 2], "c": [0, 1]}

    class Ticking:  # every clock reading advances 10 ms: the refits read it every iteration,
        now = 0.0     # so a round of 20 iterations takes about 0.23 s

        def __call__(self) -> float:
            self.now += 0.01
            return self.now

    syn = AIMSynthesizer(epsilon=1.0, delta=1e-6, categories=cats, max_seconds=1.5,
                         iters=20, final_iters=20, random_state=2)
    syn._clock = Ticking()
    syn.fit(df)
    assert 1 <= syn.rounds_ <= 6
    assert math.fsum(r for _, r in syn.spent_) == pytest.approx(syn.rho_, rel=1e-12)
    assert len(syn.round_seconds_) == syn.rounds_  # each round's duration
    measured = [syn.spent_[i + 1][1] for i, (label, _) in enumerate(syn.spent_)
                if label.startswith("select round")]  # each round's measurement
    # the first round follows the paper's T = 16d plan; re-planned from the second on, each
    # spends a share of what is left for the rounds still possible: far more
    assert measured[0] == pytest.approx(0.9 * syn.rho_ / (16 * 3))
    assert len(measured) == syn.rounds_ and min(measured[1:]) > 2 * measured[0]
    assert syn.fit_seconds_ <= 1.5 + 0.05  # the whole fit within its budget (+ a few readings)


def test_a_budget_that_does_not_bind_leaves_the_release_reproducible():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, 400)
    df = pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, 400)) % 3,
                       "c": rng.integers(0, 2, 400)})
    cats = {"a": [0, 1, 2], "b": [0, 1, 2], "c": [0, 1]}
    kw = dict(epsilon=1.0, delta=1e-6, categories=cats, iters=20, final_iters=20,
              random_state=3)
    free = AIMSynthesizer(max_seconds=None, **kw).fit(df)
    roomy = AIMSynthesizer(**kw)  # the default budget, 600 s, far from binding here
    assert roomy.max_seconds == 600.0
    roomy.fit(df)
    assert not roomy.time_bound_ and roomy.fit_seconds_ < 600
    assert roomy.spent_ == free.spent_ and roomy.selected_ == free.selected_

    class Ticking:
        now = 0.0

        def __call__(self) -> float:
            self.now += 0.01
            return self.now

    tight = AIMSynthesizer(max_seconds=1.0, **kw)
    tight._clock = Ticking()
    tight.fit(df)
    assert tight.time_bound_ and tight.fit_seconds_ <= 1.05
