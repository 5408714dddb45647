"""Executors: where sweep tasks run. One interface, two implementations.

``executor.run(tasks, on_result)`` runs every task (a dict for ``runner.run_task``) and calls
``on_result(row)`` in the calling process as each finishes, in completion order. The caller writes
the row to the store, so results never depend on which executor ran them: a task's seed is in the
task.

- ``LocalExecutor(workers)``: a pool of ``workers`` processes on this machine (default: every core).
  Workers ignore Ctrl-C; the parent cancels what has not started, stops the workers and re-raises.
- ``DaskExecutor(scheduler=ADDRESS)``: a running Dask scheduler (``dask scheduler`` plus
  ``dask worker`` processes); ``DaskExecutor(workers=N)`` starts a ``LocalCluster`` of N single-
  threaded worker processes on 127.0.0.1 and stops it on ``close()``. Tasks whose worker dies are
  re-run by the scheduler elsewhere; the client keeps the first result of each task.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .runner import run_task

OnResult = Callable[[dict[str, Any]], None]


class Executor(Protocol):
    name: str

    def run(self, tasks: Sequence[dict[str, Any]], on_result: OnResult) -> None: ...

    def close(self) -> None: ...


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalExecutor:
    """A local process pool (spawned processes: no state inherited from the parent)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool = None

    def _get_pool(self):
        if self._pool is None:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"), initializer=_ignore_sigint)
        return self._pool

    def warm_up(self) -> None:
        """Starts the worker processes now (so a timing does not include their start)."""
        pool = self._get_pool()
        list(pool.map(_noop, range(self.workers)))

    def run(self, tasks: Sequence[dict[str, Any]], on_result: OnResult) -> None:
        from concurrent.futures import FIRST_COMPLETED, wait

        if not tasks:
            return
        pool = self._get_pool()
        pending_tasks = list(tasks)
        running = set()
        try:
            # keep at most 2 tasks per worker queued, so an interrupt has little to cancel
            while pending_tasks or running:
                while pending_tasks and len(running) < 2 * self.workers:
                    running.add(pool.submit(run_task, pending_tasks.pop(0)))
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    on_result(f.result())
        except BaseException:
            for f in running:
                f.cancel()
            self._kill()
            raise

    def _kill(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        procs = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _noop(_: Any) -> None:
    return None


class DaskExecutor:
    """Dask distributed: an existing scheduler, or a LocalCluster started (and stopped) here."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int | None = None, client: Any = None,
                 timeout: float = 30.0):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - dask is a dependency
            raise RuntimeError("the Dask executor needs dask[distributed]: pip install 'dask[distributed]'") from e
        self._cluster = None
        self._own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler:
            self.client = Client(scheduler, timeout=timeout)
        else:
            n = max(1, workers or os.cpu_count() or 1)
            self._cluster = LocalCluster(processes=True, n_workers=n, threads_per_worker=1, host="127.0.0.1",
                                         dashboard_address=None)
            self.client = Client(self._cluster, timeout=timeout)

    def warm_up(self) -> None:
        self.client.wait_for_workers(1)
        self.client.run(_noop, None)

    def run(self, tasks: Sequence[dict[str, Any]], on_result: OnResult) -> None:
        import uuid

        from dask.distributed import as_completed

        if not tasks:
            return
        batch = uuid.uuid4().hex[:8]
        futures = [
            self.client.submit(run_task, t, key=f"ccsim-{batch}-p{t['point']}-r{t['replication']}", pure=False, retries=2)
            for t in tasks
        ]
        seen = set()
        try:
            for f in as_completed(futures):
                row = f.result()
                key = (row["point"], row["replication"])
                if key in seen:  # pragma: no cover - as_completed yields each future once
                    continue
                seen.add(key)
                on_result(row)
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self) -> None:
        import logging

        # a LocalCluster's workers log a traceback for the heartbeat that races its shutdown
        quiet = [logging.getLogger(n) for n in ("distributed.worker", "distributed.core", "distributed.nanny")]
        levels = [lg.level for lg in quiet]
        for lg in quiet:
            lg.setLevel(logging.CRITICAL)
        try:
            if self._own_client:
                self.client.close()
            if self._cluster is not None:
                self._cluster.close()
        finally:
            for lg, lv in zip(quiet, levels):
                lg.setLevel(lv)


def make_executor(kind: str = "local", *, workers: int | None = None, scheduler: str | None = None):
    if kind == "local":
        if scheduler:
            raise ValueError("--scheduler needs --executor dask")
        return LocalExecutor(workers)
    if kind == "dask":
        return DaskExecutor(scheduler=scheduler, workers=workers)
    raise ValueError(f"unknown executor {kind!r} (local or dask)")


__all__ = ["Executor", "LocalExecutor", "DaskExecutor", "make_executor"]
