"""``synthguard dp tabulate``: noisy tables (or a TopDown hierarchy) from one budget."""

from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path
from typing import Any

import click

from synthguard.cli._dp_syntax import cli_syntax
from synthguard.cli._options import read_options
from synthguard.errors import ParameterError, PrivacyWarning

__all__ = ["tabulate_cmd"]


def _pairs(values: tuple[str, ...], option: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for v in values:
        name, sep, rest = v.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"expected COLUMN=V1,V2,..., got '{v}'", param_hint=option)
        out[name.strip()] = [e.strip() for e in rest.split(",") if e.strip()]
    return out


def _numbers(values: tuple[str, ...], option: str) -> dict[str, list[float]]:
    try:
        return {k: [float(e) for e in v] for k, v in _pairs(values, option).items()}
    except ValueError:
        raise click.BadParameter("values must be numbers", param_hint=option) from None


def _domain_file(path: Path | None) -> tuple[dict[str, list[Any]], dict[str, list[float]]]:
    """A YAML/JSON file: column -> levels, or {categories: {...}, bins: {...}} (dp domain)."""
    from synthguard.cli.dp_domain import load_domain

    return load_domain(path)


def _match_types(df: Any, cats: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Levels in YAML come back as numbers or text; match each column's type in the data."""
    out = {}
    for c, lv in cats.items():
        if c in df.columns:
            kinds = {type(v) for v in df[c].dropna().head(1000)}
            if kinds and all(issubclass(k, str) for k in kinds):
                lv = [str(v) for v in lv]
        out[c] = lv
    return out


def _zeros(values: tuple[str, ...]) -> list[dict[str, list[str]]]:
    out = []
    for v in values:
        z: dict[str, list[str]] = {}
        for part in v.split(";"):
            name, sep, levels = part.partition("=")
            if not sep:
                raise click.BadParameter(f"expected 'COL=LEVEL[|LEVEL];COL=LEVEL', got '{v}'",
                                         param_hint="--zero")
            z[name.strip()] = [s.strip() for s in levels.split("|")]
        out.append(z)
    return out


def _weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise click.BadParameter("expected comma-separated numbers, e.g. 2,1",
                                 param_hint="--allocation / --level-shares") from None


def _write_csv(frame: Any, path: Path) -> None:
    frame.to_csv(path, index=False)


@click.command("tabulate")
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@read_options
@click.option("--table", "tables", multiple=True,
              help="A table to release, e.g. 'county x sex x agegroup' (repeatable).")
@click.option("--hierarchy", default=None,
              help="TopDown mode: nested unit columns, coarsest first, e.g. 'state>county'.")
@click.option("--by", "by", default=None,
              help="TopDown mode: attribute columns inside every unit, e.g. 'sex x agegroup'.")
@click.option("--units", "units_file", type=click.Path(exists=True, dir_okay=False,
                                                       path_type=Path), default=None,
              help="TopDown mode: public CSV of every unit path (columns = hierarchy); default "
                   "every combination of the declared levels.")
@click.option("--invariant", "invariants", multiple=True,
              help="TopDown mode: 'total' or a hierarchy column whose unit totals are kept "
                   "exact (NOT differentially private; repeatable).")
@click.option("--level-shares", default=None,
              help="TopDown mode: budget weights of total and each level, e.g. 1,1,2.")
@click.option("--period", default=None,
              help="Tables mode: a period column (day, week); every period's tables are "
                   "released with --epsilon EACH, charging the same ledger.")
@click.option("--periods", default=None,
              help="With --period: the public period levels, comma-separated.")
@click.option("--baseline", default=None,
              help="With --period: the baseline period; adds the percent change of every "
                   "cell with its interval. Several periods, comma-separated (dates): "
                   "Google's baseline, the median of the same weekday over that window.")
@click.option("--epsilon", type=float, required=True,
              help="Privacy-loss budget of the run (per period with --period).")
@click.option("--delta", type=float, default=None,
              help="delta (discrete_gaussian only; default 1e-10).")
@click.option("--mechanism", type=click.Choice(["discrete_laplace", "discrete_gaussian"]),
              default="discrete_laplace", show_default=True)
@click.option("--levels", "levels_file", type=click.Path(exists=True, path_type=Path),
              default=None, help="YAML/JSON: column -> public levels (or categories/bins).")
@click.option("--bins", multiple=True, help="Public bin edges of a numeric column: COL=0,18,65.")
@click.option("--levels-from-data", is_flag=True,
              help="Read undeclared levels from the data: the release is NOT differentially "
                   "private (the ledger and release.json say so).")
@click.option("--sum", "sums", multiple=True,
              help="Noisy sum per cell of a numeric column clamped to public bounds: "
                   "COL=LOWER,UPPER (repeatable).")
@click.option("--allocation", default=None,
              help="Budget weights of the tables in --table order, e.g. 2,1 (default equal).")
@click.option("--zero", "zeros", multiple=True,
              help="A structural zero: 'age=0-14;marital=married' (repeatable).")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--max-relative-margin", type=float, default=0.5, show_default=True,
              help="Flag a cell unreliable when its interval half-width exceeds this share "
                   "of its noisy count.")
