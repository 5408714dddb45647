"""The per-cell/packet event trace from Python and the CLI (docs/trace.md): `Result.trace`, the
`trace=` parameter and `measure.trace`, `ccsim run --trace PATH`, and `Result.write`'s
`trace.parquet`."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest

import ccsim
from ccsim.result import TRACE_COLUMNS

SHORT = {"run.duration": "20ms", "run.measure_from": "0s"}


@pytest.fixture(scope="module")
def gfc1():
    return ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace=True)


def test_the_trace_is_a_typed_frame_sorted_by_time(gfc1):
    t = gfc1.trace
    assert t.columns == list(TRACE_COLUMNS)
    assert t.schema["time_s"] == pl.Float64 and t.schema["time_ps"] == pl.UInt64
    assert t.schema["event"] == pl.Enum(["send", "enqueue", "dequeue", "drop", "deliver"])
    assert t.schema["uid"] == pl.UInt64 and t.schema["frame"] == pl.UInt64 and t.schema["seq"] == pl.UInt64
    assert t.schema["flow"] == pl.Categorical and t.schema["node"] == pl.Categorical
    assert t["time_ps"].is_sorted()
    assert set(t["event"].unique()) >= {"send", "enqueue", "dequeue", "deliver"}
    assert set(t["kind"].unique()) >= {"data", "frm", "brm"}
    # A reason on drops only.
    assert t.filter(pl.col("reason").is_not_null()).height == t.filter(pl.col("event") == "drop").height
    assert gfc1.summary()["trace"]["events"] == t.height and gfc1.summary()["trace"]["complete"]


def test_conservation_per_flow_matches_the_summarys_counters(gfc1):
    t = gfc1.trace.with_columns(pl.col("kind").is_in(["data", "frm", "rd_fwd"]).alias("fwd"))
    counts = t.group_by("flow", "fwd", "event").len()
    vcs = gfc1.vcs
    for row in vcs.iter_rows(named=True):
        for fwd, d in ((True, "fwd"), (False, "bwd")):
            def n(ev: str) -> int:
                c = counts.filter((pl.col("flow") == row["name"]) & (pl.col("fwd") == fwd) & (pl.col("event") == ev))
                return int(c["len"].sum())

            assert (n("send"), n("deliver"), n("drop")) == (row[f"{d}_sent"], row[f"{d}_delivered"], row[f"{d}_dropped"])
            assert n("send") == n("deliver") + n("drop") + row[f"{d}_in_flight"]


def test_filters_keep_exactly_the_selected_events(gfc1):
    part = ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace={"flows": ["A1", "B1"], "from": "5ms", "to": "10ms"})
    want = gfc1.trace.filter(pl.col("flow").cast(pl.Utf8).is_in(["A1", "B1"]) & (pl.col("time_s") >= 5e-3)
                             & (pl.col("time_s") < 10e-3))
    got = part.trace
    assert got.height == want.height > 0
    assert got.with_columns(pl.all().cast(pl.Utf8)).equals(want.with_columns(pl.all().cast(pl.Utf8)))


def test_drops_at_a_congested_port_carry_their_reason():
    r = ccsim.run("gfr/n-source-15-epd", set={"run.duration": "300ms", "run.measure_from": "0s"}, trace=True)
    drops = r.trace.filter(pl.col("event") == "drop")
    assert drops.height > 0 and "frame_discard" in set(drops["reason"])
    by_port = {p["name"]: p["drops"] for p in r.summary()["ports"]}
    for node, n in drops.group_by("node").len().iter_rows():
        if node in by_port:
            assert n == by_port[node], node


def test_a_trace_off_run_is_unchanged_and_has_no_trace():
    off = ccsim.run("abr-benchmarks/gfc1", set=SHORT)
    on = ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace=True)
    assert off.trace is None and "trace" not in off.summary()
    assert off.data["fingerprint"] == on.data["fingerprint"]
    assert off.data["scenario_hash"] == ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace=None).data["scenario_hash"]
    a, b = off.summary(), on.summary()
    for s in (a, b):
        for k in ("wall_s", "trace", "scenario_hash"):
            s.pop(k, None)
    assert a == b
    with pytest.raises(ValueError, match="no trace"):
        off.write_trace("x.parquet")


def test_a_full_trace_stops_with_a_warning():
    with pytest.warns(ccsim.CcsimWarning, match="max_mb"):
        r = ccsim.run("abr-benchmarks/gfc1", set={"run.duration": "30ms"}, trace={"max_mb": 1})
    s = r.summary()["trace"]
    assert not s["complete"] and r.trace["time_s"].max() < s["cut_s"]


def test_unknown_flows_and_bad_windows_are_refused():
    with pytest.raises(ccsim.ScenarioError, match=r"measure.trace.flows\[0\].*nope"):
        ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace={"flows": ["nope"]})
    with pytest.raises(ccsim.ScenarioError, match="measure.trace.to"):
        ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace={"from": "5ms", "to": "5ms"})
    with pytest.raises(ccsim.ScenarioError, match="measure.trace.color"):
        ccsim.run("abr-benchmarks/gfc1", set=SHORT, trace={"color": "red"})


def test_the_schema_describes_measure_trace():
    schema = ccsim.schema()
    spec = schema["definitions" if "definitions" in schema else "$defs"]["TraceSpec"]
    assert set(spec["properties"]) == {"enabled", "flows", "from", "to", "max_mb"}


def test_write_puts_trace_parquet_beside_the_tables(gfc1, tmp_path):
    out = gfc1.write(tmp_path / "r", plots=False)
    t = pl.read_parquet(out / "trace.parquet")
    assert t.columns == list(TRACE_COLUMNS) and t.height == gfc1.trace.height
    assert json.loads(pl.read_parquet_metadata(out / "trace.parquet")["trace"])["events"] == t.height


def test_the_cli_writes_a_parquet_trace(tmp_path):
    path = tmp_path / "t.parquet"
    cmd = [sys.executable, "-m", "ccsim", "run", "abr-benchmarks/gfc1", "--set", "duration=10ms", "--set",
           "measure_from=0s", "--trace", str(path), "--trace-flow", "A1", "--trace-flow", "C2", "--trace-from", "2ms",
           "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout)
    t = pl.read_parquet(path)
    assert t.columns == list(TRACE_COLUMNS)
    assert t.height == summary["trace"]["events"] > 0
    assert set(t["flow"].cast(pl.Utf8).unique()) == {"A1", "C2"} and t["time_s"].min() >= 2e-3
    assert t["time_ps"].is_sorted()
    meta = pl.read_parquet_metadata(path)
    assert meta["scenario"] == "abr-benchmarks/gfc1" and "fingerprint" in meta
    bad = subprocess.run([sys.executable, "-m", "ccsim", "run", "abr-benchmarks/gfc1", "--trace-flow", "A1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--trace PATH" in bad.stderr


def test_a_units_queueing_delay_is_its_dequeue_minus_its_enqueue(gfc1):
    """Issue 39: joining a port's enqueue and dequeue rows by uid gives each cell's time in that
    buffer: at least one cell time (2.73 us at 155.52 Mb/s, the fastest link), and at the trunk
    at most one per cell of the largest queue the summary reports; ABR cells carry no TCP
    sequence number."""
    t = gfc1.trace
    at = ["flow", "node", "uid"]
    enq = t.filter(pl.col("event") == "enqueue").select(*at, pl.col("time_s").alias("in_s"))
    deq = t.filter(pl.col("event") == "dequeue").select(*at, pl.col("time_s").alias("out_s"))
    waits = enq.join(deq, on=at).with_columns((pl.col("out_s") - pl.col("in_s")).alias("wait_s"))
    assert waits.height == deq.height > 0, "every dequeue has its enqueue"
    assert waits["wait_s"].min() >= 424 / 155.52e6 * (1 - 1e-6)
    s = gfc1.summary()
    port = next(p for p in s["ports"] if p["name"] == "SW1->SW2")
    rate = next(l["rate_mbps"] for l in s["links"] if l["name"].endswith("(SW1->SW2)")) * 1e6
    trunk = waits.filter(pl.col("node") == "SW1->SW2")
    # The longest stay is the buffer it held at most, each cell one cell time.
    assert 0.5 * port["max_queue_cells_run"] * 424 / rate < trunk["wait_s"].max() <= (port["max_queue_cells_run"] + 1) * 424 / rate
    assert t["seq"].null_count() == t.height
