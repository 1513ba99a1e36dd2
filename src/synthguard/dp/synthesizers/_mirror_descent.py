"""Private-PGM's estimation (mirror descent on a graphical model) in numpy, for AIM's rounds.

McKenna, Sheldon & Miklau (2019), "Graphical-model based estimation and inference for
differential privacy", Algorithm 1, as mbi 2.0's ``MirrorDescent`` (its default Armijo line
search on the step, or a fixed step):
the potentials θ live on the maximal cliques C of the measured marginals, the loss is
mbi's ``L(μ) = Σ_M ½ ‖(μ_{c_M} − y_M)/σ_M‖²`` over the measurements M (noisy counts y_M of
marginal c_M, noise σ_M), and each iteration computes the model's marginals μ = N·P_θ on the
cliques by belief propagation on the junction tree of the cliques (:class:`._junction.CliqueTree`,
shared with the fitted model's marginals and sampler) and steps
θ_C ← θ_C − α ∂L/∂μ_C from α = 2/(Lip · N), Lip = max_C Σ_{M→C} |C| / (|c_M| σ_M²) (mbi's
``calculate_l2_lipschitz_from_metadata``) and N mbi's minimum-variance estimate of the total.
A warm start adds the previous round's potentials onto the new cliques containing them (mbi's
``CliqueVector.expand``). The fixed step alone is far too short on AIM's models: refitting
AIM's final Adult model from scratch, 1000 fixed steps gave a 2-way error of 0.0385 and 2000
gave 0.0342; the line search lets the step grow by 1 % per accepted step, as mbi does.

Why not mbi's JAX implementation: AIM changes the model's structure every round, so JAX
compiles mbi's programs anew each round; on Adult that compilation was ~90 % of a round's time
(10–25 s per round on this loaded 2-core machine against about a second here), which capped
AIM at 8–16 rounds in a 3-minute budget. The result is returned as an mbi
``MarkovRandomField`` (mbi's junction tree, domain, measurements and model-size checks are
still used) and the tests check it against mbi's own estimate on the same measurements.
Post-processing of the noisy measurements only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from synthguard.dp.synthesizers._junction import CliqueTree, _align, _sum_to

__all__ = ["mirror_descent"]

Attrs = tuple[str, ...]


def _marginals(tree: CliqueTree, home: dict[Attrs, Attrs], theta: dict[Attrs, np.ndarray],
               total: float) -> dict[Attrs, np.ndarray]:
    """μ_C = total · P_θ(C) for every clique C of ``theta`` (gathered on its home node)."""
    logpot = {n: np.zeros([tree.sizes[a] for a in n]) for n in tree.nodes}
    for c, t in theta.items():
        h = home[c]
        logpot[h] = logpot[h] + _align(t, c, h)
    belief = tree.calibrate(logpot, total, list(dict.fromkeys(home.values())))
    return {c: _sum_to(belief[home[c]], home[c], c) for c in theta}


def _query_weights(measurement: Any, clique: Attrs, sizes: dict[str, int]) -> np.ndarray | None:
    """The weights w of a measurement of ``w · μ_c`` (mbi's ``WeightedQuery``, which its
    ``LinearMeasurement.compress`` makes when MST merges rare levels: ``w = 1/√(merged)``), or
    None for the plain marginal; any other query is refused."""
    query = getattr(measurement, "query", None)
    weights = getattr(query, "weights", None)
    if weights is not None:
        return np.asarray(weights, dtype=np.float64).reshape([sizes[a] for a in clique])
    if query is None or type(query).__name__ == "DatavectorQuery":  # mbi's identity
        return None
    raise TypeError(f"mirror_descent: unsupported query {type(query).__name__}")


def mirror_descent(mbi: Any, dom: Any, measurements: list[Any],
                   warm: dict[Attrs, np.ndarray] | None, iters: int, *,
                   line_search: bool = True, deadline: float | None = None,
                   clock: Callable[[], float] = time.monotonic,
                   callback: Callable[[int], None] | None = None, every: int = 50,
                   ) -> tuple[Any, dict[Attrs, np.ndarray]]:
    """Fit a Private-PGM model to ``measurements`` (mbi ``LinearMeasurement`` with identity
    or weighted queries) by ``iters`` mirror-descent steps from the potentials ``warm`` (a previous
    call's, or None); the mbi ``MarkovRandomField`` and its potentials (float64).

    ``line_search`` (mbi's default): Armijo's rule on the step, starting from α; a step is
    accepted when L(μ) − L(μ′) ≥ ½ α ⟨∇L(μ), μ − μ′⟩, and α then grows by 1 %, else the step
    is rejected and α halved. False: the fixed step α every iteration.

    ``deadline`` (a time of ``clock``): stop iterating once it has passed, with the model of the
    last accepted step. The fit is post-processing, so stopping early costs accuracy, never
    privacy; it is what lets AIM keep a time budget on a loaded machine (an iteration's time
    grows with the model and with the load, so no count of iterations fixed in advance can).
    ``callback(done)`` is called every ``every`` iterations and at the end (progress)."""
    cliques = [tuple(m.clique) for m in measurements]
    maximal = [tuple(c) for c in mbi.clique_utils.maximal_subset(cliques)]
    sizes = {a: int(dom[a]) for a in dom.attributes}
    route = [next(C for C in maximal if set(c) <= set(C)) for c in cliques]
    data = [(c, np.asarray(m.noisy_measurement, dtype=np.float64).reshape(
        [sizes[a] for a in c]), max(float(m.stddev), 1e-12), _query_weights(m, c, sizes))
        for c, m in zip(cliques, measurements)]
    total = max(1.0, float(mbi.estimation.minimum_variance_unbiased_total(measurements)))
    lip: dict[Attrs, float] = {}
    for (c, _y, sd, w), C in zip(data, route):
        ratio = float(np.prod([sizes[a] for a in C])) / float(np.prod([sizes[a] for a in c]))
        norm = 1.0 if w is None else float(np.max(w * w))  # ‖W‖² of a weighted query
        lip[C] = lip.get(C, 0.0) + ratio * norm / sd**2
    alpha = 2.0 / (max(lip.values()) * total)
    theta = {C: np.zeros([sizes[a] for a in C]) for C in maximal}
    for oc, values in (warm or {}).items():
        C = next(C for C in maximal if set(oc) <= set(C))
        theta[C] = theta[C] + _align(values, oc, C)
    tree = CliqueTree(mbi, dom, maximal)
    home = {C: tree.home(C) for C in maximal}

    def loss_grad(mu: dict[Attrs, np.ndarray]) -> tuple[float, dict[Attrs, np.ndarray]]:
        loss = 0.0
        grad = {C: np.zeros_like(t) for C, t in theta.items()}
        for (c, y, sd, w), C in zip(data, route):
            m = _sum_to(mu[C], C, c)
            diff = ((m if w is None else w * m) - y) / sd
            loss += 0.5 * float(np.sum(diff * diff))
            g = diff / sd if w is None else w * diff / sd
            grad[C] = grad[C] + _align(g, c, C)
        return loss, grad

    mu = _marginals(tree, home, theta, total)
    loss, grad = loss_grad(mu)
    for step in range(int(iters)):
        if deadline is not None and clock() >= deadline:
            break
        if callback is not None and step and step % every == 0:
            callback(step)
        trial = {C: theta[C] - alpha * grad[C] for C in theta}
        if not line_search:
            theta = trial
            mu = _marginals(tree, home, theta, total)
            loss, grad = loss_grad(mu)
            continue
        mu2 = _marginals(tree, home, trial, total)
        loss2, grad2 = loss_grad(mu2)
        decrease = 0.5 * alpha * sum(float(np.sum(grad[C] * (mu[C] - mu2[C]))) for C in theta)
        if loss - loss2 >= decrease:  # Armijo: accept and lengthen the step
            theta, mu, loss, grad = trial, mu2, loss2, grad2
            alpha *= 1.01
        else:  # reject and halve it
            alpha *= 0.5

    if callback is not None:
        callback(int(iters))

    def vector(tables: dict[Attrs, np.ndarray]) -> Any:
        return mbi.CliqueVector(dom, maximal, {
            C: mbi.Factor(dom.project(C), tables[C].astype(np.float32)) for C in maximal})

    model = mbi.MarkovRandomField(potentials=vector(theta), marginals=vector(mu), total=total)
    return model, theta
