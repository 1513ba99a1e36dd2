"""Sequential synthesis of a Dask DataFrame: strata on workers, or a fit sample and
per-partition draws.

Two plans, chosen by ``strata``:

**With strata** (synthpop's ``syn.strata``; the course's geocode case study). Strata are
independent, so each is synthesized on a worker by the pandas
:class:`~synthguard.synthesis.Synthesizer` (its block engine,
:func:`~synthguard.synthesis.engine.fit_block` / ``draw_block``, fits and draws the
stratum), on all of the stratum's records:

1. one pass counts the strata; they are numbered ``b = 0 .. B-1`` in sorted order of their
   values (a missing value is a value, sorted last);
2. a shuffle (``set_index`` on the stratum number with one division per stratum) sends each
   stratum's records to one partition; they are put back in file order (a global row
   number taken before the shuffle), so a stratum's records do not depend on the
   partitioning;
3. stratum ``b`` is ``Synthesizer(strata=strata, random_state=s_b, **params)`` fitted on its
   records and sampled ``m`` times, where ``s_b`` is the ``b``-th child of
   ``numpy.random.SeedSequence(random_state)``; with ``n`` the rows are split over strata as
   the pandas path does (largest remainder, :func:`~synthguard.synthesis.engine.allocate`).

So the release equals, stratum by stratum, the pandas release of that stratum with that
seed, whatever the partitioning and the number of workers. The release safeguards
(replicated uniques, tail coding, rare values) are applied per stratum, which protects at
least what the whole-file safeguards protect: a record unique in the file is unique in its
stratum, the ``k`` most extreme values of the file are among the ``k`` most extreme of their
strata, and a value held by fewer than ``k`` records in the file is held by fewer than ``k``
in each stratum. (Judging uniques on keys that leave out the strata columns,
``uniques_on=``, is per stratum too.)

**Without strata** the models are fitted once, on a reproducible sample of at most
``fit_rows`` records (all records when the data have no more): a Bernoulli sample of
fraction ``fit_rows / N`` drawn partition by partition by :meth:`dask.dataframe.DataFrame.
sample` with the seed ``random_state``, so the same seed and partitioning give the same
sample. Sequential models need the whole design of their column in one process, which is why
they are fitted on a sample rather than on 10^8 records; a sample of 10^5 records estimates
a CART leaf or a regression as well as the file does for all but the rarest cells, and the
rare cells are the ones the safeguards suppress anyway. The draws then run per partition:
partition ``p`` draws as many records as it holds (or its share of ``n``) from the fitted
synthesizer with the ``p``-th child of the seed. The same seed and the same partitioning
give the same release. The safeguards are judged on the fit sample: a record unique in the
file is unique in the sample when sampled, and a value rare in the file is rare or absent in
the sample (a model never draws a value it did not see, except by kernel noise).

Partial synthesis (``keep=``) keeps the confidential rows: it needs strata on Dask.
"""

from __future__ import annotations

import copy
import operator
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from dask import delayed

from synthguard._dask.io import pending_writes
from synthguard._dask.progress import Progress, compute
from synthguard._random import copy_seed_sequence
from synthguard.errors import DataError, ParameterError
from synthguard.synthesis.engine import allocate
from synthguard.synthesis.safeguards import SafeguardReport
from synthguard.synthesis.synthesizer import Synthesizer

__all__ = ["DaskSynthesis", "stratum_seeds", "synthesize"]

_SID = "__synthguard_stratum"
_ROW = "__synthguard_row"
_IMP = "__synthguard_implicate"

#: Records the models are fitted on without strata, by default.
DEFAULT_FIT_ROWS = 100_000


