"""``synthguard evaluate conf.csv release_dir/``: measure releases on disk and write the report."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from synthguard.cli._dask import dask_option
from synthguard.cli._drop import drop_columns, drop_option
from synthguard.cli._options import read_options
from synthguard.cli._render import (
    exit_with_verdict,
    line,
    progress_bar,
    report_problems,
    warnings_to_stderr,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["evaluate_cmd"]


_EXAMPLES = {"--schema": "Race=categorical", "--threshold": "pmse_ratio=3", "--kind": "syn=full",
             "--household-role": "age=age"}


def _household_roles(values: tuple[str, ...]) -> dict[str, Any] | None:
    """``--household-role ROLE=COL`` as evaluate's ``household_roles``: several columns
    (income, totals) separated by commas; a code (head_code, ...) read as a number when it
    is one."""
    pairs = _pairs(values, "--household-role")
    if not pairs:
        return None
    out: dict[str, Any] = {}
    for role, val in pairs.items():
        if role.endswith("_code"):
            try:
                num = float(val)
                out[role] = int(num) if num.is_integer() else num
            except ValueError:
                out[role] = val
        elif role in ("income", "totals"):
            out[role] = [c.strip() for c in val.split(",") if c.strip()]
        else:
            out[role] = val
    return out


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    from synthguard.errors import ParameterError

    out = {}
    for v in values:
        name, sep, val = v.partition("=")
        if not sep or not name.strip() or not val.strip():
            raise ParameterError(f"option {option}: expected NAME=VALUE, e.g. {option} "
                                 f"{_EXAMPLES.get(option, 'NAME=VALUE')}")
        out[name.strip()] = val.strip()
    return out


def _split(values: tuple[str, ...]) -> list[str]:
    return [s.strip() for v in values for s in v.split(",") if s.strip()]


def _resolve_kinds(loaded: dict[str, Any], kind_map: dict[str, str],
                   echo: Callable[[str], None]) -> dict[str, str]:
    """Kind of each release: --kind, else the manifest, else full; each choice printed."""
    kinds = {}
    for name, rel in loaded.items():
        declared = rel.kind
        if name in kind_map:
            kinds[name] = kind_map[name]
            why = f"--kind {kind_map[name]}"
            if declared is not None and declared != kind_map[name]:
                why += f" (overrides the manifest's {rel.manifest.kind})"
            echo(f"{rel.describe()}; evaluated as {kinds[name]}: {why}")
        elif declared is not None:
            kinds[name] = declared
            echo(f"{rel.describe()}; evaluated as {declared}")
        else:
            kinds[name] = "full"
            echo(f"{rel.describe()}; evaluated as full (the default without a manifest; "
                 f"pass --kind {name}=partial if its rows are the confidential records)")
        if rel.skipped:
            echo(f"release '{name}': skipped {', '.join(rel.skipped)} (diagnostics, not an "
                 f"implicate)")
    return kinds


def _same_file(a: str, b: str) -> bool:
    """True when the paths name one file (a link, a relative path, a different spelling)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _align_columns(conf_df: pd.DataFrame, loaded: dict[str, Any], common_columns: bool,
                   echo: Callable[[str], None]) -> dict[str, list[pd.DataFrame]]:
    """Check every release has the data's columns. A release lacking columns its manifest
    declares dropped, or any release with --common-columns, is measured on the columns it
    shares with the data (said for each); otherwise a difference is bad input. A release
    that lacks a key or target then has its risk measures reported as not computed."""
    from synthguard.errors import ParameterError

    conf_cols = [str(c) for c in conf_df.columns]
    problems = []
    out = {}
    for name, rel in loaded.items():
        cols: set[str] = set()
        for df in rel.implicates:
            cols |= {str(c) for c in df.columns}
        shared = [c for c in conf_cols
                  if all(c in {str(x) for x in df.columns} for df in rel.implicates)]
        missing = [c for c in conf_cols if c not in shared]
        extra = sorted(cols - set(conf_cols))
        declared = set(rel.manifest.dropped) if rel.manifest is not None else set()
        undeclared = [c for c in missing if c not in declared]
        parts = []
        if undeclared:
            parts.append(f"missing {', '.join(undeclared)}")
        if extra:
            parts.append(f"extra {', '.join(extra)}")
        if parts and not common_columns:
            problems.append(f"release '{name}' does not have the data's columns: "
                            + "; ".join(parts))
            unnamed = [c for c in extra if c.startswith("Unnamed: ")]
            if unnamed:  # a header-less first column: row numbers written by R or pandas
                problems.append(f"'{unnamed[0]}' is a column without a name (row numbers "
                                f"written with the file?): pass --drop '{unnamed[0]}'")
        elif parts or missing:
            why = []
            if missing and len(undeclared) < len(missing):
                why.append("dropped by its manifest: "
                           + ", ".join(c for c in missing if c in declared))
            if parts:
                why.append("--common-columns: " + "; ".join(parts))
            echo(f"release '{name}': measured on the {len(shared)} column(s) it shares with the "
                 f"data ({'; '.join(why)})")
        out[name] = [df[[c for c in df.columns if str(c) in shared]] for df in rel.implicates]
    if problems:
        raise ParameterError("; ".join(problems) + "; fix the release, or pass "
                             "--common-columns to evaluate it on the columns it shares with "
                             "the data")
    return out