@click.option("--suppress-below", type=float, default=None,
              help="Withhold cells whose NOISY count is below this (post-processing).")
@click.option("--raw-noisy", is_flag=True,
              help="Publish the raw noisy counts (some negative) instead of non-negative "
                   "integers (the default: rounded and clamped at 0, post-processing at no "
                   "privacy cost); with --hierarchy, also the 'measured' columns.")
@click.option("--ledger", "ledger_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Ledger JSON file, charged before any noise (created if absent).")
@click.option("--budget", type=float, default=None, help="Budget epsilon of a new ledger.")
@click.option("--budget-delta", type=float, default=None, help="Budget delta of a new ledger.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Write the steward's HTML report (ledger, epsilon table, "
                                 "accuracy against the confidential tables: keep internal).")
@click.option("--reconstruct", is_flag=True,
              help="With --report (--table mode): run the database-reconstruction attack on "
                   "the released tables and on the same tables without noise, and show the "
                   "share of records rebuilt exactly (internal: reads the confidential data).")
@click.option("--reconstruct-block", default=None, metavar="COLUMN",
              help="With --reconstruct: a column every table holds (a geography); the attack "
                   "runs block by block, as the Census's did.")
@click.option("--seed", type=int, default=None,
              help="SIMULATION ONLY: seeded numpy noise, not for release.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Release folder (refused when it holds files, unless --force).")
@click.option("--force", is_flag=True, help="Replace the release already in --out.")
@click.option("--quiet", "-q", is_flag=True,
              help="No summary: only warnings, notes and errors (on stderr).")
