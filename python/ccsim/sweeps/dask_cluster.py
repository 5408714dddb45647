"""The Dask executor: sweep tasks on a running Dask scheduler's workers, or on a LocalCluster.

``DaskExecutor(scheduler="tcp://HOST:PORT")`` uses a running scheduler (``dask scheduler`` plus
``dask worker`` processes); ``DaskExecutor(workers=N)`` starts a ``LocalCluster`` of N single-
threaded worker processes on 127.0.0.1 and stops it on ``close()``. Tasks whose worker dies are
re-run by the scheduler elsewhere (``retries=2``); the client keeps one result per task.

Failure paths, each one line:

- an address that is not ``[PROTOCOL://]HOST:PORT`` (tcp, tls, ws, wss, ucx) is refused before connecting;
- a scheduler without workers is waited on for ``worker_wait`` seconds (``WORKER_WAIT_S``), at the
  start and whenever results stop coming and no worker is connected, then ``NoWorkers`` names the
  scheduler and the wait;
- Ctrl-C: a LocalCluster's worker processes share the terminal's process group, so they ignore
  SIGINT (``dask_setup``, run in each as a preload); the client cancels the tasks and closes them,
  without the workers' tracebacks.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

from .._extras import require
from ..errors import ScenarioError
from .executors import ExecutorError, NoWorkers, OnResult
from .runner import run_task

#: How long a sweep waits for a scheduler without workers to get one, seconds.
WORKER_WAIT_S = 60.0
#: With no result for this long, the client checks that some worker is still connected, seconds.
_QUIET_CHECK_S = 2.0

_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")


def check_address(address: str) -> str:
    """The scheduler address, if it is ``[PROTOCOL://]HOST:PORT``; ``ScenarioError`` if not."""
    m = _ADDRESS.fullmatch(address.strip())
    if m is None or not 0 < int(m.group(1)) < 65536:
        raise ScenarioError(f"--scheduler {address!r}: not a valid scheduler address; expected tcp://HOST:PORT")
    return address.strip()


def dask_setup(worker: Any) -> None:
    """Preload of the LocalCluster's workers (Dask calls it as each starts): Ctrl-C in the terminal
    reaches their process group too, but the client stops them, so they ignore it. Each runs on one
    thread (`ccsim.api.one_thread_each`): the cluster's workers fill the cores."""
    from ..api import one_thread_each

    one_thread_each()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _noop(_: Any) -> None:
    return None


class DaskExecutor:
    """Dask distributed: an existing scheduler, or a LocalCluster started (and stopped) here."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int | None = None, client: Any = None,
                 timeout: float = 30.0, worker_wait: float = WORKER_WAIT_S):
        if scheduler:
            scheduler = check_address(scheduler)
        distributed = require("dask.distributed", "dask", "the Dask executor")
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
        self.worker_wait = worker_wait
        self._cluster = None
        self._own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler:
            try:
                self.client = Client(scheduler, timeout=timeout)
            except OSError as e:
                raise ExecutorError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None
        else:
            n = max(1, workers or os.cpu_count() or 1)
            # silence_logs: the workers would log a warning for each task an interrupt cancels, and a
            # traceback for a heartbeat that races the shutdown (task errors reach the client anyway)
            self._cluster = LocalCluster(processes=True, n_workers=n, threads_per_worker=1, host="127.0.0.1",
                                         dashboard_address=None, silence_logs=logging.CRITICAL, preload=[__name__])
            self.client = Client(self._cluster, timeout=timeout)
        self.address = self.client.scheduler.address

    def warm_up(self) -> None:
        self.client.wait_for_workers(1)
        self.client.run(_noop, None)

    def _require_workers(self) -> None:
        """Returns once a worker is connected; ``NoWorkers`` after ``worker_wait`` seconds without."""
        if self.client.nthreads():
            return
        try:
            self.client.wait_for_workers(1, timeout=self.worker_wait)
        except TimeoutError:
            raise NoWorkers(f"the Dask scheduler {self.address} has no workers: waited {self.worker_wait:g} s for one "
                            f"to connect (start some with `dask worker {self.address}`)") from None

    def run(self, tasks: Sequence[dict[str, Any]], on_result: OnResult) -> None:
        import uuid

        from dask.distributed import as_completed

        if not tasks:
            return
        self._require_workers()
        batch = uuid.uuid4().hex[:8]
        futures = [
            self.client.submit(run_task, t, key=f"ccsim-{batch}-p{t['point']}-r{t['replication']}", pure=False, retries=2)
            for t in tasks
        ]
        try:
            ready = as_completed(futures)
            quiet_since = time.monotonic()
            while not ready.is_empty():
                finished = ready.next_batch(block=False)
                if not finished:
                    if time.monotonic() - quiet_since > _QUIET_CHECK_S:
                        self._require_workers()
                        quiet_since = time.monotonic()
                    time.sleep(0.05)
                    continue
                quiet_since = time.monotonic()
                for f in finished:
                    on_result(f.result())
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self) -> None:
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


__all__ = ["DaskExecutor", "WORKER_WAIT_S", "check_address"]
