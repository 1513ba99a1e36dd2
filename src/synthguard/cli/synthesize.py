"""``synthguard synthesize``: synthesize a data file, one CSV per implicate."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from synthguard.cli._dask import dask_option, refuse_with_dask
from synthguard.cli._options import read_options
from synthguard.cli._startup import importing

if TYPE_CHECKING:  # imported where used: the command line starts fast
    import numpy as np


__all__ = ["parse_pairs", "split_columns", "synthesize_cmd"]


#: the most threads ``--jobs`` uses by default (each holds one column's design matrix)
MAX_DEFAULT_JOBS = 4


def default_jobs() -> int:
    """Threads fitting column models when ``--jobs`` is not given: the cores this process may
    run on (its CPU affinity), at most :data:`MAX_DEFAULT_JOBS`. Results do not depend on it."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity (macOS, Windows)
        cores = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_JOBS, cores))


def split_columns(value: str | None) -> list[str] | None:
    """``"a,b , c"`` -> ``["a", "b", "c"]``; None or empty -> None."""
    if value is None:
        return None
    cols = [c.strip() for c in value.split(",") if c.strip()]
    return cols or None


def parse_pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    """``("income=cart", "age=norm")`` -> ``{"income": "cart", "age": "norm"}``."""
    out: dict[str, str] = {}
    for v in values:
        name, sep, val = v.partition("=")
        if not sep or not name.strip() or not val.strip():
            raise click.BadParameter(f"expected COLUMN=VALUE, got '{v}'", param_hint=option)
        out[name.strip()] = val.strip()
    return out


def _write_outputs(result: Any, out: Path, prefix: str, diagnostics: bool, *, force: bool,
                   data: Path) -> list[Path]:
    """Write the release folder: the implicates, ``metadata/`` (diagnostics, provenance) and
    the manifest, all at once (:func:`synthguard.data.manifest.release_folder`)."""
    from synthguard.data.io import write_table
    from synthguard.data.manifest import (
        METADATA_DIR,
        ReleaseManifest,
        release_folder,
        write_manifest,
    )

    with release_folder(out, force=force, inputs=[data]) as tmp:
        files = [p.name for p in result.write(tmp, prefix=prefix)]
        meta: list[str] = []
        (tmp / METADATA_DIR).mkdir()
        if diagnostics and result.diagnostics is not None:
            name = f"{METADATA_DIR}/diagnostics.csv"
            write_table(result.diagnostics.to_frame().reset_index(), tmp / name)
            meta.append(name)
        info = {
            "kind": result.kind,
            "m": result.m,
            "seed": result.seed,
            "synthesized": result.synthesized,
            "kept": result.kept,
            "methods": result.methods,
            "provenance": result.provenance,
        }
        name = f"{METADATA_DIR}/provenance.json"
        (tmp / name).write_text(json.dumps(info, indent=2, default=str), encoding="utf-8")
        meta.append(name)
        write_manifest(tmp, ReleaseManifest(
            kind=result.kind, implicates=tuple(files), seed=result.seed,
            methods=dict(result.methods), kept=tuple(result.kept),
            dropped=tuple(result.dropped),
            columns=tuple(str(c) for c in result.implicates[0].columns),
            metadata=tuple(meta),
            details={**{k: result.provenance[k] for k in ("constraints", "transforms",
                                                          "noise", "start", "household")
                        if result.provenance.get(k)},
                     **({"safeguards": result.safeguards.to_record()}
                        if result.safeguards is not None else {})},
        ))
    return [out / f for f in (*files, *meta)]


@click.command("synthesize")
@click.argument("data", type=click.Path(path_type=Path))
@read_options
@dask_option
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the synthetic files (created if needed).")
@click.option("--m", "m", default=1, show_default=True, type=click.IntRange(min=1),
              help="Number of implicates.")
@click.option("--method", "methods", multiple=True, metavar="COL=METHOD",
              help="Method of a column (sample, norm, normrank, logreg, polyreg, cart, pmm, "
                   "polr, lognorm, rf, bag, catall, ipf, passive, nested, ...), with options as "
                   "METHOD:KEY=VALUE, e.g. Income=cart:smoothing=density or "
                   "region=nested:parent=country; repeat. See docs/methods.md.")
