"""``synthguard dp``: DP synthetic data and the privacy ledger from the command line."""

from __future__ import annotations

import inspect
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from synthguard.cli._dask import dask_option
from synthguard.cli._dp_syntax import cli_syntax
from synthguard.cli._drop import drop_columns, drop_option
from synthguard.cli._options import read_options
from synthguard.data.io import read_table, write_table
from synthguard.errors import ParameterError, PrivacyWarning

__all__ = ["dp_cmd"]



class _Registered(click.Choice):
    """The names of the DP synthesizers' registry, read when the command runs (so one
    registered by a plug-in appears in ``--method`` and its help with no edit here; the
    registry is imported then, not when the command line starts)."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        from synthguard.dp.synthesizers.registry import DP_SYNTHESIZERS

        return tuple(DP_SYNTHESIZERS)

    @choices.setter
    def choices(self, value: Any) -> None:  # click.Choice sets it; the registry decides
        pass


def _own_params(cls: type[Any]) -> dict[str, inspect.Parameter]:
    """The keyword parameters ``cls.__init__`` declares itself (not its ``**kwargs``)."""
    params = inspect.signature(cls.__init__).parameters
    return {n: p for n, p in params.items()
            if n != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD}


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _bins(values: tuple[str, ...]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for v in values:
        name, sep, edges = v.partition("=")
        if not sep:
            raise click.BadParameter(f"expected COLUMN=E0,E1,..., got '{v}'", param_hint="--bins")
        try:
            out[name.strip()] = [float(e) for e in _split(edges)]
        except ValueError:
            raise click.BadParameter(f"bin edges of '{name}' must be numbers",
                                     param_hint="--bins") from None
    return out


def _level_text(v: Any) -> str:
    """A level as text: 3.0 (an integer code read with missing values as a float) -> '3'."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _restore_missing(frame: Any, recoded: dict[str, str]) -> Any:
    """A released implicate with each ``--missing-level`` level written back as a missing
    value, as the data hold it (post-processing)."""
    if not recoded:
        return frame
    out = frame.copy()
    for c, level in recoded.items():
        if c in out.columns:
            out[c] = out[c].where(out[c].astype(str) != level)
    return out


def _missing_levels(df: Any, cats: dict[str, list[Any]], specs: tuple[str, ...],
                    bins: dict[str, Any] | None = None
                    ) -> tuple[Any, dict[str, list[Any]], dict[str, str], list[str]]:
    """``--missing-level``: each named column (every column with declared levels or bins for
    a plain LEVEL) gets one more public level for its missing values, added whatever the data
    hold, so the domain stays public. A column with declared levels gets LEVEL, its missing
    values recoded to it; a binned numeric column gets a missing cell after its last bin (the
    synthesizer's ``missing=``, so LEVEL only names it here). Returns the data, the levels,
    column → LEVEL (written back as missing in the release) and the binned columns."""
    bins = bins or {}
    if not specs:
        return df, cats, {}, []
    import pandas as pd

    wanted: dict[str, str] = {}
    for spec in specs:
        col, sep, level = spec.partition("=")
        if not sep:
            level, col = col, ""
        level, col = level.strip(), col.strip()
        if not level:
            raise click.BadParameter(f"expected LEVEL or COLUMN=LEVEL, got '{spec}'",
                                     param_hint="--missing-level")
        if col and col not in cats and col not in bins:
            raise ParameterError(f"option --missing-level: column '{col}' has no declared "
                                 f"levels (--levels) or bins (--bins); a missing level is "
                                 f"added to those")
        for c in ([col] if col else [*cats, *bins]):
            wanted.setdefault(c, level)
    binned = [c for c in wanted if c in bins and c not in cats]
    wanted = {c: lv for c, lv in wanted.items() if c not in binned}
    df = df.copy()
    cats = dict(cats)
    for c, level in wanted.items():
        text = [_level_text(v) for v in cats[c]]
        if level in text:
            raise ParameterError(f"option --missing-level: '{level}' is already a level of "
                                 f"column '{c}'; choose another name for missing values")
        as_text = not all(isinstance(v, str) for v in cats[c])
        cats[c] = [*(text if as_text else cats[c]), level]
        if c in df.columns:
            values = df[c].map(_level_text) if as_text else df[c]
            df[c] = pd.Series(values.where(df[c].notna(), level), index=df.index, dtype=object)
    return df, cats, wanted, binned


