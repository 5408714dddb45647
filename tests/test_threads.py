"""`run.threads` (docs/scenarios.md, "Threads"): a run on several threads gives the result of one
thread, summary, every series, fingerprint and trace included; counts a world cannot honour are refused
with the field's path; process pools run their workers on one thread each."""

import json
import os
import subprocess
import warnings

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ccsim
from ccsim._choices import SCHEMES
from ccsim.api import thread_pairs
from ccsim.errors import CcsimWarning, ScenarioError


def run(cli, env, *args):
    return subprocess.run(cli + list(args), capture_output=True, text=True, env=env)


def test_json_summary_is_the_same_on_every_thread_count(cli, env):
    summaries = []
    for n in ("1", "2", "3", "auto"):
        p = run(cli, env, "run", "abr-benchmarks/gfc1", "--set", "duration=40ms", "--json", "--threads", n)
        assert p.returncode == 0, p.stderr
        s = json.loads(p.stdout)
        s.pop("wall_s")
        summaries.append(s)
    assert all(s == summaries[0] for s in summaries[1:])
    assert summaries[0]["events"] > 50_000


def test_series_are_the_same_and_the_result_says_how_many_threads_ran():
    one = ccsim.run("abr-benchmarks/parking-lot-5", duration="40ms", threads=1)
    two = ccsim.run("abr-benchmarks/parking-lot-5", duration="40ms", threads=2)
    assert (one.threads, two.threads) == (1, 2)
    for name in ("acr", "queue", "received", "dropped", "utilization", "delay", "delay_histogram", "vcs", "ports"):
        a, b = getattr(one, name), getattr(two, name)
        assert a.height > 0 and a.equals(b), name
    a, b = one.summary(), two.summary()
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b


@pytest.mark.parametrize("threads, words", [
    (0, "must be at least 1"),
    ("many", 'threads is "auto" or a whole number'),
])
def test_counts_that_are_not_counts_are_refused(threads, words):
    with pytest.raises(ScenarioError, match="run.threads") as e:
        ccsim.run("abr-benchmarks/gfc1", duration="1ms", threads=threads)
    assert words in str(e.value)


def test_worlds_that_cannot_run_on_threads_say_why():
    with pytest.raises(ScenarioError, match=r"run\.threads: 2 threads: the world runs from one queue \(gateway"):
        ccsim.run("hgrcp/hgrcp-2", duration="1ms", threads=2)
    # "auto" runs them on one thread.
    assert ccsim.run("hgrcp/hgrcp-2", duration="60ms", measure_from="0ms", series=False).threads == 1


def one_and_two_threads(preset, tables):
    """`preset` for 2 s on one thread and on two: the same summary and `tables`; the summary."""
    one = ccsim.run(preset, duration="2s", measure_from="0ms", threads=1)
    two = ccsim.run(preset, duration="2s", measure_from="0ms", threads=2)
    assert two.threads == 2
    a, b = one.summary(), two.summary()
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b
    assert_same_tables(one, two, tables)
    return a


def test_credit_controlled_worlds_run_on_threads():
    """Seed 004's CT: a credit hop's receiver runs at the node it leads to, its BSU and BSC cells
    cross threads with the cells, and the per-hop credit counters come out as on one thread."""
    a = one_and_two_threads("ut-ct/two-node-case6-ct-bdp", ("queue", "goodput", "connections", "ports"))
    assert sum(p.get("bsu_sent", 0) for p in a["ports"]) > 0


def test_tcp_worlds_run_on_threads():
    """TCP connections' hosts share a thread; drops at a switch on another thread reach their
    connection's record at the window's end: the timeouts' causes come out as on one thread."""
    tables = ("queue", "received", "dropped", "cwnd", "seq", "goodput", "timeouts", "connections", "ports")
    a = one_and_two_threads("gfr/n-source-15-sd", tables)
    assert sum(c["timeouts_after_drop"] for c in a["connections"]) > 0


@pytest.mark.parametrize("preset, duration", [("abr-benchmarks/gfc1", "20ms"), ("gfr/n-source-15-epd", "300ms")])
def test_traces_are_the_same_on_every_thread_count(preset, duration):
    """Each thread records its own rows; the trace, whole or cut by its memory limit, is one
    thread's row for row, TCP sequence numbers included (docs/trace.md)."""
    for limit in (None, 1):
        kw = dict(duration=duration, measure_from="0ms", series=False, trace=True if limit is None else {"max_mb": limit})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CcsimWarning)  # the cut trace's warning
            one = ccsim.run(preset, threads=1, **kw)
            two = ccsim.run(preset, threads=2, **kw)
        assert two.threads == 2 and (limit is None) == one.summary()["trace"]["complete"]
        assert one.trace.height > 10_000
        assert one.trace.equals(two.trace)
        assert one.summary()["trace"] == two.summary()["trace"]


