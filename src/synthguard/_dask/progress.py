"""Compute Dask collections and report progress as the scheduler sees it.

The library never prints: a caller passes ``progress(done, total)`` (the CLI renders it in
its progress bar). On a :class:`distributed.Client` the counts come from the scheduler
(tasks finished / tasks in the graph, the figures of Dask's own dashboard); on Dask's local
schedulers from a scheduler callback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "compute"]

#: ``progress(done, total)``: tasks finished and tasks in all.
Progress = Callable[[int, int], None]


def _client() -> Any:
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover - dask without distributed
        return None
    try:
        return default_client()
    except ValueError:
        return None


def compute(*collections: Any, progress: Progress | None = None) -> tuple[Any, ...]:
    """``dask.compute(*collections)``, calling ``progress(done, total)`` as tasks finish."""
    import dask

    if progress is None:
        return tuple(dask.compute(*collections))
    report: Progress = progress  # bound once: the nested classes below call it
    client = _client()
    if client is not None and dask.config.get("scheduler", None) in (None, "dask.distributed"):
        from distributed.diagnostics.progressbar import TextProgressBar

        class _Feed(TextProgressBar):  # type: ignore[misc]
            def _draw_bar(self, remaining: int, all: int, **kwargs: Any) -> None:
                report(int(all) - int(remaining), int(all))

            def _draw_stop(self, **kwargs: Any) -> None:
                pass

        futures = client.compute(list(collections))
        _Feed(futures, scheduler=client.scheduler.address, interval="200ms")
        return tuple(client.gather(futures))
    from dask.callbacks import Callback

    class _Count(Callback):  # type: ignore[misc]
        total = 0

        def _start_state(self, dsk: Any, state: Any) -> None:
            self.total = sum(len(state[k]) for k in ("ready", "waiting", "running", "finished"))
            report(len(state["finished"]), self.total)

        def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
            report(len(state["finished"]), self.total)

    with _Count():
        return tuple(dask.compute(*collections))