def _open_ledger(path: Path | None, budget: float | None, budget_delta: float | None,
                 epsilon: float, delta: float) -> Any:
    from synthguard.dp import PrivacyLedger

    if path is None:
        return None
    if path.exists():
        ledger = PrivacyLedger.open(path)
        if budget is not None and budget != ledger.epsilon:
            raise ParameterError(
                "option '--budget': the ledger file already holds a different budget; a budget "
                "is never changed silently"
            )
        return ledger
    return PrivacyLedger(epsilon=budget if budget is not None else epsilon,
                         delta=budget_delta if budget_delta is not None else delta, path=path)


def _remove_new_ledger(path: Path | None) -> None:
    """Remove a ledger file this command created and never charged (and its lock file), so a
    failed first run does not fix a budget the user never spent."""
    if path is not None:
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".lock").unlink(missing_ok=True)


@contextmanager
def _fit_progress(method: str, quiet: bool) -> Iterator[Callable[..., None] | None]:
    """The ``progress`` callback of a DP fit: AIM calls it ``(round, rho used, rho)`` after
    each round, MST ``(iterations done, iterations)`` during its estimation. On a terminal a
    progress bar on stderr; elsewhere (a log) one line per AIM round or per quarter of MST's
    estimation; nothing with ``--quiet``."""
    if quiet:
        yield None
        return

    def share(args: tuple[Any, ...]) -> tuple[float, str]:
        if len(args) == 3:  # AIM: (round, rho used, rho)
            t, used, rho = args
            frac = float(used) / float(rho) if rho else 1.0
            return frac, f"{method} round {t}: rho {used:.4g} of {rho:.4g} ({100 * frac:.0f} %)"
        done, total = args  # MST: (iterations done, iterations)
        frac = float(done) / float(total) if total else 1.0
        return frac, (f"{method}: Private-PGM estimation, {done} of {total} iterations "
                      f"({100 * frac:.0f} %)")

    if not sys.stderr.isatty():
        quarter = [-1]

        def line(*args: Any) -> None:
            frac, text = share(args)
            if len(args) == 3 or int(4 * frac) > quarter[0]:
                quarter[0] = int(4 * frac)
                click.echo(text, err=True)

        yield line
        return
    with click.progressbar(length=1000, label=f"dp synthesize ({method})", file=sys.stderr,
                           item_show_func=lambda s: s) as bar:
        def update(*args: Any) -> None:
            frac, text = share(args)
            bar.update(max(0, min(1000, round(1000 * frac)) - bar.pos), current_item=text)

        yield update


@click.group("dp")
def dp_cmd() -> None:
    """Differential privacy: DP synthetic data and the privacy-budget ledger.

    \b
    Examples:
      synthguard dp synthesize conf.csv --method mst --epsilon 1 --delta 1e-6 \\
          --levels levels.yaml --ledger ledger.json --out dp_out/
      synthguard dp ledger ledger.json
    """


@dp_cmd.command("synthesize")
@click.argument("data", type=click.Path(path_type=Path))  # a Parquet folder with --dask
@read_options
@click.option("--method", type=_Registered(), default="mst", show_default=True,
              help="A registered DP synthesizer (synthguard.dp.synthesizers.registry).")
@click.option("--epsilon", type=float, required=True, help="Privacy-loss budget of this fit.")
@click.option("--delta", type=float, default=None, help="delta (MST, AIM; default 1e-6).")
@click.option("--workload", type=click.IntRange(min=1), default=2, show_default=True,
              help="aim: serve every k-way marginal (the workload AIM selects from).")
@click.option("--max-rounds", type=click.IntRange(min=1), default=None,
              help="aim: round budget; when reached, one last round spends what is left.")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              help="aim: time budget of the whole fit, default 600 (the 1-way measurements, "
                   "every round and the final refit; the last round spends what is left). "
                   "When it binds, the release depends on the machine's speed, and the run "
                   "says so.")
@click.option("--columns", default=None, help="Comma-separated columns to synthesize.")
@click.option("--privacy-unit", default=None, metavar="COLUMN",
              help="The id column of the unit the budget protects (a household: every charge "
                   "is the household-level cost and the ledger names the unit); each unit is "
                   "cut to --max-rows rows at random and the id is not synthesized. Default: "
                   "one row per person.")
@click.option("--max-rows", type=click.IntRange(min=1), default=None,
              help="With --privacy-unit: rows kept per unit (rows beyond it are dropped at "
                   "random); the algorithm runs at the budget whose unit-level cost is "
                   "--epsilon (group privacy).")
