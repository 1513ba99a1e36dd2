"""Exact marginals and sampling of a fitted Private-PGM model on its junction tree, in numpy.

mbi 2.0 answers an out-of-model marginal by ``variable_elimination``, a JAX function compiled
once per (query, model structure): AIM asks ~100 new marginals each round of a model whose
structure changes every round, so compilation dominated its running time. Here the model's
log-potentials are gathered onto the maximal cliques of its junction tree and calibrated once
by two-pass sum-product (Koller & Friedman 2009, §10.2); a marginal inside a maximal clique is a
sum, a marginal across cliques is carried along the tree path between them (§10.3.3.2), and
records are drawn clique by clique from P(clique ∖ separator | separator) in tree order, which
samples the model's distribution exactly (forward sampling on a calibrated clique tree).
Everything here is post-processing of the noisy fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["CliqueTree", "JunctionTree", "draw_rows", "stratified_uniforms"]

Attrs = tuple[str, ...]


def _align(values: np.ndarray, attrs: Attrs, target: Attrs) -> np.ndarray:
    """``values`` over ``attrs`` (a subset of ``target``) as an array broadcastable to target."""
    order = [a for a in target if a in attrs]
    v = np.transpose(values, [attrs.index(a) for a in order])
    shape = [v.shape[order.index(a)] if a in attrs else 1 for a in target]
    return v.reshape(shape)


def _lse(values: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """log Σ exp over ``axes`` (numpy; scipy's logsumexp costs more on the small tables here)."""
    m = np.max(values, axis=axes, keepdims=True)
    out = np.log(np.sum(np.exp(values - m), axis=axes, keepdims=True)) + m
    return np.squeeze(out, axis=axes)


def _reduce(values: np.ndarray, attrs: Attrs, keep: Sequence[str], *, log: bool
            ) -> tuple[np.ndarray, Attrs]:
    """Sum (or log-sum-exp) ``values`` over ``attrs`` down to those in ``keep``."""
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    out_attrs = tuple(a for a in attrs if a in keep)
    if not axes:
        return values, attrs
    return (_lse(values, axes) if log else values.sum(axis=axes)), out_attrs


def _sum_to(values: np.ndarray, attrs: Attrs, keep: Attrs) -> np.ndarray:
    """Sum ``values`` over ``attrs`` down to ``keep``, axes in ``keep``'s order."""
    v, got = _reduce(values, attrs, keep, log=False)
    return np.transpose(v, [got.index(a) for a in keep])


class CliqueTree:
    """The junction tree of a set of cliques and two-pass log-space sum-product on it.

    Nodes are the maximal cliques of mbi's junction tree of ``cliques`` (plus a singleton for
    every attribute no clique covers), in breadth-first order from a root per connected
    component; :meth:`calibrate` turns log-potentials on the nodes into the marginals
    ``total · P(node)`` (Koller & Friedman 2009, §10.2). Shared by the fitted model's
    :class:`JunctionTree` and by the mirror descent of :mod:`._mirror_descent`.
    """

    def __init__(self, mbi: Any, domain: Any, cliques: Sequence[Attrs]) -> None:
        self.sizes = {a: int(domain[a]) for a in domain.attributes}
        jtree, _ = mbi.junction_tree.make_junction_tree(domain, [tuple(c) for c in cliques])
        nodes: list[Attrs] = [tuple(c) for c in jtree.nodes]
        covered = set().union(*map(set, nodes)) if nodes else set()
        nodes += [(a,) for a in domain.attributes if a not in covered]
        self.nodes = nodes
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

    @staticmethod
    def _sep(u: Attrs, v: Attrs) -> Attrs:
        return tuple(a for a in u if a in v)

    def home(self, attrs: Sequence[str]) -> Attrs:
        """The first node holding every attribute of ``attrs``."""
        return next(n for n in self.nodes if set(attrs) <= set(n))

    def calibrate(self, logpot: dict[Attrs, np.ndarray], total: float,
                  nodes: Sequence[Attrs] | None = None) -> dict[Attrs, np.ndarray]:
        """``total · P(node)`` for ``nodes`` (default: all) of the model exp(Σ logpot)."""
        msg: dict[tuple[Attrs, Attrs], np.ndarray] = {}

        def belief(u: Attrs, skip: Attrs | None) -> np.ndarray:
            b = logpot[u]
            for w in self.adj[u]:
                if w != skip:
                    b = b + _align(msg[(w, u)], self._sep(w, u), u)
            return b

        for u in reversed(self.order):  # leaves to root
            p = self.parent[u]
            if p is not None:
                msg[(u, p)] = _reduce(belief(u, p), u, self._sep(u, p), log=True)[0]
        for u in self.order:  # root to leaves
            for v in self.adj[u]:
                if self.parent.get(v) == u:
                    msg[(u, v)] = _reduce(belief(u, v), u, self._sep(u, v), log=True)[0]
        out = {}
        for n in (self.nodes if nodes is None else nodes):
            b = belief(n, None)
            q = np.exp(b - b.max())
            out[n] = q * (total / q.sum())
        return out


class JunctionTree(CliqueTree):
    """Calibrated clique marginals of an mbi ``MarkovRandomField`` (numpy)."""

    def __init__(self, mbi: Any, model: Any) -> None:
        super().__init__(mbi, model.domain, [tuple(cl) for cl in model.cliques])
        self.total = float(model.total)
        self.cliques = self.nodes
        # log-potentials gathered on the maximal cliques
        logpot = {c: np.zeros([self.sizes[a] for a in c]) for c in self.nodes}
        for cl in model.cliques:
            f = model.potentials[tuple(cl)]
            attrs = tuple(f.domain.attributes)
            home = self.home(attrs)
            logpot[home] = logpot[home] + _align(np.asarray(f.values, dtype=np.float64),
                                                 attrs, home)
        self.marginals: dict[Attrs, np.ndarray] = self.calibrate(logpot, self.total)
        self._mbi, self._model = mbi, model

    # ------------------------------------------------------------------ marginals
    def project(self, attrs: Sequence[str]) -> np.ndarray:
        """The model's marginal table over ``attrs`` (axes in the order given), summing to total."""
        attrs = tuple(attrs)
        home = next((c for c in self.cliques if set(attrs) <= set(c)), None)
        if home is not None:
            v, got = _reduce(self.marginals[home], home, attrs, log=False)
            return np.transpose(v, [got.index(a) for a in attrs])
        return self._across(attrs)

    def _root(self, c: Attrs) -> Attrs:
        while self.parent[c] is not None:
            c = self.parent[c]  # type: ignore[assignment]
        return c

    def _path(self, a: Attrs, b: Attrs) -> list[Attrs]:
        def up(c: Attrs) -> list[Attrs]:
            out = [c]
            while self.parent[out[-1]] is not None:
                out.append(self.parent[out[-1]])  # type: ignore[arg-type]
            return out

        pa, pb = up(a), up(b)
        common = next((c for c in pa if c in pb), None)
        if common is None:
            return []
        return pa[: pa.index(common) + 1] + list(reversed(pb[: pb.index(common)]))

    def _across(self, attrs: Attrs) -> np.ndarray:
        """Carry P(query attributes seen so far, separator) along tree paths (exact)."""
        # cliques holding each attribute; visit a path from a clique of the first attribute
        # through cliques of the others (a Steiner walk: consecutive tree paths)
        homes = [next(c for c in self.cliques if a in c) for a in attrs]
        roots = [self._root(h) for h in homes]
        if len(set(roots)) > 1:  # different components of the model are independent
            out = np.ones(())
            out_attrs: tuple[str, ...] = ()
            for r in dict.fromkeys(roots):
                group = tuple(a for a, ra in zip(attrs, roots) if ra == r)
                out = np.multiply.outer(out, self.project(group) / self.total)
                out_attrs += group
            return np.transpose(out, [out_attrs.index(a) for a in attrs]) * self.total
        walk: list[Attrs] = [homes[0]]
        for h in homes[1:]:
            walk += self._path(walk[-1], h)[1:]
        if len(set(walk)) != len(walk):
            # the attributes do not lie on one tree path: carrying would count a clique twice
            f = self._mbi.marginal_oracles.variable_elimination(
                self._model.potentials, attrs, self.total)
            return np.asarray(f.transpose(attrs).datavector(flatten=False), dtype=np.float64)
        cur = self.marginals[walk[0]]
        cur_attrs = walk[0]
        for nxt in walk[1:]:
            sep = self._sep(cur_attrs, nxt)
            keep = tuple(a for a in attrs if a in cur_attrs) + sep
            cur, cur_attrs = _reduce(cur, cur_attrs, keep, log=False)
            m = self.marginals[nxt]
            msep, sep_attrs = _reduce(m, nxt, sep, log=False)
            cond = m / np.where(_align(msep, sep_attrs, nxt) > 0, _align(msep, sep_attrs, nxt),
                                np.inf)
            union = cur_attrs + tuple(a for a in nxt if a not in cur_attrs)
            cur = _align(cur, cur_attrs, union) * _align(cond, nxt, union)
            cur_attrs = union
        v, got = _reduce(cur, cur_attrs, attrs, log=False)
        return np.transpose(v, [got.index(a) for a in attrs])

    # ------------------------------------------------------------------ sampling
    def sample(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``n`` records drawn from the model: each clique given its separator, in tree order."""
        out: dict[str, np.ndarray] = {}
        for c in self.order:
            p = self.parent[c]
            sep = self._sep(c, p) if p is not None else ()
            new = tuple(a for a in c if a not in sep)
            if not new:
                continue
            t = np.transpose(self.marginals[c], [c.index(a) for a in sep + new])
            nsep = int(np.prod([self.sizes[a] for a in sep])) if sep else 1
            t = np.maximum(t.reshape(nsep, -1), 0.0)
            row = t.sum(axis=1, keepdims=True)
            t = np.where(row > 0, t / np.where(row > 0, row, 1.0), 1.0 / t.shape[1])
            if sep:
                r = np.ravel_multi_index(tuple(out[a] for a in sep),
                                         tuple(self.sizes[a] for a in sep))
            else:
                r = np.zeros(n, dtype=np.int64)
            k = draw_rows(t, r, rng)
            for a, v in zip(new, np.unravel_index(k, [self.sizes[a] for a in new])):
                out[a] = v.astype(np.int64)
        return out


def stratified_uniforms(rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniforms on (0, 1), stratified within each group of equal ``rows``.

    In a group of size g the records get, in random order, one draw from each of
    [0, 1/g), [1/g, 2/g), …: inverting a conditional CDF with them gives every level of the
    group a count within one of g × its probability (systematic sampling; the "round" method of
    Private-PGM's sampler), instead of the multinomial scatter of i.i.d. draws, which on 30,000
    records adds about as much total-variation error as the privacy noise. Each record's
    uniform is still uniform on (0, 1), so every draw keeps its distribution.
    """
    n = rows.size
    order = rng.permutation(n)
    order = order[np.argsort(rows[order], kind="stable")]
    sorted_rows = rows[order]
    start = np.searchsorted(sorted_rows, sorted_rows, side="left")
    size = np.bincount(sorted_rows)[sorted_rows]
    u = np.empty(n)
    u[order] = (np.arange(n) - start + rng.random(n)) / size
    return u


def draw_rows(table: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per entry of ``rows`` from the categorical distribution ``table[row]``
    (rows of ``table`` sum to one), with :func:`stratified_uniforms` within each row."""
    m = table.shape[1]
    cum = np.cumsum(table, axis=1)
    cum[:, -1] = 1.0
    flat = (cum + np.arange(table.shape[0])[:, None]).ravel()
    u = stratified_uniforms(rows, rng)
    k = np.searchsorted(flat, rows + u, side="right") - rows * m
    return np.clip(k, 0, m - 1)
