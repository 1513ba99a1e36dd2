"""``synthguard dp domain``: write the public domain file a steward reviews and DP commands read.

A DP release is differentially private only if every column's levels and bin edges are public:
fixed before the data are looked at (a level held by one record, read from the data, appears
in the release and reveals that record). The domain file declares them once::

    source: codebook          # or: data (proposed from the file's own values)
    reviewed: true            # a data-derived file says false until a person has reviewed it
    categories: {sex: [female, male], ...}
    bins: {age: [0, 18, 25, ...], ...}
    undeclared: [income]      # columns still without public levels (DP commands refuse them)

``dp synthesize --levels FILE`` and ``dp tabulate --levels FILE`` read it (:func:`load_domain`).

From a codebook (``--codebook``) only the declared levels and edges are copied; the data file
is read for its column names only, and nothing from its values is written. With
``--from-data`` the undeclared columns are proposed from the data, and the file is marked
``reviewed: false`` so that DP commands refuse it until a person has checked that every level
is public (then sets ``reviewed: true``): levels held by fewer than ``--min-count`` records are
left out (a rare level would publish the records holding it; add them back only when they are
public, or recode), and a numeric column gets equal-width edges on a rounded grid (steps of
1, 2 or 5 × 10^k) whose outer edges reveal its range only to within a step.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from synthguard.cli._dp_syntax import cli_syntax
from synthguard.cli._options import read_options
from synthguard.errors import ParameterError

if TYPE_CHECKING:  # imported where used: the command line starts fast
    import pandas as pd


__all__ = ["domain_cmd", "load_domain", "nice_edges"]

_KEYS = {"categories", "bins", "source", "reviewed", "undeclared"}


def load_domain(path: Path | None, option: str = "--levels"
                ) -> tuple[dict[str, list[Any]], dict[str, list[float]]]:
    """(categories, bins) of a domain file: ``column: [levels]`` or the ``dp domain`` form
    ``{categories: ..., bins: ..., source, reviewed, undeclared}``. A file proposed from the
    data and not yet reviewed (``reviewed: false``) is refused."""
    from synthguard.data.safe_load import read_yaml

    if path is None:
        return {}, {}
    doc = read_yaml(path, source=f"option '{option}': '{Path(path).name}'",
                    what="a domain file", error=ParameterError) or {}
    if isinstance(doc, dict) and doc and set(doc) <= _KEYS and (
            "categories" in doc or "bins" in doc):
        if doc.get("reviewed") is False:
            raise ParameterError(
                f"option '{option}': '{Path(path).name}' was proposed from the data and is not "
                "reviewed: check that every level and bin edge is public (leave out any a "
                "record could be recognized by), then set 'reviewed: true' in the file")
        cats, bins = doc.get("categories") or {}, doc.get("bins") or {}
    else:
        cats, bins = doc, {}
    ok = (isinstance(cats, dict) and isinstance(bins, dict)
          and all(isinstance(v, list) for v in (*cats.values(), *bins.values())))
    if not ok:
        raise ParameterError(
            f"option '{option}': '{Path(path).name}' is not a mapping column -> list of public "
            "levels (or {categories: ..., bins: ...} as 'synthguard dp domain' writes), e.g. "
            "'sex: [female, male]'")
    try:
        fbins = {str(k): [float(e) for e in v] for k, v in bins.items()}
    except (TypeError, ValueError):
        raise ParameterError(f"option '{option}': bin edges in '{Path(path).name}' must be "
                             "numbers") from None
    return {str(k): list(v) for k, v in cats.items()}, fbins


def _nice_step(width: float) -> float:
    """The smallest of 1, 2, 5 × 10^k at least ``width``."""
    if width <= 0 or not math.isfinite(width):
        return 1.0
    k = math.floor(math.log10(width))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10.0**k >= width * (1 - 1e-12):
            return m * 10.0**k
    return 10.0 ** (k + 1)  # pragma: no cover


def nice_edges(lo: float, hi: float, n_bins: int) -> list[float]:
    """Equal-width edges of step 1, 2 or 5 × 10^k covering [lo, hi] in about ``n_bins`` bins,
    outer edges rounded outward to a multiple of the step (the last bin takes values up to and
    including its upper edge, as DP synthesizers code values past the last edge)."""
    step = _nice_step((hi - lo) / max(1, int(n_bins)))
    start = math.floor(lo / step) * step
    stop = math.ceil(hi / step) * step
    if stop <= start:
        stop = start + step
    k = round((stop - start) / step)
    return [float(round(start + i * step, 10)) for i in range(k + 1)]


def _propose(s: pd.Series, min_count: int, n_bins: int, max_levels: int
             ) -> tuple[str, list[Any]] | None:
    import numpy as np
    import pandas as pd

    values = s.dropna()
    if values.empty:
        return None
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values) and (
            values.nunique() > max_levels):
        x = values.to_numpy(dtype=np.float64)
        return "bins", nice_edges(float(x.min()), float(x.max()), n_bins)
    counts = values.value_counts()
    kept = [v.item() if isinstance(v, np.generic) else v
            for v in counts.index if counts[v] >= min_count]
    try:
        kept = sorted(kept)
    except TypeError:
        kept = sorted(kept, key=str)
    return "categories", kept


@click.command("domain")
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@read_options
@click.option("--codebook", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="YAML/JSON codebook: column -> public levels, or "
                                 "{categories: ..., bins: ...}; copied as declared.")
@click.option("--from-data", is_flag=True,
              help="Propose the undeclared columns from the data (the file says "
                   "'reviewed: false' and DP commands refuse it until a person reviews it).")
@click.option("--min-count", type=int, default=10, show_default=True,
              help="With --from-data: leave out levels held by fewer records.")
@click.option("--n-bins", type=int, default=10, show_default=True,
              help="With --from-data: about this many equal-width bins per numeric column.")
@click.option("--max-levels", type=int, default=20, show_default=True,
              help="With --from-data: a numeric column with more distinct values gets bins.")
@click.option("--columns", default=None, help="Columns to declare, comma-separated "
                                               "(default: all).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The domain file to write (YAML).")
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
@cli_syntax
def domain_cmd(data: Path, read_kw: dict[str, Any], codebook: Path | None, from_data: bool,
               min_count: int, n_bins: int, max_levels: int, columns: str | None, out: Path,
               force: bool) -> None:
    """Write the public domain file of DATA for DP releases (levels and bin edges).

    \b
    Example:
      synthguard dp domain conf.csv --codebook codebook.yaml --out domain.yaml
      synthguard dp domain conf.csv --from-data --out domain.yaml   # then review it
      synthguard dp synthesize conf.csv --method mst --epsilon 1 --levels domain.yaml ...
    """
    import yaml

    from synthguard.data.io import read_table

    if out.exists() and not force:
        raise ParameterError(f"option '--out': '{out.name}' exists; pass --force to replace it")
    if out.resolve() == data.resolve():
        raise ParameterError("option '--out': the domain file cannot replace the data file")
    if min_count < 1 or n_bins < 1 or max_levels < 1:
        raise ParameterError("options --min-count, --n-bins and --max-levels: expected "
                             "positive integers")
    df = read_table(data, **read_kw)
    cols = [str(c) for c in df.columns]
    if columns:
        wanted = [c.strip() for c in columns.split(",") if c.strip()]
        unknown = [c for c in wanted if c not in cols]
        if unknown:
            raise ParameterError(f"option '--columns': no column named {', '.join(unknown)} "
                                 "in the data")
        cols = wanted
    cats, bins = load_domain(codebook, "--codebook")
    cats = {c: v for c, v in cats.items() if c in cols}
    bins = {c: v for c, v in bins.items() if c in cols}
    proposed: list[str] = []
    undeclared: list[str] = []
    for c in cols:
        if c in cats or c in bins:
            continue
        got = _propose(df[c], min_count, n_bins, max_levels) if from_data else None
        if got is None:
            undeclared.append(c)
            continue
        (cats if got[0] == "categories" else bins)[c] = got[1]
        proposed.append(c)
    doc: dict[str, Any] = {
        "source": "data" if proposed else "codebook",
        "reviewed": not proposed,
        "categories": {c: cats[c] for c in cols if c in cats},
        "bins": {c: bins[c] for c in cols if c in bins},
    }
    if undeclared:
        doc["undeclared"] = undeclared
    head = [f"# Public domain of {data.name} for DP releases (synthguard dp domain).",
            "# Every level and bin edge here is PUBLISHED with a release: only public values."]
    if proposed:
        head += [
            f"# PROPOSED FROM THE DATA, NOT YET PUBLIC: {', '.join(proposed)}.",
            f"# Levels held by fewer than {min_count} records were left out; numeric edges "
            "are rounded outward.",
            "# Review every proposed level and edge, then set 'reviewed: true'.",
        ]
    if undeclared:
        head.append("# Columns without public levels are listed under 'undeclared'.")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(head) + "\n" + yaml.safe_dump(doc, sort_keys=False,
                                                           allow_unicode=True),
                   encoding="utf-8")
    n_book = len(cols) - len(proposed) - len(undeclared)
    click.echo(f"wrote {out}: {n_book} column(s) from the codebook, {len(proposed)} proposed "
               f"from the data, {len(undeclared)} undeclared")
    if proposed:
        click.echo("review the proposed levels, then set 'reviewed: true' in the file: DP "
                   "commands refuse it until then", err=True)
