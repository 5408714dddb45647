"""Executors: where sweep tasks run. One interface, two implementations, and their errors.

``executor.run(tasks, on_result)`` runs every task (a dict for ``runner.run_task``) and calls
``on_result(row)`` in the calling process as each finishes, in completion order. The caller writes
the row to the store, so results never depend on which executor ran them: a task's seed is in the
task. ``executor.close()`` releases the workers.

- ``LocalExecutor(workers)`` (``local_pool.py``): a pool of ``workers`` processes on this machine
  (default: every core).
- ``DaskExecutor(scheduler=ADDRESS)`` or ``DaskExecutor(workers=N)`` (``dask_cluster.py``): a running
  Dask scheduler and its workers, or a ``LocalCluster`` started and stopped here.

When the workers cannot finish the tasks, ``run`` raises an ``ExecutorError`` with a one-line message
(the driver adds how many runs are stored and how to resume).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..errors import CcsimError, ScenarioError

OnResult = Callable[[dict[str, Any]], None]


class ExecutorError(CcsimError):
    """The executor could not run the tasks; the runs already stored stay."""


class WorkerDied(ExecutorError):
    """A local worker process ended abruptly (killed, out of memory, a crash in native code)."""


class NoWorkers(ExecutorError):
    """A Dask scheduler had no worker for longer than the executor waits."""


class Executor(Protocol):
    name: str

    def run(self, tasks: Sequence[dict[str, Any]], on_result: OnResult) -> None: ...

    def close(self) -> None: ...


def make_executor(kind: str = "local", *, workers: int | None = None, scheduler: str | None = None) -> Executor:
    if kind == "local":
        if scheduler:
            raise ScenarioError("--scheduler needs --executor dask")
        from .local_pool import LocalExecutor

        return LocalExecutor(workers)
    if kind == "dask":
        from .dask_cluster import DaskExecutor

        return DaskExecutor(scheduler=scheduler, workers=workers)
    raise ScenarioError(f"unknown executor {kind!r} (local or dask)")


__all__ = ["Executor", "ExecutorError", "WorkerDied", "NoWorkers", "make_executor"]
