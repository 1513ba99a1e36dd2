"""MSTSynthesizer: MST of McKenna, Miklau & Sheldon (2021) on Private-PGM (``mbi``).

The winning method of the NIST 2018 challenge (course, case study 8.5), as described in
"Winning the NIST Contest: A scalable and general approach to differentially private synthetic
data" (McKenna, Miklau & Sheldon 2021, Algorithm 1). With ρ the zCDP budget, a third each:

1. measure every 1-way marginal with Gaussian noise (σ₁ = √(3d/(2ρ)));
   levels whose noisy count is below 3σ₁ are merged into one rare level (domain compression);
2. select d − 1 pairs of columns forming a maximum spanning tree: Kruskal's algorithm where
   each step picks, by the exponential mechanism (ρ/(3(d−1)) each; Cesar & Rogers 2021:
   an ε-exponential mechanism is ε²/8-zCDP), among the pairs joining two components, one
   whose 2-way marginal is worst explained by the 1-way marginals (score: L1 distance between
   the true 2-way table and the independence estimate; sensitivity 1);
3. measure the selected 2-way marginals with Gaussian noise (σ₂ = √(3(d−1)/(2ρ)));
4. estimate a graphical model consistent with all noisy marginals by Private-PGM (mirror
   descent; McKenna, Sheldon & Miklau 2019) and sample records from it (post-processing).

Privacy: the steps compose to ρ-zCDP under add/remove neighbours (each marginal has l2
sensitivity 1); ρ is the largest whose tight conversion (Canonne, Kamath & Steinke 2020;
:func:`synthguard.dp.conversion.epsilon_to_rho`) is ε at δ, so the fit is (ε, δ)-DP. It is
charged to the ledger as one ρ line (zCDP, pooled with the ledger's other ρ) before any noise
is drawn; ``conversion="simple"`` uses ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016) instead.

User-chosen marginals (``cliques=``): the NIST entry as the course describes it (§8.5.5,
"apply the Gaussian Mechanism and the 1-, 2-, and 3-way marginals on those identified
correlated variables", the marginals "selected manually by domain expert"). No tree is selected
and no budget spent on selecting: half of ρ measures every 1-way marginal (σ₁ = √(d/ρ)), the
other half the k given marginals of any order (σ = √(k/ρ)); each has l2 sensitivity 1, so the
fit is ρ-zCDP with the same ρ as the default. Private-PGM estimates a model over those cliques
(mirror descent) and records are drawn clique by clique from its junction tree, so 3-way and
larger cliques are kept.

Implementation: OpenDP 0.16 ships an MST (``opendp.extras.mbi.MST``) but only over Polars
LazyFrames (Polars is not a dependency here), so this module drives the installed ``mbi``
package directly and draws every noise sample — Gaussian measurements and the Gumbel noise of
the exponential mechanism (``make_noisy_max`` under zCDP) — from OpenDP when
``random_state=None``. mbi's own sampler uses numpy's global state, so records are sampled here
from the fitted tree model instead (seedable, post-processing).
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, ClassVar, cast

import numpy as np

from synthguard._params import Interval, Options
from synthguard.dp import _noise
from synthguard.dp.conversion import CONVERSIONS, epsilon_to_rho
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers._domain import Domain
from synthguard.dp.synthesizers._junction import JunctionTree, draw_rows
from synthguard.dp.synthesizers._mirror_descent import mirror_descent
from synthguard.dp.synthesizers.error import NoisyMarginal, gaussian_mean_abs
from synthguard.errors import ParameterError

__all__ = ["MSTSynthesizer"]


def _mbi() -> Any:
    """Import mbi with JAX in float64 (mbi warns that float32 stalls on large data)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import jax

        jax.config.update("jax_enable_x64", True)
        import mbi
    return mbi


