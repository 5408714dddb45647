"""`ccsim run --parallel-report` (docs/benchmarks.md, "Scaling on paper"): the `parallel_report`
object of `--json`, a summary otherwise identical to the run without it, the text table, and the
one line for a world that runs from one queue."""

import json
import subprocess

import ccsim


def run(cli, env, *args):
    return subprocess.run(cli + list(args), capture_output=True, text=True, env=env)


def test_json_report_leaves_every_other_number_alone(cli, env):
    args = ("run", "abr-benchmarks/gfc1", "--set", "duration=30ms", "--json")
    plain = run(cli, env, *args)
    counted = run(cli, env, *args, "--parallel-report")
    assert plain.returncode == 0 and counted.returncode == 0, counted.stderr
    a, b = json.loads(plain.stdout), json.loads(counted.stdout)
    r = b.pop("parallel_report")
    for s in (a, b):
        s.pop("wall_s")
    assert a == b
    assert r["windowed"] and r["work_unit"] == "events"
    assert r["lps"] == 51 and r["window_s"] == 0.005 and r["windows"] >= 6
    # Every event counted once; the thread counts 1, 2, 4, 8, 16 and the LPs (64 capped).
    assert r["total_events"] == a["events"]
    assert [t["threads"] for t in r["threads"]] == [1, 2, 4, 8, 16, 51]
    for t in r["threads"]:
        assert len(t["loads"]) == t["threads"]
        assert sum(t["loads"]) + r["serial_events"] == r["total_events"]
        assert 1.0 <= t["speedup_work"] <= t["threads"]
        assert t["speedup_with_barrier"] <= t["speedup_work"]
        assert t["speedup_work"] == r["total_events"] / t["critical_events"]
    assert r["threads"][0]["speedup_work"] == r["threads"][0]["speedup_with_barrier"] == 1.0
    assert r["ns_per_event"] > 0 and r["barrier_ns_2_threads"] > 0
    # The busiest LP's work bounds every speed-up.
    busiest = r["busiest_lp"]
    assert busiest["nodes"] == len(busiest["first_nodes"]) == 1
    assert all(t["speedup_work"] <= r["total_events"] / busiest["events"] for t in r["threads"])


def test_text_report_and_one_queue_worlds(cli, env):
    p = run(cli, env, "run", "abr-benchmarks/gfc1", "--set", "duration=10ms", "--parallel-report")
    assert p.returncode == 0, p.stderr
    assert "parallel report: 51 logical processes" in p.stdout and "predicted speed-up" in p.stdout
    p = run(cli, env, "run", "hgrcp/hgrcp-2", "--set", "duration=5ms", "--parallel-report")
    assert p.returncode == 0, p.stderr
    assert "parallel report: none, this world runs from one queue: gateway" in p.stdout


def test_api_reports_why_not():
    r = ccsim.run("hgrcp/hgrcp-2", duration="5ms", series=False, parallel_report=True)
    assert r.summary()["parallel_report"] == {"windowed": False, "why": "gateway GWA serves its hosts from shared state"}
    assert "parallel_report" not in ccsim.run("hgrcp/hgrcp-2", duration="5ms", series=False).summary()