@dataclass(frozen=True)
class DaskSynthesis:
    """A lazily computed synthetic release of a Dask DataFrame.

    Attributes
    ----------
    implicates : list of dask DataFrames
        The implicates, computed when written (:meth:`write`) or computed (:meth:`compute`);
        all implicates come from one task graph, so writing them together fits each model
        once.
    kind : ``"full"`` or ``"partial"``.
    m : number of implicates.
    seed : the integer seed that reproduces the release with the same partitioning (None
        when a ``numpy.random.SeedSequence`` was given: the same SeedSequence reproduces it).
    plan : ``"strata"`` (each stratum on a worker) or ``"fit-sample"`` (models fitted on a
        sample, drawn per partition).
    strata : the strata columns.
    n_blocks : strata (plan ``"strata"``) or partitions drawn (``"fit-sample"``).
    fit_rows : records the models were fitted on (``"fit-sample"``), else None.
    synthesized, kept : the synthesized and kept columns.
    methods : column -> method, as the pandas release names them (``"fit-sample"`` only; per
        stratum the pandas synthesizer resolves them on the worker).
    safeguards : SafeguardReport or None
        What the release safeguards did (replicated uniques redrawn, extremes coded, rare
        values redrawn), summed over the blocks (:meth:`SafeguardReport.combine`); None until
        the release is written or computed, which computes it in the same pass.
    """

    implicates: list[Any] = field(repr=False)
    kind: str
    m: int
    seed: int | None
    plan: str
    strata: tuple[str, ...]
    n_blocks: int
    fit_rows: int | None = None
    synthesized: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    methods: Mapping[str, str] = field(default_factory=dict)
    #: each block's SafeguardReport, lazy (computed with the implicates)
    reports: Sequence[Any] = field(default=(), repr=False)
    _computed: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def safeguards(self) -> SafeguardReport | None:
        return self._computed.get("safeguards")

    def _keep_reports(self, reports: Sequence[Any]) -> None:
        done = [r for r in reports if r is not None]
        if done:
            self._computed["safeguards"] = SafeguardReport.combine(done)

    def write(self, folder: str | os.PathLike[str], *, prefix: str = "synthetic",
              fmt: str = "parquet", progress: Progress | None = None) -> list[str]:
        """Write the implicates under ``folder`` (:func:`synthguard.scale.io.write_implicates`:
        one Parquet folder per implicate, or one CSV each); return their names.
        ``progress(done, tasks)`` follows the scheduler. The blocks' safeguard reports are
        computed in the same pass (:attr:`safeguards`)."""
        names, pending = pending_writes(self.implicates, Path(folder), prefix=prefix, fmt=fmt)
        out = _compute_with_reports(pending, self.reports, progress)
        self._keep_reports(out[len(pending):])
        return names

    def to_parquet(self, folder: str | os.PathLike[str], *, prefix: str = "synthetic") -> list[str]:
        """Write one Parquet folder per implicate (``PREFIX_1/`` ...) from the workers."""
        return self.write(folder, prefix=prefix, fmt="parquet")

    def compute(self) -> list[pd.DataFrame]:
        """The implicates as pandas DataFrames (for releases that fit in memory)."""
        out = _compute_with_reports(self.implicates, self.reports)
        self._keep_reports(out[len(self.implicates):])
        return [f.reset_index(drop=True) for f in out[:len(self.implicates)]]

    def provenance(self) -> dict[str, Any]:
        """What the release folder's manifest records about how the release was made."""
        out: dict[str, Any] = {"backend": "dask", "plan": self.plan, "blocks": self.n_blocks,
                               "seed_derivation": "numpy SeedSequence(seed).spawn(blocks)"}
        if self.strata:
            out["strata"] = list(self.strata)
        if self.fit_rows is not None:
            out["fit_rows"] = self.fit_rows
        return out


def stratum_seeds(
    random_state: int | np.random.SeedSequence, n_blocks: int
) -> list[np.random.SeedSequence]:
    """The seeds of the blocks: the children of ``numpy.random.SeedSequence(random_state)``
    (or of a copy of a given SeedSequence, which is left unchanged).

    Block ``b`` (stratum ``b`` in sorted order, or partition ``b``) is synthesized with the
    ``b``-th child, so a block's release does not depend on which worker runs it or when.
    """
    return list(_root(random_state).spawn(int(n_blocks)))


def _root(random_state: int | np.random.SeedSequence) -> np.random.SeedSequence:
    if isinstance(random_state, np.random.SeedSequence):
        return copy_seed_sequence(random_state)
    return np.random.SeedSequence(int(random_state))


