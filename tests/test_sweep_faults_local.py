"""The local executor under real signals: a SIGKILLed worker ends the sweep with one line and a re-run
resumes it; SIGTERM to the parent stops the workers and says how many runs are stored (exit 143);
SIGKILL to the parent leaves no worker or resource tracker behind.

Each sweep runs in its own session, which the test kills at the end, so nothing outlives a test."""

import json
import os
import signal
import subprocess
import time

import psutil
import pytest

from ccsim.sweeps import Store

from .dask_procs import kill_session, still_alive

PLAN = """
name = "faults"
scenario = "abr-benchmarks/one-at-a-time"
seed = 5
metrics = ["fairness_index", "sources[S1].acr_mbps"]

[set]
"run.duration" = "5s"
"run.measure_from" = "4.9s"

[[axis]]
path = "source[0].count"
range = { start = 13, stop = 20, step = 1 }
"""
RUNS = 8


@pytest.fixture
def plan(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text(PLAN)
    return path


def start(cli, env, plan, out):
    return subprocess.Popen(cli + ["sweep", str(plan), "--workers", "2", "--out", str(out)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_a_run(p, out, timeout=60.0):
    """Waits until the sweep has stored a run (its workers are then busy with the next ones)."""
    store = Store(out)
    deadline = time.monotonic() + timeout
    while not store.done() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert p.poll() is None, "the sweep ended before it could be disturbed"
    assert store.done(), "no run was stored within the time limit"


def helpers(p):
    """The sweep's child processes: (workers, every child including the resource tracker)."""
    kids = psutil.Process(p.pid).children(recursive=True)
    workers = [k for k in kids if "spawn_main" in " ".join(k.cmdline())]
    assert len(workers) == 2, [k.cmdline() for k in kids]
    return workers, kids


def test_killed_worker_is_one_line_and_a_rerun_resumes(tmp_path, cli, env, plan):
    out = tmp_path / "s"
    p = start(cli, env, plan, out)
    try:
        wait_for_a_run(p, out)
        workers, _ = helpers(p)
        workers[0].send_signal(signal.SIGKILL)
        _, err = p.communicate(timeout=60)
    finally:
        kill_session(p)
    stored = len(Store(out).done())
    assert p.returncode == 1, err
    assert err == (f"error: a local worker process died (killed by SIGKILL); {stored} of {RUNS} runs stored; "
                   "re-run the same command to resume\n")
    assert 1 <= stored < RUNS

    again = subprocess.run(cli + ["sweep", str(plan), "--workers", "2", "--out", str(out), "--json"], env=env,
                           capture_output=True, text=True, timeout=180)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["completed"] == RUNS - stored
    assert json.loads(again.stdout)["skipped"] == stored


def test_sigterm_to_the_parent_stops_the_workers_with_one_line(tmp_path, cli, env, plan):
    out = tmp_path / "s"
    p = start(cli, env, plan, out)
    try:
        wait_for_a_run(p, out)
        _, kids = helpers(p)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        left = still_alive(kids, timeout=15)
    finally:
        kill_session(p)
    stored = len(Store(out).done())
    assert p.returncode == 143, err
    assert err == f"error: interrupted (SIGTERM): {stored} of {RUNS} runs stored; re-run to resume\n"
    assert not left, f"still running after SIGTERM to the parent: {[q.cmdline() for q in left]}"
    assert not list((out / "runs").glob(".*.tmp"))


def test_workers_die_with_a_sigkilled_parent(tmp_path, cli, env, plan):
    out = tmp_path / "s"
    p = start(cli, env, plan, out)
    try:
        wait_for_a_run(p, out)
        _, kids = helpers(p)
        p.kill()
        p.wait(timeout=30)
        left = still_alive(kids, timeout=15)
    finally:
        kill_session(p)
    assert not left, f"still running after the parent was killed: {[q.cmdline() for q in left]}"
