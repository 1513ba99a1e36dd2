"""Disclosure-risk bundle of a large release, with the distance measures on samples.

:func:`synthguard.risk.evaluate_risk` computes every measure on every record. The
identification risk, match rates, attribute disclosure and k-anonymity are O(n log n)
and stay exact here; the distance to closest record and the membership attack search
nearest neighbours among mixed columns, which on 100k records × 5 implicates takes many
minutes. When the stacked release holds more than ``max_records`` records (or the data
more), :func:`risk_bundle` computes those two on random samples:

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

The result is a :class:`synthguard.risk.RiskEvaluation` whose ``notes`` say what was sampled.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema
from synthguard.errors import DisclosureWarning

__all__ = ["risk_bundle"]


def _sample(df: pd.DataFrame, k: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(df) <= k:
        return df
    idx = np.sort(rng.choice(len(df), size=k, replace=False))
    return df.iloc[idx].reset_index(drop=True)


def risk_bundle(
    conf: pd.DataFrame,
    implicates: list[pd.DataFrame],
    keys: Sequence[str],
    targets: Sequence[str],
    *,
    holdout: pd.DataFrame | None,
    radius: float,
    schema: Schema,
    rng: np.random.Generator,
    max_records: int | None,
    aligned: bool | None = None,
) -> Any:
    """``evaluate_risk`` of the release, with DCR and membership on samples when it is large.

    ``aligned`` says whether the release's rows stand for the confidential records (default:
    when every implicate has as many rows as ``conf``)."""
    from synthguard import risk as R

    n_syn = sum(len(df) for df in implicates)
    if max_records is None or (n_syn <= max_records and len(conf) <= max_records):
        return R.evaluate_risk(conf, implicates, list(keys), list(targets), holdout=holdout,
                               radius=radius, schema=schema, random_state=rng)
    keys_l, targets_l = list(keys), list(targets)
    numeric_targets = [t for t in targets_l if t in schema and schema[t].is_numeric]
    if aligned is None:
        aligned = all(len(df) == len(conf) for df in implicates)
    notes: list[str] = []
    ident = conf_ident = match = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DisclosureWarning)
        if aligned and numeric_targets:
            kw: dict[str, Any] = dict(keys=keys_l, target=numeric_targets, radius=radius,
                                      singletons="zero")
            ident = R.identification_risk(conf, implicates, **kw)
            conf_ident = R.identification_risk(conf, **kw)
        if aligned:
            match = R.match_rates(conf, implicates, keys=keys_l, targets=targets_l,
                                  radius=radius, schema=schema)
        else:
            notes.append("identification risk and match rates skipped: the release's rows do "
                         "not align with the confidential records (fully synthetic data)")
        attribute = R.attribute_disclosure(conf, implicates, keys_l, targets_l, holdout,
                                           schema=schema)
        stacked = pd.concat(implicates, ignore_index=True)
        syn_sample = _sample(stacked, max_records, rng)
        distance = R.distance_to_closest_record(conf, [syn_sample], holdout, schema=schema)
        notes.append(
            f"distance to closest record on a random sample of {len(syn_sample):,} of the "
            f"{n_syn:,} released records (against every confidential record)"
        )
        membership = None
        if holdout is not None:
            members = _sample(conf, max_records, rng)
            nonmembers = _sample(holdout, max_records, rng)
            membership = R.membership_inference(members, nonmembers, implicates[:1],
                                                schema=schema, random_state=rng)
            notes.append(
                f"membership inference on {len(members):,} training and {len(nonmembers):,} "
                f"holdout records against every record of the first implicate"
            )
        kanon = R.k_anonymity(conf, keys_l, k=3) if keys_l else None
        from synthguard.risk.release_disclosure import release_disclosure

        disc = release_disclosure(conf, implicates, keys_l, targets_l) if keys_l else None
    notes.extend(str(w.message) for w in caught if issubclass(w.category, DisclosureWarning))
    for w in caught:
        if not issubclass(w.category, DisclosureWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return R.RiskEvaluation(
        identification=ident, confidential_identification=conf_ident, match=match,
        attribute=attribute, distance=distance, membership=membership, k_anonymity=kanon,
        notes=tuple(notes), disclosure=disc,
    )
