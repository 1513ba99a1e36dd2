"""AIMSynthesizer: AIM of McKenna, Mullins, Sheldon & Miklau (2022) on Private-PGM (``mbi``).

"AIM: An Adaptive and Iterative Mechanism for Differentially Private Synthetic Data" (VLDB
2022, Algorithm 1). With ρ the zCDP budget, W a workload of marginals (default: every 2-way
marginal) and C its downward closure (every subset of a workload marginal), each candidate r
weighted by c_r = Σ_{s ∈ W} |r ∩ s|:

1. σ = √(T / (2 · 0.9 ρ)), ε = √(8 · 0.1 ρ / T) with T = ``rounds`` (default 16d); measure every
   1-way marginal with Gaussian noise N(0, σ²) (ρ spent: d / (2σ²)); fit a model p̂.
2. Each round: (a) under a round or time budget, re-plan: with R the rounds still possible
   (the time left divided by the measured time per round, :mod:`._round_plan`), lower σ and
   raise ε to spend ρ_left / R in this round if AIM's annealed σ would spend less (a fixed
   T = 16d under a time budget stopped after 16 rounds on Adult and left ~80 % of ρ to one
   final marginal); if R = 1 or less than 2 rounds' worth of ρ is left, this is the last
   round and spends all that is left: σ = √(1 / (2 · 0.9 ρ_left)), ε = √(8 · 0.1 ρ_left); (b) candidates are the r ∈ C whose addition keeps the model's
   junction tree under ``max_model_size`` · ρ_used / ρ megabytes (or already covered by it);
   (c) select r by the exponential mechanism (ε-DP, i.e. ε²/8-zCDP; Cesar & Rogers 2021) with
   quality c_r (‖M_r(D) − M_r(p̂)‖₁ − √(2/π) σ n_r) and sensitivity max_r c_r, n_r the number
   of cells of r; (d) measure M_r(D) + N(0, σ² I) (1/(2σ²)-zCDP); (e) re-estimate p̂ by
   Private-PGM (mirror descent with mbi's Armijo line search on the step, warm-started;
   McKenna, Sheldon & Miklau 2019; mbi's algorithm run in numpy, :mod:`._mirror_descent`, since
   JAX recompiled it every round); (f) anneal: if
   the fitted marginal moved by at most √(2/π) σ n_r in L1, halve σ and double ε.
3. Sample records from p̂ along its junction tree (post-processing).

Privacy: every step is charged in ρ and the steps add up to at most ρ (the last round spends
exactly what is left), so the fit is ρ-zCDP and, by the tight conversion of Canonne, Kamath &
Steinke (2020) (:func:`synthguard.dp.conversion.epsilon_to_rho`), (ε, δ)-DP. The whole ρ is
charged to the ledger as one zCDP line before any noise is drawn; :attr:`AIMSynthesizer.spent_`
lists the ρ of each step and :attr:`AIMSynthesizer.mechanisms_` each mechanism with its noise
scale (Gaussian σ; Gumbel scale 2Δ/ε of the noisy max on scores divided by Δ), so that the
accounting can be checked against OpenDP's privacy maps.

Why the selection loop is written here: OpenDP 0.16 ships an AIM (``opendp.extras.mbi.AIM``),
but only over Polars LazyFrames and with ``mbi==1.1.0`` pinned (synthguard uses mbi 2.0), and
measured on Adult (issue 23) it was slower and less accurate than private-pgm's AIM; Private-PGM's
research AIM draws from numpy's global state and breaks with current JAX. This module follows
Algorithm 1 of the paper and draws every noise sample from OpenDP when ``random_state=None``:
Gaussian measurements (``make_gaussian``) and the exponential mechanism as report-noisy-max with
Gumbel noise (``make_noisy_max`` under zCDP, whose privacy map is ε²/8 for scale 2Δ/ε). Records
are sampled here from the fitted model's junction tree with a seeded generator (mbi's sampler
uses numpy's global state), so dependent columns are never drawn independently.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any, ClassVar, cast

import numpy as np

from synthguard._params import Interval, Options
from synthguard.data._backend import is_dask_collection
from synthguard.dp import _noise
from synthguard.dp.conversion import CONVERSIONS, epsilon_to_rho
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers._domain import Domain
from synthguard.dp.synthesizers._junction import JunctionTree
from synthguard.dp.synthesizers._mirror_descent import mirror_descent
from synthguard.dp.synthesizers._round_plan import RoundPlanner, round_noise
from synthguard.dp.synthesizers.error import NoisyMarginal, gaussian_mean_abs
from synthguard.dp.synthesizers.mst import _mbi, _select_index
from synthguard.errors import ParameterError

__all__ = ["AIMSynthesizer", "aim_candidates"]

Clique = tuple[str, ...]


def aim_candidates(workload: list[Clique]) -> dict[Clique, float]:
    """AIM's candidates: the downward closure of the workload, r ↦ c_r = Σ_{s ∈ W} |r ∩ s|."""
    closure: set[Clique] = set()
    for s in workload:
        for k in range(1, len(s) + 1):
            closure.update(itertools.combinations(s, k))
    return {r: float(sum(len(set(r) & set(s)) for s in workload)) for r in sorted(closure)}