def _portable(seeds: Sequence[np.random.SeedSequence]) -> list[tuple[int, tuple[int, ...]]]:
    """Seeds as plain data (entropy, spawn key). A SeedSequence counts the children spawned
    from it, so one object reused by a retried or recomputed task would give another
    release; each task rebuilds its own from these numbers (:func:`_fresh`)."""
    return [(int(s.entropy), tuple(int(k) for k in s.spawn_key)) for s in seeds]  # type: ignore[arg-type]


def _fresh(seed: tuple[int, tuple[int, ...]]) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed[0], spawn_key=seed[1])


def _as_list(value: Any, param: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence):
        return [str(v) for v in value]
    raise ParameterError(f"parameter '{param}': expected a column name or a list of names")


def _check_known(columns: Sequence[str], names: Sequence[str], param: str) -> None:
    unknown = [c for c in names if c not in columns]
    if unknown:
        raise ParameterError(
            f"parameter '{param}' names columns that are not in the data: "
            f"{', '.join(unknown)}; check the spelling"
        )


def _released_columns(columns: Sequence[str], params: Mapping[str, Any],
                      strata: Sequence[str]) -> list[str]:
    """The columns of the release, in the data's order (as the pandas synthesizer orders
    them): visited, kept and strata columns; dropped and declared identifiers left out."""
    keep = _as_list(params.get("keep"), "keep")
    drop = _as_list(params.get("drop"), "drop")
    visit = params.get("visit_sequence")
    if visit is None or (isinstance(visit, str) and visit == "auto"):
        declared = set()
        overrides = params.get("schema")
        if isinstance(overrides, Mapping):
            for c, spec in overrides.items():
                kind = spec.get("kind") if isinstance(spec, Mapping) else spec
                if str(kind) == "identifier":
                    declared.add(c)
        used = {c for c in columns if c not in drop and c not in declared}
    else:
        vs = _as_list(visit, "visit_sequence")
        _check_known(columns, vs, "visit_sequence")
        used = set(vs) | set(keep) | set(strata)
    return [c for c in columns if c in used]


def _record(seed: int | np.random.SeedSequence) -> int | None:
    return None if isinstance(seed, np.random.SeedSequence) else int(seed)


def _resolve_seed(random_state: Any) -> int | np.random.SeedSequence:
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    if isinstance(random_state, np.random.SeedSequence):
        return copy_seed_sequence(random_state)
    if isinstance(random_state, bool | np.bool_) or not isinstance(random_state, int | np.integer):
        raise ParameterError(
            "parameter 'random_state': the Dask path takes an integer seed, a "
            "numpy.random.SeedSequence or None, so the blocks' seeds can be derived from it "
            "on every worker"
        )
    if random_state < 0:
        raise ParameterError("parameter 'random_state': expected an integer >= 0")
    return int(random_state)


