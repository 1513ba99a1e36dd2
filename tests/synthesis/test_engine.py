"""The Synthesizer runs the block engine: a release equals the one made by calling
fit_block / draw_block by hand, per stratum, with the documented seeding; and the old module
name gives the same objects and releases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard._random import fit_generator, resolve_seed, spawn
from synthguard.errors import ParameterError
from synthguard.synthesis.encoding import to_working
from synthguard.synthesis.engine import (
    assemble_blocks,
    draw_block,
    fit_block,
    stratum_rows,
    thread_map,
)
from synthguard.synthesis.params import resolve_plan
from synthguard.synthesis.synthesizer import Synthesizer

# no release safeguards and no diagnostics: what is left is the engine's fit and draw
_PLAIN = {"replicated_uniques": "keep", "extremes": 0, "rare_values": 0}


def _by_hand(syn, data, seed):
    """One implicate made by the engine's public functions, seeded as the docs say."""
    plan = resolve_plan(syn, data)
    schema = plan.schema.columns
    arrays = {c: to_working(data[c], schema[c]) for c in plan.needed}
    row_blocks = stratum_rows(arrays, plan.strata)
    fit_rng, _ = fit_generator(syn.random_state)
    rngs = spawn(fit_rng, len(row_blocks) * len(plan.specs))
    s = len(plan.specs)
    blocks = [
        fit_block(arrays, rows if plan.strata else None, plan.specs, schema, None,
                  {c: arrays[c][rows[0]] for c in plan.strata}, rngs=rngs[b * s:(b + 1) * s])
        for b, rows in enumerate(row_blocks)
    ]
    (child,) = spawn(resolve_seed(seed)[0], 1)
    drawn = [
        draw_block(block, len(block.rows),
                   {c: np.full(len(block.rows), v) for c, v in block.stratum.items()},
                   schema, brng)
        for block, brng in zip(blocks, spawn(child, len(blocks)))
    ]
    return {c: np.concatenate([d[c] for d in drawn]) for c in plan.visit}, schema


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_stratified_release_is_fit_block_and_draw_block_per_stratum(mixed, n_jobs):
    kw = dict(strata="urban", visit_sequence=["region", "edu", "kids", "income"],
              methods={"income": "norm"}, random_state=4, n_jobs=n_jobs, **_PLAIN)
    syn = Synthesizer(**kw)
    release = syn.fit(mixed).sample(random_state=9, diagnostics=False).implicates[0]
    expected, schema = _by_hand(syn, mixed, 9)
    # the release is stratum after stratum, in sorted order of the stratum values
    order = np.argsort(release["urban"].to_numpy(), kind="stable")
    np.testing.assert_array_equal(order, np.arange(len(release)))
    for c, values in expected.items():
        got = to_working(release[c], schema[c])
        np.testing.assert_array_equal(got, values, err_msg=c)


def test_assemble_blocks_places_partial_records_at_their_rows(mixed):
    syn = Synthesizer(keep=["region"], strata="urban", visit_sequence=["kids", "share"],
                      methods={"kids": "sample", "share": "sample"}, random_state=2,
                      **_PLAIN).fit(mixed)
    schema = syn.schema_.columns
    tasks = [(b, len(b.rows), r) for b, r in zip(syn.blocks_, spawn(np.random.default_rng(1), 2))]
    out, row_block = assemble_blocks(
        tasks, lambda b, n: {c: a[b.rows] for c, a in syn.fixed_arrays_.items()}, schema,
        partial=True,
    )
    urban = mixed["urban"].to_numpy()
    # each record is drawn by the model of its own stratum and keeps its kept value
    np.testing.assert_array_equal(row_block, (urban == 1).astype(int))
    np.testing.assert_array_equal(out["region"], syn.fixed_arrays_["region"])
    np.testing.assert_array_equal(out["urban"], urban)


