"""TCP over IP routers from Python and the CLI: seed 002's drop-tail baseline (issue 4)."""

import json
import subprocess

import ccsim


def test_ficcrd_droptail_preset_runs_and_reports_packets(tmp_path):
    r = ccsim.run("ficcrd/droptail", duration="20s", measure_from="10s")
    s = r.summary()
    assert s["conservation_ok"] is True
    assert s["cell_hops"] == 0 and s["packet_hops"] > 0
    assert len(s["connections"]) == 10
    assert {c["name"] for c in s["connections"]} == {f"S{i}" for i in range(10)}
    bottleneck = next(p for p in s["ports"] if p["name"] == "R11->R12")
    assert bottleneck["unit"] == "packets" and bottleneck["max_queue_packets"] <= 200
    # 4096 of every 4136 bytes are payload; the 10 Mb/s bottleneck is the limit. In-order delivery
    # over the 10 s window may also release what receivers held out of order when it opened: at
    # most each flow's 32-segment window.
    held = 10 * 32 * 4096 * 8 / 10 / 1e6
    assert 0 < s["goodput_mbps_total"] <= 10 * 4096 / 4136 + held
    # Per-connection series: RTT samples at least the 72 ms propagation round trip of S0,
    # cumulative retransmissions and timeouts that never decrease.
    s0 = r.rtt.filter(r.rtt["connection"] == "S0")["rtt_s"]
    assert s0.len() > 0 and s0.min() >= 0.072
    rx = r.retransmits.filter(r.retransmits["connection"] == "S2")["retransmits"].to_list()
    assert rx == sorted(rx)
    assert r.timeouts.height > 0 and r.srtt.height > 0
    out = r.write(tmp_path / "o")
    for f in ("summary.json", "queue.png", "cwnd.png", "seq.png", "goodput.png", "drops.png", "overview.png",
              "connections.parquet", "rtt.parquet", "timeouts.parquet"):
        assert (out / f).exists(), f
    assert not (out / "acr.png").exists(), "no ACR panel without ABR sources"


def test_cli_runs_the_ip_preset_with_a_tcp_swap(cli, env):
    p = subprocess.run(
        cli + ["run", "ficcrd/droptail", "--json", "--tcp", "newreno", "--set", "duration=10s", "--set", "run.measure_from=5s"],
        capture_output=True, text=True, env=env,
    )
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert {c["variant"] for c in s["connections"]} == {"newreno"}


def test_a_link_between_a_switch_and_a_router_is_refused(cli, env, tmp_path):
    text = ccsim.presets.preset_text("ficcrd/droptail").replace(
        '[[router]]\nname = "R10"', '[[switch]]\nname = "R10"'
    )
    f = tmp_path / "bad.toml"
    f.write_text(text)
    p = subprocess.run(cli + ["validate", str(f)], capture_output=True, text=True, env=env)
    assert p.returncode == 2
    assert "link[0].between: joins switch 'R10' to router 'R11'" in p.stderr


def test_ficcrd_traces_stay_in_their_ranges():
    # Acceptance check 3 of docs/models/ficcrd.md: DPF within [0, alpha], MAPR within [0, C] at
    # every sample.
    r = ccsim.run("ficcrd/ficcrd", duration="20s", measure_from="10s")
    assert r.dpf.height > 0 and r.mapr.height > 0
    assert r.dpf["dpf"].min() >= 0 and r.dpf["dpf"].max() <= 1.15 + 1e-9
    rates = {l["name"].split(" (")[1].rstrip(")"): l["rate_mbps"] for l in r.summary()["links"]}
    for port, group in r.mapr.group_by("port"):
        assert group["mapr_mbps"].min() >= 0
        assert group["mapr_mbps"].max() <= rates[port[0]] + 1e-9
    assert r.summary()["conservation_ok"] is True
    # The ports under FICCRD give their queue apart: data and RD packets, adding up to the whole;
    # the sampled data queue never exceeds the sampled whole queue.
    for p in (p for p in r.summary()["ports"] if "mapr_mbps" in p):
        assert p["control_queue"] == "data"
        assert abs(p["mean_data_queue_packets"] + p["mean_rd_queue_packets"] - p["mean_queue_packets"]) < 1e-6 * max(1, p["mean_queue_packets"])
    both = r.queue.join(r.data_queue, on=["time_s", "port"])
    assert both.height > 0 and (both["data_queue_packets"] <= both["queue_cells"]).all()
    assert "data_queue" in r.TABLES and r.table("data_queue").height == r.data_queue.height


def test_the_1_5_mbps_presets_are_the_10_mbps_ones_at_the_other_bottleneck_reading():
    """Seed 002's goodput normalisation (0.15 Mb/s per flow) implies a 1.5 Mb/s bottleneck: the
    two presets of that reading differ from the first-try ones in the bottleneck's rate only."""
    import json

    for name in ("ficcrd", "droptail"):
        a = json.loads(ccsim.run(f"ficcrd/{name}-1.5mbps", duration="1s", measure_from="0.5s").resolved_json)
        b = json.loads(ccsim.run(f"ficcrd/{name}", duration="1s", measure_from="0.5s", set={"link[1].rate": "1.5Mbps"}).resolved_json)
        for d in (a, b):
            d.pop("name"), d.pop("description", None)
        assert a == b, name


def test_red_average_is_a_series():
    """RED's average queue as a series (`Result.red_avg`, recorded with measure.queue): on the RED
    dumbbell it stays between the thresholds, and over 20 s its mean is the mean of what it
    averages, the waiting queue arriving packets see (the mean queue less the packet being sent:
    a busy link always has one), within 10 %."""
    import polars as pl

    r = ccsim.run("examples/scenarios/tcp-red-dumbbell.toml", duration="30s", measure_from="10s")
    avg = r.red_avg.filter((pl.col("port") == "R1->R2") & (pl.col("time_s") >= 10))["red_avg"]
    assert avg.len() > 1000 and 10 <= avg.mean() <= 30
    port = next(p for p in r.summary()["ports"] if p["name"] == "R1->R2")
    link = next(l for l in r.summary()["links"] if l["name"] == "bottleneck (R1->R2)")
    waiting = port["mean_queue_packets"] - link["utilization"]
    assert abs(avg.mean() - waiting) < 0.1 * waiting, (avg.mean(), waiting)
    # Its thresholds are in the port's summary, for the queue plot's reference lines.
    assert port["thresholds"] == {"red_min_th": 10.0, "red_max_th": 30.0}
    # Drop-tail ports have no such series.
    tail = ccsim.run("examples/scenarios/tcp-red-dumbbell.toml", duration="2s", measure_from="1s",
                     set={"router[0].queue": {"type": "drop_tail"}})
    assert tail.red_avg.height == 0
