"""One place where user-facing ``random_state`` becomes a ``numpy.random.Generator``.

Every random function in synthguard takes ``random_state`` (None, an int, a
``numpy.random.SeedSequence`` or a ``numpy.random.Generator``) and calls
:func:`check_random_state` once; only Generators are passed around inside.
:func:`resolve_seed` additionally returns the integer seed actually used, so
results can store it (as synthpop stores its seed) and a run can be repeated.
"""

from __future__ import annotations

import numbers

import numpy as np

from synthguard.errors import ParameterError

__all__ = [
    "RandomState",
    "check_random_state",
    "copy_seed_sequence",
    "fit_generator",
    "resolve_seed",
    "spawn",
]

RandomState = int | np.random.Generator | np.random.SeedSequence | None


def copy_seed_sequence(ss: np.random.SeedSequence) -> np.random.SeedSequence:
    """A copy of ``ss`` that generates the same state and spawns the same children as ``ss``
    would now. ``SeedSequence.spawn`` advances a counter on the object, so seeding from the
    user's object itself would give another release on every call with it."""
    return np.random.SeedSequence(
        ss.entropy,
        spawn_key=ss.spawn_key,
        pool_size=ss.pool_size,
        n_children_spawned=ss.n_children_spawned,
    )


def check_random_state(random_state: RandomState) -> np.random.Generator:
    """Return a Generator for ``random_state``.

    None gives fresh OS entropy (there is no hidden fixed seed); an int or a
    SeedSequence seeds a new PCG64 Generator (from a copy of the SeedSequence, so the same
    SeedSequence gives the same output each time); a Generator is returned as is (so the
    caller's stream advances).
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(copy_seed_sequence(random_state))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise ParameterError(
                "parameter 'random_state': expected a non-negative integer seed; "
                "pass a seed >= 0, a numpy Generator or None"
            )
        return np.random.default_rng(int(random_state))
    raise ParameterError(
        f"parameter 'random_state': expected None, an int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}; pass an int seed for reproducible output"
    )


def resolve_seed(random_state: RandomState) -> tuple[np.random.Generator, int | None]:
    """Return ``(generator, seed)`` where ``seed`` reproduces the run when passed again.

    For None a seed is drawn from OS entropy and returned, so even an unseeded
    run records how to repeat it. For a Generator the seed cannot be known and
    ``None`` is returned.
    """
    if random_state is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
        return np.random.default_rng(seed), seed
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return check_random_state(random_state), int(random_state)
    return check_random_state(random_state), None


def spawn(rng: np.random.Generator, n: int) -> list[np.random.Generator]:
    """``n`` independent child Generators of ``rng`` (for implicates, strata, partitions)."""
    return list(rng.spawn(n))


#: Spawn key of the fit stream: far from the keys (0, 1, ...) of the implicates' children,
#: so the fit and the draws of one seed use unrelated streams.
_FIT_KEY = 0x5EEDF17


def fit_generator(random_state: RandomState) -> tuple[np.random.Generator, int | None]:
    """Return ``(generator, seed)`` for the random steps of a fit (an MCMC chain, a split).

    The stream is derived from ``random_state`` by a fixed spawn key, so a fit with seed
    ``s`` is reproduced by seed ``s`` and does not share the stream that ``sample`` draws
    from with the same seed. None draws a seed from OS entropy and returns it (as
    :func:`resolve_seed`); a Generator gives one spawned child and seed None.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state.spawn(1)[0], None
    if isinstance(random_state, np.random.SeedSequence):
        ss = np.random.SeedSequence(
            random_state.entropy, spawn_key=(*random_state.spawn_key, _FIT_KEY)
        )
        return np.random.default_rng(ss), None
    _, seed = resolve_seed(random_state)  # validates; draws a seed for None
    assert seed is not None
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_FIT_KEY,))), seed