@click.option("--levels", "levels_file", type=click.Path(exists=True, path_type=Path),
              default=None, help="YAML file: column -> list of public levels.")
@click.option("--levels-from-data", is_flag=True,
              help="Read undeclared levels from the data: the release is NOT differentially "
                   "private (domain_from_data='not-dp'; the ledger and provenance say so).")
@click.option("--bins", multiple=True, help="Public bin edges of a numeric column: COL=0,10,20.")
@click.option("--missing-level", "missing_level", multiple=True, metavar="[COLUMN=]LEVEL",
              help="Synthesize the missing values of a column as one more public level "
                   "(published whether or not a value is missing), written back as missing "
                   "values in the release: LEVEL for a column with declared levels, a missing "
                   "cell after the last bin for a column with --bins. Without COLUMN=, every "
                   "column with declared levels or bins. Repeatable.")
@click.option("--group", "groups", multiple=True,
              help="fieldgroups: a group of correlated columns, comma-separated (repeatable).")
@click.option("--ledger", "ledger_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Ledger JSON file, charged before any noise (created if absent).")
@click.option("--budget", type=float, default=None, help="Budget epsilon of a new ledger.")
@click.option("--budget-delta", type=float, default=None, help="Budget delta of a new ledger.")
@click.option("--n", "n_rows", type=click.IntRange(min=1), default=None,
              help="Rows per implicate.")
@click.option("--m", "m", type=click.IntRange(min=1), default=1, show_default=True,
              help="Implicates.")
@click.option("--seed", type=int, default=None,
              help="SIMULATION ONLY: seeded numpy noise, not for release.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Release folder (refused when it holds an earlier release, unless --force).")
@click.option("--force", is_flag=True,
              help="Replace the release already in --out as a whole.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress, no summary: only warnings and errors (on stderr).")
@cli_syntax
@drop_option("Columns left out of the release (identifiers such as record numbers); repeat or "
             "separate by commas. The manifest lists them as dropped.")