def synthesize(
    data: Any,
    *,
    strata: str | Sequence[str] | None = None,
    m: int = 1,
    n: int | None = None,
    random_state: int | np.random.SeedSequence | None = None,
    fit_rows: int = DEFAULT_FIT_ROWS,
    **params: Any,
) -> DaskSynthesis:
    """Synthesize a ``dask.dataframe.DataFrame``; the Dask counterpart of
    :func:`synthguard.synthesis.synthesize`.

    Parameters
    ----------
    data : dask DataFrame
        The confidential data (e.g. :func:`synthguard.scale.io.read_dataset`).
    strata : str or list of str, optional
        Synthesize each stratum on a worker (see the module's notes); without strata the
        models are fitted on a sample of ``fit_rows`` records and drawn per partition.
    m : int
        Number of implicates.
    n : int, optional
        Rows per implicate (full synthesis); default as many as the data.
    random_state : int or numpy.random.SeedSequence, optional
        The seed; the blocks' seeds are its :func:`stratum_seeds`. None draws one (recorded
        in ``seed``). A SeedSequence is copied, never spawned from, so the same object gives
        the same release on every call.
    fit_rows : int
        Records the models are fitted on without strata.
    **params
        Any other keyword of :class:`~synthguard.synthesis.Synthesizer` (``methods``,
        ``visit_sequence``, ``keep``, ``schema``, ``replicated_uniques``, ``extremes``, ...);
        ``weights`` must name a column.

    Returns
    -------
    DaskSynthesis
        Lazy: nothing is fitted until its implicates are written or computed (the strata
        are counted, and without strata the model is fitted, here).

    Raises
    ------
    ParameterError
        ``data`` is not a Dask DataFrame, unknown columns, ``keep`` without strata,
        ``weights`` given as an array, a non-integer seed. Problems the pandas synthesizer
        finds in a stratum (a stratum too small, a bad method) are raised by the computation,
        with the pandas path's types and messages.
    """
    import dask.dataframe as dd

    if not isinstance(data, dd.DataFrame):
        raise ParameterError(
            f"data: expected a dask DataFrame, got {type(data).__name__}; use "
            f"synthguard.synthesize for pandas, or dask.dataframe.from_pandas(data, npartitions=...)"
        )
    if not isinstance(m, int | np.integer) or isinstance(m, bool) or m < 1:
        raise ParameterError("parameter 'm': expected a whole number >= 1")
    if n is not None and (not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 1):
        raise ParameterError("parameter 'n': expected a whole number >= 1")
    if not isinstance(fit_rows, int | np.integer) or isinstance(fit_rows, bool) or fit_rows < 1:
        raise ParameterError("parameter 'fit_rows': expected a whole number >= 1")
    if "weights" in params and params["weights"] is not None and not isinstance(
            params["weights"], str):
        raise ParameterError("parameter 'weights': on Dask, name the column of weights")
    seed = _resolve_seed(random_state)
    columns = [str(c) for c in data.columns]
    strata_ = _as_list(strata, "strata")
    keep = _as_list(params.get("keep"), "keep")
    _check_known(columns, strata_, "strata")
    _check_known(columns, keep, "keep")
    _check_known(columns, _as_list(params.get("drop"), "drop"), "drop")
    released = _released_columns(columns, params, strata_)
    meta = data._meta[released]
    kind = "partial" if keep else "full"
    if strata_:
        implicates, n_blocks, reports = _by_strata(data, strata_, m, n, seed, params, meta)
        return DaskSynthesis(implicates=implicates, kind=kind, m=int(m), seed=_record(seed),
                             plan="strata", strata=tuple(strata_), n_blocks=n_blocks,
                             synthesized=tuple(c for c in released
                                               if c not in keep and c not in strata_),
                             kept=tuple(keep), reports=reports)
    if keep:
        raise ParameterError(
            "parameter 'keep': partial synthesis keeps the confidential rows, which on Dask "
            "needs strata=... (each stratum on a worker); give strata, or synthesize with "
            "pandas (synthguard.synthesize)"
        )
    return _by_sample(data, m, n, seed, int(fit_rows), params, meta)


# --------------------------------------------------------------------------- with strata


