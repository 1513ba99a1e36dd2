"""synthpop's S_pMSE with the null from pairs of implicates (``utility.gen(...,
resamp.method = "pairs")``, synthpop 1.9-2 ``R/utility.syn.r``; Raab, Nowok & Dibben 2021).

With m implicates, each pair (j, j') of implicates is two releases of the same synthesis
model, so the pMSE of one against the other (the same propensity model, implicate j labelled
as the synthetic data) is a draw of the pMSE under the null that the model is right. With
pMSE_j the pMSE of implicate j against the confidential data and sim the m(m-1)/2 pair pMSEs:

```text
S_pMSE_j = pMSE_j / (mean(sim) / 2)
```

(the factor 2: two synthetic data sets vary about each other twice as much as one varies
about the data it was fitted to; synthpop halves its permutation null the same way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import ParameterError
from synthguard.utility.discriminant import Model, pmse

__all__ = ["PairsPMSE", "pmse_pairs"]


@dataclass(frozen=True, eq=False)
class PairsPMSE(Summarized):
    """pMSE and synthpop's pairs S_pMSE of a release with several implicates.

    Attributes
    ----------
    pmse, S_pMSE : means over implicates (synthpop prints them per implicate and their mean).
    implicates : one row per implicate (index 1..m): ``pMSE``, ``S_pMSE``.
    null_pmse : the pMSE of every pair (j, j') of implicates, j < j', in synthpop's order.
    model : the propensity model.
    """

    pmse: float
    S_pMSE: float
    model: str
    implicates: pd.DataFrame = field(repr=False)
    null_pmse: np.ndarray = field(repr=False)

    def summary(self) -> str:
        m = len(self.implicates)
        return (
            f"pMSE {self.pmse:.6g}, S_pMSE {self.S_pMSE:.4g} ({self.model} propensity; mean "
            f"over {m} implicates; null from the {m * (m - 1) // 2} pairs of implicates, "
            f'synthpop\'s resamp.method = "pairs"; about 1 when the synthesis model fits)'
        )


def pmse_pairs(
    conf: pd.DataFrame, synthetic: Any, model: Model = "logistic", **options: Any
) -> PairsPMSE:
    """pMSE of each implicate and synthpop's S_pMSE with the null from pairs of implicates.

    Parameters
    ----------
    conf : the confidential data.
    synthetic : a release with at least 2 implicates (SyntheticData or list of DataFrames;
        synthpop suggests m = 10).
    model : the propensity model of :func:`~synthguard.utility.pmse` (``"logistic"`` is
        synthpop's ``method = "logit"``).
    **options : passed to :func:`~synthguard.utility.pmse` for every fit (``columns``,
        ``maxorder``, ``schema``, ``model_params``, ``random_state``, ...); not ``null``.

    Returns
    -------
    PairsPMSE

    Raises
    ------
    ParameterError : fewer than 2 implicates, or ``null`` given.
    """
    if "null" in options or "n_permutations" in options:
        raise ParameterError(
            "parameters 'null'/'n_permutations': pmse_pairs makes its null from the pairs of "
            "implicates; drop them"
        )
    imps = as_implicates(synthetic)
    m = len(imps)
    if m < 2:
        raise ParameterError(
            "parameter 'synthetic': the pairs null needs a release with at least 2 implicates "
            "(synthpop suggests 10); use pmse() for one"
        )
    # pMSE alone is wanted; the in-sample logistic fit has the cheap analytic null, others
    # the fewest permutations pmse allows
    null = (
        {"null": "analytic"}
        if model == "logistic" and not options.get("validation")
        else {"null": "permutation", "n_permutations": 2}
    )
    own = [pmse(conf, f, model, **null, **options).pmse for f in imps]
    sim = np.array([
        pmse(imps[jj], imps[j], model, **null, **options).pmse
        for j in range(m) for jj in range(j + 1, m)
    ])  # fmt: skip
    s = np.asarray(own) * 2.0 / float(np.mean(sim))
    frame = pd.DataFrame(
        {"pMSE": own, "S_pMSE": s}, index=pd.RangeIndex(1, m + 1, name="implicate")
    )
    return PairsPMSE(
        pmse=float(np.mean(own)), S_pMSE=float(np.mean(s)), model=model, implicates=frame,
        null_pmse=sim,
    )  # fmt: skip