def _open_ledgers(loaded: dict[str, Any], echo_err: Callable[[str], None]
                  ) -> tuple[Any, dict[str, str]]:
    """The privacy ledger the DP releases' manifests name (with several, a mapping ledger
    file → ledger that the report shows one by one and pooled, report/dp_section.py), and
    the DP releases whose ledger could not be read, with why.

    A release's ledger is the file its manifest links to; when that link is broken (the
    folder was moved) the read-only ledger record kept inside the folder is read instead."""
    from synthguard.dp import PrivacyLedger
    from synthguard.errors import SynthguardError

    paths: dict[Path, list[str]] = {}
    records: set[Path] = set()
    unread: dict[str, str] = {}
    for name, r in loaded.items():
        p = r.ledger_path
        if p is None and not r.is_dp:
            continue
        chosen = p
        if p is None or not p.is_file():
            chosen = r.ledger_record_path
            why = (f"the privacy ledger its manifest names ({r.manifest.ledger}) is not there"
                   if p is not None else "its manifest names no privacy ledger")
            if chosen is None or not chosen.is_file():
                unread[name] = why + " and the release folder holds no ledger record"
                echo_err(f"warning: release '{name}': {unread[name]}; the privacy budget it "
                         "spent is not shown (not computed)")
                continue
            echo_err(f"note: release '{name}': {why}; read the ledger record kept in the "
                     f"release folder ({r.manifest.ledger_record}: the ledger as it stood "
                     "when the release was written)")
            records.add(chosen)
        try:
            PrivacyLedger.read_record(chosen)
        except (SynthguardError, OSError) as e:
            unread[name] = f"its privacy ledger cannot be read: {e}"
            echo_err(f"warning: release '{name}': {unread[name]}")
            continue
        paths.setdefault(chosen, []).append(name)

    def load(p: Path) -> Any:  # a record is only read; the live ledger as before
        return PrivacyLedger.read_record(p) if p in records else PrivacyLedger.open(p)

    if len(paths) == 1:
        return load(next(iter(paths))), unread
    return ({f"{p.name} ({', '.join(names)})": load(p) for p, names in paths.items()}
            or None), unread


def _run_split(conf_df: pd.DataFrame, loaded: dict[str, Any],
               rel: dict[str, list[pd.DataFrame]], kinds: dict[str, str],
               echo: Callable[[str], None]
               ) -> tuple[pd.DataFrame, pd.DataFrame | None, str | None]:
    """Releases of one ``synthguard run`` with a holdout, given the full data file: cut it as
    the run did (:mod:`synthguard.pipeline.split`) and measure against the training part with
    the rest as the holdout. Otherwise the data as given, without a holdout."""
    from synthguard.pipeline.split import find_run_split

    split = find_run_split({n: r.manifest for n, r in loaded.items()}, len(conf_df),
                           {n: [len(df) for df in dfs] for n, dfs in rel.items()}, kinds)
    if split is None:
        return conf_df, None, None
    train, hold = split.apply(conf_df)
    echo(f"data: the releases were made by synthguard run from a training part of CONF "
         f"({split.describe()}, in their manifests): measured against that part, with the "
         f"records it set aside as the holdout, as the run did (pass --holdout FILE to "
         f"measure against CONF whole)")
    return train, hold, f"training part cut as synthguard run did ({split.describe()})"


