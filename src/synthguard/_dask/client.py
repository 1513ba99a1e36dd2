"""Where the Dask work runs: ``--dask local[:N]``, ``tcp://host:port`` or ``sync``.

A *target* names an existing Dask engine; synthguard starts no scheduler of its own:

- ``local`` or ``local:N``: a :class:`distributed.LocalCluster` on this machine with ``N``
  single-threaded worker processes (default: Dask's choice from the cores);
- ``tcp://host:port`` (or ``tls://``, ``ws://``, ``wss://``): the scheduler of a cluster a
  user already runs (``dask scheduler`` / ``dask worker``, dask-jobqueue, Kubernetes, ...);
- ``sync``: Dask's synchronous scheduler in this process, for debugging and tests.

>>> parse_dask("local:2")
DaskTarget(kind='local', n_workers=2, address=None)
>>> parse_dask("tcp://10.0.0.5:8786").address
'tcp://10.0.0.5:8786'
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from synthguard.errors import ParameterError

__all__ = ["DaskTarget", "dask_session", "parse_dask"]

_SCHEMES = ("tcp://", "tls://", "ws://", "wss://", "inproc://")

#: What ``--dask`` accepts, for messages.
DASK_FORMS = "local, local:N (N worker processes), tcp://HOST:PORT or sync"


@dataclass(frozen=True)
class DaskTarget:
    """A parsed ``--dask`` value: ``kind`` is ``"local"``, ``"remote"`` or ``"sync"``."""

    kind: str
    n_workers: int | None = None
    address: str | None = None


def parse_dask(spec: str, *, option: str = "option --dask") -> DaskTarget:
    """Parse ``local``, ``local:N``, ``tcp://host:port`` (other Dask schemes too) or ``sync``.

    Raises
    ------
    ParameterError
        Anything else; the message lists the accepted forms.
    """
    text = str(spec).strip()
    low = text.lower()
    if low == "sync":
        return DaskTarget("sync")
    if low == "local":
        return DaskTarget("local")
    if low.startswith("local:"):
        count = text.split(":", 1)[1].strip()
        if not count.isdigit() or int(count) < 1:
            raise ParameterError(
                f"{option}: 'local:N' needs N, the number of workers, as a whole number >= 1; "
                f"accepted: {DASK_FORMS}"
            )
        return DaskTarget("local", n_workers=int(count))
    if low.startswith(_SCHEMES):
        rest = text.split("://", 1)[1]
        host, sep, port = rest.rpartition(":")
        if low.startswith("inproc://") or (sep and host and port.isdigit()):
            return DaskTarget("remote", address=text)
        raise ParameterError(
            f"{option}: a scheduler address needs a host and a port, e.g. tcp://10.0.0.5:8786"
        )
    raise ParameterError(f"{option}: unknown Dask target; accepted: {DASK_FORMS}")


@contextlib.contextmanager
def dask_session(
    target: DaskTarget | str,
    *,
    memory_limit: str | None = None,
    threads_per_worker: int = 1,
) -> Iterator[Any]:
    """Run the enclosed Dask work on ``target``; yields the :class:`distributed.Client`
    (None for ``sync``).

    A ``local`` target starts a :class:`distributed.LocalCluster` (worker processes, so the
    models' GIL-holding Python code runs in parallel) and closes it on exit; a remote target
    connects to its scheduler and leaves the cluster running; ``sync`` sets Dask's synchronous
    scheduler for the block.
    """
    if isinstance(target, str):
        target = parse_dask(target)
    import dask

    if target.kind == "sync":
        with dask.config.set(scheduler="synchronous"):
            yield None
        return
    from distributed import Client, LocalCluster

    if target.kind == "local":
        kw: dict[str, Any] = {"threads_per_worker": threads_per_worker, "processes": True,
                              "dashboard_address": ":0", "silence_logs": logging.ERROR}
        if target.n_workers is not None:
            kw["n_workers"] = target.n_workers
        if memory_limit is not None:
            kw["memory_limit"] = memory_limit
        with LocalCluster(**kw) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(target.address, timeout="20s")
    except OSError as exc:
        raise ParameterError(
            f"option --dask: no Dask scheduler answered at {target.address}; start one "
            f"(dask scheduler) or check the address"
        ) from exc
    with client:
        yield client
