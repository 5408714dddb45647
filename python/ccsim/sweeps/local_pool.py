"""The local executor: a pool of spawned worker processes on this machine.

Workers ignore Ctrl-C (the parent cancels what has not started and stops them) and leave on their
own when the parent process is gone: a watchdog thread in each worker polls ``os.getppid()`` and
exits as soon as it changes, so killing the parent (even with SIGKILL) never leaves workers behind.
A worker that dies (killed, out of memory, a crash in native code) ends ``run`` with one
``WorkerDied`` line saying how, instead of the pool's ``BrokenProcessPool`` traceback.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

from .executors import OnResult, WorkerDied
from .runner import run_task

#: How often a worker checks that its parent is still alive, seconds.
WATCHDOG_INTERVAL_S = 0.2


def _worker_init(parent: int) -> None:
    """Runs first in every worker: ignore Ctrl-C, run on one thread (`ccsim.api.one_thread_each`),
    and exit when ``parent`` is no longer the parent."""
    from ..api import one_thread_each

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_thread_each()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCHDOG_INTERVAL_S)
        os._exit(1)

    threading.Thread(target=watch, name="ccsim-parent-watchdog", daemon=True).start()


def _noop(_: Any) -> None:
    return None


def how_it_ended(exit_codes: Sequence[int | None]) -> str:
    """How the worker that broke the pool ended. The pool SIGTERMs the others once one dies, so a
    code other than SIGTERM names the culprit."""
    ended = [c for c in exit_codes if c not in (None, 0)]
    code = next((c for c in ended if c != -signal.SIGTERM), ended[0] if ended else None)
    if code is None:
        return "cause unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


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

            self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"), initializer=_worker_init,
                                             initargs=(os.getpid(),))
        return self._pool

    def warm_up(self) -> None:
        """Starts the worker processes now (so a timing does not include their start)."""
        pool = self._get_pool()
        list(pool.map(_noop, range(self.workers)))

    def run(self, tasks: Sequence[dict[str, Any]], on_result: OnResult) -> None:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

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
        except BrokenProcessPool:
            raise WorkerDied(f"a local worker process died ({how_it_ended(self._kill())})") from None
        except BaseException:
            for f in running:
                f.cancel()
            self._kill()
            raise

    def _kill(self) -> list[int | None]:
        """Stops the pool now (terminating busy workers); returns the workers' exit codes."""
        pool, self._pool = self._pool, None
        if pool is None:
            return []
        procs = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
        # A broken pool's manager thread reaps the workers too: until it is done, a worker it is
        # reaping reads as still running (exit code None) here, and the culprit could go unnamed.
        if manager is not None:
            manager.join(timeout=5)
        return [p.exitcode for p in procs]

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["LocalExecutor", "WATCHDOG_INTERVAL_S"]