@click.option("--default-method", default="cart", show_default=True,
              help="Method of columns without --method (the first column gets 'sample'), "
                   "with options as in --method: cart:adjust=false:draws=random is synthpop's "
                   "independent, unadjusted CART draw (the default balances and adjusts it).")
@click.option("--keep", default=None, metavar="COL,COL",
              help="Columns copied unchanged (partial synthesis), except the riskiest kept "
                   "value of records unique on them when the draw replicates uniques (see "
                   "--partial-uniques).")
@click.option("--visit", "visit", default=None, metavar="COL,COL",
              help="Visit sequence (default: every column not kept, in file order); 'auto' "
                   "chooses one by mutual information, 'importance' by variable importance, most "
                   "important first (Bowen, Liu & Su 2021; docs/methods.md).")
@click.option("--strata", default=None, metavar="COL,COL",
              help="Synthesize separately within each combination of these columns.")
@click.option("--household", default=None, metavar="COL",
              help="Household id of a household-person file: households are synthesized, "
                   "then their members in order; the release has new households and ids.")
@click.option("--household-columns", "household_columns", default=None, metavar="COL,COL",
              help="Columns with one value per household (default: detected, every column "
                   "constant within every household); needs --household.")
@click.option("--member-order", "member_order", default=None, metavar="COL",
              help="Column ordering members within a household (relationship to head: 1 "
                   "head, 2 partner, ...); default: detected; needs --household.")
@click.option("--min-stratum-size", "min_stratum_size", default=None,
              type=click.IntRange(min=0),
              help="Smallest stratum allowed (default 10 + 10 x synthesized columns, as "
                   "synthpop); 0 allows any.")
@click.option("--replicated-uniques", "replicated_uniques", default="redraw",
              show_default=True, type=click.Choice(["redraw", "remove", "keep"]),
              help="Synthetic records identical to a record unique in DATA: smooth/redraw "
                   "them, remove them, or keep them (releases real people).")
@click.option("--uniques-on", "uniques_on", default=None, metavar="COL,COL",
              help="Also judge replicated uniques on these columns (the intruder's keys), so "
                   "repU on them is 0; records copying a unique on every column are always "
                   "fixed.")
@click.option("--partial-uniques", "partial_uniques", default="synthesize", show_default=True,
              type=click.Choice(["synthesize", "coarsen", "suppress"]),
              help="With --keep, when records come out equal to a confidential unique: the "
                   "riskiest kept value (e.g. a near-unique weight) of every record unique on "
                   "the kept columns is synthesized anew or coarsened; 'suppress' instead "
                   "blanks the synthesized values of the records still equal to one after "
                   "redrawing. The summary says how many. See docs/synthesis.md.")
@click.option("--extremes", "extremes", default=5, show_default=True,
              type=click.IntRange(min=0),
              help="Records per tail whose values are never released (bottom/top coding of "
                   "numeric synthesized columns); 0 releases the extremes.")
@click.option("--rare-values", "rare_values", default=5, show_default=True,
              type=click.IntRange(min=0),
              help="Values (and categorical levels) held by fewer confidential records are never "
                   "released exactly: numbers are redrawn from a kernel around them, levels "
                   "from the common ones (unless declared in --schema levels); 0 releases them.")
@click.option("--min-rows", "min_rows", default=None, type=click.IntRange(min=0),
              help="Fewest records allowed (default 10 + 10 x synthesized columns, as "
                   "synthpop); 0 allows any.")
@click.option("--drop", "drop", multiple=True, metavar="COL[,COL]",
              help="Columns removed before synthesis (identifiers such as record numbers, "
                   "which are refused otherwise); repeat or separate by commas.")
@click.option("--schema", "schema", multiple=True, metavar="COL=KIND",
              help="Column kind override (categorical, ordinal, binary, count, numeric); repeat.")
@click.option("--n", "n", default=None, type=click.IntRange(min=1),
              help="Rows per implicate (full synthesis only).")
