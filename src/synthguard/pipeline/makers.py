"""Make one release of a plan: synthesis, risk-weighted synthesis, SDC steps or a DP synthesizer.

Each maker receives the confidential training data, the schema, the release's
parameters from the plan and its own random Generator (spawned from the plan's seed),
and returns the release object the library makes (``SyntheticData``, ``ProtectedData``,
or what a DP synthesizer returns), untouched, so :func:`synthguard.evaluate` reads it
as it reads any release.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema
from synthguard.errors import ParameterError, PlanError
from synthguard.pipeline.dp_queries_release import make_dp_queries
from synthguard.pipeline.dp_tables_release import make_dp_tables
from synthguard.pipeline.plan import MAKERS, Plan, ReleaseSpec, resolve_maker, resolve_step

__all__ = ["make_release", "register_maker"]


def _takes(fn: Any, name: str) -> bool:
    target = fn.__init__ if inspect.isclass(fn) else fn
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _fit_sample(model: Any, data: pd.DataFrame) -> Any:
    if hasattr(model, "fit_sample"):
        return model.fit_sample(data)
    fitted = model.fit(data)
    return (fitted if fitted is not None else model).sample()


def _synthesis(spec: ReleaseSpec, data: pd.DataFrame, schema: Schema, plan: Plan,
               rng: np.random.Generator, ledger: Any,
               made: Mapping[str, Any] | None = None) -> Any:
    cls = resolve_maker("synthesis", spec.params)
    params = dict(spec.params)
    start = params.pop("start", None)
    # the plan's own overrides, not the whole inferred ``schema``: a Schema lists every level
    # the data hold, which the synthesizer takes as declared public, so a one-record level
    # would be released past the rare-values guard (issue 31, N3). A start's columns keep the
    # inferred kinds: their values come from the earlier release (a DP synthesis's public
    # domain), not from the confidential data
    started = () if start is None else tuple((made or {})[start].implicates[0].columns) \
        if hasattr((made or {}).get(start), "implicates") else ()
    declared: dict[str, Any] = {c: schema[c] for c in started if c in schema}
    declared.update(dict(plan.schema))
    model = cls(**params, schema=declared, random_state=rng)
    if start is None:
        return _fit_sample(model, data)
    # the start: an earlier release of the plan (e.g. a DP synthesis of the key variables)
    return model.fit(data).sample(start=(made or {})[start], start_origin={"release": start})


def _risk_weighted(spec: ReleaseSpec, data: pd.DataFrame, schema: Schema, plan: Plan,
                   rng: np.random.Generator, ledger: Any) -> Any:
    cls = resolve_maker("risk_weighted", spec.params)
    params = dict(spec.params)
    # the intruder model of the evaluation is the natural default for the weights
    if _takes(cls, "keys"):
        params.setdefault("keys", list(plan.keys))
    if _takes(cls, "targets") and "target" not in params:  # 'target': its old name
        params.setdefault("targets", plan.targets[0])
    elif _takes(cls, "target"):
        params.setdefault("target", plan.targets[0])
    if _takes(cls, "radius"):
        params.setdefault("radius", plan.radius)
    if _takes(cls, "schema"):
        params["schema"] = schema
    model = cls(**params, random_state=rng)
    return _fit_sample(model, data)


def _sdc(spec: ReleaseSpec, data: pd.DataFrame, schema: Schema, plan: Plan,
         rng: np.random.Generator, ledger: Any) -> Any:
    current = data
    result: Any = None
    for step in spec.params["steps"]:
        (fname, kwargs), = step.items()
        fn = resolve_step(fname)
        kw = dict(kwargs or {})
        if _takes(fn, "random_state"):
            kw["random_state"] = rng
        result = fn(current, **kw)
        current = result.data
    return result


def _dp(spec: ReleaseSpec, data: pd.DataFrame, schema: Schema, plan: Plan,
        rng: np.random.Generator, ledger: Any) -> Any:
    """A DP synthesizer charging the plan's ledger. Its privacy noise comes from OpenDP (the
    constructor gets no seed: seeded noise is for simulation only); only the sampling of
    records from the noisy model, which is post-processing, follows the plan's seed."""
    cls = resolve_maker("dp", spec.params)
    params = {k: v for k, v in spec.params.items() if k not in ("synthesizer", "m", "n")}
    if ledger is not None and _takes(cls, "ledger"):
        params["ledger"] = ledger
    model = cls(**params)
    fitted = model.fit(data)
    fitted = fitted if fitted is not None else model
    return fitted.sample(n=spec.params.get("n"), m=int(spec.params.get("m", 1)), random_state=rng)