def _constraints(path: str | None) -> Any:
    """Constraints read from ``--constraints`` (None without it)."""
    if path is None:
        return None
    from synthguard.data.constraints import load_constraints

    return load_constraints(path)


@click.command("evaluate")
@click.argument("conf", type=click.Path())  # a Parquet folder or CSV glob with --dask
@click.argument("releases", nargs=-1, required=True, type=click.Path(exists=True))
@read_options
@click.option("--keys", "keys", multiple=True, help="Key variables (comma-separated or repeated).")
@click.option("--target", "targets", multiple=True,
              help="Target variable(s) the intruder seeks (comma-separated or repeated). "
                   "Without one, the measures about a target (identification, match rates, "
                   "attribute disclosure, repU, DiSCO, replicated uniques) are not computed "
                   "and a line says so.")
@click.option("--holdout", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Confidential records not used to make the releases.")
@click.option("--radius", type=float, default=0.2, show_default=True,
              help="Relative radius of the identification ball.")
@click.option("--formula", "formulas", multiple=True, help="Regression formula to compare.")
@click.option("--threshold", "thresholds", multiple=True,
              help="METRIC=LIMIT, e.g. max_identification_risk=0.5 (repeatable). Added to the "
                   "default thresholds (pmse_ratio between 0.01 and 5, replicated_uniques=0, "
                   "disco=0.15, max_identification_risk=0.5, membership_auc=0.75, "
                   "closer_to_data_excess=0.75); naming one of those replaces its default.")
@click.option("--no-default-thresholds", "no_defaults", is_flag=True,
              help="Judge by the --threshold rules alone, without the default thresholds.")
@click.option("--schema", "schema", multiple=True, help="COLUMN=KIND override (repeatable).")
@click.option("--constraints", "constraints_file", default=None, metavar="FILE.yaml",
              type=click.Path(dir_okay=False),
              help="Rules every record should keep (as synthesize --constraints): checked on "
                   "the data and every release; a release breaking one fails (default 0).")
@click.option("--kind", "kinds", multiple=True,
              help="RELEASE=partial|full|protected. Default: the kind in the release folder's "
                   "synthguard_manifest.json; without a manifest, full (a release is fully "
                   "synthetic unless declared partial: its rows are never assumed to be the "
                   "confidential records).")
@click.option("--common-columns", is_flag=True,
              help="Measure each release on the columns it shares with the data (default: a "
                   "release whose columns differ is refused, exit 2, unless its manifest "
                   "declares the missing ones dropped).")
@click.option("--by", "by", multiple=True,
              help="Domain columns (comma-separated or repeated): survey-weighted estimates of "
                   "the targets by domain in the summary and the report.")
@click.option("--weights", "weights", default=None, metavar="COL",
              help="Sampling-weight column of the data: weights the domain estimates and "
                   "sdcMicro's individual risk.")
@click.option("--household", "household", default=None, metavar="COL",
              help="Household-id column (persons within households): adds the data's household "
                   "risk on the keys (sdcMicro's hier_risk), replicated households (default "
                   "threshold 0) and the household utility measures; every release must carry "
                   "the column (new ids are fine).")
@click.option("--household-role", "household_roles", multiple=True, metavar="ROLE=COL",
              help="Person columns the household utility reads (repeatable): relationship=, "
                   "age=, sex=, income= (several: comma-separated), totals=, and the "
                   "relationship codes head_code=, partner_code=, child_code= (default 1, 2, 3).")
@click.option("--strata", "strata", default=None, metavar="COL",
              help="Stratum column of the data's design (domain standard errors).")
@click.option("--clusters", "clusters", default=None, metavar="COL",
              help="Primary-sampling-unit column of the data's design, nested in --strata.")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="Write the HTML report here.")
