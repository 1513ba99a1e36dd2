"""On a LocalCluster, a worker killed while the risk shuffle runs does not change the result:
distributed reruns the lost tasks (its own fault tolerance) and the answer is still the
pandas answer, bit for bit."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from synthguard import risk as pandas_risk

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
scale_risk = pytest.importorskip("synthguard.scale.risk")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402


def _kill_one_worker_when_busy(cluster, client, done: threading.Event, killed: list) -> None:
    """Close (abruptly: no waiting for its running task) the first worker seen running a
    task of the risk computation's last stage."""
    deadline = time.monotonic() + 20
    while not done.is_set() and time.monotonic() < deadline:
        busy = [
            w for w, tasks in client.processing().items() if any("block" in str(t) for t in tasks)
        ]
        if busy:
            worker = next(w for w in cluster.workers.values() if w.address == busy[0])
            cluster.loop.add_callback(worker.close, executor_wait=False)
            killed.append(busy[0])
            return
        time.sleep(0.002)


def test_worker_killed_mid_task_gives_the_same_risk():
    conf = tied_frame(20_000, 31)
    syn = perturbed(conf, 32)
    expected = pandas_risk.identification_risk(
        conf, syn, keys=["sex", "region"], targets="income", singletons="one"
    )
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
        dask.config.set(scheduler="distributed"),
    ):
        done = threading.Event()
        killed: list[str] = []
        killer = threading.Thread(
            target=_kill_one_worker_when_busy, args=(cluster, client, done, killed)
        )
        killer.start()
        try:
            got = scale_risk.identification_risk(
                dd.from_pandas(conf, npartitions=4),
                dd.from_pandas(syn, npartitions=4),
                keys=["sex", "region"],
                targets="income",
                singletons="one",
                npartitions=4,
            )
        finally:
            done.set()
            killer.join()
    assert killed, "no worker was busy long enough to be killed"
    assert np.array_equal(got.per_record, expected.per_record)
    assert np.array_equal(got.pattern, expected.pattern)
    assert got.mean == expected.mean
