"""Membership inference by a distance-threshold attack (the course, section 3.16.2;
Mendelevitch & Lesh 2021)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import reordered
from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema, as_implicates
from synthguard.errors import DataError, ParameterError
from synthguard.risk._encoding import encode_frames
from synthguard.risk._neighbours import nearest

__all__ = ["MembershipInference", "membership_inference"]


@dataclass(frozen=True, eq=False)
class MembershipInference(Summarized):
    """Result of the distance-threshold membership attack.

    Attributes
    ----------
    auc : area under the ROC curve of the score ``-distance`` separating training records
        (members) from holdout records (non-members). 0.5: no better than guessing; 1: the
        release reveals membership perfectly.
    best_accuracy : the highest accuracy over the thresholds (0.5 is guessing, on the balanced
        attack set).
    table : per threshold: precision, recall, accuracy, share of records flagged as members.
    distance_train, distance_holdout : distance of each attacked record to its closest
        released record.
    n_members, n_nonmembers : sizes of the (balanced) attack set.
    seed : the seed used to balance the attack set (None when no sampling was needed).
    """

    auc: float
    best_accuracy: float
    table: pd.DataFrame
    distance_train: np.ndarray
    distance_holdout: np.ndarray
    n_members: int
    n_nonmembers: int
    metric: str
    seed: int | None = None
    columns: tuple[str, ...] = field(default_factory=tuple)

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> str:
        return "\n".join(
            [
                f"Membership inference (distance threshold, {self.metric}; "
                f"{self.n_members} members vs {self.n_nonmembers} non-members)",
                f"  AUC {self.auc:.4f} (0.5 = guessing); best accuracy {self.best_accuracy:.4f}",
            ]
        )

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(score_pos > score_neg) + P(tie) / 2 via average ranks (Mann-Whitney U)."""
    from scipy.stats import rankdata

    n1, n0 = pos.size, neg.size
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[:n1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


@reordered(("train", "holdout", "synthetic", "thresholds"), train="conf")
def membership_inference(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    holdout: pd.DataFrame,
    thresholds: Sequence[float] | None = None,
    metric: str = "gower",
    columns: Sequence[str] | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    balance: bool = True,
    random_state: RandomState = None,
) -> MembershipInference:
    """Distance-threshold membership inference attack with a holdout.

    The attacker holds records of which some were used to make the release (``conf``,
    members) and some were not (``holdout``, non-members) and claims "member" when a record's
    distance to its closest released record is at most a threshold t. For each t::

        precision = TP / (TP + FP), recall = TP / (TP + FN),
        accuracy  = (TP + TN) / (members + non-members)

    and the AUC is the probability that a member lies closer to the release than a non-member
    (ties count one half). With ``balance=True`` the larger group is subsampled to the size of
    the smaller, so an accuracy or AUC of 0.5 means the release gives no better than guessing.

    The arguments come in the order of every risk measure, ``(conf, synthetic, ...)``; the
    old order ``(train, holdout, synthetic)`` still works one release with a RenamedWarning.

    Distances and encodings as :func:`distance_to_closest_record` (scales from ``conf``;
    exact nearest neighbours per pattern, no n x m matrix); implicates are stacked.

    Parameters
    ----------
    conf : the confidential records used to make the release (the members).
    synthetic : the release.
    holdout : records of the same population not used (keyword-only).
    thresholds : distance thresholds (default: 0 and the 1, 5, 10, 25, 50, 75% quantiles of all
        attack distances).
    metric, columns, schema : as :func:`distance_to_closest_record`.
    balance : subsample the larger group to the smaller one's size.
    random_state : seed for that subsample.

    Returns
    -------
    MembershipInference
    """
    if len(conf) == 0 or len(holdout) == 0:
        raise DataError("membership_inference: conf and holdout must both hold records; pass "
                        "the members as conf and the non-members as holdout")
    frames = as_implicates(synthetic)
    rng, seed = resolve_seed(random_state)
    tr, ho = conf, holdout
    if balance and len(conf) != len(holdout):
        size = min(len(conf), len(holdout))
        if len(conf) > size:
            tr = conf.iloc[np.sort(rng.choice(len(conf), size, replace=False))]
        else:
            ho = holdout.iloc[np.sort(rng.choice(len(holdout), size, replace=False))]
    else:
        seed = None
    enc = encode_frames([tr, ho, *frames], metric=metric, columns=columns, schema=schema)
    # the implicates stacked form one reference set
    enc = replace(
        enc,
        num=[enc.num[0], enc.num[1], np.vstack(enc.num[2:])],
        cat=[enc.cat[0], enc.cat[1], np.vstack(enc.cat[2:])],
    )
    d_tr = nearest(enc, 2, [0], k=1)[:, 0]
    d_ho = nearest(enc, 2, [1], k=1)[:, 0]
    alld = np.concatenate([d_tr, d_ho])
    if thresholds is None:
        qs = np.quantile(alld, [0.01, 0.05, 0.1, 0.25, 0.5, 0.75])
        ts = np.unique(np.concatenate([[0.0], qs]))
    else:
        ts = np.asarray(list(thresholds), dtype=np.float64)
        if ts.ndim != 1 or not np.all(np.isfinite(ts)):
            raise ParameterError("parameter 'thresholds': expected finite numbers")
    rows = []
    n1, n0 = d_tr.size, d_ho.size
    for t in ts:
        tp = int(np.sum(d_tr <= t))
        fp = int(np.sum(d_ho <= t))
        tn = n0 - fp
        rows.append(
            {
                "threshold": float(t),
                "precision": tp / (tp + fp) if tp + fp else float("nan"),
                "recall": tp / n1,
                "accuracy": (tp + tn) / (n1 + n0),
                "flagged": (tp + fp) / (n1 + n0),
            }
        )
    table = pd.DataFrame(rows)
    return MembershipInference(
        auc=_auc(-d_tr, -d_ho),
        best_accuracy=float(table["accuracy"].max()),
        table=table,
        distance_train=d_tr,
        distance_holdout=d_ho,
        n_members=n1,
        n_nonmembers=n0,
        metric=metric,
        seed=seed,
        columns=enc.columns,
    )