@click.option("--weights", "weights_col", default=None, metavar="COL",
              help="Column of likelihood weights passed to every method.")
# --- issue 5 (risk-weighted synthesis) adds its options here ---
@click.option("--risk-weights", "risk_kind", type=click.Choice(["marginal", "pairwise"]),
              default=None, help="Downweight each record's likelihood by its identification "
              "risk (Hu, Savitsky & Williams): 1 - IR_i ('marginal') or the pairwise weight. "
              "Needs --target and weighted methods (bayes_norm, bayes_mixture, bayes_negbin); "
              "multiplies --weights (normalised to sum to n) when both are given.")
@click.option("--keys", "risk_keys", default=None, metavar="COL,COL",
              help="Key variables known to the intruder (patterns for --risk-weights).")
@click.option("--target", "risk_target", default=None, metavar="COL",
              help="Sensitive column whose identification risk sets --risk-weights.")
@click.option("--radius", "risk_radius", default=0.2, show_default=True,
              type=click.FloatRange(min=0.0), help="Radius r of the ball y_i ± r|y_i| for "
              "--risk-weights.")
@click.option("--constraints", "constraints_file", default=None,
              type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.yaml",
              help="Rules every released record keeps (YAML list of \"<condition> -> "
                   "<requirement>\" texts or a table file); broken draws are redrawn, then "
                   "forced.")
@click.option("--allow-violations", is_flag=True,
              help="Accept constraints the data themselves break (refused otherwise).")
@click.option("--max-redraws", "max_redraws", default=10, show_default=True,
              type=click.IntRange(min=0), help="Redraws of a record breaking a constraint "
              "before it is forced inside.")
@click.option("--transform", "transforms", multiple=True, metavar="COL=NAME",
              help="Transform a numeric column for its model (log, log1p, sqrt, boxcox, "
                   "yeojohnson), inverted after drawing; repeat.")
@click.option("--seed", default=None, type=click.IntRange(min=0),
              help="Random seed (the seed used is printed and saved either way).")
@click.option("--jobs", "n_jobs", default=None, type=click.IntRange(min=1),
              help="Threads fitting the columns' models at once (same result, more memory); "
                   "default: the cores this process may use, at most 4.")
@click.option("--prefix", default="synthetic", show_default=True,
              help="File names: PREFIX_1.csv ... PREFIX_m.csv.")
@click.option("--diagnostics/--no-diagnostics", default=True, show_default=True,
              help="Write the synthesizer's disclosure diagnostics (metadata/diagnostics.csv).")
@click.option("--force", is_flag=True,
              help="Replace the release already in --out as a whole (otherwise refused).")