class AIMSynthesizer(DPSynthesizer):
    """AIM (McKenna, Mullins, Sheldon & Miklau 2022): adaptive noisy marginals + Private-PGM.

    Parameters
    ----------
    epsilon, delta : (ε, δ) budget of the fit; δ > 0 is required.
    workload : marginals the release must serve: an int k (every k-way marginal; default 2)
        or a list of column tuples, e.g. ``[("age", "income"), ("sex", "race", "income")]``.
    rounds : T of the paper, which sets the initial noise: σ = √(T / (1.8ρ)), so the d 1-way
        measurements spend 0.9ρ·d/T (default: d + ``max_rounds`` when a round budget is given,
        else 16d, the paper's choice; must exceed d).
    max_rounds, max_seconds : round budget, and wall-time budget of the whole fit (default
        600 s; None: unbounded). The clock starts before the 1-way measurements and the fit
        ends by ``max_seconds``: before each round the rounds still possible are estimated from
        the measured time per round (less ``final_iters / iters`` rounds' worth kept for the
        final refit) and the noise is re-planned so that what is left of ρ lasts exactly those
        rounds; the last one spends all that is left; and every Private-PGM refit stops at a
        deadline (a round's early enough to leave the final refit its share, the final one at
        ``max_seconds``), so a slow round on a loaded machine or a large last model cannot
        overrun (a cut refit costs accuracy, never privacy: it is post-processing). AIM's
        running time is otherwise unbounded (on Adult at ε = 3 over 40 minutes). When the
        budget binds, the release depends on the machine's speed and load and does not
        reproduce from its seed: ``time_bound_`` says whether it did (a fit that ends well
        within its budget reproduces); ``round_seconds_`` lists the measured durations and
        ``fit_seconds_`` the whole fit's.
    max_model_size : cap on the model's junction-tree size in megabytes (paper: 80).
    iters, final_iters : mirror-descent iterations per round (warm-started) and at the end.
    conversion : ``"tight"`` (Canonne, Kamath & Steinke 2020) or ``"simple"`` (ε, δ) → ρ.
    progress : optional callable ``progress(round, rho_used, rho)`` called after each round.
    Other parameters: see :class:`~synthguard.dp.synthesizers._base.DPSynthesizer`.
    """

    method = "aim"
    _needs_delta = True
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "workload": [Interval(int, 1, None), list, tuple],
        "rounds": [None, Interval(int, 1, None)],
        "max_rounds": [None, Interval(int, 1, None)],
        "max_seconds": [None, Interval(float, 0.0, None, closed="neither")],
        "max_model_size": [Interval(float, 0.0, None, closed="neither")],
        "iters": [Interval(int, 1, None)],
        "final_iters": [Interval(int, 1, None)],
        "conversion": [Options(CONVERSIONS)],
    }
    _clock = staticmethod(time.monotonic)  # the planner's clock (tests inject one)
    #: what a worker needs to draw records after a Dask fit: the junction tree and the domain
    _draw_fields: ClassVar[tuple[str, ...]] = ("_jtree", "domain_")

    def __init__(self, *, epsilon: float, delta: float = 1e-6,
                 workload: int | list[Clique] = 2, rounds: int | None = None,
                 max_rounds: int | None = None, max_seconds: float | None = 600.0,
                 max_model_size: float = 80.0, iters: int = 250, final_iters: int = 1500,
                 conversion: str = "tight", progress: Any = None, **kwargs: Any) -> None:
        super().__init__(epsilon=epsilon, delta=delta, **kwargs)
        self.workload = workload
        self.rounds = rounds
        self.max_rounds = max_rounds
        self.max_seconds = max_seconds
        self.max_model_size = max_model_size
        self.iters = iters
        self.final_iters = final_iters
        self.conversion = conversion
        self.progress = progress


    def _validate_params(self) -> None:
        # k above the columns: refused before any charge (one column: fit says it needs two)
        if isinstance(self.workload, int) and self.columns is not None \
                and len(self.columns) >= 2:
            self._workload(list(self.columns))

    def _workload(self, cols: list[str]) -> list[Clique]:
        if isinstance(self.workload, int):
            k = int(self.workload)
            if k > len(cols):  # refused, not cut: the release would not serve what was asked
                raise ParameterError(
                    f"parameter 'workload': every {k}-way marginal needs {k} columns, but "
                    f"{len(cols)} are synthesized; ask for at most {len(cols)}-way marginals "
                    f"or synthesize more columns")
            return list(itertools.combinations(cols, k))
        out = []
        for s in self.workload:
            s = (s,) if isinstance(s, str) else tuple(s)
            unknown = [c for c in s if c not in cols]
            if unknown or not s or len(set(s)) != len(s):
                raise ParameterError(
                    f"parameter 'workload': marginal {s!r} must name distinct synthesized "
                    f"columns (unknown: {unknown})")
            out.append(tuple(c for c in cols if c in s))  # canonical column order
        return sorted(set(out))

    # ------------------------------------------------------------------ fitting
    def fit(self, data: Any) -> DPSynthesizer:
        """Measure ``data`` (see :class:`DPSynthesizer`); the time budget counts from here, so
        reading the domain, coding the data and loading Private-PGM are inside it (on Dask:
        from the end of the counting pass, :mod:`synthguard.dp.synthesizers._on_dask.aim`)."""
        if is_dask_collection(data):
            return self._fit_dask(data)
        self._t_fit = self._clock()
        try:
            super().fit(data)
        finally:
            del self._t_fit
        return self

    def _fit(self, codes: dict[str, np.ndarray], domain: Domain, epsilon: float, delta: float,
             ledger: Any, rng: np.random.Generator | None) -> None:
        cols = list(domain.columns)
        d = len(cols)
        if d < 2:
            raise ParameterError("AIMSynthesizer: needs at least two columns; parameter "
                                 "'columns' names fewer (AIM measures marginals of 2 or more)")
        workload = self._workload(cols)
        mbi = _mbi()
        T = self._rounds_for(d)
        if T <= d:
            raise ParameterError(
                f"parameter 'rounds': must exceed the number of columns ({d}): the 1-way "
                "measurements alone spend 0.9·d/rounds of the budget (the paper uses 16·d)")
        rho = epsilon_to_rho(epsilon, delta, conversion=self.conversion)
        ledger.charge_rho("aim: 1-way + adaptive marginals", rho)
        sizes = dict(zip(cols, domain.sizes))
        dom = mbi.Domain(tuple(cols), tuple(sizes[c] for c in cols))
        candidates = aim_candidates(workload)
        cache: dict[Clique, np.ndarray] = {}

        def answer(cl: Clique) -> np.ndarray:
            if cl not in cache:
                cache[cl] = self._marginal(codes, cl, tuple(sizes[c] for c in cl))
            return cache[cl]

        planner = RoundPlanner(max_rounds=self.max_rounds, max_seconds=self.max_seconds,
                               clock=self._clock,
                               reserve=float(self.final_iters) / float(self.iters))
        t_start = getattr(self, "_t_fit", None)
        if t_start is None:  # called without fit (the Dask fit counts before it)
            t_start = self._clock()
        sigma = math.sqrt(T / (2.0 * 0.9 * rho))
        eps_em = math.sqrt(8.0 * 0.1 * rho / T)
        spent: list[tuple[str, float]] = []
        self._log: list[tuple[str, Any, float]] = []  # (mechanism, clique or #candidates, scale)
        measurements = []
        noisy: list[NoisyMarginal] = []
        for c in cols:
            y = _noise.add_gaussian(answer((c,)), sigma, rng)
            measurements.append(mbi.LinearMeasurement(y, (c,), stddev=sigma))
            noisy.append(((c,), y, np.full(y.size, gaussian_mean_abs(sigma))))
            spent.append((f"measure {c}", 0.5 / sigma**2))
            self._log.append(("gaussian", (c,), sigma))
        rho_used = d * 0.5 / sigma**2
        # the whole fit ends by ``end``: every refit stops at its deadline (mirror descent is
        # post-processing, so a cut refit costs accuracy, never privacy), the rounds' refits
        # early enough to leave the final refit its share of the time
        clock = self._clock
        end = None if self.max_seconds is None else t_start + float(self.max_seconds)
        t_fit = clock()
        model, theta = mirror_descent(mbi, dom, measurements, None, int(self.iters),
                                      deadline=end, clock=clock)
        first_fit = clock() - t_fit
        # the clock of the time budget started before the 1-way measurements; the rounds'
        # durations are measured from here
        planner.start(t_start)

        selected: list[Clique] = []
        terminate = False
        time_bound = False  # did the time budget change anything (noise, rounds, a refit)?
        sigma_aim, eps_aim = sigma, eps_em  # AIM's own schedule: σ₀, halved when annealing
        while not terminate:
            t = planner.begin()
            left = rho - rho_used
            rounds_left = planner.rounds_left()
            sigma, eps_em = sigma_aim, eps_aim
            if rounds_left is not None:
                # re-plan: the noise that lets what is left last the rounds still possible
                # (up or down as the time per round changes), unless AIM's annealed schedule
                # asks for less noise
                plan_sigma, plan_eps = round_noise(left / rounds_left)
                if plan_sigma < sigma:
                    sigma, eps_em = plan_sigma, plan_eps
                    time_bound = time_bound or planner.by_time
            # (1 − 1e-9: a re-planned round costs left/R up to rounding)
            if rounds_left == 1 or left < 2.0 * (1 - 1e-9) * (0.5 / sigma**2 + eps_em**2 / 8.0):
                time_bound = time_bound or (rounds_left == 1 and planner.by_time)
                sigma, eps_em = round_noise(left)
                terminate = True
            rho_used += eps_em**2 / 8.0 + 0.5 / sigma**2
            if terminate:
                rho_used = rho  # the last round spends exactly what was left
            size_limit = float(self.max_model_size) * rho_used / rho
            small = self._filter(mbi, dom, model, candidates, size_limit)
            names = list(small)
            weights = np.array([small[r] for r in names])
            errors = np.empty(len(names))
            jt = JunctionTree(mbi, model)
            for i, r in enumerate(names):
                est = jt.project(r).ravel()
                bias = math.sqrt(2.0 / math.pi) * sigma * est.size
                errors[i] = weights[i] * (np.abs(answer(r) - est).sum() - bias)
            sens = float(np.max(np.abs(weights)))
            pick = names[_select_index(errors / sens, eps_em**2 / 8.0, rng)]
            spent.append((f"select round {t}", eps_em**2 / 8.0))
            self._log.append(("select", len(names), 2.0 / eps_em))
            y = _noise.add_gaussian(answer(pick), sigma, rng)
            spent.append((f"measure {'x'.join(pick)}", 0.5 / sigma**2))
            self._log.append(("gaussian", pick, sigma))
            measurements.append(mbi.LinearMeasurement(y, pick, stddev=sigma))
            noisy.append((pick, y, np.full(y.size, gaussian_mean_abs(sigma))))
            selected.append(pick)
            if self.progress is not None and terminate:
                self.progress(t, rho_used, rho)
            if terminate:
                break  # the final refit below fits the last measurement too
            before = jt.project(pick).ravel()
            tau = planner.seconds_per_round() or first_fit
            round_end = None if end is None else end - planner.reserve * tau
            model, theta = mirror_descent(
                mbi, dom, measurements, theta, int(self.iters), clock=clock, deadline=round_end)
            time_bound = time_bound or (round_end is not None and clock() >= round_end)
            after = JunctionTree(mbi, model).project(pick).ravel()
            if np.abs(after - before).sum() <= math.sqrt(2.0 / math.pi) * sigma * after.size:
                sigma_aim = min(sigma_aim, sigma) / 2.0
                eps_aim = max(eps_aim, eps_em) * 2.0
            if self.progress is not None:
                self.progress(t, rho_used, rho)
        planner.begin()  # records the last round's duration
        model, theta = mirror_descent(mbi, dom, measurements, theta,
                                      int(self.iters) + int(self.final_iters),
                                      deadline=end, clock=clock)
        self.fit_seconds_ = clock() - t_start
        self.time_bound_ = bool(time_bound or (end is not None and clock() >= end))

        self.model_ = model
        self.rho_ = rho
        self.selected_ = selected
        self.rounds_ = t
        self.round_seconds_ = list(planner.durations)
        self.spent_ = spent
        self.mechanisms_ = list(self._log)
        self.workload_ = workload
        self.noisy_total_ = float(model.total)
        self._jtree = JunctionTree(mbi, model)
        self._noisy = noisy

    def _fit_dask(self, data: Any) -> DPSynthesizer:
        from synthguard.dp.synthesizers._on_dask.aim import fit_aim

        return cast(DPSynthesizer, fit_aim(self, data))

    def _dask_drawer(self) -> Any:
        from synthguard.dp.synthesizers._on_dask.aim import TreeDrawer

        return TreeDrawer.of(self)

    def _marginal(self, codes: dict[str, np.ndarray], clique: Clique,
                  shape: tuple[int, ...]) -> np.ndarray:
        """Exact count of every cell of ``clique`` (flattened, C order, as floats): the only
        way AIM reads the data, for the 1-way marginals and its candidates
        (a fit on Dask counts them all in one pass first:
        :mod:`synthguard.dp.synthesizers._on_dask.aim`)."""
        tables = getattr(self, "_dask_tables", None)
        if tables is not None:
            if clique not in tables:  # pragma: no cover - the pass counts every marginal read
                raise RuntimeError(f"AIMSynthesizer on Dask: marginal {clique} was not counted")
            return tables[clique].astype(np.float64)
        idx = np.ravel_multi_index(tuple(codes[c] for c in clique), shape)
        return np.bincount(idx, minlength=int(np.prod(shape))).astype(np.float64)

    def _rounds_for(self, d: int) -> int:
        return int(self.rounds) if self.rounds is not None else (
            d + int(self.max_rounds) if self.max_rounds is not None else 16 * d)

    def planned_rounds(self, d: int) -> int:
        """R, the rounds the expected error is stated for (before spending, public).

        ``max_rounds`` when given (annealing and a time budget only shorten the rounds, and
        fewer rounds measure with less noise); otherwise min(T − d, 2d): a time budget or AIM's
        annealing ends the rounds long before T − d = 15d (on Adult, d = 15, ε = 1: 17–26
        rounds against the 225 nominal ones), and 2d is the order of the rounds AIM takes to
        connect d columns with marginals of 2 or more columns.
        """
        if self.max_rounds is not None:
            return int(self.max_rounds)
        return max(1, min(self._rounds_for(d) - d, 2 * d))

    def planned_noise(self, d: int, rho: float) -> tuple[float, float, int]:
        """(σ₀, σ_R, R): the 1-way noise σ₀ = √(T/(1.8ρ)) and the noise of one of R rounds
        sharing what the 1-way measurements leave, ρ_R = (ρ − d/(2σ₀²)) / R,
        σ_R = √(1/(1.8 ρ_R)) (0.9 of a round's ρ measures, 0.1 selects; :func:`round_noise`)."""
        sigma0 = math.sqrt(self._rounds_for(d) / (2.0 * 0.9 * rho))
        R = self.planned_rounds(d)
        rest = max(rho - d * 0.5 / sigma0**2, 1e-300)
        return sigma0, round_noise(rest / R)[0], R

    def _noise_plan(self, sizes: dict[str, int], epsilon: float, delta: float
                    ) -> list[tuple[int, float, float]]:
        """Expected error before spending: every column's 1-way marginal at σ₀, and every
        workload marginal r of 2 or more columns as if measured in one of the R planned rounds
        (:meth:`planned_noise`): E TV_r = min(1, ½ √(2/π) σ_R n_r / N), n_r its cells.

        This is the noise floor of the rounds, the error of a marginal AIM measures; a marginal
        it does not measure is answered by the model, whose error depends on the data and is
        not known before spending. Checked against the true workload error: on Adult at ε = 1
        the true 2-way error was 0.4–0.8 × this figure, on small random domains 0.4–1.9 ×
        (tests/dp/test_aim_error.py checks 1/3–2 ×); the statement it replaces (every workload
        marginal at σ₀) said 0.14 on Adult where the true error was 0.03.
        """
        cols = list(sizes)
        d = len(cols)
        T = self._rounds_for(d)
        if d < 2 or T <= d:
            return []
        rho = epsilon_to_rho(epsilon, delta, conversion=self.conversion)
        sigma0, sigma_r, _ = self.planned_noise(d, rho)
        rows = [(1, gaussian_mean_abs(sigma0), float(sizes[c])) for c in cols]
        a_r = gaussian_mean_abs(sigma_r)
        for r in self._workload(cols):
            if len(r) > 1:
                rows.append((len(r), a_r, float(np.prod([sizes[c] for c in r]))))
        return rows

    def _expected_basis(self, sizes: dict[str, int], epsilon: float, delta: float) -> str:
        d = len(sizes)
        rho = epsilon_to_rho(epsilon, delta, conversion=self.conversion)
        sigma0, sigma_r, R = self.planned_noise(d, rho)
        why = ("the max_rounds budget" if self.max_rounds is not None
               else "min(T - d, 2d), as a time budget or annealing ends AIM's rounds early")
        return (f"1-way marginals at the initial noise sigma {sigma0:.3g}; each workload "
                f"marginal as if measured in one of R = {R} rounds ({why}) at sigma "
                f"{sigma_r:.3g}: the noise floor of a measured marginal, not the model's error "
                "on marginals it does not measure")

    def _noisy_marginals(self) -> tuple[Any, list[NoisyMarginal]]:
        return self._jtree.project, self._noisy

    @staticmethod
    def _filter(mbi: Any, dom: Any, model: Any, candidates: dict[Clique, float],
                size_limit: float) -> dict[Clique, float]:
        cliques = [tuple(cl) for cl in model.cliques]
        free: set[frozenset[str]] = set()
        for cl in cliques:
            for k in range(1, len(cl) + 1):
                free.update(frozenset(s) for s in itertools.combinations(cl, k))
        out = {}
        for r, w in candidates.items():
            if frozenset(r) in free or mbi.junction_tree.hypothetical_model_size(
                    dom, [*cliques, r]) <= size_limit:
                out[r] = w
        return out

    # ------------------------------------------------------------------ sampling
    def _default_n(self) -> int:
        return max(1, round(self.noisy_total_))

    def _sample_codes(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return self._jtree.sample(n, rng)

    def _provenance(self) -> dict[str, Any]:
        out = super()._provenance()
        out.update({"rho": self.rho_, "rounds": self.rounds_,
                    "selected": [list(r) for r in self.selected_],
                    "workload_size": len(self.workload_), "conversion": self.conversion})
        return out
