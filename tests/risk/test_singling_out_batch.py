"""The batched answer to equality queries on categorical columns (``_Index.singles_out_many``)
equals a brute-force count of the matching rows, including missing codes, codes no row holds
and mixed numeric queries (which take the one-by-one path)."""

from __future__ import annotations

import numpy as np

from synthguard.risk.singling_out import _Index


def _brute(v: np.ndarray, numeric: tuple[bool, ...], query) -> bool:
    hit = np.ones(v.shape[0], dtype=bool)
    for j, op, val in query:
        x = v[:, j]
        miss = np.isnan(x) if numeric[j] else x < 0
        if op == "isnull":
            hit &= miss
        elif op == "eq":
            hit &= (x == val) & ~miss
        elif op == "ge":
            hit &= (x >= val) & ~miss
        else:
            hit &= (x <= val) & ~miss
    return int(hit.sum()) == 1


def test_batched_equality_queries_equal_brute_force():
    rng = np.random.default_rng(7)
    n, p = 150, 5
    v = rng.integers(-1, 4, size=(n, p)).astype(np.float64)  # -1: missing
    v[:, 4] = np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n).round(1))
    numeric = (False, False, False, False, True)
    queries = []
    for _ in range(3000):
        cols = sorted(rng.choice(p, size=int(rng.integers(1, 4)), replace=False))
        terms = []
        for j in cols:
            if numeric[j]:
                terms.append((int(j), "ge" if rng.random() < 0.5 else "le", float(rng.normal())))
            elif rng.random() < 0.15:
                terms.append((int(j), "isnull", 0.0))
            else:  # code 5 is held by no row: it must never match
                terms.append((int(j), "eq", float(rng.integers(0, 6))))
        queries.append(tuple(terms))
    got = _Index(v, numeric).singles_out_many(queries)
    want = np.array([_brute(v, numeric, q) for q in queries])
    assert got.dtype == bool and np.array_equal(got, want)
    assert 50 < want.sum() < len(queries)  # both answers occur
    cat_only = [i for i, q in enumerate(queries) if len(q) > 1 and all(t[0] < 4 for t in q)]
    assert want[cat_only].sum() > 10  # the batched path is exercised with positive answers
