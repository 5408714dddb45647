//! End-to-end delays of sources and connections (`delay_mean_ms`, `delay_p99_ms`, `jitter_ms`)
//! against theory: without queueing a unit's delay is the sum of its links' propagation delays
//! and serialisation times (store and forward; a multi-cell frame pays its own length once), the
//! jitter is zero, and the 99th percentile is the histogram's bucket of that delay; a queue
//! spreads them; too few units give JSON nulls (docs/scenarios.md, "Delays").

mod common;

use common::f;
use serde_json::{json, Value};

/// How far the 99th percentile may be from the delay of its rank, relative to it (1/128).
const P99_BOUND: f64 = ccsim_model::delays::P99_RELATIVE_ERROR;

fn run_json(s: &Value) -> Value {
    let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    v
}

/// The three fields of a row: a constant delay `want_ms` to 1e-9 (the mean is exact), its
/// percentile within the bound, no jitter.
fn assert_constant_delay(row: &Value, want_ms: f64) {
    let (mean, p99, jitter) = (f(&row["delay_mean_ms"]), f(&row["delay_p99_ms"]), f(&row["jitter_ms"]));
    assert!((mean - want_ms).abs() <= want_ms * 1e-9, "{}: mean {mean} ms vs {want_ms} ms", row["name"]);
    assert!((p99 - want_ms).abs() <= want_ms * P99_BOUND, "{}: p99 {p99} ms vs {want_ms} ms", row["name"]);
    assert_eq!(jitter, 0.0, "{}: a constant delay has no jitter", row["name"]);
}

/// A greedy ABR source (ICR = PCR = its access link's rate), a CBR one (a fixed-rate source
/// ignoring feedback) and CBR/VBR background traffic (served by strict-priority ports, which
/// stamp a cell when its transmission starts), each alone on a path whose links get faster
/// (106, 212, 424 Mb/s: 4, 2, 1 µs a cell, whole picoseconds) so nothing queues in the network:
/// every cell's delay is 4 + 2 + 1 µs of serialisation plus 2 + 3 + 1 ms of propagation, in the
/// single queue and in windows alike. So is that of a source sending at twice its access link's
/// rate: its cells queue in its own host, and a cell leaves its source when its transmission starts.
#[test]
fn a_lone_cell_source_sees_propagation_plus_serialisation() {
    let s = json!({
        "name": "test/delay-cells",
        "run": {"duration": "200ms", "measure_from": "50ms"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "424Mbps", "link_delay": "1ms",
                     "abr": {"pcr": "106Mbps", "icr": "106Mbps"}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}, {"name": "SW3"}, {"name": "SW4"}, {"name": "SW5"}, {"name": "SW6"},
                   {"name": "SW7"}, {"name": "SW8"}],
        "link": [{"between": ["SW1", "SW2"], "rate": "212Mbps", "delay": "3ms"},
                 {"between": ["SW3", "SW4"], "rate": "212Mbps", "delay": "3ms"},
                 {"between": ["SW5", "SW6"], "rate": "212Mbps", "delay": "3ms"},
                 {"between": ["SW7", "SW8"], "rate": "212Mbps", "delay": "3ms"}],
        "source": [
            {"name": "ABR", "route": ["SW1", "SW2"], "access": {"rate": "106Mbps", "delay": "2ms"}},
            {"name": "CBR", "route": ["SW3", "SW4"], "access": {"rate": "106Mbps", "delay": "2ms"},
             "misbehaviour": {"type": "fixed_rate", "start": "0s", "rate": "40Mbps"}},
            {"name": "OVER", "route": ["SW7", "SW8"], "access": {"rate": "106Mbps", "delay": "2ms"},
             "abr": {"pcr": "212Mbps", "icr": "212Mbps"}},
        ],
        "background": [{"name": "VBR", "route": ["SW5", "SW6"], "destination": "DV", "peak": "60Mbps",
                        "mean_on": "5ms", "mean_off": "5ms", "access": {"rate": "106Mbps", "delay": "2ms"}}],
    });
    let want_ms = 6.0 + (4.0 + 2.0 + 1.0) * 1e-3;
    for windowed in [false, true] {
        let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap();
        r.world_mut().set_windowed(windowed).unwrap();
        r.run_to_end();
        let v = r.finish().unwrap();
        assert_eq!(v["conservation_ok"], true);
        assert!(f(&v["sources"][0]["rate_mbps"]) > 100.0, "the ABR source runs at its PCR");
        for row in [&v["sources"][0], &v["sources"][1], &v["sources"][2], &v["background"][0]] {
            assert_constant_delay(row, want_ms);
        }
        let over = &v["sources"][2];
        assert!(f(&over["acr_mbps"]) > 200.0 && f(&over["rate_mbps"]) < 106.0, "OVER outruns its access link");
    }
}