def assert_same_tables(one, two, names):
    for name in names:
        a, b = getattr(one, name), getattr(two, name)
        assert (a is None and b is None) or a.equals(b), name


def test_pool_workers_take_their_thread_count_from_the_environment(monkeypatch):
    monkeypatch.delenv("CCSIM_THREADS", raising=False)
    assert thread_pairs(None) == [] and thread_pairs(2) == [("run.threads", "2")]
    monkeypatch.setenv("CCSIM_THREADS", "1")
    assert thread_pairs(None) == [("run.threads", "1")]
    assert thread_pairs("auto") == [("run.threads", '"auto"')]
    from ccsim.api import one_thread_each

    monkeypatch.delenv("CCSIM_THREADS")
    one_thread_each()
    assert os.environ["CCSIM_THREADS"] == "1"


@st.composite
def worlds(draw):
    """A random world that runs in windows: a tree of 2–6 switches joined by links of 0.1–3 ms
    (some under the 100 µs window minimum, grouped with their neighbours; some losing cells),
    1–5 ABR source groups on random routes along it, a random scheme, background traffic and TCP
    connections over UBR (windows of one segment and more, short timers: timeouts in 25 ms); a
    quarter of them traced."""
    n = draw(st.integers(2, 6))
    delays = ["50us", "100us", "300us", "1ms", "3ms"]
    switches = [{"name": f"SW{k}"} for k in range(n)]
    parent = [None] + [draw(st.integers(0, k - 1)) for k in range(1, n)]
    links = [{"between": [f"SW{parent[k]}", f"SW{k}"], "delay": draw(st.sampled_from(delays)),
              "rate": draw(st.sampled_from(["45Mbps", "155.52Mbps"]))} for k in range(1, n)]
    for link in links:
        if draw(st.integers(0, 3)) == 0:
            link["loss"] = 0.02

    def path(a, b):
        up = lambda k: [k] + (up(parent[k]) if parent[k] is not None else [])  # noqa: E731
        pa, pb = up(a), up(b)
        common = next(k for k in pa if k in pb)
        return pa[:pa.index(common) + 1] + list(reversed(pb[:pb.index(common)]))

    sources = []
    for g in range(draw(st.integers(1, 5))):
        a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        sources.append({"name": f"G{g}", "count": draw(st.integers(1, 3)), "route": [f"SW{k}" for k in path(a, b)],
                        "access": {"delay": draw(st.sampled_from(delays))}, "egress": {"delay": draw(st.sampled_from(delays))},
                        "start": draw(st.sampled_from(["0ms", "2ms", "7ms"]))})
    scenario = {"name": "random", "run": {"duration": "25ms", "seed": draw(st.integers(1, 1000))},
                "measure": {"interval": "1ms"}, "defaults": {"algorithm": {"type": draw(st.sampled_from(SCHEMES))}},
                "switch": switches, "link": links, "source": sources}
    if draw(st.booleans()):
        a = draw(st.integers(0, n - 1))
        scenario["background"] = [{"name": "V", "route": [f"SW{k}" for k in path(a, draw(st.integers(0, n - 1)))],
                                   "peak": "20Mbps", "mean_on": "2ms", "mean_off": "3ms"}]
    if draw(st.integers(0, 3)) == 0:
        scenario["measure"]["trace"] = {}
    if draw(st.booleans()):
        a = draw(st.integers(0, n - 1))
        scenario["connection"] = [{
            "name": "T", "count": draw(st.integers(1, 3)), "route": [f"SW{k}" for k in path(a, draw(st.integers(0, n - 1)))],
            "tcp": {"variant": draw(st.sampled_from(["reno", "newreno", "sack1"])), "mss": "1024B",
                    "window": draw(st.sampled_from(["1024B", "8192B", "65535B"])), "rto_min": "2ms"}}]
    return scenario


@settings(max_examples=int(os.environ.get("CCSIM_FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_random_worlds_give_the_same_result_on_one_and_two_threads(scenario):
    one = ccsim.run(scenario, threads=1)
    try:
        two = ccsim.run(scenario, threads=2)
    except ScenarioError as e:
        # A world the engine keeps on one thread (one queue, or one unit) says why; "auto" runs it.
        assert "run.threads: 2 threads:" in str(e)
        event("one thread")
        return
    event(f"{two.threads} threads")
    a, b = one.summary(), two.summary()
    if any(c.get("timeouts") for c in a["connections"]):
        event("TCP timeouts")
    if one.trace is not None:
        event("traced")
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b
    assert_same_tables(one, two, ("acr", "queue", "received", "dropped", "utilization", "vcs", "ports",
                                  "cwnd", "seq", "goodput", "timeouts", "connections", "trace"))
