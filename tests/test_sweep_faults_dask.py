"""The Dask executor's failure paths with real processes: a scheduler without workers (at the start,
or after its only worker is killed) ends the sweep with one line naming the scheduler and the wait;
an invalid --scheduler is one line (exit 2); Ctrl-C on a LocalCluster sweep prints one line and no
worker tracebacks."""

import inspect
import os
import signal
import socket
import subprocess
import threading
import time

import psutil
import pytest

from ccsim.sweeps import DaskExecutor, NoWorkers, Store, run_sweep
from ccsim.sweeps.dask_cluster import WORKER_WAIT_S

from .dask_procs import DaskProcesses, free_port, kill_session, still_alive

PLAN = {
    "name": "dask-faults",
    "scenario": "abr-benchmarks/one-at-a-time",
    "metrics": ["fairness_index"],
    "set": {"run.duration": "5s", "run.measure_from": "4.9s"},
    "axis": [{"path": "source[0].count", "range": {"start": 13, "stop": 20, "step": 1}}],
}


def in_thread(fn):
    """fn() in a daemon thread (the caller bounds the wait); the box gets its result or error."""
    box = {}

    def go():
        try:
            box["result"] = fn()
        except BaseException as e:  # surfaced by the caller
            box["error"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, box


def sweep_on(address, out):
    ex = DaskExecutor(scheduler=address, worker_wait=2)
    try:
        return run_sweep(PLAN, executor=ex, out=out)
    finally:
        ex.close()


def start_scheduler(procs: DaskProcesses, timeout=60.0) -> str:
    """A `dask scheduler` alone; returns its address once it accepts connections."""
    port = free_port()
    procs._start(["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], "scheduler.log")
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return f"tcp://127.0.0.1:{port}"
        except OSError:
            assert time.monotonic() < deadline, "the scheduler did not come up"
            time.sleep(0.2)


def test_the_worker_wait_is_a_named_default():
    assert inspect.signature(DaskExecutor).parameters["worker_wait"].default == WORKER_WAIT_S == 60.0


def test_a_scheduler_without_workers_times_out_naming_it(tmp_path):
    procs = DaskProcesses(tmp_path)
    try:
        address = start_scheduler(procs)
        t, box = in_thread(lambda: sweep_on(address, tmp_path / "s"))
        t.join(90)
        assert not t.is_alive(), "the sweep still waits for a worker"
    finally:
        procs.stop()
    assert isinstance(box.get("error"), NoWorkers), box
    assert str(box["error"]) == (
        f"the Dask scheduler {address} has no workers: waited 2 s for one to connect (start some with "
        f"`dask worker {address}`); 0 of 8 runs stored; re-run the same command to resume")


def test_losing_the_only_worker_times_out_too(tmp_path):
    procs = DaskProcesses(tmp_path)
    out = tmp_path / "s"
    try:
        address = procs.start(1)
        t, box = in_thread(lambda: sweep_on(address, out))
        store = Store(out)
        deadline = time.monotonic() + 60
        while not store.done() and t.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert store.done() and t.is_alive(), "the sweep ended (or stored nothing) before the worker could be killed"
        procs.kill(procs.workers[0])
        t.join(90)
        assert not t.is_alive(), "the sweep still waits for a worker"
    finally:
        procs.stop()
    assert isinstance(box.get("error"), NoWorkers), box
    assert f"the Dask scheduler {address} has no workers: waited 2 s" in str(box["error"])


@pytest.mark.parametrize("address", ["not-an-address", "tcp://127.0.0.1:99999", "127.0.0.1"])
def test_an_invalid_scheduler_address_is_one_line(tmp_path, cli, env, address):
    plan = tmp_path / "plan.toml"
    plan.write_text('scenario = "abr-benchmarks/two-sources"\nmetrics = ["fairness_index"]\n')
    p = subprocess.run(cli + ["sweep", str(plan), "--executor", "dask", "--scheduler", address, "--out",
                              str(tmp_path / "s")], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr == f"error: --scheduler {address!r}: not a valid scheduler address; expected tcp://HOST:PORT\n"


def test_ctrl_c_on_a_local_cluster_is_one_line(tmp_path, cli, env):
    plan = tmp_path / "plan.toml"
    plan.write_text("\n".join([
        'name = "dask-ctrl-c"', 'scenario = "abr-benchmarks/one-at-a-time"', 'metrics = ["fairness_index"]',
        '[set]', '"run.duration" = "5s"', '"run.measure_from" = "4.9s"',
        '[[axis]]', 'path = "source[0].count"', 'range = { start = 13, stop = 20, step = 1 }']))
    out = tmp_path / "s"
    # a terminal's Ctrl-C: SIGINT to the whole foreground process group, workers included
    p = subprocess.Popen(cli + ["sweep", str(plan), "--executor", "dask", "--workers", "2", "--out", str(out)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        store = Store(out)
        deadline = time.monotonic() + 90
        while not store.done() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert store.done() and p.poll() is None, "the sweep ended (or stored nothing) before it could be interrupted"
        kids = psutil.Process(p.pid).children(recursive=True)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=90)
        left = still_alive(kids, timeout=15)
    finally:
        kill_session(p)
    assert p.returncode == 130, err
    assert err == "error: interrupted\n"
    assert not left, f"outlived the interrupted sweep: {[q.cmdline() for q in left]}"