def _select_index(scores: np.ndarray, rho: float, rng: np.random.Generator | None) -> int:
    """Exponential mechanism (sensitivity 1) as ρ-zCDP report-noisy-max with Gumbel noise."""
    scale = 2.0 / math.sqrt(8.0 * rho)  # ε = √(8ρ), Gumbel scale 2Δ/ε
    if rng is not None:
        return int(np.argmax(scores + rng.gumbel(scale=scale, size=scores.size)))
    dp = _noise._opendp()
    m = dp.m.make_noisy_max(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float),
        dp.zero_concentrated_divergence(), scale=scale,
    )
    return int(m([float(s) for s in scores]))


def _is_identity(mapping: np.ndarray) -> bool:
    return bool(np.array_equal(mapping, np.arange(mapping.size)))


def compress_levels(noisy_counts: dict[str, np.ndarray], threshold: float
                    ) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """MST's domain compression (McKenna, Miklau & Sheldon 2021, §4): merge rare levels.

    Per column, the levels whose noisy count is below ``threshold`` are merged into one rare
    level placed last; the kept levels keep their order. ``mapping[c][level] = compressed code``.
    Fewer than two such levels leave the column as it is (merging one level only relabels it),
    so a compressed column always has fewer levels than the original and an uncompressed one
    has the identity mapping. Post-processing of the noisy counts.
    """
    mapping: dict[str, np.ndarray] = {}
    csize: dict[str, int] = {}
    for c, y in noisy_counts.items():
        keep = np.asarray(y) >= threshold
        k = int(keep.sum())
        if keep.size - k < 2 or k == 0:
            mapping[c] = np.arange(keep.size)
            csize[c] = keep.size
            continue
        m = np.empty(keep.size, dtype=np.int64)
        m[keep] = np.arange(k)
        m[~keep] = k
        mapping[c] = m
        csize[c] = k + 1
    return mapping, csize


