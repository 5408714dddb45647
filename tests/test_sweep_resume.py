"""Interrupting a sweep and running it again: only the missing runs run, and the final dataset
equals an uninterrupted run. Also `ccsim sweep --json` and the stopping rule on a real run."""

import json
import signal
import subprocess
import time

import numpy as np
import polars as pl
import pytest

import ccsim
from ccsim.sweeps import Store, run_sweep, run_to_precision

PLAN = """
name = "resume"
scenario = "abr-benchmarks/one-at-a-time"
seed = 3
replications = 1
metrics = ["fairness_index", "ports[SW1->SW2].mean_queue_cells"]

[set]
"run.duration" = "200ms"
"run.measure_from" = "150ms"

[[axis]]
path = "source[0].count"
range = { start = 13, stop = 20, step = 1 }
"""


def _same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    return a.drop("wall_s").sort("point", "replication").equals(b.drop("wall_s").sort("point", "replication"))


def test_interrupted_cli_sweep_resumes_with_only_the_missing_runs(tmp_path, cli, env):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    out = tmp_path / "interrupted"
    # a shell's background job starts with SIGINT ignored, and Python then never raises
    # KeyboardInterrupt: give the child the default disposition, as a terminal would
    p = subprocess.Popen(cli + ["sweep", str(plan), "--workers", "1", "--out", str(out)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    store = Store(out)
    deadline = time.monotonic() + 60
    while len(store.done()) < 2 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err
    before = store.done()
    assert 2 <= len(before) < 8, "the sweep finished before it could be interrupted"
    assert not list((out / "runs").glob(".*.tmp")), "a temporary file was left behind"

    again = subprocess.run(cli + ["sweep", str(plan), "--workers", "2", "--out", str(out), "--json"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary == {"points": 8, "replications": 1, "completed": 8 - len(before), "skipped": len(before),
                       "out": str(out)}

    whole = run_sweep(PLAN, workers=2, out=tmp_path / "whole")
    assert whole.completed == 8
    assert _same(store.read(), whole.frame)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["runs_complete"] == 8 and manifest["ccsim_version"] == ccsim.__version__
    assert all(len(pt["scenario_hashes"]) == 1 for pt in manifest["points"])


def test_resume_in_process_and_more_replications(tmp_path):
    out = tmp_path / "s"
    plan = PLAN.replace('range = { start = 13, stop = 20, step = 1 }', 'values = [2, 3]').replace('"200ms"', '"30ms"') \
        .replace('"150ms"', '"20ms"')
    first = run_sweep(plan, workers=1, out=out, max_runs=1)
    assert (first.completed, first.skipped, first.frame.height) == (1, 0, 1)
    second = run_sweep(plan, workers=1, out=out)
    assert (second.completed, second.skipped) == (1, 1)
    # raising the replication count extends the same sweep
    third = run_sweep(plan.replace("replications = 1", "replications = 3"), workers=1, out=out)
    assert (third.points, third.completed, third.skipped, third.frame.height) == (2, 4, 2, 6)
    # another plan in the same directory is refused
    with pytest.raises(ccsim.CcsimError, match="another plan"):
        run_sweep(plan.replace("seed = 3", "seed = 4"), workers=1, out=out)


def test_python_sweep_returns_a_dataframe():
    df = ccsim.sweep(PLAN.replace('range = { start = 13, stop = 20, step = 1 }', 'values = [2]')
                     .replace('"200ms"', '"30ms"').replace('"150ms"', '"20ms"'), workers=1)
    assert isinstance(df, pl.DataFrame)
    assert df.columns[:4] == ["point", "replication", "seed", "axis:source[0].count"]
    assert {"fairness_index", "ports[SW1->SW2].mean_queue_cells", "scenario_hash", "wall_s"} <= set(df.columns)


def test_longer_run_repeats_the_shorter_series():
    # what the stopping rule on real runs relies on: same seed, longer duration, same prefix
    a = ccsim.run("abr-benchmarks/two-sources", duration="20ms", measure_from="10ms")
    b = ccsim.run("abr-benchmarks/two-sources", duration="40ms", measure_from="20ms")
    qa, qb = a.queue["queue_cells"].to_numpy(), b.queue["queue_cells"].to_numpy()
    assert np.array_equal(qa, qb[: qa.size])


def test_stopping_rule_on_a_real_run():
    r, rep = run_to_precision("abr-benchmarks/two-sources", "series.utilization[SW1->SW2]", precision=0.01,
                              start="10ms", max_duration="80ms")
    assert rep.reached and rep.achieved_precision <= 0.01 and rep.estimate.method == "batch-means"
    assert 0.9 < rep.estimate.mean < 1.0
    assert r.data["sim_time_s"] == pytest.approx(rep.time)
    # an impossible precision: stops at the limit and says so
    _, rep = run_to_precision("abr-benchmarks/two-sources", "series.queue[SW1->SW2]", precision=1e-6,
                              start="10ms", max_duration="40ms")
    assert not rep.reached and rep.reason == "time limit reached first" and rep.time == pytest.approx(0.04)