@click.option("--format", "output_format", type=click.Choice(["parquet", "csv"]), default=None,
              help="With --dask: implicates as Parquet folders (default) or one CSV each.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
def synthesize_cmd(
    data: Path,
    read_kw: dict[str, Any],
    out: Path,
    m: int,
    methods: tuple[str, ...],
    default_method: str,
    keep: str | None,
    visit: str | None,
    strata: str | None,
    household: str | None,
    household_columns: str | None,
    member_order: str | None,
    min_stratum_size: int | None,
    replicated_uniques: str,
    uniques_on: str | None,
    partial_uniques: str,
    extremes: int,
    rare_values: int,
    min_rows: int | None,
    drop: tuple[str, ...],
    schema: tuple[str, ...],
    n: int | None,
    weights_col: str | None,
    risk_kind: str | None,
    risk_keys: str | None,
    risk_target: str | None,
    risk_radius: float,
    constraints_file: Path | None,
    allow_violations: bool,
    max_redraws: int,
    transforms: tuple[str, ...],
    seed: int | None,
    n_jobs: int | None,
    prefix: str,
    diagnostics: bool,
    force: bool,
    quiet: bool,
    dask: Any = None,
    output_format: str | None = None,
) -> None:
    """Synthesize DATA (CSV, Parquet, Stata, SAS or SPSS) and write one CSV per implicate.

    Models are fit on DATA and drawn from the synthesized values (sequential synthesis, as
    synthpop). --out becomes a release folder: PREFIX_1.csv ... PREFIX_m.csv, metadata/
    (diagnostics, provenance) and synthguard_manifest.json (kind, m, seed, methods, kept and
    dropped columns, versions), which `synthguard evaluate` reads. A folder holding an earlier
    release is refused unless --force, which replaces it as a whole. Nothing is written when
    the input is bad.

    Exit codes: 0 written, 2 bad input (nothing written).

    Identifiers (record numbers, ids, names) are refused: --drop them, or declare the
    column's kind with --schema if it is not one.

    \b
    Examples:
      synthguard synthesize conf.csv --out syn/ --m 5 --method income=cart --seed 1
      synthguard synthesize CEdata.csv --out syn/ --drop ID --schema Race=categorical
      synthguard synthesize ce.csv --out syn/ --keep UrbanRural,Race,KidsCount \\
          --schema Race=categorical --schema UrbanRural=categorical
      synthguard synthesize survey.dta --out syn/ --strata region --m 3
      synthguard synthesize testdata.csv --out syn/ --household ori_hid \\
          --constraints household_rules.yaml
      synthguard synthesize adult.csv --out syn/ --constraints rules.yaml \\
          --transform capital_gain=log1p
      synthguard synthesize conf_parquet/ --out syn/ --strata state --dask local:4
      synthguard synthesize ce.csv --out syn/ --keep UrbanRural,Race,KidsCount \\
          --method Income=bayes_norm --risk-weights pairwise --keys UrbanRural,Race \\
          --target Income --radius 0.2 --m 20
    """
    from synthguard.data.io import read_table

    with importing():
        from synthguard.data.constraints import load_constraints
        from synthguard.data.manifest import check_release_target
        from synthguard.synthesis import Synthesizer

        if dask is None:  # cart (the default method) grows its trees with scikit-learn
            import sklearn.tree  # noqa: F401

    check_release_target(out, force=force, inputs=[data])  # before the slow part
    if dask is not None:  # the Dask path: _synthesize_on_dask below
        refuse_with_dask(dask, **{"--risk-weights": risk_kind, "--strip": read_kw.get("strip")})
    elif output_format is not None:
        raise click.UsageError("--format applies to --dask releases; without --dask the "
                               "implicates are CSV files")
    elif data.is_dir() and data.suffix.lower() != ".parquet":
        raise click.BadParameter(f"'{data}' is a folder; give a data file (a Parquet folder "
                                 f"or a glob of CSV files needs --dask)", param_hint="DATA")
    df = read_table(data, **read_kw) if dask is None else None
    weights: np.ndarray | str | None = weights_col
    # --- issue 5: risk weights computed from the options above replace `weights` here ---
    if risk_kind is not None and df is not None:
        from synthguard.bayes.workflow import likelihood_weights

        if not risk_target:
            raise click.UsageError("--risk-weights needs --target COL, the sensitive column")
        if weights_col is not None and weights_col not in df.columns:
            raise click.BadParameter(f"column '{weights_col}' is not in the data",
                                     param_hint="--weights")
        kind: Literal["marginal", "pairwise"] = (
            "pairwise" if risk_kind == "pairwise" else "marginal")
        _, weights = likelihood_weights(
            df, kind=kind, keys=split_columns(risk_keys) or [], targets=risk_target,
            radius=risk_radius, survey=None if weights_col is None else df[weights_col],
        )
    params = dict(
        methods=parse_pairs(methods, "--method") or None,
        visit_sequence=split_columns(visit),
        keep=split_columns(keep),
        strata=split_columns(strata),
        min_stratum_size=min_stratum_size,
        drop=split_columns(",".join(drop)),
        replicated_uniques=replicated_uniques,
        uniques_on=split_columns(uniques_on),
        partial_uniques=partial_uniques,
        extremes=extremes,
        rare_values=rare_values,
        min_rows=min_rows,
        schema=parse_pairs(schema, "--schema") or None,
        n=n,
        m=m,
        weights=weights,
        default_method=default_method,
        n_jobs=default_jobs() if n_jobs is None else n_jobs,
        constraints=None if constraints_file is None else load_constraints(constraints_file),
        allow_violations=allow_violations,
        max_redraws=max_redraws,
        transforms=parse_pairs(transforms, "--transform") or None,
        random_state=seed,
    )
    if household is not None or household_columns is not None or member_order is not None:
        if dask is not None:
            raise click.UsageError("--household is not available with --dask yet")
        params.update(household=household, household_columns=split_columns(household_columns),
                      member_order=member_order)
    if df is None:
        _synthesize_on_dask(data, out, dask, params, fmt=output_format or "parquet",
                            prefix=prefix, force=force, quiet=quiet,
                            na_values=read_kw.get("na_values"))
        return
    syn = Synthesizer(**params)  # type: ignore[arg-type]
    syn.fit(df)
    if quiet:
        result = syn.sample(diagnostics=diagnostics)
    else:
        with click.progressbar(length=m, label="synthesizing implicates", file=sys.stderr) as bar:
            result = syn.sample(diagnostics=diagnostics, progress=lambda i, total: bar.update(1))
    paths = _write_outputs(result, out, prefix, diagnostics, force=force, data=data)
    if not quiet:
        click.echo(result.summary())
        click.echo(f"wrote {result.m} implicate(s) and {len(paths) - result.m} metadata file(s) "
                   f"to {out} with synthguard_manifest.json (seed {result.seed})")


def _synthesize_on_dask(data: Path, out: Path, target: Any, params: dict[str, Any], *,
                       fmt: str, prefix: str, force: bool, quiet: bool,
                       na_values: list[str] | None) -> None:
    """``--dask``: read DATA with Dask, synthesize on ``target`` and write the release folder
    ``out``: the implicates as Parquet folders written by the workers (or one CSV each with
    ``--format csv``), ``metadata/provenance.json`` and the manifest, whose details record
    the Dask plan (strata on workers, or a fit sample and per-partition draws), the blocks
    and the seed derivation."""
    from synthguard.cli._dask import dask_progress
    from synthguard.data.manifest import (
        METADATA_DIR,
        ReleaseManifest,
        release_folder,
        write_manifest,
    )
    from synthguard.pipeline import dask_adapter
    from synthguard.scale import dask_session, read_dataset

    params = dict(params)
    params.pop("n_jobs", None)  # the workers are the parallelism
    with dask_session(target):
        ddf = read_dataset(data, na_values=na_values)
        result = dask_adapter.synthesize(ddf, **params)
        with release_folder(out, force=force, inputs=[data]) as tmp:
            with dask_progress("synthesizing on Dask", quiet) as progress:
                names = result.write(tmp, prefix=prefix, fmt=fmt, progress=progress)
            (tmp / METADATA_DIR).mkdir()
            info = {"kind": result.kind, "m": result.m, "seed": result.seed,
                    "synthesized": list(result.synthesized), "kept": list(result.kept),
                    "methods": dict(result.methods), "provenance": result.provenance()}
            meta = f"{METADATA_DIR}/provenance.json"
            (tmp / meta).write_text(json.dumps(info, indent=2, default=str), encoding="utf-8")
            columns = [str(c) for c in result.implicates[0].columns]
            write_manifest(tmp, ReleaseManifest(
                kind=result.kind, implicates=tuple(names), seed=result.seed,
                methods=dict(result.methods), kept=tuple(result.kept),
                dropped=tuple(str(c) for c in ddf.columns if str(c) not in columns),
                columns=tuple(columns), metadata=(meta,),
                details={"dask": result.provenance()},
            ))
    if not quiet:
        how = (f"{result.n_blocks} strata on workers" if result.plan == "strata" else
               f"models fitted on a sample of {result.fit_rows} records, drawn in "
               f"{result.n_blocks} partitions")
        if result.safeguards is not None:
            per = "stratum" if result.plan == "strata" else "partition's draw"
            click.echo(result.safeguards.summary())
            click.echo(f"(the safeguards act within each {per}: summed over the "
                       f"{result.n_blocks} blocks)")
        click.echo(f"wrote {result.m} implicate(s) ({fmt}) to {out} with "
                   f"synthguard_manifest.json (seed {result.seed}; {how})")