def expand_levels(codes: np.ndarray, mapping: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Map compressed codes back to original levels (inverse of :func:`compress_levels`).

    A kept level maps back to its own level; the rare level is spread uniformly over the levels
    merged into it (post-processing: nothing is known about them beyond their noisy sum).
    """
    codes = np.asarray(codes, dtype=np.int64)
    if _is_identity(mapping):
        return codes
    ncomp = int(mapping.max()) + 1
    members = [np.nonzero(mapping == j)[0] for j in range(ncomp)]
    out = np.empty(codes.size, dtype=np.int64)
    for j, lv in enumerate(members):
        hit = codes == j
        if lv.size == 1:
            out[hit] = lv[0]
        elif hit.any():
            out[hit] = rng.choice(lv, size=int(hit.sum()))
    return out


class MSTSynthesizer(DPSynthesizer):
    """MST (McKenna, Miklau & Sheldon 2021): noisy 1- and 2-way marginals on a spanning tree + Private-PGM.

    Parameters
    ----------
    epsilon, delta : (ε, δ) budget of the fit; δ > 0 is required (e.g. 1e-6 or < 1/n).
    iters : mirror-descent iterations of the Private-PGM estimation (numpy, mbi's Armijo line
        search from the step 2/(L·N); :mod:`._mirror_descent`); 5000 as in Private-PGM's MST.
        On Adult at ε = 1 (seeds 1–3) the fit takes 8–10 CPU seconds with sampling and a
        peak of 0.48 GB (mbi's JAX estimation: 16–18 s and 0.94 GB), 2-way error 0.0415
        (private-pgm's MST 0.0417).
    compress : merge levels whose noisy 1-way count is below 3σ (as MST does).
    conversion : ``"tight"`` (default; Canonne, Kamath & Steinke 2020) or ``"simple"``
        (Bun & Steinke 2016): how (ε, δ) is turned into the ρ the noise is calibrated to.
    cliques : optional list of column tuples (2-way, 3-way, ...) to measure instead of the
        selected tree: the marginals a domain expert chose (public, not read from the data).
        Half the budget measures the 1-way marginals, half these cliques; see the module
        docstring. Not available on a Dask fit.
    progress : optional callable ``progress(done, iters)``, called every 50 mirror-descent
        iterations of the estimation (most of MST's running time) with the iterations done.
    Other parameters: see :class:`~synthguard.dp.synthesizers._base.DPSynthesizer`. Numeric
    columns need public ``bins`` (or public schema bounds): they are never read from the data.
    """

    method = "mst"
    _needs_delta = True
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "iters": [Interval(int, 1, None)],
        "compress": [bool],
        "conversion": [Options(CONVERSIONS)],
    }
    #: what a worker needs to draw records after a Dask fit: the tree, its conditional
    #: tables, the level compression and the domain
    _draw_fields: ClassVar[tuple[str, ...]] = ("_tree", "_cond", "mapping_", "domain_")

    def __init__(self, *, epsilon: float, delta: float = 1e-6, iters: int = 5000,
                 compress: bool = True, conversion: str = "tight", progress: Any = None,
                 cliques: list[tuple[str, ...]] | None = None, **kwargs: Any) -> None:
        super().__init__(epsilon=epsilon, delta=delta, **kwargs)
        self.iters = iters
        self.compress = compress
        self.conversion = conversion
        self.progress = progress
        self.cliques = cliques

    def _validate_params(self) -> None:
        if self.cliques is None:
            return
        if isinstance(self.cliques, str | tuple) or not list(self.cliques):
            raise ParameterError("MSTSynthesizer: parameter 'cliques': expected a non-empty "
                                 "list of column tuples, e.g. [('age', 'sex', 'income')]")
        for cl in self.cliques:
            if isinstance(cl, str) or len(tuple(cl)) < 2 or len(set(cl)) != len(tuple(cl)):
                raise ParameterError(
                    f"MSTSynthesizer: parameter 'cliques': {tuple(cl)!r} is not a tuple of two "
                    "or more distinct column names")

    def _clique_list(self, cols: list[str]) -> list[tuple[str, ...]]:
        """The user's cliques, checked against the synthesized columns (before any charge)."""
        out = [tuple(str(a) for a in cl) for cl in (self.cliques or [])]
        for cl in out:
            unknown = [a for a in cl if a not in cols]
            if unknown:
                raise ParameterError(
                    f"MSTSynthesizer: parameter 'cliques': column(s) {unknown} of {cl!r} are "
                    "not among the synthesized columns")
        return list(dict.fromkeys(out))

    def _fit_dask(self, data: Any) -> DPSynthesizer:
        if getattr(self, "cliques", None) is not None:
            raise ParameterError("MSTSynthesizer: parameter 'cliques': not available on a "
                                 "Dask DataFrame; call .compute() if the data fit in memory")
        from synthguard.dp.synthesizers._on_dask.mst import fit_mst

        return cast(DPSynthesizer, fit_mst(self, data))


    def _fit(self, codes: dict[str, np.ndarray], domain: Domain, epsilon: float, delta: float,
             ledger: Any, rng: np.random.Generator | None) -> None:
        cols = list(domain.columns)
        d = len(cols)
        if d < 2:
            raise ParameterError("MSTSynthesizer: needs at least two columns")
        if getattr(self, "cliques", None) is not None:
            self._fit_cliques(codes, domain, self._clique_list(cols), epsilon, delta, ledger,
                              rng)
            return
        mbi = _mbi()
        rho = epsilon_to_rho(epsilon, delta, conversion=self.conversion)
        ledger.charge_rho("mst: 1-way + tree + 2-way", rho)
        sizes = dict(zip(cols, domain.sizes))

        # 1. one-way marginals, rho/3
        sigma1 = math.sqrt(3.0 * d / (2.0 * rho))
        one_way = {}
        for c in cols:
            counts = self._counts(codes, (c,), (sizes[c],)).astype(np.float64)
            one_way[c] = _noise.add_gaussian(counts, sigma1, rng)

        # domain compression: levels with noisy count < 3σ merge into one rare level
        mapping, csize = compress_levels(
            {c: one_way[c] for c in cols}, 3 * sigma1 if self.compress else -math.inf)

        def true_pair(a: str, b: str) -> np.ndarray:  # exact 2-way counts, compressed levels
            full = self._counts(codes, (a, b), (sizes[a], sizes[b]))
            out = np.zeros((csize[a], csize[b]), dtype=np.int64)
            np.add.at(out, (mapping[a][:, None], mapping[b][None, :]), full.reshape(
                sizes[a], sizes[b]))
            return out.ravel()

        full = mbi.Domain(tuple(cols), tuple(sizes[c] for c in cols))
        cdom = mbi.Domain(tuple(cols), tuple(csize[c] for c in cols))
        measurements = []
        for c in cols:
            meas = mbi.LinearMeasurement(one_way[c], (c,), stddev=sigma1)
            if not _is_identity(mapping[c]):
                meas = meas.compress({c: mapping[c]}, full)
            measurements.append(meas)

        # 2. select a spanning tree with the exponential mechanism, rho/3 over d-1 rounds
        total = max(1.0, float(np.mean([one_way[c].sum() for c in cols])))
        marg1 = {}
        for c in cols:
            v = np.bincount(mapping[c], weights=np.maximum(one_way[c], 0.0), minlength=csize[c])
            marg1[c] = v / v.sum() if v.sum() > 0 else np.full(csize[c], 1.0 / csize[c])
        pairs = list(itertools.combinations(cols, 2))
        scores = np.empty(len(pairs))
        for i, (a, b) in enumerate(pairs):
            true2 = true_pair(a, b)
            est2 = total * np.outer(marg1[a], marg1[b]).ravel()
            scores[i] = np.abs(true2 - est2).sum()
        rho_select = rho / 3.0 / (d - 1)
        parent = {c: c for c in cols}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        selected: list[tuple[str, str]] = []
        for _ in range(d - 1):
            cand = [i for i, (a, b) in enumerate(pairs) if find(a) != find(b)]
            pick = cand[_select_index(scores[cand], rho_select, rng)]
            a, b = pairs[pick]
            parent[find(a)] = find(b)
            selected.append((a, b))

        # 3. measure the selected two-way marginals, rho/3
        sigma2 = math.sqrt(3.0 * (d - 1) / (2.0 * rho))
        # the noisy measurements in the compressed coding, with each cell's mean |noise|
        # (a merged level sums the noise of its m levels: sd sigma1 * sqrt(m))
        noisy: list[NoisyMarginal] = []
        for c in cols:
            members = np.bincount(mapping[c], minlength=csize[c])
            noisy.append(((c,), np.bincount(mapping[c], weights=one_way[c], minlength=csize[c]),
                          gaussian_mean_abs(sigma1) * np.sqrt(members)))
        for a, b in selected:
            true2 = true_pair(a, b).astype(np.float64)
            y = _noise.add_gaussian(true2, sigma2, rng)
            measurements.append(mbi.LinearMeasurement(y, (a, b), stddev=sigma2))
            noisy.append(((a, b), y, np.full(y.size, gaussian_mean_abs(sigma2))))

        # 4. Private-PGM estimation (post-processing): mirror descent in numpy
        # (_mirror_descent, as AIM's rounds, Armijo steps from 2/(L·total)): on a tree of pairs
        # each step is a few small array operations, where mbi's JAX program compiled for a
        # while and held 850-900 MB on Adult (issue 35)
        progress = self.progress
        model, _ = mirror_descent(
            mbi, cdom, measurements, None, int(self.iters), line_search=True,
            callback=None if progress is None else (
                lambda done: progress(done, int(self.iters))))
        self.model_ = model
        self.edges_ = selected
        self.mapping_ = mapping
        self.compressed_sizes_ = csize
        self.rho_ = rho
        self.sigmas_ = (sigma1, sigma2)
        self.noisy_total_ = float(model.total)
        self._tree = self._tree_order(cols, selected)
        self._cond = self._conditionals(model)
        self._noisy = noisy
        self._jt = JunctionTree(mbi, model)

    def _fit_cliques(self, codes: dict[str, np.ndarray], domain: Domain,
                     cliques: list[tuple[str, ...]], epsilon: float, delta: float,
                     ledger: Any, rng: np.random.Generator | None) -> None:
        """Measure the 1-way marginals (ρ/2) and the user's cliques (ρ/2), fit, keep the tree."""
        cols = list(domain.columns)
        d, k = len(cols), len(cliques)
        mbi = _mbi()
        rho = epsilon_to_rho(epsilon, delta, conversion=self.conversion)
        ledger.charge_rho(f"mst: 1-way + {k} chosen marginals", rho)
        sizes = dict(zip(cols, domain.sizes))
        sigma1 = math.sqrt(d / rho)  # rho/2 over d marginals: 1/(2 sigma1^2) = rho/(2d)
        sigma_c = math.sqrt(k / rho)
        one_way = {c: _noise.add_gaussian(
            self._counts(codes, (c,), (sizes[c],)).astype(np.float64), sigma1, rng)
            for c in cols}
        mapping, csize = compress_levels(
            one_way, 3 * sigma1 if self.compress else -math.inf)
        full = mbi.Domain(tuple(cols), tuple(sizes[c] for c in cols))
        cdom = mbi.Domain(tuple(cols), tuple(csize[c] for c in cols))
        measurements = []
        noisy: list[NoisyMarginal] = []
        for c in cols:
            meas = mbi.LinearMeasurement(one_way[c], (c,), stddev=sigma1)
            if not _is_identity(mapping[c]):
                meas = meas.compress({c: mapping[c]}, full)
            measurements.append(meas)
            members = np.bincount(mapping[c], minlength=csize[c])
            noisy.append(((c,), np.bincount(mapping[c], weights=one_way[c], minlength=csize[c]),
                          gaussian_mean_abs(sigma1) * np.sqrt(members)))
        for cl in cliques:
            # exact counts in the compressed coding: map every axis's levels, then count
            flat = np.zeros(codes[cols[0]].size, dtype=np.int64)
            for a in cl:
                flat = flat * csize[a] + mapping[a][codes[a]]
            true = np.bincount(flat, minlength=int(np.prod([csize[a] for a in cl])))
            y = _noise.add_gaussian(true.astype(np.float64), sigma_c, rng)
            measurements.append(mbi.LinearMeasurement(y, cl, stddev=sigma_c))
            noisy.append((cl, y, np.full(y.size, gaussian_mean_abs(sigma_c))))
        progress = self.progress
        model, _ = mirror_descent(
            mbi, cdom, measurements, None, int(self.iters), line_search=True,
            callback=None if progress is None else (
                lambda done: progress(done, int(self.iters))))
        self.model_ = model
        self.cliques_ = cliques  # the measured cliques; no tree was selected
        self.edges_ = []
        self.mapping_ = mapping
        self.compressed_sizes_ = csize
        self.rho_ = rho
        self.sigmas_ = (sigma1, sigma_c)
        self.noisy_total_ = float(model.total)
        self._noisy = noisy
        self._jt = JunctionTree(mbi, model)
        self._tree = []
        self._cond = {}

    def _counts(self, codes: dict[str, np.ndarray], cols: tuple[str, ...],
                sizes: tuple[int, ...]) -> np.ndarray:
        """Exact counts of every cell of ``cols`` (flattened, C order): the only way MST reads
        the data, so the Dask fit (:mod:`synthguard.dp.synthesizers._on_dask.mst`) counts
        them on the workers instead."""
        tables = getattr(self, "_dask_tables", None)
        if tables is not None:
            if cols in tables:
                return tables[cols]
            a, b = cols  # the other order of a counted pair
            return tables[(b, a)].reshape(sizes[1], sizes[0]).T.ravel()
        flat = codes[cols[0]].astype(np.int64)
        for c, k in zip(cols[1:], sizes[1:]):
            flat = flat * k + codes[c]
        return np.bincount(flat, minlength=int(np.prod(sizes)))

    def _noise_plan(self, sizes: dict[str, int], epsilon: float, delta: float
                    ) -> list[tuple[int, float, float]]:
        """1-way: σ₁ = √(3d/(2ρ)) on every column; 2-way: σ₂ = √(3(d−1)/(2ρ)) on d − 1 pairs
        (which pairs is chosen privately: their mean size over all pairs is used)."""
        rho = epsilon_to_rho(epsilon, delta, conversion=self.conversion)
        d = len(sizes)
        if d < 2:
            return []
        if getattr(self, "cliques", None) is not None:
            cl = self._clique_list(list(sizes))
            s1, sc = math.sqrt(d / rho), math.sqrt(len(cl) / rho)
            return ([(1, gaussian_mean_abs(s1), float(k)) for k in sizes.values()]
                    + [(len(c), gaussian_mean_abs(sc), float(np.prod([sizes[a] for a in c])))
                       for c in cl])
        s1 = math.sqrt(3.0 * d / (2.0 * rho))
        s2 = math.sqrt(3.0 * (d - 1) / (2.0 * rho))
        pair_cells = float(np.mean([sizes[a] * sizes[b]
                                    for a, b in itertools.combinations(sizes, 2)]))
        return ([(1, gaussian_mean_abs(s1), float(k)) for k in sizes.values()]
                + [(2, gaussian_mean_abs(s2), pair_cells)] * (d - 1))

    def _noisy_marginals(self) -> tuple[Any, list[NoisyMarginal]]:
        return self._jt.project, self._noisy

    @staticmethod
    def _tree_order(cols: list[str], edges: list[tuple[str, str]]) -> list[tuple[str, str | None]]:
        adj: dict[str, list[str]] = {c: [] for c in cols}
        for a, b in edges:
            adj[a].append(b)
            adj[b].append(a)
        order: list[tuple[str, str | None]] = []
        seen: set[str] = set()
        for root in cols:
            if root in seen:
                continue
            seen.add(root)
            order.append((root, None))
            queue = [root]
            while queue:
                u = queue.pop(0)
                for v in adj[u]:
                    if v not in seen:
                        seen.add(v)
                        order.append((v, u))
                        queue.append(v)
        return order

    def _conditionals(self, model: Any) -> dict[str, np.ndarray]:
        cond: dict[str, np.ndarray] = {}
        for child, par in self._tree:
            if par is None:
                p = np.maximum(np.asarray(model.project((child,)).datavector(), dtype=float), 0)
                cond[child] = p / p.sum() if p.sum() > 0 else np.full(p.size, 1.0 / p.size)
            else:
                f = model.project((par, child)).transpose((par, child))
                t = np.maximum(np.asarray(f.datavector(flatten=False), dtype=float), 0)
                row = t.sum(axis=1, keepdims=True)
                t = np.where(row > 0, t / np.where(row > 0, row, 1.0), 1.0 / t.shape[1])
                cond[child] = t
        return cond

    def _default_n(self) -> int:
        return max(1, round(self.noisy_total_))

    def _sample_codes(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        if getattr(self, "cliques", None) is not None:  # any order: from the junction tree
            drawn = self._jt.sample(n, rng)
            return {col: expand_levels(drawn[col], self.mapping_[col], rng)
                    for col in self.domain_.columns}
        comp: dict[str, np.ndarray] = {}
        for child, par in self._tree:
            c = self._cond[child]
            if par is None:
                comp[child] = draw_rows(c[None, :], np.zeros(n, dtype=np.int64), rng)
            else:
                comp[child] = draw_rows(c, comp[par], rng)
        return {col: expand_levels(k, self.mapping_[col], rng) for col, k in comp.items()}

    def _provenance(self) -> dict[str, Any]:
        out = super()._provenance()
        if getattr(self, "cliques", None) is not None:
            out.update({"rho": self.rho_, "cliques": [list(e) for e in self.cliques_],
                        "sigma_1way": self.sigmas_[0], "sigma_cliques": self.sigmas_[1]})
            return out
        out.update({"rho": self.rho_, "edges": [list(e) for e in self.edges_],
                    "sigma_1way": self.sigmas_[0], "sigma_2way": self.sigmas_[1]})
        return out
