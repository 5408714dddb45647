"""Runs that record no series (`ccsim.run(..., series=False)`, what `ccsim run --json` and sweeps
without a series metric do): the same summary, fingerprint and event count as a run that keeps
them, a clear error when a series is read anyway, and no series limit."""

import json
import subprocess
import sys

import pytest

import ccsim
from ccsim.api import summary_json
from ccsim.errors import CcsimError
from ccsim.sweeps.runner import run_task

SHORT = {"run.duration": "40ms"}


@pytest.mark.parametrize("preset", ["abr-benchmarks/two-sources", "ficcrd/droptail"])
def test_a_run_without_series_reports_the_same_numbers(preset):
    kept = ccsim.run(preset, set=SHORT)
    bare = ccsim.run(preset, set=SHORT, series=False)
    drop = ("wall_s",)
    assert {k: v for k, v in bare.summary().items() if k not in drop} == {k: v for k, v in kept.summary().items() if k not in drop}
    assert len(kept.queue) > 0
    with pytest.raises(CcsimError, match="recorded no time series"):
        bare.queue
    with pytest.raises(ValueError, match="series=True"):
        ccsim.run(preset, set=SHORT, series=False, stream_series="/nonexistent")
    # What `ccsim run --json` prints, written by the engine: the same summary, key for key and in order.
    printed = json.loads(summary_json(preset, set=SHORT))
    assert list(printed) == list(bare.summary())
    assert {k: v for k, v in printed.items() if k not in drop} == {k: v for k, v in bare.summary().items() if k not in drop}


def test_the_series_limit_does_not_refuse_a_run_without_series():
    over = {**SHORT, "measure.max_series_mb": 1, "run.duration": "2s", "measure.interval": "1us"}
    with pytest.raises(ccsim.ScenarioError, match="max_series_mb"):
        ccsim.run("abr-benchmarks/two-sources", set=over)
    out = subprocess.run([sys.executable, "-m", "ccsim", "run", "abr-benchmarks/two-sources", "--json",
                          "--set", "measure.max_series_mb=1", "--set", "measure.interval=1us", "--set", "run.duration=200ms"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["conservation_ok"] is True


def test_a_sweep_task_keeps_series_only_for_a_series_metric():
    task = {"scenario": "abr-benchmarks/two-sources", "seed": 1, "scheme": None, "set": SHORT, "point": 0,
            "replication": 0, "params": {}}
    plain = run_task({**task, "metrics": ["fairness_index"]})
    with_series = run_task({**task, "metrics": ["fairness_index", "series.queue[*]"]})
    assert plain["fairness_index"] == with_series["fairness_index"]
    assert plain["fingerprint"] == with_series["fingerprint"]
    assert with_series["series.queue[*]"] > 0
