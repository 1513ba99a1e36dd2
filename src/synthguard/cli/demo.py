"""``synthguard demo``: the main job on bundled data, as a story a data steward can follow.

1. :func:`step_penguins`: fully synthetic Palmer penguins, m = 5 implicates (defaults:
   ``sample`` for the first column, ``cart`` for the rest, as synthpop);
2. :func:`step_ce`: partially synthetic CE 2019 Q1 sample, Income and Expenditure
   synthesized with ``cart``, UrbanRural, Race and KidsCount kept;
3. :func:`step_report`: five release options of the CE sample judged by a board's
   thresholds, in one HTML report; four are meant to fail
   (:data:`synthguard.pipeline.demo.DEMO_STORY` says why).

The first two write their implicates as CSV and print a comparison of winsorised means,
standard deviations and category shares between the confidential data and the synthetic
data (pooled over implicates), under the report's rules, so the terminal shows no
confidential figure the report would not. Steps share a :class:`DemoContext`.

Exit codes: 0 when the story ran as designed, that is every release was made and measured
and each verdict is the one the story expects (the failures included: they are what the
demo shows); 1 when a verdict is not the expected one (the terminal names the release); 2
for bad options. A threshold a release fails as designed is not an error of the demo.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # imported where used: the command line starts fast
    import pandas as pd

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
    unexpected: list[str] = field(default_factory=list)

    def echo(self, text: str = "") -> None:
        if not self.quiet:
            click.echo(text)


def compare_frames(
    conf: pd.DataFrame, implicates: list[pd.DataFrame], kept: list[str] | None = None
) -> pd.DataFrame:
    """Winsorised means and SDs of numeric columns and shares of each category, confidential
    vs synthetic (pooled over implicates), one row per statistic, as text under the report's
    rules (:func:`synthguard.report.comparison.comparison_table`): the terminal prints no
    confidential figure the report would not. Columns in ``kept`` are marked (their
    statistics agree by construction)."""
    from synthguard.data.schema import infer_schema
    from synthguard.report.comparison import comparison_table  # heavy: the report package

    return comparison_table(conf, implicates, kept=kept or (), schema=infer_schema(conf))


def _print_comparison(ctx: DemoContext, table: pd.DataFrame) -> None:
    ctx.echo(table.to_string(index=False))


def _release(ctx: DemoContext, name: str, conf: pd.DataFrame, result: Any) -> None:
    """Write a release folder (implicates, manifest, metadata/comparison.csv), replacing the
    previous demo run's."""
    from synthguard.data.io import write_table
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
    from synthguard.data.datasets import load_dataset
    from synthguard.synthesis import synthesize

    ctx.echo("== Part 1 of 3: Palmer penguins, full synthesis, m = 5 (sample, then cart)")
    ctx.echo("   Every value is drawn from models fitted to the data; no released row is a "
             "real penguin.")
    ctx.echo("   Look at: the comparison below, synthetic figures close to the data's.")
    conf = load_dataset("penguins")
    result = synthesize(conf, m=5, random_state=ctx.seed)
    _release(ctx, "penguins", conf, result)


def step_ce(ctx: DemoContext) -> None:
    """Partial synthesis of the CE sample: Income and Expenditure synthesized by cart."""
    import pandas as pd

    from synthguard.data.datasets import load_dataset
    from synthguard.synthesis import Synthesizer

    ctx.echo("== Part 2 of 3: CE 2019 Q1, partial synthesis of Income and Expenditure (cart), "
             "m = 5;")
    ctx.echo("   UrbanRural, Race and KidsCount kept as they are. Each row is still a real "
             "household:")
    ctx.echo("   part 3 measures whether its kept values and synthetic income single it out.")
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
    from synthguard.report.comparison import winsorised_correlation

    pooled = pd.concat(result.implicates, ignore_index=True)
    conf_r, syn_r = winsorised_correlation(conf, [conf, pooled], "Income", "Expenditure")
    ctx.echo(f"corr(Income, Expenditure), winsorised: confidential {conf_r}, synthetic {syn_r}")
    ctx.echo()


STEPS: list[Callable[[DemoContext], None]] = [step_penguins, step_ce]
# --- further steps (e.g. issue 8's report) are appended to STEPS here ---


def step_report(ctx: DemoContext) -> None:
    """Several releases of the CE sample, measured side by side, in one HTML report."""
    from synthguard.pipeline.demo import demo_report_step  # imported late: matplotlib is heavy

    demo_report_step(ctx)


STEPS.append(step_report)


_INTRO = """\
synthguard demo: what a data steward checks before publishing microdata, on public data
bundled with synthguard (treated here as if it were confidential).
  Part 1  fully synthetic Palmer penguins: every value drawn from models of the data.
  Part 2  partially synthetic CE sample: Income and Expenditure replaced, the rest kept.
  Part 3  five release options for the CE sample, judged by a board's thresholds. Four are
          meant to fail: they show what the gate catches before anything is published.
Figures of the confidential data are printed as the report prints them: means and sds
winsorised (clipped at rounded 1% tails), 3 significant figures, small categories withheld.
"""


def run_demo(out: Path, *, seed: int = DEFAULT_SEED, quiet: bool = False) -> DemoContext:
    """Run every step of :data:`STEPS` in order; return the shared context (its
    ``unexpected`` lists the releases whose verdict the story did not expect)."""
    ctx = DemoContext(out=Path(out), seed=seed, quiet=quiet)
    ctx.echo(_INTRO)
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
    """Synthesize the bundled penguins (full) and CE (partial) data, compare them, and judge
    five release options of CE in one HTML report. Four of them are meant to fail: the
    terminal says what each release is and why.

    \b
    Exit codes:
      0  the demo ran as designed: every verdict is the one it expects (failures included)
      1  a release's verdict is not the one the demo expects (named on the terminal)
      2  bad options
    \b
    Example:
      synthguard demo --out demo_output
    """
    from synthguard.cli._render import EXIT_THRESHOLD_FAILED

    ctx = run_demo(out, seed=seed, quiet=quiet)
    ctx.echo(f"wrote {len(ctx.files)} files under {out}/")
    if ctx.unexpected:
        click.echo(f"demo: not as designed: unexpected verdict for {', '.join(ctx.unexpected)}",
                   err=True)
        sys.exit(EXIT_THRESHOLD_FAILED)