/// TCP over IP (one packet a segment): 1500-byte packets over three 10 Mb/s links of 5 ms with
/// a window that fits the pipe, measured from the start. Segments leave the host in bursts (two
/// per ACK in slow start) but a packet's delay starts when its transmission does, and the links
/// downstream are no slower: each packet takes 3 × (1.2 ms + 5 ms).
#[test]
fn a_tcp_packet_without_queueing_takes_propagation_plus_serialisation() {
    let mut s = ip_flow("11680B", "10Mbps", "1000packets");
    s["run"]["measure_from"] = json!("0s");
    let v = run_json(&s);
    let c = &v["connections"][0];
    assert_eq!(c["retransmits"], 0);
    assert_constant_delay(c, 3.0 * (1.2 + 5.0));
}

/// TCP over UBR: a segment's frame of 23 cells (1024-byte MSS, LLC/SNAP, AAL5 trailer) is timed
/// from its first cell's departure to its last cell's arrival. On three 42.4 Mb/s links (10 µs a
/// cell) of 1 ms, the last cell leaves the host 22 cells after the first and then takes a cell
/// time and a propagation delay per link: (23 + 2) × 10 µs + 3 ms, from the start (slow start's
/// frames wait behind each other in the host, not in the network).
#[test]
fn a_tcp_frame_over_atm_is_timed_from_its_first_cell_to_its_last() {
    let s = json!({
        "name": "test/delay-ubr",
        "run": {"duration": "2s", "measure_from": "0s"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "42.4Mbps", "link_delay": "1ms",
                     "tcp": {"variant": "reno", "mss": "1024B", "window": "16384B"}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"between": ["SW1", "SW2"]}],
        "connection": [{"name": "T", "route": ["SW1", "SW2"]}],
    });
    let v = run_json(&s);
    let c = &v["connections"][0];
    assert!(f(&c["goodput_mbps"]) > 10.0, "the connection runs: {}", c["goodput_mbps"]);
    assert_constant_delay(c, (23.0 + 2.0) * 10e-3 + 3.0);
}

/// TCP over Controlled Transfer (docs/models/credit.md): the source adapter is the credit-gated
/// access port, which holds the greedy connection's whole 2 MB window; a frame leaves its source
/// when that held port starts transmitting its first cell (it stamps it then). With credit to
/// spare (Policy_Limit 200 cells on a 1 ms hop, 10 Mb/s: 42.4 µs a cell) a frame's 32 cells leave
/// back to back, and the last reaches the destination a cell time and 1 µs after it reaches the
/// switch: 33 cell times + 1.001 ms.
#[test]
fn a_frame_over_credit_controlled_hops_is_timed_from_its_transmission() {
    let s = common::ct_one_hop(json!({"n2": 32, "policy_limit": 200}));
    let v = run_json(&s);
    let c = &v["connections"][0];
    assert!(f(&c["ctd_mean_ms"]) < f(&c["delay_mean_ms"]), "cells, not frames, and from the head of the adapter's queue");
    assert_constant_delay(c, 33.0 * 0.0424 + 1.001);
}

