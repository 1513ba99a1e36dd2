"""The YAML plan behind ``synthguard run``: parse and validate it, pointing at line and field.

A plan maps one to one onto the Python calls (STYLE.md: CLI)::

    data:
      path: conf.csv            # or  dataset: ce  (a bundled data set)
      schema:                   # overrides of the inferred column kinds
        Race: categorical
    seed: 20240101
    output: synthguard_output   # folder for releases, ledger and report (relative to the plan)
    holdout: 0.2                # share of records set aside, never used to make a release
    privacy:                    # the ledger of every differentially private release
      epsilon: 2.0
      delta: 0.0
    releases:                   # name -> how to make it
      synthetic:
        method: synthesis       # synthguard.Synthesizer; the other keys are its parameters
        m: 5
        keep: [UrbanRural, Race, KidsCount]
      topcoded:
        method: sdc             # synthguard.sdc functions applied in turn
        steps:
          - topcode: {column: Income, percentile: 94}
    evaluation:
      keys: [UrbanRural, Race, KidsCount]
      targets: [Income]
      radius: 0.2
      formulas: ["Expenditure ~ Income"]
      thresholds: {max_identification_risk: 0.5, pmse_ratio: 3}
      attacks: true             # anonymeter's attacks, the holdout as control (needs holdout)
    report:
      title: CE release options
      min_cell: 10

Release methods: ``synthesis`` (:class:`synthguard.synthesis.Synthesizer`),
``risk_weighted`` (:class:`synthguard.bayes.RiskWeightedSynthesizer`), ``sdc``
(``steps`` of :mod:`synthguard.sdc` functions) and ``dp`` (a synthesizer of
:mod:`synthguard.dp`, named by ``synthesizer``, charging the plan's ledger) and
``dp_tables`` (noisy tables by :func:`synthguard.dp.tables.dp_tables` on the plan's ledger;
:mod:`synthguard.pipeline.dp_tables_release`) and ``dp_queries`` (statistics on demand per
privacy unit on the plan's ledger; :mod:`synthguard.pipeline.dp_queries_release`). Their
parameters are checked against the signatures of the classes and functions they call.
A ``synthesis`` release also takes ``constraints:``, ``transforms:`` and ``start:`` (the
name of a release listed before it, e.g. a ``dp`` release of the key variables, whose
implicates start the synthesis; see :mod:`synthguard.synthesis.start`);
``evaluation.constraints`` checks rules on the data and every release (a release breaking
one fails; :mod:`synthguard.report.constraints_check`).

Every problem found is reported at once in one :class:`~synthguard.errors.PlanError`,
each line as ``plan.yaml, line 12, releases.synthetic.m: expected ...``.
"""

from __future__ import annotations

import difflib
import inspect
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from synthguard.bayes import RiskWeightedSynthesizer
from synthguard.data.safe_load import MAX_YAML_BYTES, parse_yaml_node, read_text
from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS
from synthguard.dp.tables import dp_tables
from synthguard.errors import ParameterError, PlanError
from synthguard.pipeline.dp_queries_release import dp_queries
from synthguard.pipeline.sweep_plan import check_sweep
from synthguard.report.metrics import METRICS
from synthguard.sdc.steps import SDC_STEPS
from synthguard.synthesis import Synthesizer

__all__ = ["MAKERS", "Plan", "ReleaseSpec", "load_plan", "parse_plan"]

Path_ = tuple[Any, ...]

TOP_KEYS = ("data", "seed", "output", "holdout", "privacy", "releases", "evaluation", "report")
DATA_KEYS = ("path", "dataset", "schema", "columns", "read_options")
EVAL_KEYS = ("keys", "targets", "radius", "formulas", "thresholds", "default_thresholds",
             "max_distance_records", "attacks", "constraints")
REPORT_KEYS = ("title", "min_cell", "file")
PRIVACY_KEYS = ("epsilon", "delta")

