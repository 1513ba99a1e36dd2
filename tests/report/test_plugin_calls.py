"""evaluate calls the utility and risk functions with every documented argument.

It used to drop the keyword arguments a callee's signature lacked (``random_state``
included), so a replaced function ran unseeded and nobody was told. Now a replacement
that does not take the documented arguments fails, and the evaluation says so.
"""

from __future__ import annotations

import synthguard.risk
import synthguard.utility
from synthguard.report import evaluate

KEYS = ["region", "sex", "kids"]


def test_replaced_utility_function_gets_random_state_or_the_failure_is_recorded(
    conf, releases, monkeypatch
):
    seen: dict[str, object] = {}
    real = synthguard.utility.evaluate_utility

    def with_seed(conf, synthetic, formulas=None, **kw):
        seen.update(kw)
        return real(conf, synthetic, formulas, **kw)

    monkeypatch.setattr(synthguard.utility, "evaluate_utility", with_seed)
    ev = evaluate(conf, {"shuffled": releases["shuffled"]}, keys=KEYS, targets="income",
                  kinds={"shuffled": "partial"}, random_state=5)
    assert "random_state" in seen and seen["random_state"] is not None
    assert "utility" not in ev.releases["shuffled"].errors

    def no_seed(conf, synthetic, formulas=None, *, schema=None, method=None):
        return real(conf, synthetic, formulas, schema=schema, method=method)

    monkeypatch.setattr(synthguard.utility, "evaluate_utility", no_seed)
    ev = evaluate(conf, {"shuffled": releases["shuffled"]}, keys=KEYS, targets="income",
                  kinds={"shuffled": "partial"}, random_state=5)
    assert ev.releases["shuffled"].errors["utility"].startswith("TypeError")


def test_replaced_risk_function_without_random_state_is_not_called_unseeded(
    conf, releases, monkeypatch
):
    calls: list[dict] = []

    def no_seed(conf, synthetic, keys, targets, holdout=None, radius=0.2, *, schema=None):
        calls.append({})
        raise AssertionError("must not be called without its random_state")

    monkeypatch.setattr(synthguard.risk, "evaluate_risk", no_seed)
    ev = evaluate(conf, {"shuffled": releases["shuffled"]}, keys=KEYS, targets="income",
                  kinds={"shuffled": "partial"}, random_state=5)
    assert calls == []
    assert ev.releases["shuffled"].errors["risk"].startswith("TypeError")
