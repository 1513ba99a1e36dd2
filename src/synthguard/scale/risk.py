"""Identity-disclosure measures on Dask, exactly equal to the pandas path.

Every measure here depends on a record only through the records of its pattern (its key
values). Identification risk with one target needs, per pattern, only the sorted target
values and is computed from small tables without moving records
(:mod:`synthguard.scale._tables`). Otherwise the data are hash-shuffled on the pattern keys (``synthguard._dask.partitions``):
each pattern then lies whole in one partition, in the confidential data and in every implicate
alike, and the *existing* per-pattern algorithms of :mod:`synthguard.risk` run on each partition
unchanged (the pandas functions themselves where the measure reads the confidential data only,
the pattern encoder and ball counts of ``synthguard.risk._balls`` where a release is involved).
Integer counts per record are the same whatever the partitioning, the per-record formula is the
same floating-point expression, and the summaries are computed once on the client over the
records in their original order: the results equal the single-machine results bit for bit.

Row order: records are numbered 0..n-1 in the order of the Dask frame's partitions (one cheap
pass to learn partition lengths), which is how implicates are aligned with the confidential
rows and how the per-record arrays are returned. The per-record arrays are brought to the
client (8 bytes per record and array: about 400 MB for 10 million records).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import (
    ROW,
    as_dask,
    as_dask_implicates,
    collect_rows,
    shuffle_by_keys,
    with_row_numbers,
)
from synthguard.data import Schema
from synthguard.data._backend import any_dask as _any_dask
from synthguard.errors import DataError, DisclosureWarning, ParameterError
from synthguard.risk import blocks
from synthguard.risk import distance as _distance
from synthguard.risk import matching as _matching
from synthguard.risk import pairwise as _pairwise
from synthguard.risk import uniqueness as _uniqueness
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    as_list,
    ball_arguments,
    ball_settings,
    risk_summary,
    target_matrix,
)
from synthguard.risk._encoding import check_metric, common_columns, encode_frames
from synthguard.risk._neighbours import nearest
from synthguard.risk._on_dask.common import pattern_codes, prepare, prepare_implicates
from synthguard.risk._patterns import check_columns
from synthguard.risk.distance import DistanceToClosestRecord
from synthguard.risk.identification import identification_risk
from synthguard.risk.matching import MatchRates
from synthguard.risk.pairwise import PairwiseIdentificationRisk
from synthguard.risk.uniqueness import KAnonymity, KAnonymitySummary

__all__ = [
    "distance_to_closest_record",
    "identification_risk",
    "k_anonymity",
    "match_rates",
    "pairwise_identification_risk",
]




# ---------------------------------------------------------------------- pairwise risk

def _check_ball_arguments(conf: Any, keys: Any, targets: Any, radius: Any, singletons: Any
                          ) -> Any:
    out = ball_arguments(conf._meta, keys, targets, radius, singletons)
    target_matrix(conf._meta, out[1], name="conf", allow_missing=True)
    return out


def pairwise_identification_risk(
    conf: Any,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
) -> PairwiseIdentificationRisk:
    """Normalised pairwise identification risk (Hu, Savitsky & Williams, eqs. (6)-(9)) of a
    Dask DataFrame, equal to :func:`synthguard.risk.pairwise_identification_risk`.

    The measure pairs records of the same pattern only, so after a hash shuffle on ``keys``
    the pandas function runs unchanged on every partition; summaries are computed once on the
    client. Parameters and result as the pandas function; ``npartitions`` as in
    :func:`identification_risk`.
    """
    if not _any_dask(conf):
        return _pairwise.pairwise_identification_risk(
            conf,
            keys=keys,
            targets=targets,
            radius=radius,
            relative=relative,
            inclusive=inclusive,
            singletons=singletons,
            quantiles=quantiles,
        )
    keys_l, targets, r, policy, warn = _check_ball_arguments(conf, keys, targets, radius,
                                                             singletons)
    shuffled, n, _ = prepare(conf, keys_l + targets, keys_l, npartitions)
    out = shuffled.map_partitions(
        blocks.pairwise_block,
        keys=keys_l,
        targets=targets,
        radius=radius,
        relative=relative,
        inclusive=inclusive,
        singletons=policy,
        meta=blocks.ident_conf_meta(conf._meta.index),
    )
    res, _ = collect_rows(out.compute(), n)
    risk = res["risk"].to_numpy(dtype=np.float64)
    m = res["size"].to_numpy(dtype=np.int64)
    single = m == 1
    return PairwiseIdentificationRisk(
        **risk_summary(risk, single, n, warn, quantiles, "pairwise_identification_risk"),
        weights=1.0 - risk,
        pattern=pattern_codes(res[blocks.FIRST].to_numpy(dtype=np.int64)),
        pattern_size=m,
        n_inside=res["inside"].to_numpy(dtype=np.int64),
        **ball_settings(keys_l, targets, r, relative, inclusive, policy),
        index=res.index,
    )


# ---------------------------------------------------------------------- k-anonymity
def k_anonymity(
    data: Any, keys: Sequence[str], k: int = 3, *, npartitions: int | None = None,
    gather: bool = True,
) -> KAnonymity | KAnonymitySummary:
    """Equivalence-class sizes fk (sdcMicro's rule for missing keys) of a Dask DataFrame,
    equal to :func:`synthguard.risk.k_anonymity`.

    With ``gather=False`` no record moves and nothing per record reaches the client: fk
    depends on a record only through its key combination, so the workers count the distinct
    key combinations (missing values included) in one pass and merge the tables in a tree
    (:func:`synthguard.scale.individual.individual_risk`'s table), and the client computes
    every combination's fk from that table with sdcMicro's rule
    (:func:`synthguard.risk.individual_risk.wildcard_frequencies`, weighted by the
    combinations' counts), then the summaries
    (:class:`~synthguard.risk.uniqueness.KAnonymitySummary`: the same counts, minimum and
    classes, exactly). Memory on the client: the distinct key combinations.

    With ``gather=True`` (the default) the per-record fk comes back in row order. A record
    with a missing key value is compatible with records of any value on that key
    (Templ, Kowarik & Meindl 2015), so it cannot be placed by a hash of its keys. The records
    with every key present are hash-shuffled on the keys; the (usually few) records with a
    missing key are gathered and sent to every partition. On each partition the pandas
    function counts, for the partition's complete records, their whole class (all complete
    records equal to them are in this partition) plus the compatible incomplete records, and,
    for every incomplete record, the compatible complete records of the partition. An
    incomplete record's fk is the sum of the latter over partitions plus its fk among the
    incomplete records. All integer counts: exact. Cost grows with the number of incomplete
    records times the number of partitions; they must fit in one worker's memory.
    """
    if not _any_dask(data):
        return _uniqueness.k_anonymity(data, keys, k)
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ParameterError("parameter 'k': expected an integer >= 1")
    check_columns(data._meta, keys_l, name="data", role="key")
    if not gather:
        from synthguard.scale.individual import individual_risk

        table = individual_risk(data, keys_l).combinations
        complete = np.all(table[keys_l].to_numpy(dtype=np.int64) >= 0, axis=1)
        return KAnonymitySummary.from_combinations(
            table["fk"].to_numpy(), table["count"].to_numpy(), np.asarray(complete), int(k),
            keys_l)
    framed, n = with_row_numbers(data[keys_l])
    miss = framed[keys_l].isna().any(axis=1)
    incomplete = framed[miss].compute()
    complete = framed[~miss]
    parts = npartitions or data.npartitions
    shuffled = shuffle_by_keys(complete, keys_l, parts)
    if len(incomplete):
        fk_own = _uniqueness.k_anonymity(incomplete[keys_l], keys_l, k=1).fk
    else:
        fk_own = np.zeros(0, dtype=np.int64)
    out = shuffled.map_partitions(
        blocks.kanon_block, incomplete, fk_own, keys=keys_l, meta=blocks.kanon_meta(data._meta.index)
    ).compute()
    n_classes = int(out["classes"].sum())
    inc = out["incomplete"].to_numpy() == 1
    fk = np.zeros(n, dtype=np.int64)
    comp_rows = out[ROW].to_numpy()[~inc]
    fk[comp_rows] = out["fk"].to_numpy()[~inc]
    inc_rows = incomplete[ROW].to_numpy(dtype=np.int64)
    fk[inc_rows] = fk_own
    np.add.at(fk, out[ROW].to_numpy()[inc], out["fk"].to_numpy()[inc])
    if comp_rows.shape[0] + inc_rows.shape[0] != n:
        raise DataError(
            "the partitioned computation lost or duplicated rows; the input changed while it "
            "was read (re-run it on data that does not change)"
        )
    all_rows = np.concatenate([comp_rows, inc_rows])
    order = np.empty(n, dtype=np.int64)
    order[all_rows] = np.arange(n, dtype=np.int64)
    index = out.index[~inc].append(incomplete.index)[order]
    below = int(np.sum(fk < k))
    return KAnonymity(
        fk=fk,
        k=int(k),
        n_below_k=below,
        share_below_k=below / n if n else 0.0,
        n_sample_uniques=int(np.sum(fk == 1)),
        min_class_size=int(fk.min()) if n else 0,
        n_classes=n_classes,
        keys=tuple(keys_l),
        index=index,
    )


# ---------------------------------------------------------------------- match rates
def _is_binary01(s: dd.Series) -> bool:
    """Whether a numeric column holds exactly the values {0, 1} (infer_schema's binary rule)."""
    nonmiss = s.dropna()
    zero = (nonmiss == 0).any()
    one = (nonmiss == 1).any()
    other = (~nonmiss.isin([0, 1])).any()
    z, o, x = dd.compute(zero, one, other)
    return bool(z and o and not x)


def _split_columns(
    conf: dd.DataFrame,
    columns: list[str],
    radius: float | Mapping[str, float],
    schema: Schema | Mapping[str, Any] | None,
) -> tuple[list[str], list[str], dict[str, float]]:
    """The pandas path's split into exact and radius columns, with infer_schema's one
    data-dependent rule for numeric columns (exactly {0, 1} is binary) evaluated by Dask."""
    exact, near, radii = _matching._split_columns(conf._meta, columns, radius, schema)
    declared = set()
    if schema is not None:
        declared = set(schema.columns if isinstance(schema, Schema) else schema)
    keep = []
    for c in near:
        if c not in declared and _is_binary01(conf[c]):
            exact.append(c)
            radii.pop(c)
        else:
            keep.append(c)
    exact = [c for c in columns if c in exact]
    return exact, keep, radii


def match_rates(
    conf: Any,
    synthetic: Any,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str] | None = None,
    radius: float | Mapping[str, float] = 0.1,
    relative: bool = True,
    inclusive: bool = False,
    attacked: Sequence[int] | np.ndarray | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    npartitions: int | None = None,
) -> MatchRates:
    """Expected match risk, true and false match rates (Reiter & Mitra 2009) of a partially
    synthetic release held in Dask, equal to :func:`synthguard.risk.match_rates`.

    Candidates of record i are released rows of its pattern (the exactly matched columns)
    inside its box, so a hash shuffle on the exactly matched columns puts all of them in
    record i's partition; c_i and T_i are then the pandas path's counts. Parameters and result
    as the pandas function; ``npartitions`` as in :func:`identification_risk`.
    """
    if not _any_dask(conf, synthetic):
        return _matching.match_rates(
            conf,
            synthetic,
            keys=keys,
            targets=targets,
            radius=radius,
            relative=relative,
            inclusive=inclusive,
            attacked=attacked,
            schema=schema,
        )
    conf = as_dask(conf, name="conf")
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    if set(keys_l) & set(targets_l):
        raise ParameterError("parameters 'keys' and 'targets': a column cannot be both")
    columns = keys_l + targets_l
    if not columns:
        raise ParameterError("parameter 'keys': name at least one column the intruder knows")
    check_columns(conf._meta, columns, name="conf", role="key/target")
    exact, near, radii = _split_columns(conf, columns, radius, schema)
    shuffled, n, parts = prepare(conf, columns, exact, npartitions)
    impls = prepare_implicates(synthetic, columns, exact, n, parts)
    mask = _matching._attacked_mask(attacked, n)
    r = np.array([radii[c] for c in near]) if near else None
    out = dd.map_partitions(
        blocks.match_block,
        shuffled,
        *impls,
        exact=exact,
        near=near,
        r=r,
        relative=relative,
        inclusive=inclusive,
        meta=blocks.match_meta(conf._meta.index, len(impls)),
        align_dataframes=False,
    )
    res, _ = collect_rows(out.compute(), n)
    rows = []
    n_impl = len(impls)
    cand = np.zeros((n, n_impl), dtype=np.int64)
    own = np.zeros((n, n_impl), dtype=bool)
    for li in range(n_impl):
        c = np.where(mask, res[f"cand{li}"].to_numpy(dtype=np.int64), 0)
        t = res[f"own{li}"].to_numpy(dtype=bool) & mask
        cand[:, li] = c
        own[:, li] = t
        unique = c == 1
        n_unique = int(unique.sum())
        rows.append(
            {  # Reiter & Mitra (2009), the summaries of synthguard.risk.match_rates
                "expected_match_risk": float(np.sum(t / np.maximum(c, 1))),
                "true_match_rate": float(np.sum(unique & t)) / n if n else float("nan"),
                "false_match_rate": (
                    float(np.sum(unique & ~t)) / n_unique if n_unique else float("nan")
                ),
                "n_unique_matches": n_unique,
            }
        )
    per = pd.DataFrame(rows, index=pd.RangeIndex(n_impl, name="implicate"))
    n_att = int(mask.sum())
    emr = float(per["expected_match_risk"].mean())
    return MatchRates(
        expected_match_risk=emr,
        expected_match_rate=emr / n_att if n_att else float("nan"),
        true_match_rate=float(per["true_match_rate"].mean()),
        false_match_rate=float(per["false_match_rate"].mean()),
        n_unique_matches=float(per["n_unique_matches"].mean()),
        candidates=cand,
        own_match=own,
        attacked=mask,
        per_implicate=per,
        keys=tuple(keys_l),
        targets=tuple(targets_l),
        radius=radii,
        index=res.index,
    )


# ---------------------------------------------------------------------- distance to closest record
def _scale_frame(
    conf: dd.DataFrame, cols: list[str], metric: str, schema: Any
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Three rows carrying conf's exact Gower scales (min, median, max of every numeric column)
    and every column's kind, inferred by :func:`synthguard.data.infer_schema`'s rules on the
    column's exact value counts (:func:`synthguard.scale.utility.column_counts`; one entry
    per distinct value on the client, never one per record). The median is ``numpy.median``'s
    (the middle order statistic, or the mean of the two middle ones); a non-numeric column's
    rows are its smallest, middle and largest values in sorted order."""
    from synthguard._dask.counts import column_counts
    from synthguard.data.counts import order_statistic
    from synthguard.data.schema import infer_schema_from_counts

    overrides: dict[str, Any] = {}
    rows: dict[str, list[Any]] = {}
    src = None if schema is None else (schema.columns if isinstance(schema, Schema) else schema)
    for c in cols:
        (vc,) = column_counts([conf], c)
        own = None if src is None or c not in src else {c: src[c]}
        kind = infer_schema_from_counts({c: vc}, overrides=own)[c]
        overrides[c] = kind
        present = vc.present()
        if present.n == 0:
            raise DataError(f"column '{c}': no value in the confidential data")
        if kind.is_numeric and metric == "gower":
            v = present.values.to_numpy(dtype=np.float64)
            ok = np.isfinite(v)
            if not ok.any():
                raise DataError(f"column '{c}': no finite value in the confidential data")
            order = np.argsort(v[ok], kind="stable")
            x, k = v[ok][order], present.counts[ok][order]
            m = int(k.sum())
            mid = [order_statistic(x, k, (m - 1) // 2), order_statistic(x, k, m // 2)]
            med = np.mean(np.array(mid[:1] if m % 2 else mid, dtype=np.float64))  # as numpy
            rows[c] = [float(x[0]), float(med), float(x[-1])]
        else:
            n = present.n
            vals = present.values
            rows[c] = [vals.iloc[0], vals.iloc[int(np.searchsorted(
                np.cumsum(present.counts), n // 2, side="right"))], vals.iloc[-1]]
    return pd.DataFrame(rows), overrides


def _nearest_two(
    scale: pd.DataFrame, ref: pd.DataFrame, query: pd.DataFrame, metric: str, overrides: Any
) -> np.ndarray:
    """Distances from ``query``'s rows to their two nearest rows of ``ref`` (inf-padded), by
    synthguard.risk's encoder and exact blocked KD-tree search, with conf's global scales."""
    out = np.full((len(query), 2), np.inf)
    if len(ref) == 0 or len(query) == 0:
        return out
    cols = list(scale.columns)
    enc = encode_frames([scale, ref[cols], query[cols]], metric=metric, schema=overrides)
    d = nearest(enc, 1, [2], k=2)
    out[:, : d.shape[1]] = d
    return out


def _merge_two(*blocks: np.ndarray) -> np.ndarray:
    return np.sort(np.hstack(blocks), axis=1)[:, :2]


def distance_to_closest_record(
    conf: Any,
    synthetic: Any,
    *,
    metric: str = "gower",
    columns: Sequence[str] | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    warn_copies: bool = True,
) -> DistanceToClosestRecord:
    """Distance to closest record and NNDR (:func:`synthguard.risk.distance_to_closest_record`)
    of Dask data, by partitioned exact nearest-neighbour search.

    The encoding's scales come from the whole confidential data (each column's min, median
    and max, and its kind, from exact value counts), so every partition is encoded exactly as
    the pandas path encodes it. For every pair (confidential partition, released partition)
    the existing exact search (``synthguard.risk._neighbours``) finds each released record's
    two nearest confidential records of that partition; the two smallest over all
    confidential partitions are the global two nearest: exact. Distances equal the pandas
    ones up to floating-point rounding of the blocked decomposition (about 1e-15).
    ``metric`` is ``'gower'`` or ``'hamming'`` (the euclidean standardization's mean and
    standard deviation are not reproduced bit for bit); no holdout comparison here.
    """
    if not _any_dask(conf, synthetic):
        return _distance.distance_to_closest_record(
            conf,
            synthetic,
            metric=metric,
            columns=columns,
            schema=schema,
            warn_copies=warn_copies,
        )
    check_metric(metric)
    if metric == "euclidean":
        raise ParameterError(
            "parameter 'metric': on Dask use 'gower' or 'hamming' (exact scales); the "
            "euclidean standardization is available on pandas data"
        )
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    cols = common_columns(conf._meta, [f._meta for f in imps], columns)
    scale, overrides = _scale_frame(conf, cols, metric, schema)
    refs = conf[cols].to_delayed()
    per_query = []
    impl_ids = []
    for li, frame in enumerate(imps):
        for q in frame[cols].to_delayed():
            blocks = [dask.delayed(_nearest_two)(scale, r, q, metric, overrides) for r in refs]
            per_query.append(dask.delayed(_merge_two)(*blocks))
            impl_ids.append(li)
    results = dask.compute(*per_query)
    d = np.vstack(results) if results else np.empty((0, 2))
    impl = (
        np.concatenate([np.full(r.shape[0], li) for r, li in zip(results, impl_ids, strict=True)])
        if results
        else np.empty(0, dtype=np.int64)
    )
    d1 = d[:, 0]
    d2 = np.where(np.isinf(d[:, 1]), d1, d[:, 1])  # one confidential record: d2 = d1
    with np.errstate(invalid="ignore", divide="ignore"):
        nndr = np.where(d2 > 0, d1 / np.where(d2 > 0, d2, 1.0), 1.0)
    exact = float(np.mean(d1 <= _distance._EXACT)) if d1.size else 0.0
    if warn_copies and exact > 0:
        warnings.warn(
            f"distance_to_closest_record: {exact:.2%} of released records are exact copies of "
            f"confidential records on the compared columns",
            DisclosureWarning,
            stacklevel=2,
        )
    return DistanceToClosestRecord(
        dcr=d1,
        nndr=nndr,
        implicate=impl,
        exact_copy_share=exact,
        median_dcr=float(np.median(d1)) if d1.size else float("nan"),
        mean_dcr=float(np.mean(d1)) if d1.size else float("nan"),
        metric=metric,
        columns=tuple(cols),
    )