# method -> (what it calls, parameters the pipeline sets itself); "sdc" calls the steps of
# the SDC step registry (sdc/steps.py) named by its steps, "dp" the synthesizer named by its
# 'synthesizer' in the DP registry
MAKERS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "synthesis": (Synthesizer, ("random_state", "schema")),
    "risk_weighted": (RiskWeightedSynthesizer, ("random_state", "schema")),
    "sdc": (SDC_STEPS, ()),
    "dp": (None, ("random_state", "ledger", "schema")),
    "dp_tables": (dp_tables, ("random_state", "ledger", "data", "label")),
    "dp_queries": (dp_queries, ("random_state", "ledger", "data", "source")),
}
# release methods charging the plan's privacy ledger
DP_METHODS = ("dp", "dp_tables", "dp_queries")

# DP_SYNTHESIZERS (dp/synthesizers/registry.py) and SDC_STEPS (sdc/steps.py): one registry each


@dataclass(frozen=True)
class ReleaseSpec:
    """One release to make: its name, method, parameters and the plan line it starts on."""

    name: str
    method: str
    params: Mapping[str, Any]
    line: int = 0


@dataclass(frozen=True)
class Plan:
    """A validated plan. Build it with :func:`load_plan` (a file) or :func:`parse_plan` (text,
    or a Python mapping through :meth:`from_dict`)."""

    releases: tuple[ReleaseSpec, ...]
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    data_path: Path | None = None
    dataset: str | None = None
    schema: Mapping[str, Any] = field(default_factory=dict)
    columns: tuple[str, ...] | None = None
    read_options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    output: Path = Path("synthguard_output")
    holdout: float = 0.0
    radius: float = 0.2
    formulas: tuple[str, ...] = ()
    thresholds: Mapping[str, Any] = field(default_factory=dict)
    default_thresholds: bool = True
    max_distance_records: int | None = 10_000
    attacks: bool = False
    constraints: Any = None
    epsilon: float | None = None
    delta: float = 0.0
    title: str = "synthguard risk–utility report"
    min_cell: int = 10
    report_file: str = "report.html"
    text: str = ""
    source: str = "<plan>"
    lines: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)

    def where(self, dotted: str) -> str:
        """``"plan.yaml, line 30, evaluation.keys"`` for a run-time message about a field."""
        line = self.lines.get(dotted)
        return f"{self.source}, line {line}, {dotted}" if line else f"{self.source}, {dotted}"

    @classmethod
    def from_dict(
        cls, d: Mapping[str, Any], *, base_dir: str | os.PathLike[str] | None = None,
        source: str = "<plan>",
    ) -> Plan:
        """Validate a plan given as a Python mapping (the same structure as the YAML)."""
        text = yaml.safe_dump(_plain(d), sort_keys=False, allow_unicode=True)
        return parse_plan(text, source=source, base_dir=base_dir)


def _plain(d: Any) -> Any:
    if isinstance(d, Mapping):
        return {str(k): _plain(v) for k, v in d.items()}
    if isinstance(d, list | tuple):
        return [_plain(v) for v in d]
    if isinstance(d, Path):
        return str(d)
    return d


