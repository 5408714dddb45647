//! TCP over UBR through AAL5 adapters, against theory: throughput limits, conservation, and
//! seed 001 §2's finding that EPD raises efficiency over cell drop-tail with small buffers.

mod common;

use common::*;
use serde_json::{json, Value};

fn one_flow(window: &str, buffer: &str) -> Value {
    one_flow_with(window, buffer, true)
}

fn one_flow_with(window: &str, buffer: &str, scaling: bool) -> Value {
    let s = json!({
        "name": "test/one-tcp",
        "run": {"duration": "6s", "measure_from": "2s"},
        "defaults": {"link_rate": "155.52Mbps", "sonet_payload": true, "link_delay": "5ms", "buffer": buffer,
                     "tcp": {"variant": "reno", "mss": "1024B", "window": window, "window_scaling": scaling}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"name": "L1", "between": ["SW1", "SW2"]}],
        "connection": [{"name": "T", "route": ["SW1", "SW2"]}],
    });
    let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    v
}

const CELL_RATE: f64 = 149.76e6 / 424.0;
/// A 1024-byte segment is 23 cells, an ACK 2 (docs/models/tcp.md, "TCP hosts on ATM (UBR)").
const DATA_CELLS: f64 = 23.0;
const ACK_CELLS: f64 = 2.0;

fn goodput(v: &Value) -> f64 {
    f(&v["connections"][0]["goodput_mbps"]) * 1e6
}

#[test]
fn window_limited_flow_gets_window_over_rtt() {
    // 63 full segments fit in 65 535 bytes. The round trip: six 5 ms links plus the
    // serialisation of one data frame and one ACK frame on each of the three links.
    let v = one_flow("65535B", "100000cells");
    let rtt = 0.030 + 3.0 * (DATA_CELLS + ACK_CELLS) / CELL_RATE;
    let want = 63.0 * 1024.0 * 8.0 / rtt;
    let got = goodput(&v);
    assert!((got - want).abs() / want < 0.02, "{got:.0} b/s vs {want:.0}");
    assert_eq!(v["connections"][0]["retransmits"], 0);
}

/// Without window scaling a 600 000-byte window is clamped to 65 535 bytes (docs/models/tcp.md,
/// "Scenario keys"): the flow is window-limited exactly as with a 65 535-byte window.
#[test]
fn without_window_scaling_the_window_is_clamped() {
    let clamped = goodput(&one_flow_with("600000B", "100000cells", false));
    let small = goodput(&one_flow("65535B", "100000cells"));
    assert!((clamped - small).abs() / small < 1e-9, "{clamped} vs {small}");
}

#[test]
fn link_limited_flow_gets_the_aal5_payload_rate() {
    // Window far above the bandwidth-delay product, buffer large enough for no loss: the
    // cell rate carries 1024 payload bytes per 23 cells.
    let v = one_flow("600000B", "200000cells");
    let want = CELL_RATE / DATA_CELLS * 1024.0 * 8.0;
    let got = goodput(&v);
    assert!((got - want).abs() / want < 0.02, "{got:.0} b/s vs {want:.0}");
    assert_eq!(v["connections"][0]["retransmits"], 0);
    assert!((f(&v["efficiency"]) - 1.0).abs() < 0.02);
}