@click.option("--table", "table", type=click.Path(dir_okay=False), default=None,
              help="Write the comparison table (CSV) here.")
@click.option("--min-cell", type=int, default=10, show_default=True,
              help="Category levels with fewer confidential records are never named.")
@click.option("--max-distance-records", type=int, default=10_000, show_default=True,
              help="Above this many records, DCR and the membership attack use random samples "
                   "of this size (0: every record).")
@click.option("--seed", type=int, default=None, help="Seed of the randomised measures.")
@click.option("--quiet", "-q", is_flag=True,
              help="Print nothing but errors and the measures not computed.")
@click.option("--attacks", is_flag=True,
              help="Also run anonymeter's singling-out, linkability and inference attacks, with "
                   "--holdout as the control set (records the releases were NOT made from; "
                   "without it the attacks are listed as not computed, exit 3). Adds the "
                   "default thresholds singling_out_risk=0.05 and "
                   "singling_out_multivariate_risk=0.25.")
@click.option("--n-attacks", "n_attacks", type=click.IntRange(min=1), default=500,
              show_default=True, help="Queries or attacked records per attack (--attacks).")
@drop_option("Columns left out of the evaluation (identifiers such as record numbers), removed "
             "from CONF, the holdout and the releases; repeat or separate by commas.")