def _marks(node: yaml.Node | None, path: Path_ = (), out: dict[Path_, int] | None = None
           ) -> dict[Path_, int]:
    """Line (1-based) of every field of the composed YAML document, by path."""
    out = {} if out is None else out
    if node is None:
        return out
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = k.value
            out[(*path, key)] = k.start_mark.line + 1
            _marks(v, (*path, key), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[(*path, i)] = item.start_mark.line + 1
            _marks(item, (*path, i), out)
    return out


def _duplicate_keys(node: yaml.Node | None, path: Path_ = ()) -> list[tuple[Path_, str]]:
    found: list[tuple[Path_, str]] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for k, v in node.value:
            if k.value in seen:
                found.append(((*path, k.value), "appears twice; each name may appear once"))
            seen.add(k.value)
            found.extend(_duplicate_keys(v, (*path, k.value)))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            found.extend(_duplicate_keys(item, (*path, i)))
    return found


class _Problems:
    def __init__(self, marks: dict[Path_, int], source: str) -> None:
        self.marks = marks
        self.source = source
        self.items: list[tuple[int, str]] = []

    def line(self, path: Path_) -> int:
        p = tuple(path)
        while p and p not in self.marks:
            p = p[:-1]
        return self.marks.get(p, 1)

    def add(self, path: Path_, msg: str) -> None:
        dotted = ".".join(str(x) if not isinstance(x, int) else f"[{x}]" for x in path)
        dotted = dotted.replace(".[", "[")
        line = self.line(path)
        where = f"{self.source}, line {line}" + (f", {dotted}" if dotted else "")
        self.items.append((line, f"{where}: {msg}"))

    def raise_if_any(self) -> None:
        if self.items:
            lines = [m for _, m in sorted(self.items, key=lambda t: t[0])]
            head = "the plan does not validate" if len(lines) > 1 else lines[0]
            body = "" if len(lines) == 1 else ":\n" + "\n".join(f"  - {m}" for m in lines)
            raise PlanError(head + body)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _names(v: Any) -> tuple[str, ...] | None:
    if isinstance(v, str):
        return tuple(s.strip() for s in v.split(",") if s.strip())
    if isinstance(v, list) and all(isinstance(s, str | int) for s in v):
        return tuple(str(s) for s in v)
    return None


def _accepted(obj: Callable[..., Any]) -> tuple[set[str], bool]:
    """Keyword names ``obj`` accepts, and whether it takes ``**kwargs``."""
    target = obj.__init__ if inspect.isclass(obj) else obj  # type: ignore[misc]
    params = inspect.signature(target).parameters
    var = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    names = {n for n, p in params.items()
             if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    names.discard("self")
    names |= set(getattr(target, "__renamed__", {}))  # old names: warn one release (_compat)
    return names, var


def resolve_step(name: str) -> Callable[..., Any]:
    """The function of an sdc release's step ``name``, from the SDC step registry
    (:data:`synthguard.sdc.steps.SDC_STEPS`; PlanError for an unknown one)."""
    fn = SDC_STEPS.get(str(name))
    if fn is None:
        raise PlanError(f"unknown SDC step '{name}'; expected one of {', '.join(SDC_STEPS)}")
    return fn  # type: ignore[no-any-return]


def resolve_maker(method: str, params: Mapping[str, Any]) -> Callable[..., Any]:
    """The class or function a release method calls (PlanError for an unknown one); for
    ``sdc``, the SDC step registry (its steps are looked up with :func:`resolve_step`)."""
    if method not in MAKERS:
        raise PlanError(f"unknown release method '{method}'; expected one of {', '.join(MAKERS)}")
    obj, _ = MAKERS[method]
    if method == "dp":
        name = str(params.get("synthesizer", ""))
        if name not in DP_SYNTHESIZERS:
            raise PlanError(f"unknown DP synthesizer '{name}'; expected one of "
                            f"{', '.join(DP_SYNTHESIZERS)}")
        obj = DP_SYNTHESIZERS[name]
    return obj  # type: ignore[no-any-return]


def _unit_of(spec: ReleaseSpec) -> str:
    """The privacy unit a DP release protects ('row' unless it names an id column)."""
    unit = spec.params.get("privacy_unit")
    return unit if isinstance(unit, str) and unit else "row"


def _check_release(name: str, spec: Any, p: _Problems) -> ReleaseSpec | None:
    base: Path_ = ("releases", name)
    if not isinstance(spec, Mapping):
        p.add(base, "expected a mapping with 'method' and the method's parameters")
        return None
    method = spec.get("method")
    if method not in MAKERS:
        p.add((*base, "method"), f"expected one of {', '.join(MAKERS)}")
        return None
    params = {k: v for k, v in spec.items() if k != "method"}
    _, reserved = MAKERS[method]
    for r in reserved:
        if r in params:
            p.add((*base, r), "set by the pipeline (from the plan's seed, schema or privacy "
                              "section); remove it here")
    if method == "sdc":
        _check_sdc(base, params, p)
    else:
        if method == "dp":
            syn = params.get("synthesizer")
            if syn not in DP_SYNTHESIZERS:
                p.add((*base, "synthesizer"), f"expected one of {', '.join(DP_SYNTHESIZERS)}")
                return None
        if method in DP_METHODS:
            if not _is_number(params.get("epsilon")) or not params.get("epsilon", 0) > 0:
                p.add((*base, "epsilon"), "expected a positive number (the release's share "
                                          "of the privacy budget)")
        try:
            maker = resolve_maker(method, params)
        except PlanError as e:
            p.add((*base, "method"), str(e))
            return None
        accepted, var = _accepted(maker)
        skip = {"synthesizer", "epsilon", "delta", "rule"} if method in DP_METHODS else (
            {"start", "sweep"} if method == "synthesis" else set())
        if method == "synthesis" and "sweep" in params:  # synthguard sweep (pipeline/sweep_plan)
            check_sweep(params, accepted, lambda k, msg: p.add((*base, *k), msg))
        for k in params:
            if k in reserved or k in skip or var:
                continue
            if k not in accepted:
                p.add((*base, k), f"unknown parameter of {maker.__name__}; accepted: "
                                  f"{', '.join(sorted(accepted - set(reserved)))}")
        if "m" in params and (not isinstance(params["m"], int) or isinstance(params["m"], bool)
                              or params["m"] < 1):
            p.add((*base, "m"), "expected a positive integer number of implicates")
    return ReleaseSpec(str(name), str(method), params, p.line(base))


def _check_sdc(base: Path_, params: dict[str, Any], p: _Problems) -> None:
    unknown = set(params) - {"steps"}
    for k in unknown:
        p.add((*base, k), "an sdc release takes only 'steps' (a list of {function: parameters})")
    steps = params.get("steps")
    if not isinstance(steps, list) or not steps:
        p.add((*base, "steps"), "expected a non-empty list such as "
                                "[{topcode: {column: income, percentile: 95}}]")
        return
    public = list(SDC_STEPS)
    for i, step in enumerate(steps):
        where = (*base, "steps", i)
        if not isinstance(step, Mapping) or len(step) != 1:
            p.add(where, "expected one function name mapped to its parameters, "
                         "e.g. {topcode: {column: income, percentile: 95}}")
            continue
        (fname, kwargs), = step.items()
        fn = SDC_STEPS.get(str(fname))
        if fn is None:
            p.add((*where, fname), f"unknown SDC function; use one of {', '.join(public)}")
            continue
        if kwargs is None:
            kwargs = {}
        if not isinstance(kwargs, Mapping):
            p.add((*where, fname), "expected a mapping of parameters")
            continue
        accepted, var = _accepted(fn)
        accepted.discard("data")
        for k in kwargs:
            if k == "random_state":
                p.add((*where, fname, k), "set by the pipeline from the plan's seed; remove it")
            elif not var and k not in accepted:
                p.add((*where, fname, k), f"unknown parameter of sdc.{fname}; accepted: "
                                          f"{', '.join(sorted(accepted - {'random_state'}))}")


def _check_keys(section: Any, allowed: tuple[str, ...], path: Path_, p: _Problems) -> dict[str, Any]:
    if section is None:
        return {}
    if not isinstance(section, Mapping):
        p.add(path, "expected a mapping")
        return {}
    for k in section:
        if k not in allowed:
            p.add((*path, k), f"unknown field; {_unknown_field_hint(path, k, allowed)}")
    return dict(section)


_DROP_HINT = ("a plan lists the columns it releases instead: write data.columns: [the columns "
              "to keep] (the command line's --drop names the ones to leave out)")
_READ_HINT = "reader options go under data.read_options, e.g. read_options: {{{0}: ...}}"

#: fields a user writes from the command line's habits, and what a plan says instead
_FIELD_HINTS: dict[tuple[str, ...], str] = {
    ("data", "drop"): _DROP_HINT,
    ("drop",): _DROP_HINT,
    ("data", "exclude"): _DROP_HINT,
    ("data", "na_values"): _READ_HINT.format("na_values"),
    ("data", "strip"): _READ_HINT.format("strip"),
    ("data", "keep"): ("to release some columns only, list them under data.columns; to keep "
                       "columns unsynthesized, write keep: under a release"),
    ("data", "file"): "the data file goes under data.path",
}


def _unknown_field_hint(path: Path_, key: Any, allowed: tuple[str, ...]) -> str:
    """What to write instead of an unknown field: the plan's word for a command-line habit
    (``data.drop`` -> ``data.columns``), a near spelling, or the fields allowed there."""
    where = tuple(str(x) for x in path)
    hint = _FIELD_HINTS.get((*where, str(key)))
    if hint:
        return hint
    close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.7)
    near = f"did you mean '{close[0]}'? " if close else ""
    return f"{near}expected one of {', '.join(allowed)}"


_SIMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def _simple_name(name: str) -> bool:
    """A release or file name that stays inside its folder: no '/', no '..', not absolute."""
    return bool(_SIMPLE_NAME.fullmatch(name)) and ".." not in name


def _inside(base: Path, rel: str) -> Path | None:
    """``base/rel``, resolved through symbolic links, when ``rel`` is a relative path that stays
    inside ``base`` also after every link in it is followed (``output: linkout/x`` with
    ``linkout`` a link out of the folder wrote outside it); else None."""
    if not rel or os.path.isabs(rel) or Path(rel).drive:
        return None
    root = Path(os.path.realpath(base))
    target = Path(os.path.realpath(base / rel))
    return target if target.is_relative_to(root) else None


def contained(out: Path, names: Iterable[str]) -> list[str]:
    """Those of ``names`` whose path under ``out`` leaves ``out`` once symbolic links are
    followed (a link planted where a run writes ``ledger.json`` or ``releases``)."""
    root = Path(os.path.realpath(out))
    return [n for n in names if not Path(os.path.realpath(out / n)).is_relative_to(root)]


def parse_plan(
    text: str, *, source: str = "<plan>", base_dir: str | os.PathLike[str] | None = None
) -> Plan:
    """Parse and validate plan ``text``; relative paths resolve against ``base_dir``.

    Raises
    ------
    PlanError
        Every problem, each with the file, line and field, in one message.
    """
    node, data = parse_yaml_node(text, source=source, what="a plan", error=PlanError)
    p = _Problems(_marks(node), source)
    for path, msg in _duplicate_keys(node):
        p.add(path, msg)
    if not isinstance(data, Mapping):
        p.add((), "expected a mapping with 'data', 'releases' and 'evaluation'")
        p.raise_if_any()
    top = _check_keys(data, TOP_KEYS, (), p)
    base = Path(base_dir) if base_dir is not None else Path.cwd()

    d = _check_keys(top.get("data"), DATA_KEYS, ("data",), p)
    data_path = dataset = None
    if "data" not in top:
        p.add(("data",), "missing: give data.path (a file) or data.dataset (a bundled set)")
    elif ("path" in d) == ("dataset" in d):
        p.add(("data",), "give exactly one of 'path' (a data file) and 'dataset' (a bundled set)")
    elif "path" in d:
        if not isinstance(d["path"], str):
            p.add(("data", "path"), "expected a file path")
        else:
            data_path = Path(os.path.normpath(base / d["path"]))
            if not data_path.exists():
                p.add(("data", "path"), f"file '{data_path}' does not exist")
    else:
        from synthguard.data.datasets import DATASETS

        if d["dataset"] not in DATASETS:
            p.add(("data", "dataset"), f"unknown bundled data set; use one of {', '.join(DATASETS)}")
        dataset = str(d["dataset"])
    schema = d.get("schema") or {}
    if not isinstance(schema, Mapping):
        p.add(("data", "schema"), "expected a mapping of column to kind, e.g. {Race: categorical}")
        schema = {}
    columns = None
    if "columns" in d:
        columns = _names(d["columns"])
        if columns is None:
            p.add(("data", "columns"), "expected a list of column names")
    read_options = d.get("read_options") or {}
    if not isinstance(read_options, Mapping):
        p.add(("data", "read_options"), "expected a mapping of reader options")
        read_options = {}

    seed = top.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        p.add(("seed",), "expected a non-negative integer")
    output = top.get("output", "synthguard_output")
    if not isinstance(output, str):
        p.add(("output",), "expected a folder path")
        output = "synthguard_output"
    out_path = _inside(base, output)
    if out_path is None or out_path == Path(os.path.realpath(base)):
        p.add(("output",), "expected a folder inside the plan's folder (a relative path without "
                           "'..' or a link that leads out of it); for a folder elsewhere use "
                           "`synthguard run --out FOLDER`")
        out_path = Path(os.path.normpath(base / "synthguard_output"))
    holdout = top.get("holdout", 0.0)
    if not _is_number(holdout) or not 0 <= holdout < 1:
        p.add(("holdout",), "expected the share of records to set aside, a number in [0, 1)")
        holdout = 0.0

    priv = _check_keys(top.get("privacy"), PRIVACY_KEYS, ("privacy",), p)
    epsilon = priv.get("epsilon")
    if epsilon is not None and (not _is_number(epsilon) or epsilon <= 0):
        p.add(("privacy", "epsilon"), "expected a positive number (the total privacy budget)")
    delta = priv.get("delta", 0.0)
    if not _is_number(delta) or not 0 <= delta < 1:
        p.add(("privacy", "delta"), "expected a number in [0, 1)")
        delta = 0.0

    rel = top.get("releases")
    specs: list[ReleaseSpec] = []
    if not isinstance(rel, Mapping) or not rel:
        p.add(("releases",), "expected a mapping of release name to how to make it")
    else:
        for name, spec in rel.items():
            if not _simple_name(str(name)):
                p.add(("releases", str(name)), "a release name is a simple name (letters, "
                      "digits, '_', '-', '.'; no '/', '..' or absolute path): its files are "
                      "written inside the output folder under this name")
                continue
            s = _check_release(str(name), spec, p)
            if s is not None:
                start = s.params.get("start") if s.method == "synthesis" else None
                if start is not None and start not in {x.name for x in specs}:
                    p.add(("releases", str(name), "start"), "expected the name of a release "
                          "listed before this one (its implicates start the synthesis)")
                specs.append(s)
    units = {_unit_of(s) for s in specs if s.method in DP_METHODS}
    if len(units) > 1:
        p.add(("releases",), "the dp releases protect different privacy units ("
              + ", ".join(sorted(units)) + "); amounts for different units do not add up on "
              "the plan's one ledger: give them one privacy_unit, or make two plans")
    if any(s.method in DP_METHODS for s in specs):
        if epsilon is None:
            p.add(("privacy",), "a dp release needs privacy.epsilon, the total budget of the ledger")
        else:
            total = sum(float(s.params.get("epsilon", 0) or 0) for s in specs if s.method in DP_METHODS)
            if total > float(epsilon) + 1e-12:
                p.add(("privacy", "epsilon"), f"the dp releases ask for epsilon {total:g} in "
                                              f"total, more than the budget; raise the budget or "
                                              f"lower the releases' epsilon")
            total_delta = sum(float(s.params.get("delta", 0) or 0) for s in specs
                              if s.method in DP_METHODS and _is_number(s.params.get("delta", 0)))
            if total_delta > float(delta) + 1e-15:
                p.add(("privacy", "delta"), f"the dp releases ask for delta {total_delta:g} in "
                                            f"total, more than the budget; raise privacy.delta "
                                            f"(MST needs delta > 0)")

    ev = _check_keys(top.get("evaluation"), EVAL_KEYS, ("evaluation",), p)
    keys = _names(ev.get("keys", []))
    if keys is None:
        p.add(("evaluation", "keys"), "expected a list of key variables")
        keys = ()
    targets = _names(ev.get("targets", []))
    if not targets:
        p.add(("evaluation", "targets"), "expected at least one target variable")
        targets = ()
    radius = ev.get("radius", 0.2)
    if not _is_number(radius) or radius < 0:
        p.add(("evaluation", "radius"), "expected a number >= 0 (0.2 means within 20%)")
        radius = 0.2
    formulas = ev.get("formulas") or []
    if isinstance(formulas, str):
        formulas = [formulas]
    if not isinstance(formulas, list) or not all(isinstance(f, str) and "~" in f for f in formulas):
        p.add(("evaluation", "formulas"), "expected a list of formulas such as 'y ~ x1 + x2'")
        formulas = []
    thresholds = ev.get("thresholds") or {}
    if not isinstance(thresholds, Mapping):
        p.add(("evaluation", "thresholds"), "expected a mapping of metric to limit")
        thresholds = {}
    for k, v in thresholds.items():
        if k not in METRICS:
            p.add(("evaluation", "thresholds", k), f"unknown metric; known: {', '.join(METRICS)}")
        elif not (_is_number(v) or (isinstance(v, Mapping) and v and set(v) <= {"max", "min"}
                                    and all(_is_number(x) for x in v.values()))):
            p.add(("evaluation", "thresholds", k), "expected a number or {max: x} / {min: x}")
    constraints = ev.get("constraints")
    try:
        from synthguard.data.constraints import parse_constraints

        parse_constraints(constraints)
    except ParameterError as e:
        p.add(("evaluation", "constraints"), str(e))
        constraints = None
    default_thresholds = ev.get("default_thresholds", True)
    if not isinstance(default_thresholds, bool):
        p.add(("evaluation", "default_thresholds"),
              "expected true or false (false judges by the plan's thresholds alone)")
        default_thresholds = True

    attacks = ev.get("attacks", False)
    if not isinstance(attacks, bool):
        p.add(("evaluation", "attacks"),
              "expected true or false (true runs anonymeter's attacks with the plan's holdout "
              "as control)")
        attacks = False
    max_distance = ev.get("max_distance_records", 10_000)
    if max_distance is not None and (not isinstance(max_distance, int)
                                     or isinstance(max_distance, bool) or max_distance < 100):
        p.add(("evaluation", "max_distance_records"),
              "expected an integer >= 100, or null to use every record")
        max_distance = 10_000

    rep = _check_keys(top.get("report"), REPORT_KEYS, ("report",), p)
    title = rep.get("title", "synthguard risk–utility report")
    min_cell = rep.get("min_cell", 10)
    if not isinstance(min_cell, int) or isinstance(min_cell, bool) or min_cell < 1:
        p.add(("report", "min_cell"), "expected a positive integer")
        min_cell = 10
    report_file = rep.get("file", "report.html")
    if (not isinstance(report_file, str) or not report_file.endswith(".html")
            or not _simple_name(report_file)):
        p.add(("report", "file"), "expected a simple file name ending in .html (no '/' or "
                                  "'..': the report is written inside the output folder)")
        report_file = "report.html"
    p.raise_if_any()
    return Plan(
        releases=tuple(specs), keys=tuple(keys), targets=tuple(targets), data_path=data_path,
        dataset=dataset, schema=dict(schema), columns=columns, read_options=dict(read_options),
        seed=seed, output=out_path, holdout=float(holdout), radius=float(radius),
        formulas=tuple(formulas), thresholds=dict(thresholds),
        default_thresholds=default_thresholds, max_distance_records=max_distance,
        attacks=attacks,
        constraints=constraints,
        epsilon=None if epsilon is None else float(epsilon), delta=float(delta),
        title=str(title), min_cell=int(min_cell), report_file=report_file, text=text,
        source=source,
        lines={".".join(map(str, k)): v for k, v in p.marks.items() if k},
    )


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read and validate a plan file; relative paths in it resolve against its folder."""
    p = Path(path)
    if not p.is_file():
        raise PlanError(f"plan file '{p}' does not exist; create one with `synthguard init`")
    text = read_text(p, p.name, "a plan", MAX_YAML_BYTES, PlanError)
    return parse_plan(text, source=p.name, base_dir=p.parent.resolve())
