"""More of the Python API: progress, Ctrl-C between chunks, argument checking, the native
module used directly, determinism of the tables."""

import json
import math

import pytest

import ccsim
from ccsim import _core
from ccsim.api import override_pairs


def test_override_pairs_are_json_encoded():
    pairs = override_pairs({"switch[0].algorithm.target_utilization": 0.9}, {"duration": "1s", "run__seed": 3})
    assert pairs == [
        ("switch[0].algorithm.target_utilization", "0.9"),
        ("run.duration", '"1s"'),
        ("run.seed", "3"),
    ]


def test_progress_true_and_callback(small):
    ccsim.run(small, progress=True)
    seen = []
    ccsim.run(small, progress=lambda now, total: seen.append(now))
    assert len(seen) >= 100 and seen[-1] == pytest.approx(0.02)


def test_keyboard_interrupt_stops_between_chunks(small):
    seen = []

    def interrupt(now, total):
        seen.append(now)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ccsim.run(small, progress=interrupt)
    assert seen[0] < 0.02 / 10


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "3", True])
def test_bad_seeds_are_scenario_errors(small, seed):
    with pytest.raises(ccsim.ScenarioError, match="seed"):
        ccsim.run(small, seed=seed)


def test_non_json_values_name_the_field(small):
    small["defaults"]["algorithm"]["target_utilization"] = math.nan
    with pytest.raises(ccsim.ScenarioError, match=r"^defaults\.algorithm\.target_utilization: must be a finite number, got nan"):
        ccsim.run(small)
    small["defaults"]["algorithm"]["target_utilization"] = 0.9
    small["source"][1]["start"] = object()
    with pytest.raises(ccsim.ScenarioError, match=r"^source\[1\]\.start: "):
        ccsim.run(small)
    del small["source"][1]["start"]
    with pytest.raises(ccsim.ScenarioError, match=r"^link\[0\]\.rate: "):
        ccsim.run(small, set={"link[0].rate": math.inf})


def test_directory_is_not_a_scenario(tmp_path):
    with pytest.raises(ccsim.ScenarioError, match="neither a preset name nor a readable scenario file"):
        ccsim.run(tmp_path)


def test_same_seed_same_tables(small):
    a, b = ccsim.run(small, seed=3), ccsim.run(small, seed=3)
    assert a.summary()["fingerprint"] == b.summary()["fingerprint"]
    for name in a.TABLES:
        assert getattr(a, name).equals(getattr(b, name)), name


def test_seed_is_recorded_everywhere(small, tmp_path):
    import polars as pl

    r = ccsim.run(small, seed=12345)
    assert r.seed == 12345 and r.summary()["seed"] == 12345
    r.write(tmp_path, plots=False)
    assert pl.read_parquet_metadata(tmp_path / "acr.parquet")["seed"] == "12345"


def test_two_simulations_side_by_side(small):
    other = dict(small, name="test/other")
    s1 = _core.Simulation(json.dumps(small), "json")
    s2 = _core.Simulation(json.dumps(other), "json")
    done1 = done2 = False
    while not (done1 and done2):
        done1 = s1.run_until(s1.now_s + 0.003)
        done2 = s2.run_until(s2.now_s + 0.003)
    r1, r2 = s1.finish(), s2.finish()
    assert (r1["scenario"], r2["scenario"]) == ("test/two", "test/other")
    assert r1["fingerprint"] == r2["fingerprint"] and r1["events"] == r2["events"]


def test_native_module_keywords_and_attributes(small):
    sim = _core.Simulation(text=json.dumps(small), format="json", overrides=[("run.duration", '"1ms"')], seed=9)
    assert (sim.name, sim.duration_s, sim.now_s) == ("test/two", pytest.approx(0.001), 0.0)
    assert sim.run_until(0.5) is True
    assert sim.now_s == pytest.approx(0.001) and sim.events > 0
    assert sim.finish()["seed"] == 9
    assert json.loads(_core.resolve(json.dumps(small), "json", [], "efci", 4))["run"]["seed"] == 4
    with pytest.raises(ccsim.ScenarioError):
        _core.resolve(json.dumps(small), "yaml")


def test_chunks_end_at_the_duration_and_never_exceed_the_longest():
    from ccsim.api import _chunk_ends

    ends = list(_chunk_ends(1.0, 200))
    assert ends[-1] == 1.0 and all(b > a for a, b in zip(ends, ends[1:]))
    assert max(b - a for a, b in zip(ends, ends[1:])) <= 1.0 / 200 + 1e-12
    assert len(ends) <= 200 + 10


