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
from scipy.special import logsumexp

__all__ = ["JunctionTree", "draw_rows", "stratified_uniforms"]

Attrs = tuple[str, ...]


def _align(values: np.ndarray, attrs: Attrs, target: Attrs) -> np.ndarray:
    """``values`` over ``attrs`` (a subset of ``target``) as an array broadcastable to target."""
    order = [a for a in target if a in attrs]
    v = np.transpose(values, [attrs.index(a) for a in order])
    shape = [v.shape[order.index(a)] if a in attrs else 1 for a in target]
    return v.reshape(shape)


def _reduce(values: np.ndarray, attrs: Attrs, keep: Sequence[str], *, log: bool
            ) -> tuple[np.ndarray, Attrs]:
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    out_attrs = tuple(a for a in attrs if a in keep)
    if not axes:
        return values, attrs
    return (logsumexp(values, axis=axes) if log else values.sum(axis=axes)), out_attrs


class JunctionTree:
    """Calibrated clique marginals of an mbi ``MarkovRandomField`` (numpy)."""

    def __init__(self, mbi: Any, model: Any) -> None:
        domain = model.domain
        self.sizes = {a: int(domain[a]) for a in domain.attributes}
        self.total = float(model.total)
        jtree, _ = mbi.junction_tree.make_junction_tree(
            domain, [tuple(cl) for cl in model.cliques])
        cliques: list[Attrs] = [tuple(c) for c in jtree.nodes]
        covered = set().union(*map(set, cliques)) if cliques else set()
        cliques += [(a,) for a in domain.attributes if a not in covered]
        self.cliques = cliques
        adj: dict[Attrs, list[Attrs]] = {c: [] for c in cliques}
        for u, v in jtree.edges:
            adj[tuple(u)].append(tuple(v))
            adj[tuple(v)].append(tuple(u))
        # log-potentials gathered on the maximal cliques
        logpot = {c: np.zeros([self.sizes[a] for a in c]) for c in cliques}
        for cl in model.cliques:
            f = model.potentials[tuple(cl)]
            attrs = tuple(f.domain.attributes)
            home = next(c for c in cliques if set(attrs) <= set(c))
            logpot[home] = logpot[home] + _align(np.asarray(f.values, dtype=np.float64),
                                                 attrs, home)
        # tree order (BFS from a root per component) and two-pass message passing
        self.parent: dict[Attrs, Attrs | None] = {}
        self.order: list[Attrs] = []
        for root in cliques:
            if root in self.parent:
                continue
            self.parent[root] = None
            queue = [root]
            while queue:
                u = queue.pop(0)
                self.order.append(u)
                for v in adj[u]:
                    if v not in self.parent:
                        self.parent[v] = u
                        queue.append(v)
        msg: dict[tuple[Attrs, Attrs], np.ndarray] = {}

        def send(u: Attrs, v: Attrs) -> None:
            b = logpot[u]
            for w in adj[u]:
                if w != v:
                    b = b + _align(msg[(w, u)], self._sep(w, u), u)
            m, _ = _reduce(b, u, self._sep(u, v), log=True)
            msg[(u, v)] = m

        for u in reversed(self.order):  # leaves to root
            p = self.parent[u]
            if p is not None:
                send(u, p)
        for u in self.order:  # root to leaves
            for v in adj[u]:
                if self.parent.get(v) == u:
                    send(u, v)
        self.marginals: dict[Attrs, np.ndarray] = {}
        for c in cliques:
            b = logpot[c]
            for w in adj[c]:
                b = b + _align(msg[(w, c)], self._sep(w, c), c)
            p = np.exp(b - logsumexp(b))
            self.marginals[c] = p * self.total
        self.adj = adj
        self._mbi, self._model = mbi, model

    @staticmethod
    def _sep(u: Attrs, v: Attrs) -> Attrs:
        return tuple(a for a in u if a in v)

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