Maker = Callable[[ReleaseSpec, pd.DataFrame, Schema, Plan, np.random.Generator, Any], Any]

_MAKERS: dict[str, Maker] = {
    "synthesis": _synthesis, "risk_weighted": _risk_weighted, "sdc": _sdc, "dp": _dp,
    "dp_tables": make_dp_tables, "dp_queries": make_dp_queries,
}


def register_maker(
    method: str,
    make: Maker,
    *,
    calls: Callable[..., Any],
    reserved: tuple[str, ...] = (),
    overwrite: bool = False,
) -> None:
    """Add a release method for plans (``releases: {name: {method: <method>, ...}}``).

    ``make(spec, data, schema, plan, rng, ledger)`` returns the release (any object
    :func:`synthguard.evaluate` reads: ``SyntheticData``, ``ProtectedData``, a DataFrame or
    a list of them); ``rng`` is the release's own Generator spawned from the plan's seed.
    ``calls`` is the class or function whose signature the plan's parameters are checked
    against, ``reserved`` the parameters the pipeline sets itself (a plan may not).
    """
    if not callable(make) or not callable(calls):
        raise PlanError(f"register_maker('{method}'): 'make' and 'calls' must be callable")
    if method in MAKERS and not overwrite:
        raise PlanError(f"release method '{method}' is already registered; pass overwrite=True")
    MAKERS[method] = (calls, tuple(reserved))
    _MAKERS[method] = make


def make_release(
    spec: ReleaseSpec,
    data: pd.DataFrame,
    schema: Schema,
    plan: Plan,
    rng: np.random.Generator,
    ledger: Any = None,
    made: Mapping[str, Any] | None = None,
) -> Any:
    """Make the release ``spec`` describes from the confidential ``data`` (``made``: the
    plan's releases made before it, for a synthesis ``start:``)."""
    maker = _MAKERS.get(spec.method)
    if maker is None:  # pragma: no cover - the plan validated the method
        raise ParameterError(f"release '{spec.name}': unknown method '{spec.method}'")
    if spec.method == "synthesis":
        return _synthesis(spec, data, schema, plan, rng, ledger, made or {})
    return maker(spec, data, schema, plan, rng, ledger)


def release_frames(release: Any) -> list[pd.DataFrame]:
    """The implicates of a release as DataFrames (for writing)."""
    from synthguard.data.implicates import as_implicates

    return as_implicates(release)


def describe_release(release: Any) -> Mapping[str, Any]:
    """Public facts about how a release was made (no confidential statistics)."""
    out: dict[str, Any] = {"type": type(release).__name__}
    for attr in ("kind", "m", "seed", "method"):
        v = getattr(release, attr, None)
        if isinstance(v, str | int) and not isinstance(v, bool):
            out[attr] = v
    if getattr(release, "dp", True) is False:
        out["privacy"] = "NOT differentially private (domain read from the data)"
    methods = getattr(release, "methods", None)
    if isinstance(methods, Mapping):
        out["methods"] = ", ".join(f"{k}={v}" for k, v in methods.items())
    prov = getattr(release, "provenance", None)
    if isinstance(prov, Mapping):  # a DP release: the error it states without the data
        from synthguard.report.dp_section import accuracy_line, dp_info_from_provenance

        if (accuracy := accuracy_line(dp_info_from_provenance(prov))) is not None:
            out["accuracy"] = accuracy
    return out
