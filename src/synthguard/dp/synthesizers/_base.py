"""What every DP synthesizer shares: the public domain, the ledger, sampling implicates."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._compat import reordered
from synthguard._params import Interval, ParamsRepr, constraints_of, validate_params
from synthguard._random import RandomState, resolve_seed
from synthguard.data._backend import is_dask_collection
from synthguard.data.schema import Schema
from synthguard.dp import _noise
from synthguard.dp.accountant import PrivacyLedger
from synthguard.dp.synthesizers._domain import Domain, build_domain
from synthguard.dp.synthesizers.error import (
    NoisyMarginal,
    as_records,
    fit_error,
    planned_error,
)
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.errors import NotFittedError, ParameterError

__all__ = ["DPSynthesizer"]

NOT_DP_LABEL = "NOT DP (domain read from the data): "


class _NotDP:
    """Charges the wrapped ledger with every label marked NOT DP (domain_from_data='not-dp')."""

    def __init__(self, ledger: Any) -> None:
        self._ledger = ledger

    def charge(self, label: str, epsilon: float, delta: float = 0.0) -> Any:
        return self._ledger.charge(NOT_DP_LABEL + str(label), epsilon, delta)

    def charge_rho(self, label: str, rho: float) -> Any:
        return self._ledger.charge_rho(NOT_DP_LABEL + str(label), rho)


def _delta_below_one(value: Any) -> bool:
    """a number with 0 < delta < 1 (e.g. 1e-6, well below 1/n)"""
    return Interval(float, 0.0, 1.0, closed="neither").accepts(value)


class DPSynthesizer(ParamsRepr, ABC):
    """Base class: ``fit`` measures the data with noise (charging the ledger), ``sample`` draws.

    Parameters common to every DP synthesizer
    -----------------------------------------
    epsilon, delta : the privacy-loss budget of the fit.
    columns : columns to synthesize (default: all).
    categories : public levels per column, ``{"sex": ["male", "female"], ...}``.
    bins : public bin edges per numeric column, ``{"age": [18, 26, 35, ...]}``.
        Every synthesized column needs one of the two: a pandas Categorical dtype or a schema
        is read from the data and is not a declaration.
    domain_from_data : ``"not-dp"`` reads undeclared levels (Categorical categories, the
        schema's levels and bounds, or the distinct values) from the data; the release is then
        NOT differentially private and the ledger lines and the result say so.
    missing : binned numeric columns whose missing values are one more public cell after
        their last bin (in the domain whether or not a value is missing; released as missing
        values). Other columns with missing values are refused.
    schema : a :class:`~synthguard.data.Schema`, used only with ``domain_from_data="not-dp"``.
    n_bins : number of equal-width bins for numeric columns with schema bounds (not-dp only).
    ledger : a :class:`PrivacyLedger` (or a parallel group) to charge; default: a fresh
        in-memory ledger holding exactly (epsilon, delta), available as ``ledger_`` after fit
        and carried by the result (``release.ledger``, which :meth:`DPSyntheticData.save_ledger`
        writes to a file).
    random_state : None draws the privacy noise with OpenDP (for releases); a seed uses numpy
        (simulation only, PrivacyWarning). Sampling rows from the fitted noisy model is
        post-processing and may always be seeded through :meth:`sample`.
    privacy_unit, max_rows : the unit the budget protects: ``None``/``"row"`` (one row per
        person), or an id column (a household) with at most ``max_rows`` rows kept per unit
        (a seeded random truncation by the fit; the id column is not synthesized). The
        algorithm then runs at the row-level budget whose unit-level cost, by group privacy,
        is (epsilon, delta), and every ledger line is that unit-level cost, naming the unit
        (:mod:`synthguard.dp.synthesizers._unit`).
    """

    method = "dp"
    _needs_delta = False
    #: rows drawn per partition by :meth:`sample` after a Dask fit
    partition_rows: int = 1_000_000
    #: the fitted fields a worker needs to draw records after a Dask fit
    _draw_fields: ClassVar[tuple[str, ...]] = ()
    # checked before any charge (synthguard._params); subclasses add their own parameters
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "epsilon": [Interval(float, 0.0, None, closed="neither")],
        "delta": [Interval(float, 0.0, 1.0, closed="left")],
        "n_bins": [Interval(int, 1, None)],
    }

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float = 0.0,
        columns: list[str] | None = None,
        categories: Mapping[str, Any] | None = None,
        bins: Mapping[str, Any] | None = None,
        schema: Schema | None = None,
        n_bins: int = 10,
        domain_from_data: str | None = None,
        ledger: Any = None,
        random_state: RandomState = None,
        missing: list[str] | None = None,
        privacy_unit: str | None = None,
        max_rows: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.columns = columns
        self.categories = categories
        self.bins = bins
        self.schema = schema
        self.n_bins = n_bins
        self.domain_from_data = domain_from_data
        self.ledger = ledger
        self.random_state = random_state
        self.missing = missing
        self.privacy_unit = privacy_unit
        self.max_rows = max_rows

    # -------------------------------------------------------------- fitting
    def _check_budget(self) -> tuple[float, float]:
        """Validate every declared parameter (``_parameter_constraints``); the budget."""
        constraints = constraints_of(type(self))
        if self._needs_delta:
            constraints["delta"] = [_delta_below_one]
        validate_params(self, constraints)
        return float(self.epsilon), float(self.delta)

    def fit(self, data: pd.DataFrame) -> DPSynthesizer:
        """Measure ``data`` with DP noise (charging the ledger first) and keep only noisy results.

        ``data`` may be a Dask DataFrame for a synthesizer with a Dask path (MST, AIM,
        stratified): the marginals it reads are counted exactly on the workers (per
        partition, summed in integers), then the fit runs on the client from those counts,
        the noise drawn once and the ledger charged once, so with the same seed the noisy
        measurements equal the pandas ones. The domain must be declared
        (``categories=``/``bins=``): levels read from the data would differ between partitions.
        """
        if is_dask_collection(data):
            return self._fit_dask(data)
        self.fitted_on_dask_ = False
        eps, delta = self._check_budget()
        self._validate_params()
        unit = None
        if self.privacy_unit is not None and self.privacy_unit != "row":
            data, unit = self._bound_units(data)
        domain, codes = build_domain(
            data, columns=self.columns, categories=self.categories, bins=self.bins,
            schema=self.schema, n_bins=self.n_bins, domain_from_data=self.domain_from_data,
            owner=type(self).__name__, missing=self.missing,
        )
        rng = _noise.resolve_noise(self.random_state, stacklevel=3)
        ledger = self.ledger if self.ledger is not None else PrivacyLedger(
            epsilon=eps, delta=delta
        )
        self.ledger_ = ledger
        self.noise_ = _noise.noise_source(self.random_state)
        charger: Any = ledger if domain.dp else _NotDP(ledger)
        if unit is not None:
            from synthguard.dp.synthesizers._unit import UnitCharger, row_budget

            charger = UnitCharger(charger, unit.column, unit.max_rows)
            eps = row_budget(eps, delta, unit.max_rows, zcdp=self._needs_delta,
                             conversion=getattr(self, "conversion", "tight"))
        self._fit(codes, domain, eps, delta, charger, rng)
        # error of the release from public quantities and noisy measurements only (module error)
        n_hat = float(self._default_n())
        plan = self._noise_plan(dict(zip(domain.columns, domain.sizes)), eps, delta)
        self.expected_error_ = planned_error(plan, total=n_hat) if plan else None
        self.expected_basis_ = self._expected_basis(
            dict(zip(domain.columns, domain.sizes)), eps, delta) if plan else None
        fitted = self._noisy_marginals()
        self.fit_error_ = fit_error(fitted[0], fitted[1], n_hat) if fitted else None
        self.domain_: Domain = domain  # set last: a refused charge leaves the object unfitted
        return self

    def _bound_units(self, data: pd.DataFrame) -> tuple[pd.DataFrame, Any]:
        """The data with each unit cut to ``max_rows`` rows at random, without the id column."""
        from synthguard._random import check_random_state
        from synthguard.dp.session.bounding import _ID, bound
        from synthguard.dp.session.unit import PrivacyUnit
        from synthguard.errors import DataError

        unit = PrivacyUnit.make(self.privacy_unit, self.max_rows, None, None)
        if unit.column not in data.columns or data[unit.column].isna().any():
            raise DataError(f"privacy unit '{unit.column}': expected an id column without "
                            "missing values")
        rs = self.random_state
        # a seed gives the truncation its own stream (not the noise's)
        rng = (np.random.default_rng([int(rs), 34]) if isinstance(rs, int | np.integer)
               and not isinstance(rs, bool) else check_random_state(rs))
        bounded = bound(data, unit, [], rng)
        return bounded.drop(columns=[unit.column, _ID]), unit

    # -------------------------------------------------------------- error
    def expected_error(self, n: float | None = None) -> pd.DataFrame:
        """Expected error of the noisy measurements, known **before** any budget is spent.

        From the budget, the declared public domain (``categories``/``bins``) and the
        mechanism's noise allocation only: per marginal order, the mean absolute noise per
        cell, the cells and the expected L1 error in records (and the total-variation error on
        ``n`` records when given). See :mod:`synthguard.dp.synthesizers.error`. After ``fit``,
        ``expected_error_`` holds the same table at the noisy record count and ``fit_error_``
        the fitted model's error against its own noisy measurements.
        """
        eps, delta = self._check_budget()
        self._validate_params()
        cols = list(self.columns) if self.columns is not None else [
            *dict.fromkeys([*(self.categories or {}), *(self.bins or {})])]
        sizes: dict[str, int] = {}
        bins, categories = self.bins or {}, self.categories or {}
        missing = [self.missing] if isinstance(self.missing, str) else list(self.missing or ())
        for c in cols:
            if c in bins:
                sizes[c] = (int(np.unique(np.asarray(bins[c], dtype=np.float64)).size) - 1
                            + (c in missing))
            elif c in categories:
                sizes[c] = len(categories[c])
            else:
                raise ParameterError(
                    f"{type(self).__name__}.expected_error: column '{c}' has no public levels "
                    "or bins; the expected error is computed from the declared domain only")
        plan = self._noise_plan(sizes, eps, delta)
        if not plan:
            raise ParameterError(f"{type(self).__name__}: no expected error for this method")
        table = planned_error(plan, total=n)
        basis = self._expected_basis(sizes, eps, delta)
        if basis:  # what the figure assumes (AIM: its planned rounds), for a report
            table.attrs["basis"] = basis
        return table

    def _noise_plan(self, sizes: dict[str, int], epsilon: float, delta: float
                    ) -> list[tuple[int, float, float]]:
        """``(order, mean absolute noise per cell, cells)`` of each planned measurement."""
        return []

    def _expected_basis(self, sizes: dict[str, int], epsilon: float, delta: float
                        ) -> str | None:
        """One public line saying what the expected error assumes, when it is not simply the
        noise of the measurements the method always makes (AIM: its planned rounds)."""
        return None

    def _noisy_marginals(self) -> tuple[Any, list[NoisyMarginal]] | None:
        """After fit: (model marginal function, noisy measurements), or None."""
        return None

    def _validate_params(self) -> None:
        """Checks the constraints cannot state (relations between parameters), before any
        charge; single parameters are declared in ``_parameter_constraints``."""

    @abstractmethod
    def _fit(self, codes: dict[str, np.ndarray], domain: Domain, epsilon: float, delta: float,
             ledger: Any, rng: np.random.Generator | None) -> None:
        """Measure the data with noise, charging ``ledger`` before any noise is drawn."""

    # -------------------------------------------------------------- sampling
    @abstractmethod
    def _default_n(self) -> int:
        """Number of rows a sample has by default."""

    @abstractmethod
    def _sample_codes(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Draw ``n`` records as level codes per column from the fitted noisy model."""

    def _fit_dask(self, data: Any) -> DPSynthesizer:
        """Fit on a Dask frame (:mod:`synthguard.dp.synthesizers._on_dask`); a synthesizer
        without a Dask path refuses it."""
        raise ParameterError(
            f"{type(self).__name__}: data: got a Dask DataFrame, but this synthesizer has no "
            f"Dask path (MSTSynthesizer, AIMSynthesizer and StratifiedSynthesizer have one); "
            f"call .compute() if the data fit in memory"
        )

    def _draws_on_workers(self) -> bool:
        """Whether :meth:`sample` draws lazy partitions on the workers (after a Dask fit)."""
        return bool(getattr(self, "fitted_on_dask_", False))

    def _dask_drawer(self) -> Any:
        """What a worker needs to draw records after a Dask fit (``_draw_fields``)."""
        from synthguard.dp.synthesizers._on_dask.common import _Drawer

        return _Drawer.of(self)

    @reordered(("self", "n", "m", "random_state"))
    def sample(self, *, m: int = 1, n: int | None = None,
               random_state: RandomState = None,
               partition_rows: int | None = None) -> DPSyntheticData:
        """Draw ``m`` synthetic data sets of ``n`` rows (default: the noisy record count).

        Post-processing of the noisy measurements: costs no privacy. Keyword-only, as
        :meth:`synthguard.Synthesizer.sample`: ``sample(m=..., n=..., random_state=...)``; the
        old positional order ``sample(n, m, random_state)`` warns one release.

        After a fit on Dask the implicates are *lazy* Dask DataFrames: each partition of at
        most ``partition_rows`` rows (default :attr:`partition_rows`, one million) is drawn on
        a worker from the fitted model (a few kilobytes sent with each task), so the client
        never holds the records. Implicate ``i`` draws from child ``i`` of
        ``SeedSequence(seed).spawn(m)`` as on pandas; with ``k > 1`` partitions, partition
        ``j`` draws from that child's ``spawn(k)[j]``. The same seed, ``n`` and
        ``partition_rows`` give the same release; with one partition it is the pandas release.
        """
        if not hasattr(self, "domain_"):
            raise NotFittedError(f"{type(self).__name__}: call fit(data) before sample()")
        if self._draws_on_workers():
            from synthguard.dp.synthesizers._on_dask.common import sample_on_workers

            return sample_on_workers(
                self, self._dask_drawer(), m=m, n=n, random_state=random_state,
                partition_rows=self.partition_rows if partition_rows is None
                else partition_rows)
        if int(m) < 1:
            raise ParameterError("parameter 'm': expected at least 1 implicate")
        n = self._default_n() if n is None else int(n)
        if n < 1:
            raise ParameterError("parameter 'n': expected at least 1 row")
        rng, seed = resolve_seed(random_state)
        implicates = []
        for child in rng.spawn(int(m)):
            implicates.append(self.domain_.decode(self._sample_codes(n, child), child))
        return DPSyntheticData(
            implicates=implicates,
            method=self.method,
            epsilon=float(self.epsilon),
            delta=float(self.delta),
            noise=self.noise_,
            seed=seed,
            provenance=self._provenance(),
            dp=self.domain_.dp,
            ledger=self.ledger_,
        )

    @reordered(("self", "data", "n", "m", "random_state"))
    def fit_sample(self, data: pd.DataFrame, *, m: int = 1, n: int | None = None,
                   random_state: RandomState = None) -> DPSyntheticData:
        """``fit(data)`` then ``sample(m=m, n=n, random_state=random_state)``."""
        return self.fit(data).sample(m=m, n=n, random_state=random_state)

    def _provenance(self) -> dict[str, Any]:
        expected = getattr(self, "expected_error_", None)
        fitted = getattr(self, "fit_error_", None)
        return {
            "method": self.method,
            "columns": list(self.domain_.columns),
            "domain_sizes": dict(zip(self.domain_.columns, self.domain_.sizes)),
            # the public edges the numeric columns were binned at (declared, so public; edges
            # read from the data under domain_from_data='not-dp' are not written): the true
            # error of the release is measured on them (report.workload_error)
            "bins": {c: [float(x) for x in e] for c, e in self.domain_.edges.items()
                     if c not in self.domain_.read_from_data},
            # binned columns with a missing cell after their last bin (public: declared)
            **({"missing": list(self.domain_.missing)} if self.domain_.missing else {}),
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            # the unit the budget protects (household-level releases say so)
            **({"privacy_unit": unit, "max_rows": getattr(self, "max_rows", None)}
               if (unit := getattr(self, "privacy_unit", None)) not in (None, "row") else {}),
            "noise": self.noise_,
            "dp": self.domain_.dp,
            **({"expected_error": as_records(expected)} if expected is not None else {}),
            **({"fit_error": as_records(fitted)} if fitted is not None else {}),
            **({"expected_error_basis": basis}
               if (basis := getattr(self, "expected_basis_", None)) else {}),
        }