/// The mean of a summary number over seeds `1..=seeds` of the N-source preset with `policy`
/// (droptail, epd or sd) and the given overrides; the seeds run on every core.
fn n_source_seed_mean(policy: &str, overrides: &[(&str, Value)], seeds: u64, field: &str) -> f64 {
    let text = preset(&format!("gfr/n-source-15-{policy}"));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let sum: f64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|k| {
                let text = &text;
                scope.spawn(move || {
                    (1..=seeds)
                        .filter(|seed| seed % threads == k)
                        .map(|seed| {
                            let mut o = overrides.to_vec();
                            o.push(("run.seed", Value::from(seed)));
                            f(&run(text, &o)[field])
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a seed's run")).sum()
    });
    sum / seeds as f64
}

/// Seed 001 §2 (UBR+ literature): with limited buffers, EPD improves efficiency over cell
/// drop-tail, because drop-tail wastes the link on cells of frames already damaged. Averaged
/// over three seeds (start jitter and timer phases), with a 5-point margin.
#[test]
fn epd_beats_cell_drop_tail_on_efficiency_with_small_buffers() {
    let o = [
        ("run.duration", Value::from("6s")),
        ("run.measure_from", Value::from("2s")),
        ("defaults.buffer", Value::from("1000cells")),
        ("defaults.tcp.variant", Value::from("reno")),
    ];
    let (tail, epd) = (n_source_seed_mean("droptail", &o, 3, "efficiency"), n_source_seed_mean("epd", &o, 3, "efficiency"));
    assert!(epd > tail + 0.05, "EPD {epd:.3} vs drop-tail {tail:.3}");
}

/// Seed 001 §2 (summarising the UBR+ study it cites as [8]): per-VC buffer management (Selective
/// Drop) improves fairness over EPD. The effect needs the conditions of that study, where EPD is
/// unfair: few sources, "vanilla" TCP (slow start and congestion avoidance, no fast retransmit),
/// 500 ms timer ticks, 512-byte segments, a LAN (1 km links) and a limited buffer (3000 cells).
/// SD then holds every VC near its share of the buffer, so no VC sits out long timeouts while the
/// others fill it. The effect is large on average and noisy per seed (the Jain index's difference
/// has a standard deviation of ~0.1 across seeds): measured over seeds 1-30, EPD 0.865, SD 0.936,
/// SD fairer on 24 of 30, difference +0.071 with a standard error of 0.020. Asserted on the
/// 30-seed means with a 3-point margin (about two standard errors below the measured
/// difference). With the seed's own N-source setting (15 SACK sources, 12 000 cells, WAN) both
/// are above 0.97 and the difference is within the seed-to-seed spread
/// (docs/models/ubr/buffer-policies.md).
#[test]
fn selective_drop_beats_epd_on_fairness_where_epd_is_unfair() {
    let o = [
        ("run.duration", Value::from("10s")),
        ("run.measure_from", Value::from("1s")),
        ("measure.interval", Value::from("0s")),
        ("connection[0].count", Value::from(5)),
        ("defaults.link_delay", Value::from("5us")),
        ("defaults.buffer", Value::from("3000cells")),
        ("defaults.tcp.variant", Value::from("jacobson88")),
        ("defaults.tcp.mss", Value::from("512B")),
        ("defaults.tcp.clock", serde_json::json!({"type": "bsd_ticks", "tick": "500ms"})),
    ];
    let (epd, sd) = (n_source_seed_mean("epd", &o, 30, "fairness_index"), n_source_seed_mean("sd", &o, 30, "fairness_index"));
    assert!(sd > epd + 0.03, "SD {sd:.3} vs EPD {epd:.3}");
}

/// Seed 001 §6.1: the N-source preset as specified (12 000 cells, SACK, Selective Drop,
/// 20 s): the 15 sources share the link — mean goodput within 5 % of C·(1024 B / 23 cells)/15,
/// efficiency above 95 % ("almost 100 %"), Jain's index above 0.95. (The seed also reports every
/// source within 20 % of the mean; across seeds our spread is 15-34 %, so that is reported by
/// the reproduction, not asserted.)
#[test]
fn n_source_15_shares_the_link() {
    let v = run(&preset("gfr/n-source-15-sd"), &[]);
    let c = v["connections"].as_array().unwrap();
    let mean = c.iter().map(|x| f(&x["goodput_mbps"])).sum::<f64>() / c.len() as f64;
    let fair = CELL_RATE / DATA_CELLS * 1024.0 * 8.0 / 15.0 / 1e6;
    assert!((mean - fair).abs() / fair < 0.05, "mean {mean:.2} vs {fair:.2} Mb/s");
    assert!(f(&v["efficiency"]) > 0.95, "efficiency {}", v["efficiency"]);
    assert!(f(&v["fairness_index"]) > 0.95, "fairness {}", v["fairness_index"]);
}

/// TCP over ABR: the adapter's source paces the cells at ACR, so ERICA (U = 0.95) holds the
/// switch queue down and the flows share without loss: each of two greedy connections gets
/// U × C / 2 of cells, carried as whole 23-cell frames of 1024 payload bytes (RM cells take
/// one cell in Nrm = 32).
#[test]
fn tcp_over_abr_shares_by_erica_without_loss() {
    let s = json!({
        "name": "test/tcp-over-abr",
        "run": {"duration": "4s", "measure_from": "2s"},
        "defaults": {"link_rate": "155.52Mbps", "sonet_payload": true, "link_delay": "1ms", "buffer": "1000cells",
                     "algorithm": {"type": "erica", "target_utilization": 0.95},
                     "abr": {"pcr": "149.76Mbps", "icr": "10Mbps", "rif": 1.0},
                     "tcp": {"variant": "reno", "mss": "1024B", "window": "600000B"}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"name": "L1", "between": ["SW1", "SW2"]}],
        "connection": [{"name": "T", "count": 2, "route": ["SW1", "SW2"], "transport": "abr"}],
    });
    let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    let want = 0.95 * CELL_RATE / 2.0 * (31.0 / 32.0) / DATA_CELLS * 1024.0 * 8.0 / 1e6;
    for c in v["connections"].as_array().unwrap() {
        let g = f(&c["goodput_mbps"]);
        assert!((g - want).abs() / want < 0.05, "{}: {g:.2} vs {want:.2} Mb/s", c["name"]);
        assert_eq!(c["retransmits"], 0);
    }
    assert_eq!(port(&v, "SW1->SW2")["drops"], 0);
}