@cli_syntax
def tabulate_cmd(data: Path, read_kw: dict[str, Any], tables: tuple[str, ...],
                 hierarchy: str | None, by: str | None, units_file: Path | None,
                 invariants: tuple[str, ...], level_shares: str | None,
                 period: str | None, periods: str | None, baseline: str | None,
                 epsilon: float,
                 delta: float | None, mechanism: str, levels_file: Path | None,
                 bins: tuple[str, ...], levels_from_data: bool, sums: tuple[str, ...],
                 allocation: str | None, zeros: tuple[str, ...], confidence: float,
                 max_relative_margin: float, suppress_below: float | None,
                 raw_noisy: bool,
                 ledger_path: Path | None, budget: float | None, budget_delta: float | None,
                 report_path: Path | None, seed: int | None, out: Path, force: bool,
                 reconstruct: bool = False, reconstruct_block: str | None = None,
                 quiet: bool = False) -> None:
    """Release noisy tables of DATA from one budget (charging the ledger first) into OUT:
    one CSV per table with every cell's noisy count (a non-negative integer: rounded and
    clamped at 0, unless --raw-noisy), its interval, reliability and suppression flags; allocation.csv; epsilon_table.csv (the budget in words for a board);
    release.json. With --hierarchy, a TopDown release: every level measured with noise and
    post-processed into consistent non-negative integers (one CSV per level).

    Exit codes: 0 written, 2 bad input or a refused charge (nothing written), 3 written but
    the reconstruction attack asked for (--reconstruct) could not be computed (why on stderr
    and in the report).

    \b
    Examples:
      synthguard dp tabulate conf.csv --table "county x sex x agegroup" \\
          --table "state x sex" --epsilon 1 --levels levels.yaml \\
          --ledger ledger.json --out tables/
      synthguard dp tabulate conf.csv --hierarchy "state>county" --by "sex x agegroup" \\
          --units counties.csv --invariant state --epsilon 2 --levels levels.yaml \\
          --ledger ledger.json --out topdown/ --report topdown_report.html
    """
    import pandas as pd

    from synthguard.cli._ledger import open_ledger as _open_ledger
    from synthguard.cli._ledger import remove_new_ledger as _remove_new_ledger
    from synthguard.data.io import read_table
    from synthguard.data.manifest import check_release_target, release_folder
    from synthguard.dp import PrivacyLedger
    from synthguard.dp.board import epsilon_table
    from synthguard.dp.tables import (
        ReliabilityRule,
        dp_tables,
        dp_tables_by_period,
        parse_table,
        period_changes,
        tables_accuracy,
        topdown,
        topdown_accuracy,
    )

    if bool(tables) == bool(hierarchy):
        raise ParameterError("give --table (one or more tables) or --hierarchy (TopDown), "
                             "not both and not neither")
    if not hierarchy and (by or units_file or invariants or level_shares):
        raise ParameterError("options --by, --units, --invariant and --level-shares need "
                             "--hierarchy")
    if hierarchy and period:
        raise ParameterError("option --period works with --table, not --hierarchy")
    if bool(period) != bool(periods) or (baseline and not period):
        raise ParameterError("option --period needs --periods (its public levels), and "
                             "--baseline needs --period")
    if (reconstruct or reconstruct_block) and (report_path is None or hierarchy or period):
        raise ParameterError("option --reconstruct needs --report and works with --table "
                             "(not --hierarchy or --period); --reconstruct-block needs "
                             "--reconstruct")
    if reconstruct_block is not None and not reconstruct:
        raise ParameterError("option --reconstruct-block needs --reconstruct")
    if reconstruct_block is not None and any(
            reconstruct_block not in parse_table(t).columns for t in tables):
        raise ParameterError(f"option --reconstruct-block: column '{reconstruct_block}' must "
                             f"be in every --table")
    period_levels = [p.strip() for p in (periods or "").split(",") if p.strip()]
    window = [b.strip() for b in (baseline or "").split(",") if b.strip()]
    if baseline is not None and (not window or any(b not in period_levels for b in window)):
        raise ParameterError("option --baseline: expected one of the --periods, or several "
                             "(comma-separated) for a weekday-median baseline")
    base_arg: Any = window if len(window) > 1 else baseline
    started = time.perf_counter()
    df = read_table(data, **read_kw)
    cats, file_bins = _domain_file(levels_file)
    cats = _match_types(df, cats)
    all_bins = {**file_bins, **_numbers(bins, "--bins")}
    d = delta if delta is not None else (1e-10 if mechanism == "discrete_gaussian" else 0.0)
    rule = ReliabilityRule(confidence=confidence, max_relative_margin=max_relative_margin,
                           suppress_below=suppress_below)
    check_release_target(out, force=force, inputs=[data])  # before any budget is spent
    new_ledger = ledger_path is not None and not ledger_path.exists()
    ledger = _open_ledger(ledger_path, budget, budget_delta, epsilon, d)
    common: dict[str, Any] = {"epsilon": epsilon, "delta": d, "mechanism": mechanism, "categories": cats,
              "bins": all_bins, "structural_zeros": _zeros(zeros) or None,
              "domain_from_data": "not-dp" if levels_from_data else None,
              "random_state": seed}
    released: dict[str, Any] = {}
    with release_folder(out, force=force, inputs=[data]) as tmp:
        if ledger is None:
            n_per = max(1, len(period_levels))
            ledger = PrivacyLedger(epsilon=epsilon * n_per, delta=min(0.5, d * n_per),
                                   path=tmp / "ledger.json")
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", PrivacyWarning)
                if hierarchy:
                    hier = [h.strip() for h in hierarchy.replace(">", ",").split(",")
                            if h.strip()]
                    attrs = list(parse_table(by).columns) if by else []
                    units = (read_table(units_file).astype(str)
                             if units_file is not None else None)
                    res: Any = topdown(df, hier, attrs, ledger=ledger, units=units,
                                       invariants=list(invariants), confidence=confidence,
                                       level_shares=_weights(level_shares), **common)
                else:
                    kw = {"ledger": ledger, "rule": rule, "allocation": _weights(allocation),
                          "raw_noisy": raw_noisy,
                          "sums": {c: tuple(v) for c, v in _numbers(sums, "--sum").items()}}
                    if period:
                        by_period = dp_tables_by_period(df, list(tables), period=period,
                                                        periods=period_levels, **kw,
                                                        **common)
                        res = by_period[period_levels[0]]
                    else:
                        res = dp_tables(df, list(tables), **kw, **common)
        except BaseException:
            if new_ledger and ledger_path is not None and not ledger.charges:
                _remove_new_ledger(ledger_path)
            raise
        for w in caught:
            click.echo(f"warning: {w.message}", err=True)
        if hierarchy:
            for lv in res.levels:
                released[f"level_{lv.name}"] = (lv.frame if raw_noisy else lv.frame.drop(
                    columns=["measured", "measured_lower", "measured_upper"]))
            alloc = res.allocation.to_frame()
            alloc["sd"] = [lv.noise.sd for lv in res.levels]
            rule_text = ("TopDown (Abowd et al. 2022): every level measured with noise, then "
                         "least squares and an integer programme per parent, so that counts "
                         "are non-negative integers adding up to their parent's; 'count' is "
                         "the consistent estimate" + (", 'measured' the raw noisy measurement "
                                                      "(--raw-noisy)." if raw_noisy else "."))
        elif period:
            changes = period_changes(by_period, base_arg) if baseline else {}
            for name in res.tables:
                frames = []
                for p, r in by_period.items():
                    f = r.tables[name].frame.copy()
                    f.insert(0, period, p)
                    frames.append(f)
                out_f = pd.concat(frames, ignore_index=True)
                if name in changes:
                    for c in ("change_percent", "change_lower", "change_upper",
                              "change_reliable"):
                        out_f[c] = changes[name][c].to_numpy()
                released[name] = out_f
            alloc = res.allocation_frame()
            rule_text = (res.rule.describe() + f" Every period of '{period}' is released "
                         f"with epsilon {epsilon:g} and charged to the same ledger "
                         "(sequential composition over periods). " + res.published())
        else:
            for name, t in res.tables.items():
                released[name] = t.frame
            alloc = res.allocation_frame()
            rule_text = res.rule.describe() + " " + res.published()
        files = []
        for name, frame in released.items():
            _write_csv(frame, tmp / f"{name}.csv")
            files.append(f"{name}.csv")
        _write_csv(alloc, tmp / "allocation.csv")
        _write_csv(epsilon_table(ledger), tmp / "epsilon_table.csv")
        (tmp / "ledger.json.lock").unlink(missing_ok=True)
        ledger_ref = ("ledger.json" if ledger_path is None else
                      Path(os.path.relpath(ledger_path.resolve(), out.resolve())).as_posix())
        spent = ledger.spent
        record = None
        if ledger_path is not None:  # an outside ledger: keep a copy that travels
            ledger.write_record(tmp / "ledger_record.json")
            record = "ledger_record.json"
        kind = "dp-tables" if not hierarchy else "dp-topdown"
        info = {"kind": kind if res.dp else "not-" + kind, "files": files,
                "epsilon": epsilon, "delta": d, "mechanism": mechanism, "seed": seed,
                "noise": res.noise_source, "dp": res.dp, "rule": rule_text,
                "ledger": ledger_ref, "ledger_record": record, "notes": list(res.notes),
                "spent": {"epsilon": spent.epsilon, "delta": spent.delta, "rho": spent.rho}}
        (tmp / "release.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    seconds = time.perf_counter() - started
    echo = (lambda s: None) if quiet else click.echo
    for fname in files:
        echo(f"wrote {out / fname}")
    echo(str(ledger))
    if report_path is not None:
        from synthguard.report.dp_tables import write_tables_report

        if hierarchy:
            acc = topdown_accuracy(df, res)
        elif period:
            acc = pd.concat([tables_accuracy(df[(df[period].astype(str) == str(p))
                                                .to_numpy()], r).assign(period=p)
                             for p, r in by_period.items()
                             if (df[period].astype(str) == str(p)).any()], ignore_index=True)
        else:
            acc = tables_accuracy(df, res)
        attack, attack_error = _reconstruction(res, df, reconstruct, reconstruct_block, seed)
        write_tables_report(report_path, title=f"DP tables: {data.name}", ledger=ledger,
                            allocation=alloc, rule_text=rule_text, released=released,
                            accuracy=acc, notes=list(res.notes), reconstruction=attack,
                            reconstruction_error=attack_error,
                            provenance={"data": data.name, "release folder": str(out),
                                        "noise": res.noise_source,
                                        "time": f"{seconds:.1f} s"})
        echo(f"wrote {report_path} (internal: compares with the confidential tables)")
        if attack is not None:
            echo(str(attack))
    for n in res.notes:
        click.echo(n, err=True)
    if report_path is not None and attack_error is not None:
        from synthguard.cli._render import EXIT_NOT_COMPUTED

        click.echo(f"not computed: reconstruction attack: {attack_error}", err=True)
        raise SystemExit(EXIT_NOT_COMPUTED)


def _reconstruction(res: Any, df: Any, asked: bool, block: str | None, seed: int | None
                    ) -> tuple[Any, str | None]:
    """The reconstruction attack when asked for, or why it could not be computed."""
    if not asked:
        return None, None
    from synthguard.dp.tables import reconstruction_attack
    from synthguard.errors import SynthguardError, safe_error

    try:
        return reconstruction_attack(df, res, block=block, random_state=seed), None
    except SynthguardError as e:
        return None, safe_error(e)
