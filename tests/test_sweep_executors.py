"""One plan through the local pool, a Dask LocalCluster and a real `dask scheduler` with two
`dask worker` processes: identical tables. A Dask worker killed mid-sweep loses nothing and
duplicates nothing."""

import time

import polars as pl
import pytest

import ccsim
from ccsim.sweeps import DaskExecutor, Store, run_sweep

from .dask_procs import DaskProcesses

# wall_s is the only column that may differ between executors
VOLATILE = ["wall_s"]


@pytest.fixture
def plan(small):
    small["source"].append({"name": "S3", "route": ["SW1", "SW2"]})
    return {
        "name": "executors",
        "scenario": small,
        "seed": 42,
        "replications": 2,
        "metrics": ["fairness_index", "mean(sources.acr_mbps)", "ports[SW1->SW2].max_queue_cells",
                    "series.queue[SW1->SW2]"],
        "set": {"run.measure_from": "10ms"},
        "axis": [{"path": "defaults.buffer", "values": [20, 1000]},
                 {"path": "defaults.algorithm.target_utilization", "values": [0.8, 0.95]}],
    }


def _table(frame):
    return frame.drop(VOLATILE).sort("point", "replication")


def test_local_and_dask_give_identical_tables(plan, tmp_path):
    local = run_sweep(plan, executor="local", workers=2, out=tmp_path / "local")
    assert local.completed == 8 and local.skipped == 0
    t_local = _table(local.frame)
    assert t_local.height == 8 and t_local["seed"].n_unique() == 8
    # the same plan run in-process gives the same numbers as the workers
    direct = ccsim.run(plan["scenario"], seed=int(t_local["seed"][0]),
                       set={"run.measure_from": "10ms", "defaults.buffer": 20,
                            "defaults.algorithm.target_utilization": 0.8})
    assert direct.fairness_index == t_local["fairness_index"][0]

    ex = DaskExecutor(workers=2)
    try:
        cluster = run_sweep(plan, executor=ex, out=tmp_path / "cluster")
    finally:
        ex.close()
    assert cluster.completed == 8
    assert _table(cluster.frame).equals(t_local)

    procs = DaskProcesses(tmp_path)
    try:
        address = procs.start(2)
        real = run_sweep(plan, executor="dask", scheduler=address, out=tmp_path / "real")
    finally:
        procs.stop()
    assert real.completed == 8
    assert _table(real.frame).equals(t_local)


def test_killed_dask_worker_loses_and_duplicates_nothing(tmp_path):
    plan = {
        "name": "kill",
        "scenario": "abr-benchmarks/one-at-a-time",
        "metrics": ["fairness_index", "sources[S1].acr_mbps"],
        "set": {"run.duration": "300ms", "run.measure_from": "250ms"},
        "axis": [{"path": "source[0].count", "range": {"start": 19, "stop": 30, "step": 1}}],
    }
    procs = DaskProcesses(tmp_path)
    out = tmp_path / "sweep"
    try:
        address = procs.start(2)
        import threading

        box = {}

        def go():
            try:
                box["outcome"] = run_sweep(plan, executor="dask", scheduler=address, out=out)
            except BaseException as e:  # surfaced below
                box["error"] = e

        t = threading.Thread(target=go)
        t.start()
        store = Store(out)
        deadline = time.monotonic() + 60
        while len(store.done()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        done_at_kill = len(store.done())
        assert 2 <= done_at_kill < 12, "the sweep finished before the worker could be killed"
        procs.kill(procs.workers[0])
        t.join(timeout=120)
        assert not t.is_alive(), "the sweep did not finish after a worker was killed"
    finally:
        procs.stop()
    assert "error" not in box, box.get("error")
    outcome = box["outcome"]
    assert outcome.completed == 12 and outcome.skipped == 0
    frame = outcome.frame
    assert frame.height == 12
    assert sorted(frame["point"].to_list()) == list(range(12))  # every point exactly once
    assert len(list((out / "runs").iterdir())) == 12  # no temporary or duplicate files
    assert frame.filter(pl.col("sources[S1].acr_mbps").is_null()).height == 0
