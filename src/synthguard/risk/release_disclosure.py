"""synthpop's recommended disclosure measures of a release, as the evaluation reports them.

Raab, Nowok & Dibben recommend two numbers: repU for identity disclosure and DiSCO for
attribute disclosure, each a share of the confidential records (see
:func:`synthguard.risk.disclosure`). :func:`release_disclosure` computes them for the
evaluation's keys and targets, plus the replicated uniques on every released column (the
records synthpop's ``sdc(rm.replicated.uniques = TRUE)`` and synthguard's default safeguard
remove), so that default thresholds can require a release to hand out no real unique record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.data._backend import any_dask, dask_backend
from synthguard.risk._disclosure_tables import code_column, combine_codes
from synthguard.risk.disclosure import MultiDisclosure, multi_disclosure

__all__ = ["ReleaseDisclosure", "release_disclosure", "replicated_uniques"]


@dataclass(frozen=True, eq=False)
class ReleaseDisclosure(Summarized):
    """repU and DiSCO of a release for the evaluation's keys and targets.

    Attributes
    ----------
    replicated_uniques : share of the confidential records that are unique on all the columns
        the release shares with them and appear exactly once in an implicate (synthpop's repU
        with every released column as a key; mean over implicates). 0 for a release made with
        synthguard's default safeguards.
    repu, uio : repU and UiO with the evaluation's keys (mean over implicates).
    disco, dorig : the largest DiSCO over the targets and the Dorig of that target.
    disco_target : the target with the largest DiSCO.
    multi : the full :class:`MultiDisclosure` (one row per target in ``to_frame()``).
    """

    replicated_uniques: float
    repu: float
    uio: float
    disco: float
    dorig: float
    disco_target: str
    multi: MultiDisclosure

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    def to_frame(self) -> pd.DataFrame:
        return self.multi.to_frame()

    def summary(self) -> str:
        return (
            f"replicated uniques on all released columns {self.replicated_uniques:.2%}\n"
            + self.multi.summary()
        )


def replicated_uniques(
    conf: pd.DataFrame, synthetic: Any, columns: Sequence[str] | None = None
) -> np.ndarray:
    """Share of confidential records unique on ``columns`` and replicated exactly once, per
    implicate (synthpop's repU with every column as a key; missing is a value)."""
    imps = as_implicates(synthetic)
    cols = list(columns) if columns is not None else [
        c for c in conf.columns if all(c in f.columns for f in imps)
    ]
    coded = [code_column([conf[c]] + [f[c] for f in imps], ngroups=0, cont_na=(), name=c)
             for c in cols]  # fmt: skip
    q = combine_codes([c.codes for c in coded])
    n = len(conf)
    conf_q = q[:n]
    u, cnt = np.unique(conf_q, return_counts=True)
    uniq = u[cnt == 1]
    out = []
    start = n
    for f in imps:
        sq = q[start : start + len(f)]
        start += len(f)
        su, scnt = np.unique(sq, return_counts=True)
        once = su[scnt == 1]
        out.append(np.intersect1d(uniq, once, assume_unique=True).size / n)
    return np.asarray(out)


@dask_backend
def release_disclosure(
    conf: pd.DataFrame,
    synthetic: Any,
    keys: Sequence[str],
    targets: Sequence[str],
) -> ReleaseDisclosure:
    """repU and DiSCO of ``synthetic`` for ``keys`` and each of ``targets`` (synthpop's
    defaults: numeric columns ungrouped, missing values used), and the replicated uniques on
    all released columns. See :func:`synthguard.risk.disclosure` for the definitions."""
    if any_dask(conf, synthetic):  # from cell counts made on the workers, exactly
        from synthguard.risk._on_dask.disclosure import release_parts

        multi, replicated = release_parts(conf, synthetic, keys, targets)
    else:
        imps = as_implicates(synthetic)
        multi = multi_disclosure(conf, imps, keys=list(keys), targets=list(targets))
        replicated = float(np.mean(replicated_uniques(conf, imps)))
    return release_result(multi, replicated)


def release_result(multi: MultiDisclosure, replicated: float) -> ReleaseDisclosure:
    """The result of :func:`release_disclosure` (either backend): the worst target's DiSCO
    and DiO beside repU, UiO and the mean share of replicated uniques."""
    worst = multi.results[multi.max_disco_target]
    return ReleaseDisclosure(
        replicated_uniques=replicated,
        repu=multi.repu,
        uio=multi.uio,
        disco=worst.disco,
        dorig=worst.dorig,
        disco_target=multi.max_disco_target,
        multi=multi,
    )