def test_chunking_changes_nothing_and_only_readers_cut_many_chunks(small, monkeypatch):
    from ccsim import api

    cuts = []
    ends = api._chunk_ends
    monkeypatch.setattr(api, "_chunk_ends", lambda duration, chunks: (cuts.append(chunks), ends(duration, chunks))[1])
    quiet = ccsim.run(small, seed=3)
    bar = ccsim.run(small, seed=3, progress=True)
    read = ccsim.run(small, seed=3, progress=lambda now, total: None)
    many = ccsim.run(small, seed=3, chunks=37)
    # No reader between chunks, or only the progress bar: Ctrl-C's wall-time bound cuts the run;
    # a callback gets 200.
    assert cuts == [1, 1, api.DEFAULT_CHUNKS, 37]
    for r in (bar, read, many):
        assert r.summary()["fingerprint"] == quiet.summary()["fingerprint"]
        for name in quiet.TABLES:
            assert getattr(r, name).equals(getattr(quiet, name)), name


def test_counters_read_between_chunks_are_settled(small):
    # A chunk leaves lazy state behind (`run_until`); reading `hops` settles it first, so the count
    # read at 10.05 ms is that of a run that ends there (whose end settles it).
    at = [("run.duration", '"10.05ms"'), ("run.measure_from", '"0s"')]
    ended = _core.Simulation(text=json.dumps(small), format="json", overrides=at, seed=3)
    assert ended.run_until(1.0)
    longer = _core.Simulation(text=json.dumps(small), format="json", overrides=at[1:], seed=3)
    assert not longer.run_until(0.01005)
    data = ended.finish()
    assert (longer.hops, longer.port_drops) == (data["cell_hops"] + data["packet_hops"], ended.port_drops)


def test_sigint_stops_a_long_run_within_a_chunk(cli, env):
    import signal
    import subprocess
    import time

    # GFC1 for 1000 s simulated takes minutes; an interrupt must not wait for a 5 s chunk.
    p = subprocess.Popen(cli + ["run", "abr-benchmarks/gfc1", "--set", 'run.duration="1000s"', "--set", 'measure.interval="0s"',
                                "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    out, err = p.communicate(timeout=60)
    waited = time.perf_counter() - sent
    assert p.returncode == 130 and err.strip().endswith("interrupted"), (p.returncode, err)
    assert out == ""
    # A generous bound (chunks aim at 0.05 s of wall time): the old chunks were duration/200 = 5 s.
    assert waited < 4.0, waited


def test_write_replaces_an_earlier_result_whole_and_never_deletes_a_users_file(small, tmp_path):
    import json

    from ccsim._outdir import OutputError
    from ccsim.result import RESULT_MARKER

    r = ccsim.run(small)
    out = tmp_path / "res"
    r.write(out, plots=False)
    mark = json.loads((out / RESULT_MARKER).read_text())
    assert mark["kind"] == "run" and "summary.json" in mark["files"] and mark["fingerprint"]
    # An earlier result holding only what ccsim wrote is replaced whole: a file of the earlier
    # run that this one does not write goes.
    (out / "extra.parquet").write_bytes(b"x")
    mark["files"].append("extra.parquet")
    (out / RESULT_MARKER).write_text(json.dumps(mark))
    r.write(out, plots=False)
    assert not (out / "extra.parquet").exists(), "an earlier result is replaced whole"
    assert not any(p.name.startswith(".res.partial") for p in tmp_path.iterdir())
    # A file the user added is never deleted: the write is refused, naming it.
    (out / "NOTES.md").write_text("my notes")
    (out / "analysis").mkdir()
    with pytest.raises(OutputError, match=r"did not write \(NOTES.md, analysis\)"):
        r.write(out, plots=False)
    assert (out / "NOTES.md").read_text() == "my notes" and (out / "summary.json").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="files that ccsim did not write"):
        r.write(mine)
    assert (mine / "notes.txt").read_text() == "keep me"


def test_cli_refuses_a_bad_out_before_running(cli, env, tmp_path):
    import subprocess

    f = tmp_path / "a-file"
    f.write_text("x")
    p = subprocess.run(cli + ["run", "abr-benchmarks/two-sources", "--out", str(f)], capture_output=True, text=True, env=env)
    # A usage error, as README.md promises for an invalid command line (issue #39: it exited 1).
    assert p.returncode == 2 and p.stderr.startswith("error: --out exists and is not a directory"), p.stderr
    assert "simulated" not in p.stdout


def test_api_inputs_of_the_wrong_kind_are_scenario_errors(small):
    import numpy as np

    with pytest.raises(ccsim.ScenarioError, match=r"^scenario: a preset name, a file path or a dict, not int"):
        ccsim.run(123)
    with pytest.raises(ccsim.ScenarioError, match=r"^scheme: must be a name"):
        ccsim.run(small, scheme=5)
    deep: dict = {}
    cur = deep
    for _ in range(5000):
        cur["a"] = {}
        cur = cur["a"]
    with pytest.raises(ccsim.ScenarioError, match="nested too deeply"):
        ccsim.run(deep)
    # numpy numbers are numbers.
    a = ccsim.run(small, seed=np.int64(3), set={"run.duration": "5ms", "defaults.algorithm.target_utilization": np.float64(0.9)})
    b = ccsim.run(small, seed=3, set={"run.duration": "5ms", "defaults.algorithm.target_utilization": 0.9})
    assert a.data["fingerprint"] == b.data["fingerprint"]
