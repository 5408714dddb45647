"""Issue 39, "honest tables" and "delay where people look": summary numbers that do not apply are
null, IP ports name their queue in packets, a flow that never starts has a notice, `validate`
accepts what `run` runs, the CLI's tables state their window and carry delays, and the delay
series, histogram and figures."""

import json
import os
import subprocess
import sys

import polars as pl
import pytest

import ccsim

CLI = [sys.executable, "-m", "ccsim"]
SHORT = {"run.duration": "30ms", "run.measure_from": "10ms"}


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=600)


def test_an_abr_only_run_has_no_connection_numbers():
    """The contract: `--json` of an ABR-only run has null connection numbers, not 1.0 and 0.0."""
    p = _cli("run", "abr-benchmarks/gfc1", "--set", "run.duration=30ms", "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["connections_fairness_index"] is None and s["efficiency"] is None and s["goodput_mbps_total"] is None
    assert 0 < s["fairness_index"] <= 1
    # A TCP run has them all.
    t = ccsim.run("gfr/n-source-15-epd", duration="200ms", measure_from="100ms", series=False).summary()
    assert 0 < t["connections_fairness_index"] <= 1 and t["goodput_mbps_total"] > 0 and 0 < t["efficiency"]


def test_ip_ports_count_packets_and_say_so():
    s = ccsim.run("ficcrd/droptail", duration="2s", measure_from="1s", series=False).summary()
    router = next(p for p in s["ports"] if p["name"] == "R11->R12")
    assert router["unit"] == "packets" and router["buffer_packets"] == 200
    assert {"mean_queue_packets", "max_queue_packets", "max_queue_packets_run", "buffer_max_packets"} <= set(router)
    assert not [k for k in router if k.endswith("_cells") or "_cells_" in k]
    atm = ccsim.run("abr-benchmarks/gfc1", set=SHORT, series=False).summary()["ports"][0]
    assert atm["unit"] == "cells" and "mean_queue_cells" in atm and "buffer_cells" in atm
    assert not [k for k in atm if "packets" in k]


def test_a_sweep_metric_naming_cells_on_an_ip_port_is_refused_not_nan():
    from ccsim.sweeps.metrics import parse_metric

    r = ccsim.run("ficcrd/droptail", duration="1s", series=False)
    with pytest.raises(ValueError, match=r"IP port.*ports\[R11->R12\]\.mean_queue_packets"):
        parse_metric("ports[R11->R12].mean_queue_cells").evaluate(r)
    assert parse_metric("ports[R11->R12].mean_queue_packets").evaluate(r)["ports[R11->R12].mean_queue_packets"] >= 0


def test_a_flow_that_starts_after_the_run_has_a_notice():
    # S2 joins at 100 ms: after a 30 ms run.
    with pytest.warns(ccsim.CcsimWarning, match=r"1 flow S2 \(at 100ms\) starts at or after the end of the run \(30ms\)"):
        r = ccsim.run("abr-benchmarks/two-sources-staggered", set=SHORT)
    (notice,) = r.summary()["notices"]
    assert "zeros, not measurements" in notice
    row = next(s for s in r.summary()["sources"] if s["name"] == "S2")
    assert row["cells_sent"] == 0 and row["delay_mean_ms"] is None
    p = _cli("run", "abr-benchmarks/two-sources-staggered", "--set", "run.duration=30ms", "--set", "run.measure_from=10ms",
             "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["notices"] == [notice]
    assert p.stderr.count("warning: 1 flow S2") == 1


def test_validate_accepts_what_run_runs():
    """A run whose series would pass measure.max_series_mb: `run` records none (or streams them
    with --out), so `validate` does not refuse it; Python's in-memory `ccsim.run` still does."""
    args = ["abr-benchmarks/gfc1", "--set", "run.duration=200ms", "--set", "measure.max_series_mb=1"]
    assert _cli("validate", *args).returncode == 0
    p = _cli("run", *args, "--json")
    assert p.returncode == 0, p.stderr
    with pytest.raises(ccsim.ScenarioError, match="max_series_mb"):
        ccsim.run("abr-benchmarks/gfc1", duration="200ms", set={"measure.max_series_mb": 1})


def test_the_cli_tables_state_their_window_and_carry_delays():
    p = _cli("run", "gfr/n-source-15-epd", "--set", "run.duration=100ms", "--set", "run.measure_from=50ms")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "TCP connections, window 50-100 ms" in out and "TCP connections, whole run 0-100 ms" in out
    assert "delay ms" in out and "p99 ms" in out and "jitter ms" in out
    assert "window: total goodput" in out
    # Window and whole-run columns never share a table: retransmits are in the whole run's.
    window_table = out.split("TCP connections, window")[1].split("TCP connections, whole run")[0]
    assert "retransmits" not in window_table and "goodput" in window_table


@pytest.fixture(scope="module")
def gfc1():
    return ccsim.run("abr-benchmarks/gfc1", duration="60ms", measure_from="30ms")


def test_the_delay_series_and_distribution(gfc1):
    d = gfc1.delay
    assert d.columns[:3] == ["time_s", "flow", "delay_s"] and d.height > 0
    # No cell arrives sooner than its path's propagation (GFC1: 10 ms links, 15 ms at least).
    assert d["delay_s"].min() > 0.010
    cdf = gfc1.delay_cdf()
    last = cdf.group_by("flow").agg(pl.col("fraction").last(), pl.col("fraction").is_sorted().alias("rising"))
    assert last["rising"].all() and (last["fraction"] - 1.0).abs().max() < 1e-12
    units = gfc1.delay_histogram.group_by("flow").agg(pl.col("units").sum())
    received = {s["name"]: s for s in gfc1.summary()["sources"]}
    for row in units.iter_rows(named=True):
        # The units of the window: rate × window length, in cells.
        cells = received[row["flow"]]["rate_mbps"] * 1e6 / 424 * 0.030
        assert row["units"] == pytest.approx(cells, abs=1.5)
    # The p99 the summary reports is where the distribution passes 0.99 (within one bucket).
    s = received["A1"]
    a1 = cdf.filter((pl.col("flow") == "A1") & (pl.col("fraction") >= 0.99))["delay_s"][0] * 1e3
    assert s["delay_p99_ms"] == pytest.approx(a1, rel=1 / 64)


def test_delay_figures(gfc1, tmp_path):
    from ccsim.plots_delay import plot_delay, plot_delay_cdf, write_delay_plots

    fig = plot_delay(gfc1)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time (ms)" and len(ax.lines) == 6  # GFC1's six groups
    fig = plot_delay_cdf(gfc1, flows=["A1", "C1"])
    assert [l.get_label() for l in fig.axes[0].lines] == ["A1", "C1", "99th percentile"]
    assert fig.axes[0].get_legend() is not None
    paths = write_delay_plots(gfc1, tmp_path, ("png", "svg"))
    assert sorted(p.name for p in paths) == ["delay.png", "delay.svg", "delay_cdf.png", "delay_cdf.svg"]
    assert all(p.read_bytes()[:4] in (b"\x89PNG", b"<?xm") for p in paths)


def test_efficiency_is_at_most_one_by_definition():
    """The RED dumbbell's window holds a little more in-order goodput than its max-min shares carry
    (the window's edge: bytes that crossed the bottleneck before it opened): the ratio is above 1,
    the efficiency 1, and the measured goodput is kept."""
    red = os.path.join(os.path.dirname(__file__), "..", "examples", "scenarios", "tcp-red-dumbbell.toml")
    p = _cli("run", red, "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    ratio = sum(c["goodput_mbps"] for c in s["connections"]) / sum(c["max_goodput_mbps"] for c in s["connections"])
    assert 1 < ratio < 1.001, ratio
    assert s["efficiency"] == 1.0
    assert s["goodput_mbps_total"] == pytest.approx(sum(c["goodput_mbps"] for c in s["connections"]))
