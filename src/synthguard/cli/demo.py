"""``synthguard demo``: the main job on bundled data, as a sequence of small steps.

1. :func:`step_penguins`: fully synthetic Palmer penguins, m = 5 implicates (defaults:
   ``sample`` for the first column, ``cart`` for the rest, as synthpop);
2. :func:`step_ce`: partially synthetic CE 2019 Q1 sample, Income and Expenditure
   synthesized with ``cart``, UrbanRural, Race and KidsCount kept;

each writes its implicates as CSV and prints a comparison of means, standard deviations and
category shares between the confidential data and the synthetic data (pooled over
implicates). Steps share a :class:`DemoContext`; a later step (e.g. writing a report) is one
function appended to :data:`STEPS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from synthguard.data.datasets import load_dataset
from synthguard.data.io import write_table
from synthguard.data.schema import infer_schema

__all__ = ["STEPS", "DemoContext", "compare_frames", "demo_cmd", "run_demo"]

DEFAULT_SEED = 20220301


@dataclass
class DemoContext:
    """What the steps share: the output folder, the seed, and the releases made so far
    (name -> (confidential DataFrame, SyntheticData))."""

    out: Path
    seed: int = DEFAULT_SEED
    quiet: bool = False
    releases: dict[str, tuple[pd.DataFrame, Any]] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)

    def echo(self, text: str = "") -> None:
        if not self.quiet:
            click.echo(text)


def compare_frames(
    conf: pd.DataFrame, implicates: list[pd.DataFrame], kept: list[str] | None = None
) -> pd.DataFrame:
    """Means and SDs of numeric columns and shares of each category (missing included),
    confidential vs synthetic (pooled over implicates), one row per statistic; columns in
    ``kept`` are marked (their statistics agree by construction)."""
    schema = infer_schema(conf)
    syn = pd.concat(implicates, ignore_index=True)
    rows = []
    for c in syn.columns:
        col = schema[c]
        if col.is_numeric:
            for stat, fn in (("mean", "mean"), ("sd", "std")):
                rows.append({"column": c, "statistic": stat,
                             "confidential": getattr(conf[c], fn)(),
                             "synthetic": getattr(syn[c], fn)()})
            if col.has_missing:
                rows.append({"column": c, "statistic": "share missing",
                             "confidential": conf[c].isna().mean(),
                             "synthetic": syn[c].isna().mean()})
        else:
            cs = conf[c].value_counts(normalize=True, dropna=False)
            ss = syn[c].value_counts(normalize=True, dropna=False)
            levels = list(col.levels or ()) + ([np.nan] if cs.index.isna().any() else [])
            for level in levels:
                label = "missing" if pd.isna(level) else str(level)
                rows.append({"column": c, "statistic": f"share {label}",
                             "confidential": float(cs.get(level, 0.0)),
                             "synthetic": float(ss.get(level, 0.0))})
    out = pd.DataFrame(rows)
    out["difference"] = out["synthetic"] - out["confidential"]
    kept_set = set(kept or ())
    out.insert(1, "role", ["kept" if c in kept_set else "synthesized" for c in out["column"]])
    return out


def _print_comparison(ctx: DemoContext, table: pd.DataFrame) -> None:
    fmt = table.copy()
    for c in ("confidential", "synthetic", "difference"):
        fmt[c] = [
            f"{v:,.3f}" if s.startswith("share") else f"{v:,.2f}"
            for v, s in zip(table[c], table["statistic"])
        ]
    ctx.echo(fmt.to_string(index=False))


def _release(ctx: DemoContext, name: str, conf: pd.DataFrame, result: Any) -> None:
    """Write a release folder (implicates, manifest, metadata/comparison.csv), replacing the
    previous demo run's."""
    from synthguard.data.manifest import ReleaseManifest, release_folder, write_manifest

    folder = ctx.out / name
    table = compare_frames(conf[result.implicates[0].columns], result.implicates, result.kept)
    with release_folder(folder, force=True) as tmp:
        files = [p.name for p in result.write(tmp)]
        write_table(table, tmp / "metadata" / "comparison.csv")
        write_manifest(tmp, ReleaseManifest(
            kind=result.kind, implicates=tuple(files), seed=result.seed,
            methods=dict(result.methods), kept=tuple(result.kept),
            columns=tuple(str(c) for c in result.implicates[0].columns),
            metadata=("metadata/comparison.csv",),
        ))
    ctx.files.extend(folder / f for f in files)
    ctx.files.append(folder / "metadata" / "comparison.csv")
    ctx.releases[name] = (conf, result)
    ctx.echo(result.summary())
    ctx.echo()
    ctx.echo(f"Confidential vs synthetic (pooled over {result.m} implicates):")
    _print_comparison(ctx, table)
    ctx.echo()


def step_penguins(ctx: DemoContext) -> None:
    """Full synthesis of the penguins, m = 5, synthpop's default methods."""
    from synthguard.synthesis import synthesize

    ctx.echo("== Palmer penguins: full synthesis, m = 5 (sample, then cart)")
    conf = load_dataset("penguins")
    result = synthesize(conf, m=5, random_state=ctx.seed)
    _release(ctx, "penguins", conf, result)


def step_ce(ctx: DemoContext) -> None:
    """Partial synthesis of the CE sample: Income and Expenditure synthesized by cart."""
    from synthguard.synthesis import Synthesizer

    ctx.echo("== CE 2019 Q1: partial synthesis of Income and Expenditure (cart), m = 5;")
    ctx.echo("   UrbanRural, Race and KidsCount kept")
    conf = load_dataset("ce")
    syn = Synthesizer(
        keep=["UrbanRural", "Race", "KidsCount"],
        visit_sequence=["Income", "Expenditure"],
        methods={"Income": "cart", "Expenditure": "cart"},
        m=5,
        random_state=ctx.seed,
    )
    result = syn.fit(conf).sample()
    _release(ctx, "ce", conf, result)
    conf_r = np.corrcoef(conf["Income"], conf["Expenditure"])[0, 1]
    syn_r = np.mean([np.corrcoef(d["Income"], d["Expenditure"])[0, 1] for d in result.implicates])
    ctx.echo(f"corr(Income, Expenditure): confidential {conf_r:.3f}, synthetic {syn_r:.3f}")
    ctx.echo()


STEPS: list[Callable[[DemoContext], None]] = [step_penguins, step_ce]
# --- further steps (e.g. issue 8's report) are appended to STEPS here ---


def step_report(ctx: DemoContext) -> None:
    """Several releases of the CE sample, measured side by side, in one HTML report."""
    from synthguard.pipeline.demo import demo_report_step  # imported late: matplotlib is heavy

    demo_report_step(ctx)


STEPS.append(step_report)


def run_demo(out: Path, *, seed: int = DEFAULT_SEED, quiet: bool = False) -> DemoContext:
    """Run every step of :data:`STEPS` in order; return the shared context."""
    ctx = DemoContext(out=Path(out), seed=seed, quiet=quiet)
    for step in STEPS:
        step(ctx)
    return ctx


@click.command("demo")
@click.option("--out", default="demo_output", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Output folder.")
@click.option("--seed", default=DEFAULT_SEED, show_default=True, type=click.IntRange(min=0),
              help="Random seed.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing.")
def demo_cmd(out: Path, seed: int, quiet: bool) -> None:
    """Synthesize the bundled penguins (full) and CE (partial) data and compare them.

    \b
    Example:
      synthguard demo --out demo_output
    """
    ctx = run_demo(out, seed=seed, quiet=quiet)
    ctx.echo(f"wrote {len(ctx.files)} files under {out}/")
