"""The at-risk-of-poverty rate of EU-SILC (Eurostat), from a person file with households:
OECD-modified equivalised household income below 60 % of its weighted median, and its
comparison between the data and a release."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._params import column_list
from synthguard.errors import DataError, ParameterError
from synthguard.utility._households import households, require, weighted_median
from synthguard.utility._inputs import numeric_values
from synthguard.utility._metric import MetricInfo

__all__ = ["PovertyComparison", "PovertyRate", "at_risk_of_poverty", "compare_poverty",
           "equivalised_income"]

#: Share of the median equivalised income that sets the poverty threshold (Eurostat).
THRESHOLD_SHARE = 0.6
#: Age from which a person counts as an adult (weight 0.5 after the first) on the OECD scale.
ADULT_AGE = 14


@dataclass(frozen=True)
class PovertyRate(Summarized):
    """At-risk-of-poverty rate of one file.

    Attributes
    ----------
    rate : weighted share of persons whose equivalised income is below ``threshold``.
    threshold : 60 % of ``median``.
    median : weighted median of the persons' equivalised incomes.
    equivalised_income : per person, the household's income over its OECD-modified scale.
    """

    rate: float
    threshold: float
    median: float
    equivalised_income: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"equivalised_income": self.equivalised_income})

    def summary(self) -> str:
        return (f"At-risk-of-poverty rate {100 * self.rate:.2f}% (threshold "
                f"{self.threshold:,.2f} = 60% of the median {self.median:,.2f})")


@dataclass(frozen=True)
class PovertyComparison(Summarized):
    """The at-risk-of-poverty rate of the data and of a release.

    Attributes
    ----------
    rate_data, rate_release : the two rates (shares, 0-1).
    diff : |rate_release - rate_data| (share; 0.015 is 1.5 percentage points).
    median_data, median_release : the weighted medians of equivalised income.
    """

    rate_data: float
    rate_release: float
    diff: float
    median_data: float
    median_release: float

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "diff": MetricInfo("diff", "minimize", 0.0, 1.0,
                           description="absolute difference of the at-risk-of-poverty rates"),
    }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"data": [self.rate_data, self.median_data],
                             "release": [self.rate_release, self.median_release]},
                            index=pd.Index(["at-risk-of-poverty rate",
                                            "median equivalised income"], name="measure"))

    def summary(self) -> str:
        return (f"At-risk-of-poverty rate {100 * self.rate_data:.2f}% (data), "
                f"{100 * self.rate_release:.2f}% (release): "
                f"{100 * self.diff:.2f} percentage points apart")


def equivalised_income(
    data: pd.DataFrame, household: str, income: str | Sequence[str], age: str,
    *, name: str = "data",
) -> np.ndarray:
    """Per person, the equivalised disposable income of the household:

        Y_h / (1 + 0.5 (a_h - 1) + 0.3 c_h)

    with Y_h the sum over members and over the ``income`` columns (missing values count 0),
    a_h the members aged 14 or over and c_h those under 14: the OECD-modified scale, 1 for the
    first adult, 0.5 for each other person aged 14 or over, 0.3 for each child under 14
    (Eurostat, Statistics Explained glossary "Equivalised disposable income"; Haagenars, de
    Vos & Zaidi 1994). A household without a member aged 14 or over gives its first member
    the weight 1 and 0.3 to each other child.
    """
    cols = column_list(income, "income")
    if not cols:
        raise ParameterError("parameter 'income': name the person income column(s)")
    require(data, [*cols, age], name)
    h = households(data, household, name=name)
    y = np.zeros(len(data))
    for c in cols:
        y += np.nan_to_num(numeric_values(data[c], c), nan=0.0)
    a = numeric_values(data[age], age)
    if np.isnan(a).any():
        raise DataError(f"{name}: column '{age}' has missing ages; the OECD scale needs every "
                        f"member's age")
    adult = a >= ADULT_AGE
    n_adult = np.bincount(h.codes, weights=adult.astype(float), minlength=h.n_households)
    n_child = h.size - n_adult
    scale = np.where(n_adult >= 1, 1.0 + 0.5 * (n_adult - 1) + 0.3 * n_child,
                     1.0 + 0.3 * (n_child - 1))
    total = np.bincount(h.codes, weights=y, minlength=h.n_households)
    return np.asarray((total / scale)[h.codes])


def at_risk_of_poverty(
    data: pd.DataFrame,
    household: str,
    income: str | Sequence[str],
    age: str,
    *,
    weights: str | None = None,
    name: str = "data",
) -> PovertyRate:
    """The at-risk-of-poverty rate: the weighted share of persons whose equivalised
    disposable income (:func:`equivalised_income`) is below 60 % of the weighted median of
    the persons' equivalised incomes (Eurostat, Statistics Explained glossary
    "At-risk-of-poverty rate"; the estimator of laeken's ``arpr``, Alfons & Templ 2013):

        ARPR = sum_i w_i 1[x_i < 0.6 med_w(x)] / sum_i w_i

    with w_i the person's design weight (EU-SILC's ``RB050``; 1 without ``weights``) and
    med_w laeken's weighted median. ``name`` names the file in error messages.
    """
    x = equivalised_income(data, household, income, age, name=name)
    if x.size == 0:
        raise DataError(f"{name}: no records; the poverty rate needs persons")
    h = households(data, household, name=name, weights=weights)
    w = h.person_weight
    med = weighted_median(x, w)
    thr = THRESHOLD_SHARE * med
    rate = float(w[x < thr].sum() / w.sum())
    return PovertyRate(rate=rate, threshold=thr, median=med, equivalised_income=x)


def compare_poverty(
    conf: pd.DataFrame,
    release: pd.DataFrame,
    household: str,
    income: str | Sequence[str],
    age: str,
    *,
    weights: str | None = None,
) -> PovertyComparison:
    """The at-risk-of-poverty rate (:func:`at_risk_of_poverty`) of the data and of the
    release (each with its own median and threshold, as each would be published; a release
    without the weight column is unweighted) and their absolute difference."""
    d = at_risk_of_poverty(conf, household, income, age, weights=weights)
    r = at_risk_of_poverty(release, household, income, age,
                           weights=weights if weights in release.columns else None,
                           name="release")
    return PovertyComparison(rate_data=d.rate, rate_release=r.rate,
                             diff=abs(r.rate - d.rate), median_data=d.median,
                             median_release=r.median)