def _stratum_table(data: Any, strata: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The strata's values and sizes, sorted (missing last), numbered ``0 .. B-1``, and the
    partitions' lengths: one pass over the data."""
    import dask

    sizes, lengths = dask.compute(data.groupby(strata, dropna=False).size(),
                                  data.map_partitions(len))
    table = sizes.rename("size").reset_index()
    table = table.sort_values(strata, na_position="last", kind="stable").reset_index(drop=True)
    table[_SID] = np.arange(len(table), dtype=np.int64)
    return table, np.asarray(lengths, dtype=np.int64)


def _number_rows(part: pd.DataFrame, offsets: np.ndarray, keys: pd.DataFrame,
                 strata: list[str], partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    """Add each record's global row number and its stratum number (partition-local work)."""
    start = 0 if partition_info is None else int(offsets[partition_info["number"]])
    out = part.reset_index(drop=True)
    out[_ROW] = np.arange(start, start + len(out), dtype=np.int64)
    sid = out[strata].merge(keys, on=strata, how="left")[_SID].to_numpy()
    out[_SID] = sid
    return out


def _synthesize_strata(part: pd.DataFrame, seeds: Sequence[tuple[int, tuple[int, ...]]],
                       n_rows: Sequence[int | None], strata: list[str], m: int,
                       params: dict[str, Any], meta: pd.DataFrame,
                       ) -> tuple[pd.DataFrame, SafeguardReport | None]:
    """Synthesize every stratum held by this partition (worker-side); the release's rows and
    the strata's safeguard reports combined (None for a partition without strata)."""
    frames = []
    reports = []
    if len(part) == 0:
        return _empty_output(meta), None
    sids = np.unique(part.index.to_numpy())
    for b in sids:
        rows = part.loc[[b]] if part.index.is_unique else part[part.index == b]
        rows = rows.sort_values(_ROW, kind="stable").drop(columns=[_ROW])
        rows = rows.reset_index(drop=True)
        nb = n_rows[int(b)]
        if nb == 0:
            continue
        syn = Synthesizer(strata=strata, m=m, n=nb, random_state=_fresh(seeds[int(b)]),
                          **params)
        result = syn.fit(rows).sample(diagnostics=False)
        if result.safeguards is not None:
            reports.append(result.safeguards)
        for i, frame in enumerate(result.implicates, start=1):
            frames.append(_conform(frame, meta).assign(**{_IMP: i}))
    report = SafeguardReport.combine(reports) if reports else None
    if not frames:
        return _empty_output(meta), report
    return pd.concat(frames, ignore_index=True), report


def _empty_output(meta: pd.DataFrame) -> pd.DataFrame:
    out = meta.iloc[:0].copy()
    out[_IMP] = np.array([], dtype=np.int64)
    return out.reset_index(drop=True)


def _conform(frame: pd.DataFrame, meta: pd.DataFrame) -> pd.DataFrame:
    """The release's columns and dtypes as the Dask metadata promises."""
    missing = [c for c in meta.columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"the synthesizer left out columns the release was planned with: "
            f"{', '.join(map(str, missing))}; list them in visit_sequence or drop them"
        )
    out = frame[list(meta.columns)].reset_index(drop=True)
    for c in meta.columns:
        want = meta[c].dtype
        if isinstance(want, pd.CategoricalDtype) and _unknown_categories(want):
            # Dask's placeholder for categories it has not read (a Parquet dictionary column):
            # casting to it would turn every value missing; each partition keeps its own
            if not isinstance(out[c].dtype, pd.CategoricalDtype):
                out[c] = out[c].astype("category")
        elif out[c].dtype != want:
            out[c] = out[c].astype(want)
    return out


def _unknown_categories(dtype: pd.CategoricalDtype) -> bool:
    from dask.dataframe.utils import UNKNOWN_CATEGORIES

    return dtype.categories is not None and UNKNOWN_CATEGORIES in dtype.categories


def _split_implicates(combined: Any, m: int, meta: pd.DataFrame) -> list[Any]:
    return [
        combined[combined[_IMP] == i].drop(columns=[_IMP]) for i in range(1, m + 1)
    ]


def _by_strata(data: Any, strata: list[str], m: int, n: int | None,
               seed: int | np.random.SeedSequence,
               params: dict[str, Any], meta: pd.DataFrame) -> tuple[list[Any], int, list[Any]]:

    table, lengths = _stratum_table(data, strata)
    n_blocks = len(table)
    sizes = table["size"].to_numpy(dtype=np.int64)
    n_rows: list[int | None] = (
        [None] * n_blocks if n is None else [int(v) for v in allocate(sizes, int(n))]
    )
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    keys = table[[*strata, _SID]]
    numbered_meta = data._meta.reset_index(drop=True).assign(
        **{_ROW: np.array([], dtype=np.int64), _SID: np.array([], dtype=np.int64)})
    numbered = data.map_partitions(_number_rows, offsets, keys, strata, meta=numbered_meta)
    divisions = [*range(n_blocks), n_blocks - 1]
    shuffled = numbered.set_index(_SID, divisions=divisions)
    out_meta = _empty_output(meta)
    seeds = _portable(stratum_seeds(seed, n_blocks))
    combined, reports = _with_reports(
        [delayed(_synthesize_strata)(p, seeds, n_rows, strata, int(m), params, meta)
         for p in shuffled.to_delayed()], out_meta)
    return _split_implicates(combined, m, meta), n_blocks, reports


def _with_reports(outs: list[Any], out_meta: pd.DataFrame) -> tuple[Any, list[Any]]:
    """The rows of tasks returning ``(rows, report)`` as one Dask DataFrame, and their
    reports (both read the same tasks: computed together, each block runs once)."""
    import dask.dataframe as dd

    frames = [delayed(operator.getitem)(o, 0) for o in outs]
    reports = [delayed(operator.getitem)(o, 1) for o in outs]
    return dd.from_delayed(frames, meta=out_meta, verify_meta=False), reports


def _compute_with_reports(collections: Sequence[Any], reports: Sequence[Any],
                          progress: Progress | None = None) -> tuple[Any, ...]:
    """``collections`` and the delayed ``reports`` in one computation (each block runs once).
    Dask warns that computing expressions with delayed objects materializes the expressions
    first, which is what computing does anyway: that warning is silenced here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Computing mixed collections",
                                category=UserWarning)
        return compute(*collections, *reports, progress=progress)


# --------------------------------------------------------------------------- without strata


def _draw_partition(p: int, fitted: Synthesizer,
                    seeds: Sequence[tuple[int, tuple[int, ...]]],
                    n_rows: Sequence[int], m: int, meta: pd.DataFrame,
                    ) -> tuple[pd.DataFrame, SafeguardReport | None]:
    """Draw partition ``p``'s records from the fitted synthesizer (worker-side), with the
    draw's safeguard report."""
    if n_rows[p] == 0:
        return _empty_output(meta), None
    syn = copy.copy(fitted)
    syn.n_ = int(n_rows[p])  # rows of this block; the models are shared, not copied
    result = syn.sample(m=m, random_state=_fresh(seeds[p]), diagnostics=False)
    return (pd.concat([_conform(f, meta).assign(**{_IMP: i})
                       for i, f in enumerate(result.implicates, start=1)], ignore_index=True),
            result.safeguards)


def _by_sample(data: Any, m: int, n: int | None, seed: int | np.random.SeedSequence,
               fit_rows: int,
               params: dict[str, Any], meta: pd.DataFrame) -> DaskSynthesis:
    import dask

    lengths = np.asarray(dask.compute(data.map_partitions(len))[0], dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        raise DataError("data is empty: it needs at least one row")
    fit_seed, draw_seed = _root(seed).spawn(2)
    if total <= fit_rows:
        sample = data.compute()
    else:
        sample_seed = int(fit_seed.generate_state(1, dtype=np.uint32)[0])
        sample = data.sample(frac=fit_rows / total, random_state=sample_seed).compute()
    sample = sample.reset_index(drop=True)
    fitted = Synthesizer(m=m, random_state=_fresh(_portable([fit_seed])[0]), **params)
    fitted.fit(sample)
    n_rows = lengths if n is None else allocate(lengths, int(n))
    seeds = _portable(draw_seed.spawn(len(lengths)))
    out_meta = _empty_output(meta)
    rows = [int(v) for v in n_rows]
    # one copy of the models in the graph, not one per task; not pure: hashing the fitted
    # synthesizer for a key would serialize it whole
    held = delayed(fitted, pure=False)
    combined, reports = _with_reports(
        [delayed(_draw_partition)(p, held, seeds, rows, int(m), meta)
         for p in range(len(lengths))], out_meta)
    return DaskSynthesis(
        implicates=_split_implicates(combined, m, meta), kind="full", m=int(m),
        seed=_record(seed),
        plan="fit-sample", strata=(), n_blocks=len(lengths), fit_rows=len(sample),
        synthesized=tuple(fitted.visit_sequence_), kept=(), methods=dict(fitted.methods_),
        reports=reports,
    )
