"""A real Dask scheduler and workers as separate processes on 127.0.0.1, stopped by the caller.

Each process gets its own session (process group), so stopping one kills exactly what it started.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

BIN = Path(__file__).resolve().parent.parent / ".venv" / "bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaskProcesses:
    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        self.address = ""

    def _start(self, args: list[str], log: str) -> subprocess.Popen:
        f = open(self.log_dir / log, "w")
        p = subprocess.Popen([str(BIN / "dask"), *args], stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
                             cwd=self.log_dir)
        f.close()
        self.procs.append(p)
        return p

    def start(self, n_workers: int = 2, timeout: float = 60.0) -> str:
        port = free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        self._start(["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], "scheduler.log")
        for i in range(n_workers):
            # --no-nanny: a killed worker stays dead (a nanny would restart it)
            self.workers.append(self._start(
                ["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard",
                 "--name", f"w{i}"], f"worker{i}.log"))
        from dask.distributed import Client

        deadline = time.monotonic() + timeout
        while True:
            try:
                with Client(self.address, timeout=5) as c:
                    c.wait_for_workers(n_workers, timeout=max(1.0, deadline - time.monotonic()))
                return self.address
            except Exception:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the Dask scheduler and workers did not come up; logs in " + str(self.log_dir))
                time.sleep(0.5)

    def kill(self, p: subprocess.Popen) -> None:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.wait(timeout=10)

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill(p)


def still_alive(procs, timeout):
    """Those of `procs` (psutil processes) still running after up to `timeout` seconds."""
    import psutil

    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for q in procs:
            try:
                if q.is_running() and q.status() != psutil.STATUS_ZOMBIE:
                    alive.append(q)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def kill_session(p):
    """Kills the process session `p` (a Popen started with `start_new_session`) leads, and waits."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if p.returncode is None:
        p.communicate(timeout=30)