@dask_option
def synthesize_dp(data: Path, read_kw: dict[str, Any], method: str, epsilon: float, delta: float | None,
                  columns: str | None, levels_file: Path | None, levels_from_data: bool,
                  bins: tuple[str, ...], groups: tuple[str, ...], ledger_path: Path | None,
                  budget: float | None, budget_delta: float | None, n_rows: int | None, m: int,
                  seed: int | None, out: Path, force: bool, workload: int = 2,
                  max_rounds: int | None = None, max_seconds: float | None = None,
                  drop: tuple[str, ...] = (), dask: Any = None,
                  missing_level: tuple[str, ...] = (), quiet: bool = False,
                  privacy_unit: str | None = None, max_rows: int | None = None) -> None:
    """Fit a DP synthesizer on DATA (charging the ledger) and write the release folder OUT:
    m synthetic CSVs, metadata/ (provenance; the release's own ledger when --ledger is not
    given) and synthguard_manifest.json (kind dp, the ledger file and the budget spent), which
    `synthguard evaluate` reads to show the DP section of the report.

    With --dask TARGET (--method mst, aim or stratified) DATA may be a Parquet folder or a
    quoted glob of CSV files: what the method reads (MST's 1- and 2-way marginals, AIM's
    candidate marginals, the stratified synthesizer's full table) is counted on Dask, the noise
    is drawn once here and the ledger charged once; each implicate is drawn and written by the
    workers as a Parquet folder. The levels must be public (--levels, --bins).

    Exit codes: 0 written, 2 bad input or a refused charge (nothing written).

    \b
    Examples:
      synthguard dp synthesize conf.csv --method stratified --epsilon 1 \\
          --levels levels.yaml --ledger ledger.json --out dp_out/
      synthguard dp synthesize conf_parquet/ --method stratified --epsilon 1 \\
          --levels levels.yaml --out dp_out/ --dask local:2
    """
    from synthguard.cli import dp_dask  # issue 17: --dask (cli/dp_dask.py)
    from synthguard.cli._dask import require_file
    from synthguard.data.manifest import (
        LEDGER_RECORD,
        MANIFEST_NAME,
        METADATA_DIR,
        ReleaseManifest,
        check_release_target,
        release_folder,
        write_manifest,
    )
    from synthguard.dp import PrivacyLedger
    from synthguard.dp.synthesizers.registry import get_dp_synthesizer
    from synthguard.report.dp_section import (
        accuracy_line,
        dp_info_from_provenance,
        manifest_details,
    )

    unit = None if privacy_unit in (None, "row") else privacy_unit
    if (unit is None) != (max_rows is None):
        raise ParameterError("options --privacy-unit and --max-rows go together: the id column "
                             "of the unit and the rows kept per unit (e.g. --privacy-unit hid "
                             "--max-rows 5)")
    if unit is not None and dask is not None:
        raise ParameterError("option --privacy-unit works without --dask for now; synthesize a "
                             "household file in memory")
    if dask is None:
        require_file(data)
    elif missing_level:  # before a Dask session starts
        raise ParameterError("option --missing-level works without --dask; recode missing "
                             "values as a level in the Parquet data instead")
    df = read_table(data, **read_kw) if dask is None else dp_dask.dp_data_on_dask(
        data, read_kw, dask, method=method, levels_from_data=levels_from_data)
    cats, file_bins = load_domain(levels_file)  # column -> levels, or a 'dp domain' file
    bins_map = {**{c: e for c, e in file_bins.items() if c in df.columns}, **_bins(bins)}
    kept = list(drop_columns(df, drop, "the data").columns)  # checks the names
    if unit is not None:
        if unit not in kept:
            raise ParameterError(f"option --privacy-unit: no column '{unit}' in the data (or "
                                 "it is dropped); give the id column of the unit")
        kept.remove(unit)  # the id bounds the units; it is not synthesized
    cols = _split(columns) if columns else kept
    if unit is not None and unit in cols:
        raise ParameterError(f"options --columns and --privacy-unit both name '{unit}'; the "
                             "unit's id column is not synthesized")
    both = [c for c in cols if c not in kept and c in df.columns]
    if both:
        raise ParameterError(f"options --columns and --drop both name {', '.join(both)}; "
                             f"a dropped column is not synthesized")
    cats = {c: lv for c, lv in cats.items() if c in cols}  # a domain file may list more columns
    if not levels_from_data:
        undeclared = [c for c in cols if c not in cats and c not in bins_map]
        if undeclared:
            raise ParameterError(
                f"columns without public levels: {', '.join(undeclared)}; declare them in "
                "--levels (or --bins for numbers), or pass --levels-from-data to read them from "
                "the data, which makes the release NOT differentially private"
            )
    # levels in a CSV come back as numbers or text; match the declared levels' types to the data
    for c, lv in list(cats.items()):
        if c in df.columns:
            kinds = {type(v) for v in df[c].dropna().head(1000)}
            if kinds and all(issubclass(k, str) for k in kinds):
                cats[c] = [str(v) for v in lv]
    synth_bins = {c: e for c, e in bins_map.items() if c in cols}
    df, cats, recoded, missing_bins = _missing_levels(df, cats, missing_level, synth_bins)
    common: dict[str, Any] = {"epsilon": epsilon, "columns": cols, "categories": cats,
                              "bins": synth_bins,
                              **({"missing": missing_bins} if missing_bins else {}),
                              "random_state": seed,
                              "domain_from_data": "not-dp" if levels_from_data else None,
                              **({} if unit is None else {"privacy_unit": unit,
                                                          "max_rows": max_rows})}
    cls = get_dp_synthesizer(method) if dask is None else dp_dask.dp_class_on_dask(method)
    declared = _own_params(cls)
    # delta: the synthesizer's own default when it takes one (1e-6 for MST and AIM), else 0
    default_delta = declared["delta"].default if "delta" in declared else 0.0
    d = delta if delta is not None else float(default_delta)
    # the method's own options, passed to the synthesizers that declare them
    options: dict[str, Any] = {
        "delta": d, "workload": workload, "max_rounds": max_rounds,
        "groups": [_split(g) for g in groups],
        # no --max-seconds: the synthesizer's own default budget (AIM: 600 s), as in Python
        **({} if max_seconds is None else {"max_seconds": max_seconds}),
    }
    # the synthesizer checks its parameters first (AIM and MST need 0 < delta < 1, which the
    # ledger's own check, 0 <= delta, would not say), before a ledger or folder is made
    probe = cls(**{k: v for k, v in options.items() if k in declared}, **common)
    for check in ("_check_budget", "_validate_params"):
        getattr(probe, check, lambda: None)()
    check_release_target(out, force=force, inputs=[data])  # before any budget is spent
    new_ledger = ledger_path is not None and not ledger_path.exists()
    ledger = _open_ledger(ledger_path, budget, budget_delta, epsilon, d)
    with release_folder(out, force=force, inputs=[data]) as tmp:
        (tmp / METADATA_DIR).mkdir()
        if ledger is None:  # the release's own ledger, kept with it
            own = tmp / METADATA_DIR / "ledger.json"
            ledger = PrivacyLedger(epsilon=epsilon, delta=d, path=own)
        common["ledger"] = ledger
        try:
            with _fit_progress(method, quiet) as progress, \
                    warnings.catch_warnings(record=True) as caught:
                specific = {**options, "progress": progress}
                syn: Any = cls(**{k: v for k, v in specific.items() if k in declared},
                               **common)
                warnings.simplefilter("always", PrivacyWarning)
                release = syn.fit(df).sample(n=n_rows, m=m, random_state=seed)
        except BaseException:
            if new_ledger and not ledger.charges:
                _remove_new_ledger(ledger_path)  # nothing was spent: leave no ledger behind
            raise
        for w in caught:
            click.echo(f"warning: {w.message}", err=True)
        files = dp_dask.write_implicates(release.implicates, tmp, method) if dask else [
            write_table(_restore_missing(imp, recoded), tmp / f"dp_{method}_{i + 1}.csv").name
            for i, imp in enumerate(release.implicates)]
        info = {"method": method, "epsilon": epsilon, "delta": d, "m": m,
                "noise": release.noise, "dp": release.dp, "provenance": release.provenance}
        meta = [f"{METADATA_DIR}/provenance.json"]
        (tmp / meta[0]).write_text(json.dumps(info, indent=2, default=str), encoding="utf-8")
        if ledger_path is None:
            (tmp / METADATA_DIR / "ledger.json.lock").unlink(missing_ok=True)
            ledger_ref = f"{METADATA_DIR}/ledger.json"
            meta.append(ledger_ref)
            record = ledger_ref  # the ledger itself lives in the folder
        else:
            ledger_ref = Path(os.path.relpath(ledger_path.resolve(), out.resolve())).as_posix()
            ledger.write_record(tmp / LEDGER_RECORD)  # travels with the folder
            record = LEDGER_RECORD
            meta.append(LEDGER_RECORD)
        dp_info = dp_info_from_provenance(release.provenance)
        spent = ledger.spent
        released = [str(c) for c in release.implicates[0].columns]
        write_manifest(tmp, ReleaseManifest(
            kind="dp" if release.dp else "not-dp", implicates=tuple(files), seed=seed,
            methods={c: f"dp:{method}" for c in released}, columns=tuple(released),
            dropped=tuple(str(c) for c in df.columns if str(c) not in released),
            ledger=ledger_ref, metadata=tuple(meta),
            spent={"epsilon": spent.epsilon, "delta": spent.delta, "rho": spent.rho},
            details={"method": method, "epsilon": epsilon, "delta": d,
                     **({} if unit is None else {"privacy_unit": unit, "max_rows": max_rows}),
                     "noise": release.noise, "dp": release.dp, **manifest_details(dp_info)},
            ledger_record=record,
        ))
    echo = (lambda s: None) if quiet else click.echo
    for f in files:
        echo(f"wrote {out / f}")
    echo(f"wrote {out / MANIFEST_NAME} (kind {'dp' if release.dp else 'not-dp'}, "
         f"ledger {ledger_ref})")
    echo(str(syn.ledger_))
    if getattr(syn, "time_bound_", False):
        click.echo(f"note: the time budget ({syn.max_seconds:g} s) bound the fit "
                   f"({syn.rounds_} rounds, {syn.fit_seconds_:.0f} s): the release depends on "
                   "this machine's speed and load and does not reproduce from its seed",
                   err=True)
    accuracy = accuracy_line(dp_info)
    if accuracy:  # from the noise scale and the noisy measurements only
        echo(f"accuracy: {accuracy}")
    if not release.dp:
        click.echo("NOT DIFFERENTIALLY PRIVATE: levels were read from the data "
                   "(--levels-from-data)", err=True)


@dp_cmd.command("ledger")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def ledger_cmd(path: Path) -> None:
    """Print a privacy ledger file: every charge, spent and remaining budget.

    \b
    Example:
      synthguard dp ledger ledger.json
    """
    from synthguard.dp import PrivacyLedger

    click.echo(str(PrivacyLedger.open(path)))


from synthguard.cli.dp_domain import domain_cmd, load_domain  # noqa: E402
from synthguard.cli.dp_query import query_cmd  # noqa: E402
from synthguard.cli.dp_tabulate import tabulate_cmd  # noqa: E402

dp_cmd.add_command(tabulate_cmd)
dp_cmd.add_command(domain_cmd)
dp_cmd.add_command(query_cmd)
