"""What the DP synthesizers fitted on Dask share (:mod:`.mst`, :mod:`.aim`,
:mod:`.stratified` of this package): the declared domain built on each partition, the first rows that give the
columns' types, exact sums of per-partition counts in a tree of merges on the workers, and the
records drawn partition by partition on the workers from the fitted model, with seeds from one
``SeedSequence``. The noise and the ledger charge are not here: they are the pandas
synthesizers' own, run once on the client.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers._domain import build_domain
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.errors import ParameterError

__all__ = [
    "all_integers",
    "binned_integers",
    "declared_domain",
    "domain_builder",
    "first_rows",
    "refuse_data_levels",
    "sample_on_workers",
    "settle_dtypes",
    "tree_sum",
]


def domain_builder(model: DPSynthesizer, *, missing: Any = None) -> Any:
    """``build_domain`` with the model's public declarations (columns, categories, bins), run
    on each partition: a plain function and values, so a task never carries the model (whose
    ledger holds a file lock that cannot be sent to a worker)."""
    return functools.partial(
        build_domain, columns=model.columns, categories=model.categories, bins=model.bins,
        schema=model.schema, n_bins=model.n_bins, domain_from_data=None,
        owner=type(model).__name__, missing=missing)


def refuse_data_levels(model: DPSynthesizer) -> None:
    """A DP synthesizer fitted on Dask takes its domain from declared public levels only, and
    bounds rows per person on pandas only (the bound needs all of a person's rows together)."""
    if model.privacy_unit is not None and model.privacy_unit != "row":
        raise ParameterError(
            f"{type(model).__name__} on Dask: parameter 'privacy_unit': bounding the rows of "
            f"each person is available on pandas only; fit on a pandas frame"
        )
    if model.domain_from_data is not None:
        raise ParameterError(
            f"{type(model).__name__} on Dask: parameter 'domain_from_data': declare the public "
            f"levels with categories=/bins= (levels read from the data differ between "
            f"partitions)"
        )


def declared_domain(model: DPSynthesizer, data: Any, *,
                    missing: Any = None) -> tuple[Any, Any, pd.DataFrame]:
    """The per-partition domain builder, the domain and the first rows (the columns' types)
    of a DP synthesizer fitted on Dask, its parameters and budget checked first: refused
    before any data are read beyond those rows."""
    refuse_data_levels(model)
    model._check_budget()
    model._validate_params()
    build = domain_builder(model, missing=missing)
    head = first_rows(data)
    domain, _ = build(head)
    return build, domain, head


def first_rows(data: Any, rows: int = 100) -> pd.DataFrame:
    """The first rows of the first non-empty partition: the columns' types for the domain
    (reads one partition, not a pass over the data). Empty data give an empty frame, which
    the domain refuses."""
    for part in data.to_delayed():
        head = dask.compute(dask.delayed(pd.DataFrame.head)(part, rows))[0]
        if len(head):
            return head
    return data._meta


def binned_integers(domain: Any) -> dict[str, bool]:
    """Whether each binned column of a partition's domain holds integers (how the release
    decodes it: :meth:`synthguard.dp.synthesizers._domain.Domain.decode`)."""
    return {c: bool(pd.api.types.is_integer_dtype(domain.dtypes[c])) for c in domain.edges}


def all_integers(*flags: dict[str, bool]) -> dict[str, bool]:
    """:func:`binned_integers` of several partitions: integers where all of them say so."""
    out: dict[str, bool] = {}
    for f in flags:
        for c, flag in f.items():
            out[c] = out.get(c, True) and flag
    return out


def settle_dtypes(domain: Any, integer: dict[str, bool]) -> Any:
    """The domain fitted on the first rows, with a binned column read as integers there but
    not in every partition turned to floats: the pandas fit's reading of the whole file (the
    first rows alone may hold whole numbers only)."""
    floats = {c for c, t in domain.dtypes.items()
              if not integer.get(c, True) and pd.api.types.is_integer_dtype(t)}
    if not floats:
        return domain
    return dataclasses.replace(domain, dtypes={
        c: np.dtype(np.float64) if c in floats else t for c, t in domain.dtypes.items()})


def tree_sum(blocks: list[Any], merge: Any, width: int = 8) -> Any:
    """The delayed ``blocks`` (one per partition) merged on the workers, ``width`` at a time,
    until one is left, then computed: the client receives one merged result, never every
    partition's (exact when ``merge`` adds integers)."""
    level = list(blocks)
    while len(level) > 1:
        level = [dask.delayed(merge)(*level[i:i + width]) for i in range(0, len(level), width)]
    return dask.compute(level[0])[0]


class _Drawer:
    """What a worker needs to draw records from a fitted DP synthesizer: the fields its
    sampler reads (``_draw_fields`` of the class; MST: the tree, its conditional tables,
    the level compression and the domain), no ledger, no data, no noisy tables."""

    def __init__(self, model: Any) -> None:
        self._model = model

    @classmethod
    def of(cls, fitted: DPSynthesizer) -> _Drawer:
        kind = type(fitted)
        light = object.__new__(kind)
        for name in kind._draw_fields:  # type: ignore[attr-defined]
            if hasattr(fitted, name):
                setattr(light, name, getattr(fitted, name))
        return cls(light)

    def draw(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """``n`` records drawn with ``rng`` (the pandas path's ``_sample_codes`` and
        ``decode``)."""
        model = self._model
        return model.domain_.decode(model._sample_codes(int(n), rng), rng)

    def draw_part(self, n: int, rng: np.random.Generator, total: int, j: int, k: int
                  ) -> pd.DataFrame:
        """Partition ``j`` of ``k`` (``n`` of the ``total`` rows) of an implicate: the records
        of different partitions are drawn independently from the same model."""
        return self.draw(n, rng)

    def draw_seeded(self, n: int, bit_generator: type, entropy: int,
                    spawn_key: tuple[int, ...], part: tuple[int, int, int] | None = None
                    ) -> pd.DataFrame:
        """``n`` records from a fresh Generator on ``SeedSequence(entropy, spawn_key)``: the
        same arguments draw the same records, however often the task runs. ``part`` is
        ``(total, j, k)``: partition ``j`` of ``k`` of an implicate of ``total`` rows."""
        seq = np.random.SeedSequence(entropy, spawn_key=spawn_key)
        rng = np.random.Generator(bit_generator(seq))
        if part is None:
            return self.draw(n, rng)
        return self.draw_part(n, rng, *part)


def sample_on_workers(model: DPSynthesizer, drawer: _Drawer, *, m: int, n: int | None,
                      random_state: RandomState, partition_rows: int) -> DPSyntheticData:
    """``m`` lazy implicates of ``n`` rows (default: the model's noisy record count) drawn
    from a DP synthesizer fitted on Dask, each partition of at most ``partition_rows`` rows
    by a worker (``drawer``, a few kilobytes sent with each task): the client never holds the
    records. Post-processing of the noisy measurements: no privacy is spent.

    Seeds: implicate ``i`` draws from child ``i`` of ``SeedSequence(seed).spawn(m)`` as on
    pandas; with ``k > 1`` partitions, partition ``j`` draws from that child's ``spawn(k)[j]``
    (rows split as ``numpy.array_split``). The same seed, ``n`` and ``partition_rows`` give the
    same release; with one partition it is the pandas release.
    """
    import dask.dataframe as dd

    if int(m) < 1:
        raise ParameterError("parameter 'm': expected at least 1 implicate")
    n = model._default_n() if n is None else int(n)
    if n < 1:
        raise ParameterError("parameter 'n': expected at least 1 row")
    rows = int(partition_rows)
    if rows < 1:
        raise ParameterError("parameter 'partition_rows': expected at least 1 row")
    k = -(-n // rows)
    sizes = [len(a) for a in np.array_split(np.arange(n), k)] if k > 1 else [n]
    rng, seed = resolve_seed(random_state)
    meta = drawer.draw(1, np.random.default_rng(0)).iloc[:0]
    implicates = []
    for child in rng.spawn(int(m)):
        seq = child.bit_generator.seed_seq
        assert isinstance(seq, np.random.SeedSequence)
        streams = [seq] if k == 1 else seq.spawn(k)
        # plain data (entropy, spawn key), not Generators: a Generator in the graph would
        # advance on every compute, a second compute would draw another release
        parts = [dask.delayed(drawer.draw_seeded)(
                     size, type(child.bit_generator), int(ss.entropy),  # type: ignore[arg-type]
                     tuple(int(x) for x in ss.spawn_key), (n, j, k))
                 for j, (size, ss) in enumerate(zip(sizes, streams))]
        implicates.append(dd.from_delayed(parts, meta=meta, verify_meta=False))
    return DPSyntheticData(
        implicates=implicates, method=model.method, epsilon=float(model.epsilon),
        delta=float(model.delta), noise=model.noise_, seed=seed,
        provenance={**model._provenance(), "partitions": k, "partition_rows": rows},
        dp=model.domain_.dp, ledger=model.ledger_)
