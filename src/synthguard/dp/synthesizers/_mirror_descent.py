"""Private-PGM's estimation (mirror descent on a graphical model) in numpy, for AIM's rounds.

McKenna, Sheldon & Miklau (2019), "Graphical-model based estimation and inference for
differential privacy", Algorithm 1, exactly as mbi 2.0's ``MirrorDescent`` with a fixed step:
the potentials θ live on the maximal cliques C of the measured marginals, the loss is
mbi's ``L(μ) = Σ_M ½ ‖(μ_{c_M} − y_M)/σ_M‖²`` over the measurements M (noisy counts y_M of
marginal c_M, noise σ_M), and each iteration computes the model's marginals μ = N·P_θ on the
cliques by belief propagation on the junction tree of the cliques and steps
θ_C ← θ_C − α ∂L/∂μ_C with α = 2/(Lip · N), Lip = max_C Σ_{M→C} |C| / (|c_M| σ_M²) (mbi's
``calculate_l2_lipschitz_from_metadata``) and N mbi's minimum-variance estimate of the total.
A warm start adds the previous round's potentials onto the new cliques containing them (mbi's
``CliqueVector.expand``).

Why not mbi's JAX implementation: AIM changes the model's structure every round, so JAX
compiles mbi's programs anew each round; on Adult that compilation was ~90 % of a round's time
(10–25 s per round on this loaded 2-core machine against about a second here), which capped
AIM at 8–16 rounds in a 3-minute budget. The result is returned as an mbi
``MarkovRandomField`` (mbi's junction tree, domain, measurements and model-size checks are
still used) and the tests check it against mbi's own estimate on the same measurements.
Post-processing of the noisy measurements only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["mirror_descent"]

Attrs = tuple[str, ...]


def _align(values: np.ndarray, attrs: Attrs, target: Attrs) -> np.ndarray:
    order = [a for a in target if a in attrs]
    v = np.transpose(values, [attrs.index(a) for a in order])
    return v.reshape([v.shape[order.index(a)] if a in attrs else 1 for a in target])


def _sum_to(values: np.ndarray, attrs: Attrs, keep: Attrs) -> np.ndarray:
    """Sum ``values`` over ``attrs`` down to ``keep`` (in ``keep``'s order)."""
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    v = values.sum(axis=axes) if axes else values
    rest = tuple(a for a in attrs if a in keep)
    return np.transpose(v, [rest.index(a) for a in keep])


def _lse(values: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    m = np.max(values, axis=axes, keepdims=True)
    out = np.log(np.sum(np.exp(values - m), axis=axes, keepdims=True)) + m
    return np.squeeze(out, axis=axes)


class _Tree:
    """A junction tree's structure and two-pass log-space belief propagation."""

    def __init__(self, mbi: Any, dom: Any, cliques: list[Attrs]) -> None:
        jtree, _ = mbi.junction_tree.make_junction_tree(dom, cliques)
        nodes: list[Attrs] = [tuple(c) for c in jtree.nodes]
        covered = set().union(*map(set, nodes)) if nodes else set()
        nodes += [(a,) for a in dom.attributes if a not in covered]
        self.nodes = nodes
        self.sizes = {a: int(dom[a]) for a in dom.attributes}
        self.adj: dict[Attrs, list[Attrs]] = {c: [] for c in nodes}
        for u, v in jtree.edges:
            self.adj[tuple(u)].append(tuple(v))
            self.adj[tuple(v)].append(tuple(u))
        self.parent: dict[Attrs, Attrs | None] = {}
        self.order: list[Attrs] = []
        for root in nodes:
            if root in self.parent:
                continue
            self.parent[root] = None
            queue = [root]
            while queue:
                u = queue.pop(0)
                self.order.append(u)
                for v in self.adj[u]:
                    if v not in self.parent:
                        self.parent[v] = u
                        queue.append(v)
        self.home = {c: next(n for n in nodes if set(c) <= set(n)) for c in cliques}

    def sep(self, u: Attrs, v: Attrs) -> Attrs:
        return tuple(a for a in u if a in v)

    def marginals(self, theta: dict[Attrs, np.ndarray], total: float) -> dict[Attrs, np.ndarray]:
        """μ_C = total · P_θ(C) for every clique C of ``theta``."""
        logpot = {n: np.zeros([self.sizes[a] for a in n]) for n in self.nodes}
        for c, t in theta.items():
            h = self.home[c]
            logpot[h] = logpot[h] + _align(t, c, h)
        msg: dict[tuple[Attrs, Attrs], np.ndarray] = {}

        def send(u: Attrs, v: Attrs) -> None:
            b = logpot[u]
            for w in self.adj[u]:
                if w != v:
                    b = b + _align(msg[(w, u)], self.sep(w, u), u)
            s = self.sep(u, v)
            axes = tuple(i for i, a in enumerate(u) if a not in s)
            msg[(u, v)] = _lse(b, axes) if axes else b

        for u in reversed(self.order):
            p = self.parent[u]
            if p is not None:
                send(u, p)
        for u in self.order:
            for v in self.adj[u]:
                if self.parent.get(v) == u:
                    send(u, v)
        belief: dict[Attrs, np.ndarray] = {}
        for n in set(self.home.values()):
            b = logpot[n]
            for w in self.adj[n]:
                b = b + _align(msg[(w, n)], self.sep(w, n), n)
            p = np.exp(b - b.max())
            belief[n] = p * (total / p.sum())
        return {c: _sum_to(belief[self.home[c]], self.home[c], c) for c in theta}


def mirror_descent(mbi: Any, dom: Any, measurements: list[Any],
                   warm: dict[Attrs, np.ndarray] | None, iters: int
                   ) -> tuple[Any, dict[Attrs, np.ndarray]]:
    """Fit a Private-PGM model to ``measurements`` (mbi ``LinearMeasurement`` with identity
    queries) by ``iters`` mirror-descent steps from the potentials ``warm`` (a previous
    call's, or None); the mbi ``MarkovRandomField`` and its potentials (float64)."""
    cliques = [tuple(m.clique) for m in measurements]
    maximal = [tuple(c) for c in mbi.clique_utils.maximal_subset(cliques)]
    sizes = {a: int(dom[a]) for a in dom.attributes}
    route = [next(C for C in maximal if set(c) <= set(C)) for c in cliques]
    data = [(c, np.asarray(m.noisy_measurement, dtype=np.float64).reshape(
        [sizes[a] for a in c]), max(float(m.stddev), 1e-12))
        for c, m in zip(cliques, measurements)]
    total = max(1.0, float(mbi.estimation.minimum_variance_unbiased_total(measurements)))
    lip: dict[Attrs, float] = {}
    for (c, _y, sd), C in zip(data, route):
        ratio = float(np.prod([sizes[a] for a in C])) / float(np.prod([sizes[a] for a in c]))
        lip[C] = lip.get(C, 0.0) + ratio / sd**2
    alpha = 2.0 / (max(lip.values()) * total)
    theta = {C: np.zeros([sizes[a] for a in C]) for C in maximal}
    for oc, values in (warm or {}).items():
        C = next(C for C in maximal if set(oc) <= set(C))
        theta[C] = theta[C] + _align(values, oc, C)
    tree = _Tree(mbi, dom, maximal)
    for _ in range(int(iters)):
        mu = tree.marginals(theta, total)
        grad = {C: np.zeros_like(t) for C, t in theta.items()}
        for (c, y, sd), C in zip(data, route):
            diff = (_sum_to(mu[C], C, c) - y) / sd**2
            grad[C] = grad[C] + _align(diff, c, C)
        theta = {C: theta[C] - alpha * grad[C] for C in theta}
    mu = tree.marginals(theta, total)

    def vector(tables: dict[Attrs, np.ndarray]) -> Any:
        return mbi.CliqueVector(dom, maximal, {
            C: mbi.Factor(dom.project(C), tables[C].astype(np.float32)) for C in maximal})

    model = mbi.MarkovRandomField(potentials=vector(theta), marginals=vector(mu), total=total)
    return model, theta
