"""The distance measures of a large release on samples (``evaluate_risk(max_records=...)``).

:func:`synthguard.risk.evaluate_risk` computes every measure on every record. The
identification risk, match rates, attribute disclosure and k-anonymity are O(n log n)
and stay exact; the distance to closest record and the membership attack search
nearest neighbours among mixed columns, which on 100k records × 5 implicates takes many
minutes. When the stacked release holds more than ``max_records`` records (or the data
more), :func:`sampled_distance_and_membership` computes those two on random samples:

* DCR: a uniform sample of ``max_records`` released records (from the stacked implicates),
  each against *all* confidential and holdout records, so its exact-copy share, median DCR
  and holdout comparison are unbiased estimates of the full-release values (a share
  estimated from s records has standard error at most 0.5/√s, 0.005 at s = 10,000);
* membership: up to ``max_records`` training records and as many holdout records as
  queries, against *every* record of the first implicate as the attack's reference set.
  The reference set is not subsampled: a distance-threshold attack against a sample of the
  release is far weaker than against the release (on 100k records with 5 implicates, the
  AUC fell from 1.0 against one whole implicate to 0.55 against 10,000 sampled records),
  which would understate the risk. Sampling the queries only adds sampling error to the
  AUC; one implicate is what an intruder holding one released file has.

The notes say what was sampled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema
from synthguard.errors import ParameterError
from synthguard.risk.distance import DistanceToClosestRecord, distance_to_closest_record
from synthguard.risk.membership import MembershipInference, membership_inference

__all__ = ["check_max_records", "needs_sampling", "sampled_distance_and_membership"]


def check_max_records(max_records: Any) -> int | None:
    """``max_records`` as an int >= 1 or None; :class:`ParameterError` otherwise."""
    if max_records is None:
        return None
    if isinstance(max_records, bool) or not isinstance(max_records, int | np.integer) \
            or max_records < 1:
        raise ParameterError(
            "parameter 'max_records': expected None (every record) or a positive integer"
        )
    return int(max_records)


def needs_sampling(conf: pd.DataFrame, frames: Sequence[pd.DataFrame],
                   max_records: int | None) -> bool:
    """Whether the stacked release or the data hold more than ``max_records`` records."""
    if max_records is None:
        return False
    return sum(len(f) for f in frames) > max_records or len(conf) > max_records


def _sample(df: pd.DataFrame, k: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(df) <= k:
        return df
    idx = np.sort(rng.choice(len(df), size=k, replace=False))
    return df.iloc[idx].reset_index(drop=True)


def sampled_distance_and_membership(
    conf: pd.DataFrame,
    frames: Sequence[pd.DataFrame],
    holdout: pd.DataFrame | None,
    max_records: int,
    *,
    metric: str,
    schema: Schema | Mapping[str, Any] | None,
    rng: np.random.Generator,
    notes: list[str],
) -> tuple[DistanceToClosestRecord, MembershipInference | None]:
    """DCR on a sample of the stacked release and membership on sampled queries (see the
    module docstring); appends what was sampled to ``notes``."""
    n_syn = sum(len(f) for f in frames)
    stacked = pd.concat(list(frames), ignore_index=True)
    syn_sample = _sample(stacked, max_records, rng)
    distance = distance_to_closest_record(conf, [syn_sample], holdout, metric=metric,
                                          schema=schema)
    notes.append(
        f"distance to closest record on a random sample of {len(syn_sample):,} of the "
        f"{n_syn:,} released records (against every confidential record)"
    )
    membership = None
    if holdout is not None:
        members = _sample(conf, max_records, rng)
        nonmembers = _sample(holdout, max_records, rng)
        membership = membership_inference(members, list(frames[:1]), holdout=nonmembers, metric=metric,
                                          schema=schema, random_state=rng)
        notes.append(
            f"membership inference on {len(members):,} training and {len(nonmembers):,} "
            f"holdout records against every record of the first implicate"
        )
    else:
        notes.append("membership inference skipped: pass a holdout")
    return distance, membership