@dask_option
def evaluate_cmd(conf: str, read_kw: dict[str, Any], releases: tuple[str, ...], keys: tuple[str, ...],
                 targets: tuple[str, ...], holdout: str | None, radius: float,
                 formulas: tuple[str, ...], thresholds: tuple[str, ...], no_defaults: bool,
                 schema: tuple[str, ...], kinds: tuple[str, ...], common_columns: bool, report: str | None,
                 table: str | None, min_cell: int, max_distance_records: int, seed: int | None,
                 quiet: bool, by: tuple[str, ...] = (), weights: str | None = None,
                 strata: str | None = None, clusters: str | None = None,
                 attacks: bool = False, n_attacks: int = 500,
                 drop: tuple[str, ...] = (), constraints_file: str | None = None,
                 dask: Any = None, household: str | None = None,
                 household_roles: tuple[str, ...] = ()) -> None:
    """Evaluate the utility and disclosure risk of RELEASES against the confidential file CONF
    and print the comparison table. A release is a data file, a release folder (as written by
    synthesize, protect, dp synthesize and run: its synthguard_manifest.json lists the
    implicates and gives the kind and the DP ledger), a folder of implicates, or a folder of
    release folders (a run's releases/ folder). How each release is read is printed.

    \b
    Exit codes:
      0  every measure computed and every --threshold passed
      1  a release failed a threshold (yours or a default one)
      2  bad input (nothing measured): unreadable files, unknown columns, a release whose
         columns differ from CONF's (unless --common-columns)
      3  a requested measure could not be computed (one line each on stderr)
    When 1 and 3 both apply, the exit code is 1.

    \b
    Examples:
      synthguard evaluate conf.csv syn/ --keys age,sex --target income --report out.html
      synthguard evaluate conf.csv out/releases/ --keys a,b --target income \\
          --threshold max_identification_risk=0.5 --threshold pmse_ratio=3
      synthguard evaluate train.csv syn/ --holdout held_out.csv --attacks \\
          --keys age,sex --target income --drop ID
      synthguard evaluate testdata.csv syn/ --keys urbrur,roof,sex --target income \\
          --weights sampling_weight --household ori_hid --household-role relationship=relat \\
          --household-role age=age --household-role sex=sex --household-role income=income
    """
    from synthguard.data.io import read_table, write_table
    from synthguard.data.loading import load_releases
    from synthguard.data.schema import validate_frame
    from synthguard.errors import ParameterError
    from synthguard.evaluation import KINDS, evaluate
    from synthguard.report.dp_section import dp_info_of
    from synthguard.report.html import write_report

    if holdout is not None and _same_file(conf, holdout):
        raise ParameterError("option --holdout names CONF itself; the holdout must be records "
                             "the releases were NOT made from (set aside before synthesis), "
                             "or leave --holdout out")
    if dask is not None and household is not None:
        raise ParameterError("option --household: the household measures run on pandas; leave "
                             "out --dask for a household file")
    if household_roles and household is None:
        raise ParameterError("option --household-role: name the household-id column too "
                             "(--household COL)")
    echo: Callable[[str], None] = (lambda s: None) if quiet else click.echo
    schema_map = _pairs(schema, "--schema")
    text_ok = [c for c, k in schema_map.items() if k in ("categorical", "ordinal", "binary")]
    read_release: Callable[[Path], Any] | None = None
    if dask is None:
        from synthguard.cli._dask import require_file

        require_file(conf, "'CONF'")
        conf_raw = read_table(conf, **read_kw)
        conf_df = validate_frame(drop_columns(conf_raw, drop, "CONF", required=False),
                                 text_overrides=text_ok)
    else:  # read lazily; the measures run on the Dask target (cli/_dask.py)
        from synthguard.cli._dask import dask_input
        from synthguard.scale import read_dataset

        conf_raw = dask_input(conf, read_kw, dask, **{
            "--holdout": holdout, "--formula": formulas, "--constraints": constraints_file,
            "--by": by, "--weights": weights, "--strata": strata, "--clusters": clusters,
            "--attacks": attacks})
        conf_df = drop_columns(conf_raw, drop, "CONF")
        read_release = read_dataset
    hold_df = validate_frame(drop_columns(read_table(holdout, **read_kw), drop, "the holdout",
                                          required=False),
                             name="holdout", text_overrides=text_ok) if holdout else None
    if hold_df is not None:
        lacking = [str(c) for c in conf_df.columns if c not in hold_df.columns]
        if lacking:
            raise ParameterError(f"option --holdout: the holdout lacks column(s) "
                                 f"{', '.join(lacking)} of the data; give it the same columns")
    limits = _limits(thresholds)
    kind_map = _pairs(kinds, "--kind")
    bad = [k for k, v in kind_map.items() if v not in KINDS]
    if bad:
        raise ParameterError(f"option --kind: release(s) {', '.join(bad)} have an unknown kind; "
                             f"use one of {', '.join(KINDS)}")
    loaded = load_releases(releases, read=read_release)
    if drop:  # a column of CONF or of a release (an R row-name column of a release)
        from synthguard.cli._drop import split_drop

        seen = {str(c) for c in conf_raw.columns}
        seen |= {str(c) for r in loaded.values() for df in r.implicates for c in df.columns}
        unknown = [c for c in split_drop(drop) if c not in seen]
        if unknown:
            raise ParameterError(f"option --drop: column(s) {', '.join(unknown)} are in "
                                 f"neither CONF nor a release; name columns of the files")
        for r in loaded.values():
            r.implicates[:] = [drop_columns(df, drop, required=False) for df in r.implicates]
    stray = [k for k in kind_map if k not in loaded]
    if stray:
        raise ParameterError(f"option --kind names release(s) {', '.join(stray)} that are not "
                             f"among the releases ({', '.join(loaded)})")
    unknown = [c for c in (*_split(keys), *_split(targets)) if c not in conf_df.columns]
    if unknown:
        raise ParameterError(f"options --keys/--target name columns that are not in the data: "
                             f"{', '.join(unknown)}")
    design = [c for c in (*_split(by), weights, strata, clusters) if c is not None]
    unknown = [c for c in design if c not in conf_df.columns]
    if unknown:
        raise ParameterError(f"options --by/--weights/--strata/--clusters name columns that are "
                             f"not in the data: {', '.join(unknown)}")
    rel = _align_columns(conf_df, loaded, common_columns, echo)
    kind_map = _resolve_kinds(loaded, kind_map, echo)
    split_note = None
    if hold_df is None and dask is None:
        conf_df, hold_df, split_note = _run_split(conf_df, loaded, rel, kind_map, echo)
    ledger, unread = _open_ledgers(loaded, lambda s: click.echo(line(s), err=True))
    # each release with what its manifest says (a sample of the records, ...) for evaluate
    releases_read: dict[str, Any] = {n: dataclasses.replace(loaded[n], implicates=frames)
                                     for n, frames in rel.items()}
    with warnings_to_stderr(quiet):
        if dask is None:
            with progress_bar(quiet, "synthguard evaluate") as cb:
                ev = evaluate(
                    conf_df, releases_read, keys=_split(keys), targets=_split(targets),
                    holdout=hold_df, formulas=list(formulas) or None,
                    thresholds=limits or None, radius=radius, schema=schema_map or None,
                    random_state=seed, progress=cb, kinds=kind_map,
                    max_distance_records=max_distance_records or None,
                    default_thresholds=not no_defaults, by=_split(by) or None,
                    weights=weights, strata=strata, clusters=clusters, attacks=attacks,
                    n_attacks=n_attacks, constraints=_constraints(constraints_file),
                    household=household, household_roles=_household_roles(household_roles),
                )
        else:
            from synthguard.pipeline import dask_adapter

            with progress_bar(quiet, "synthguard evaluate (Dask)") as cb:
                ev = dask_adapter.evaluate(
                    conf_df, rel, keys=_split(keys), targets=_split(targets), kinds=kind_map,
                    thresholds=limits or None, radius=radius, schema=schema_map or None,
                    random_state=seed, max_distance_records=max_distance_records or None,
                    default_thresholds=not no_defaults, progress=cb,
                )
        echo(ev.summary())
        if getattr(ev, "households", None) is not None and ev.households.data_risk is not None:
            echo(ev.households.data_risk.summary())
        for name, why in unread.items():  # the report's ledger section says the same
            echo(f"{name}: privacy ledger not read: {why}; the privacy budget this DP release "
                 "spent is unknown here (not computed), not zero")
        if getattr(ev, "survey", None) is not None and (by or weights):
            echo(ev.survey.summary())
        if table:
            write_table(ev.to_frame().reset_index(), table)
        if report:
            provenance = {"data": conf, "releases": ", ".join(releases)}
            if dask is not None:
                provenance["engine"] = f"Dask ({_describe(dask)})"
            if split_note is not None:
                provenance["data"] += f"; {split_note}"
            for name, r in loaded.items():
                provenance[f"release {name}"] = f"{r.describe()}; evaluated as {kind_map[name]}"
                if r.manifest is not None:
                    provenance[f"release {name}"] += (
                        f"; seed {r.manifest.seed}; written {r.manifest.created} by synthguard "
                        f"{r.manifest.versions.get('synthguard', '?')}")
            path = write_report(ev, report, min_cell=min_cell, ledger=ledger,
                                provenance=provenance,
                                **({"dp_info": dp_info_of(loaded)} if dask is None else {}),
                                dp_releases=[n for n, r in loaded.items() if r.is_dp],
                                ledger_unread=unread)
            echo(f"report: {path}")
    report_problems(ev, quiet)
    exit_with_verdict(ev, unread)


def _limits(thresholds: tuple[str, ...]) -> dict[str, float]:
    """``--threshold METRIC=LIMIT`` as evaluate's ``thresholds`` (a known metric, a number)."""
    from synthguard.errors import ParameterError
    from synthguard.evaluation.metrics import METRICS

    limits: dict[str, float] = {}
    for name, val in _pairs(thresholds, "--threshold").items():
        if name not in METRICS:
            raise ParameterError(f"option --threshold {name}={val}: unknown metric '{name}'; "
                                 f"use one of {', '.join(METRICS)}, e.g. --threshold "
                                 f"{_EXAMPLES['--threshold']}")
        try:
            limits[name] = float(val)
        except ValueError:
            raise ParameterError(f"option --threshold {name}: expected a number as the "
                                 f"limit") from None
    return limits


def _describe(target: Any) -> str:
    """The Dask target in words, for the report's provenance."""
    if target.kind == "local":
        return "local cluster" + (f" of {target.n_workers} workers" if target.n_workers else "")
    if target.kind == "remote":
        return f"scheduler {target.address}"
    return "synchronous scheduler"