/// One connection H -> R1 -> R2 -> D (5 ms links, 10 Mb/s from R1 on) with the host's access at
/// `access` and R1's buffer `buffer`.
fn ip_flow(window: &str, access: &str, buffer: &str) -> Value {
    json!({
        "name": "test/delay-ip",
        "run": {"duration": "20s", "measure_from": "5s"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "10Mbps", "link_delay": "5ms", "router_buffer": buffer,
                     "tcp": {"variant": "reno", "mss": "1460B", "window": window}},
        "router": [{"name": "R1"}, {"name": "R2"}],
        "link": [{"name": "L1", "between": ["R1", "R2"]}],
        "connection": [{"name": "T", "route": ["R1", "R2"], "access": {"rate": access}}],
    })
}

/// A queue: a greedy connection from a 100 Mb/s access into R1's 50-packet drop-tail buffer
/// before 10 Mb/s. Its packets wait behind up to 49 others (1.2 ms each), so the delays spread
/// between the path's own 0.12 + 3 × 5 + 2 × 1.2 ms and that plus 49 × 1.2 ms: the 99th
/// percentile is above the mean, and consecutive packets' delays differ.
#[test]
fn a_queue_puts_the_99th_percentile_above_the_mean() {
    let v = run_json(&ip_flow("600000B", "100Mbps", "50packets"));
    let c = &v["connections"][0];
    assert!(c["retransmits"].as_u64().unwrap() > 0, "drop-tail losses: the queue fills");
    let (mean, p99, jitter) = (f(&c["delay_mean_ms"]), f(&c["delay_p99_ms"]), f(&c["jitter_ms"]));
    let base = 0.12 + 15.0 + 2.0 * 1.2;
    let most = base + 49.0 * 1.2;
    assert!(mean > base && mean < most, "mean {mean} ms outside ({base}, {most})");
    assert!(p99 > mean * (1.0 + P99_BOUND), "p99 {p99} ms not above the mean {mean} ms");
    assert!(p99 <= most * (1.0 + P99_BOUND), "p99 {p99} ms above the fullest queue's {most} ms");
    assert!(jitter > 0.0 && jitter < 49.0 * 1.2, "jitter {jitter} ms");
}