def test_thread_map_keeps_order_and_fit_block_wants_one_rng_per_spec(mixed):
    assert thread_map(lambda x: x * x, range(7), n_jobs=3) == [0, 1, 4, 9, 16, 25, 36]
    syn = Synthesizer(visit_sequence=["kids", "share"], random_state=1)
    plan = resolve_plan(syn, mixed)
    arrays = {c: to_working(mixed[c], plan.schema[c]) for c in plan.needed}
    with pytest.raises(ParameterError, match="rngs"):
        fit_block(arrays, None, plan.specs, plan.schema.columns, None,
                  rngs=[np.random.default_rng(0)])


def test_fit_block_keeps_the_specs_order_whatever_order_the_threads_fit_them(mixed):
    # threads take the columns with the most predictors first; the models come back in the
    # visit order, each fit with its own spec's Generator (the same as one thread's)
    syn = Synthesizer(visit_sequence=["region", "edu", "kids", "income"], random_state=1)
    plan = resolve_plan(syn, mixed)
    assert [len(s.predictors) for s in plan.specs] == [0, 1, 2, 3]
    arrays = {c: to_working(mixed[c], plan.schema[c]) for c in plan.needed}
    blocks = [fit_block(arrays, None, plan.specs, plan.schema.columns, None, n_jobs=jobs,
                        rngs=spawn(np.random.default_rng(3), len(plan.specs)))
              for jobs in (1, 3)]
    for one, three in zip(blocks[0].models, blocks[1].models, strict=True):
        assert one.target == three.target
    targets = [m.target for m in blocks[1].models]
    assert targets == [s.target for s in plan.specs]
    drawn = [draw_block(b, 300, {}, plan.schema.columns, np.random.default_rng(5)) for b in blocks]
    for c in targets:
        np.testing.assert_array_equal(drawn[0][c], drawn[1][c])


def test_the_old_module_name_gives_the_same_synthesizer_and_release(mixed):
    from synthguard.synthesis import sequential

    assert sequential.Synthesizer is Synthesizer
    assert sequential.fit_block is fit_block and sequential.draw_block is draw_block
    kw = dict(visit_sequence=["region", "kids", "income"], m=2, random_state=3)
    old = sequential.Synthesizer(**kw).fit(mixed).sample(diagnostics=False)
    new = Synthesizer(**kw).fit(mixed).sample(diagnostics=False)
    for a, b in zip(old.implicates, new.implicates, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_thread_map_leaves_the_callers_warning_filters_as_they_were():
    """Two tasks that each silence warnings with catch_warnings, interleaved so that the
    first restores its saved filters before the second: the second's restore would put the
    first's "ignore" back for good. thread_map restores the caller's filters."""
    import threading
    import warnings

    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def task(name: str) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "a":
                a_in.set()
                assert b_in.wait(10)
            else:
                assert a_in.wait(10)
                b_in.set()
                assert a_out.wait(10)
        if name == "a":
            a_out.set()
        return name

    before = list(warnings.filters)
    assert thread_map(task, ["a", "b"], n_jobs=2) == ["a", "b"]
    assert warnings.filters == before


def _blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_thread_map_runs_blas_in_one_thread_and_restores_it():
    import threading

    from threadpoolctl import threadpool_limits

    from synthguard.synthesis.engine import single_threaded_blas, thread_map

    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        assert thread_map(lambda _: _blas_threads(), range(4), n_jobs=2) == [{1}] * 4
        assert thread_map(lambda _: _blas_threads(), range(1), n_jobs=1) == [{1}]
        assert _blas_threads() == before
        # a section nested in another thread (a stratum's columns inside the strata's map)
        # ends first: the outer one still runs in one thread until it ends
        with single_threaded_blas():
            t = threading.Thread(target=lambda: thread_map(lambda _: None, range(2), 2))
            t.start()
            t.join()
            assert _blas_threads() == {1}
        assert _blas_threads() == before