/// Nulls: a source that delivers nothing in the window (it stops long before the window opens:
/// what it delivered earlier does not count), a source that has not started by the end, and a
/// connection that delivers a single segment in the window (a delay, no jitter).
#[test]
fn too_few_units_give_nulls() {
    let s = json!({
        "name": "test/delay-nulls",
        "run": {"duration": "100ms", "measure_from": "50ms"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "104Mbps", "link_delay": "1ms", "abr": {"pcr": "100Mbps", "icr": "10Mbps"},
                     "tcp": {"variant": "reno", "mss": "1460B", "app_bytes": "1000B"}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "router": [{"name": "R1"}, {"name": "R2"}],
        "link": [{"between": ["SW1", "SW2"]}, {"between": ["R1", "R2"]}],
        "source": [{"name": "EARLY", "route": ["SW1", "SW2"], "stop": "20ms"},
                   {"name": "LATE", "route": ["SW1", "SW2"], "start": "1s"}],
        "connection": [{"name": "ONE", "route": ["R1", "R2"], "start": "60ms"}],
    });
    let v = run_json(&s);
    for (i, name) in ["EARLY", "LATE"].iter().enumerate() {
        let row = &v["sources"][i];
        assert_eq!(row["name"], *name);
        for field in ["delay_mean_ms", "delay_p99_ms", "jitter_ms"] {
            assert!(row[field].is_null(), "{name}.{field} = {}", row[field]);
        }
    }
    assert!(v["sources"][0]["cells_received"].as_u64().unwrap() > 0, "EARLY delivered before the window");
    let one = &v["connections"][0];
    assert_eq!(one["delivered_bytes"], 1000);
    assert!(one["jitter_ms"].is_null(), "one segment: no jitter");
    // 1040 bytes at 104 Mb/s (80 µs) on each of three links, and 3 ms.
    let want = 3.0 + 3.0 * 0.08;
    assert!((f(&one["delay_mean_ms"]) - want).abs() <= want * 1e-9, "{} vs {want}", one["delay_mean_ms"]);
    assert!((f(&one["delay_p99_ms"]) - want).abs() <= want * P99_BOUND);
}

/// Issue 39's delay series and histogram. On GFC1 (queues that grow and drain): per source, the
/// series' points (the mean delay of the cells delivered in each sampling interval) weighted by
/// the cells delivered in their intervals (the `received` series' steps) give, over the window,
/// the exact `delay_mean_ms`; an interval that delivered nothing has no point; across the
/// window's opening nothing is lost. The histogram holds exactly the window's cells, and its
/// buckets bound the mean.
#[test]
fn the_delay_series_and_histogram_add_up_to_the_windows_mean() {
    let adj = ccsim_scenario::Adjustments {
        overrides: vec![("run.duration".into(), json!("60ms")), ("run.measure_from".into(), json!("30ms"))],
        ..Default::default()
    };
    let mut r = ccsim_scenario::Run::from_text(&common::preset("abr-benchmarks/gfc1"), ccsim_scenario::Format::Toml, &adj).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    let h = ccsim_scenario::results::DelayHistograms::of(r.world());
    let window_start = v["window_s"][0].as_f64().unwrap();
    let mut checked = 0;
    for (k, s) in v["sources"].as_array().unwrap().iter().enumerate() {
        let name = s["name"].as_str().unwrap();
        let delay = common::series(&v, "delay", "flow", name, "delay_s");
        let received = common::series(&v, "received", "source", name, "cells");
        // Cells delivered in the interval ending at each sample.
        let steps: Vec<(f64, f64)> = received.windows(2).map(|w| (w[1].0, w[1].1 - w[0].1)).collect();
        let (mut sum, mut n, mut all) = (0.0, 0.0, 0.0);
        for &(t, cells) in &steps {
            let point = delay.iter().find(|p| (p.0 - t).abs() < 1e-12);
            assert_eq!(point.is_some(), cells > 0.0, "{name} at {t}: a point exactly where cells were delivered");
            if let Some(&(_, d)) = point {
                all += cells;
                if t > window_start + 1e-12 {
                    sum += d * cells;
                    n += cells;
                }
            }
        }
        let delivered = s["cells_received"].as_f64().unwrap() - received[0].1;
        assert_eq!(all, delivered, "{name}: every delivered cell is in one point");
        let in_hist: u64 = (0..h.flow.len()).filter(|&i| h.flow[i] as usize == k).map(|i| h.count[i]).sum();
        assert_eq!(in_hist as f64, n, "{name}: the histogram holds the window's cells");
        if n == 0.0 {
            assert!(s["delay_mean_ms"].is_null());
            continue;
        }
        let mean_ms = f(&s["delay_mean_ms"]);
        assert!((sum / n * 1e3 - mean_ms).abs() <= mean_ms * 1e-9, "{name}: series {} ms vs mean {mean_ms} ms", sum / n * 1e3);
        let (lo, hi): (f64, f64) = (0..h.flow.len())
            .filter(|&i| h.flow[i] as usize == k)
            .map(|i| (h.low_s[i] * h.count[i] as f64, h.high_s[i] * h.count[i] as f64))
            .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert!(lo / n * 1e3 <= mean_ms * (1.0 + 1e-9) && mean_ms <= hi / n * 1e3 * (1.0 + 1e-9), "{name}: buckets bound the mean");
        checked += 1;
    }
    assert!(checked >= 10, "{checked} sources delivered in the window");
}
