//! FICCRD (seed 002, docs/models/ficcrd.md) against its drop-tail baseline, the three acceptance
//! checks listed in docs/models/ficcrd.md ("Measured, seed 1, 200 s"), the two readings of the
//! queue the control reads, and the RD timer that keeps every flow alive (issue #38).

mod common;

use ccsim_engine::SimTime;
use ccsim_scenario::{Format, Run};
use common::*;
use serde_json::Value;

const BOTTLENECK: &str = "R11->R12";

/// The result and the bottleneck's drops after the 50 s warm-up.
fn run_counting_late_drops(name: &str) -> (Value, u64) {
    let mut r = Run::from_text(&preset(name), Format::Toml, &Default::default()).unwrap();
    r.run_until(SimTime::ZERO + ccsim_engine::SimDuration::from_secs(50));
    let early = r.world().ports.iter().find(|p| p.name == BOTTLENECK).unwrap().buffer.dropped_total();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true, "{name}");
    let late = port(&v, BOTTLENECK)["drops"].as_u64().unwrap() - early;
    (v, late)
}

struct Numbers {
    total: f64,
    jain: f64,
    s0: f64,
    mean_q: f64,
    max_q: u64,
    drops: u64,
    late_drops: u64,
}

fn numbers(v: &Value, late_drops: u64) -> Numbers {
    let b = port(v, BOTTLENECK);
    Numbers {
        total: f(&v["goodput_mbps_total"]),
        jain: f(&v["fairness_index"]),
        s0: f(&v["connections"][0]["goodput_mbps"]),
        mean_q: f(&b["mean_queue_packets"]),
        max_q: b["max_queue_packets"].as_u64().unwrap(),
        drops: b["drops"].as_u64().unwrap(),
        late_drops,
    }
}

#[test]
fn ficcrd_beats_drop_tail_on_seed_002() {
    let (fv, f_late) = run_counting_late_drops("ficcrd/ficcrd-fiewa");
    let (dv, d_late) = run_counting_late_drops("ficcrd/droptail");
    let (fi, dt) = (numbers(&fv, f_late), numbers(&dv, d_late));
    for (name, n) in [("ficcrd", &fi), ("droptail", &dt)] {
        eprintln!(
            "{name}: goodput {:.3} Mb/s, Jain {:.4}, S0 {:.3} Mb/s, bottleneck mean {:.1} max {} packets, drops {} ({} after 50 s)",
            n.total, n.jain, n.s0, n.mean_q, n.max_q, n.drops, n.late_drops
        );
    }
    eprintln!("ficcrd connections: {}", serde_json::to_string(&fv["connections"]).unwrap());
    eprintln!("ficcrd bottleneck: {}", port(&fv, BOTTLENECK));
    // RD packets flowed through every flow's loop.
    for c in fv["connections"].as_array().unwrap() {
        assert!(c["rd_returned"].as_u64().unwrap() > 100, "{}", c["name"]);
        assert!(c["acks_capped"].as_u64().unwrap() > 0, "{}", c["name"]);
    }
    // Against drop-tail: fewer bottleneck drops, a fairer share, a shorter queue.
    assert!(fi.drops < dt.drops, "drops {} vs {}", fi.drops, dt.drops);
    assert!(fi.jain > dt.jain, "Jain {} vs {}", fi.jain, dt.jain);
    assert!(fi.mean_q < dt.mean_q / 2.0, "mean queue {} vs {}", fi.mean_q, dt.mean_q);
    assert!(fi.s0 > dt.s0, "S0 {} vs {}", fi.s0, dt.s0);
    // Acceptance checks 1 (drops) and 2 (fairness), with margins: no drop after the warm-up
    // (none at all, in fact), Jain's index above 0.95.
    assert_eq!(fi.late_drops, 0);
    assert_eq!(fi.drops, 0);
    assert!(fi.jain > 0.97, "{}", fi.jain);
    assert!(fi.max_q < 200);
    // Not met (docs/models/ficcrd.md): the queue does not settle near Q0 = 100 packets. FIEWA's
    // window W = ER x RTT rounds down to two 4 KB segments per round trip, below the bandwidth-
    // delay product plus Q0, so the queue stays nearly empty and the link is ~8 % under-used.
    // Pinned so that a change in this behaviour is noticed (and documented).
    assert!(fi.mean_q < 20.0, "mean queue {} (docs/models/ficcrd.md says ~2.4)", fi.mean_q);
    assert!(fi.total > 0.85 * dt.total && fi.total < dt.total, "goodput {} vs {}", fi.total, dt.total);
    let b = port(&fv, BOTTLENECK);
    // Acceptance check 3: MAPR within [0, C], DPF within [0, alpha].
    assert!(f(&b["mapr_mbps"]) >= 0.0 && f(&b["mapr_mbps"]) <= 10.0 + 1e-9, "{}", b["mapr_mbps"]);
    assert!(f(&b["dpf"]) >= 0.0 && f(&b["dpf"]) <= 1.15 + 1e-9, "{}", b["dpf"]);
    assert!(b["forward_rds"].as_u64().unwrap() > 0 && b["backward_rds"].as_u64().unwrap() > 0);
    // ... and over the whole sampled trace of both core routers' ports towards R13.
    for p in [BOTTLENECK, "R12->R13"] {
        let mapr = series(&fv, "mapr", "port", p, "mapr_mbps");
        let dpf = series(&fv, "dpf", "port", p, "dpf");
        assert_eq!(mapr.len(), 4001, "{p}");
        assert!(mapr.iter().all(|&(_, m)| (0.0..=10.0 + 1e-9).contains(&m)), "{p}");
        assert!(dpf.iter().all(|&(_, d)| (0.0..=1.15 + 1e-9).contains(&d)), "{p}");
    }
    let late: Vec<f64> = series(&fv, "mapr", "port", BOTTLENECK, "mapr_mbps").into_iter().filter(|(t, _)| *t >= 50.0).map(|x| x.1).collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    eprintln!("bottleneck MAPR over 50-200 s: mean {mean:.3} Mb/s, min {:.3}, max {:.3}", late.iter().cloned().fold(f64::MAX, f64::min), late.iter().cloned().fold(0.0, f64::max));
    assert!(series(&dv, "mapr", "port", BOTTLENECK, "mapr_mbps").is_empty(), "drop-tail has no MAPR");
}

/// A run of `name` on `seed` with `overrides`: its result, conservation checked.
fn run_with(name: &str, seed: u64, overrides: &[(&str, Value)]) -> Value {
    let mut adj = ccsim_scenario::Adjustments { seed: Some(seed), ..Default::default() };
    adj.overrides = overrides.iter().map(|(p, v)| (p.to_string(), v.clone())).collect();
    let mut r = Run::from_text(&preset(name), Format::Toml, &adj).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true, "{name} {overrides:?} seed {seed}");
    v
}

/// Both core routers' control reads every packet in its buffer (`queue = "packets"`).
fn packets_reading() -> Vec<(&'static str, Value)> {
    vec![("router[1].control.queue", serde_json::json!("packets")), ("router[2].control.queue", serde_json::json!("packets"))]
}

/// Seed 002's claims for FICCRD when the control counts every packet (RD packets included), with
/// either edge scheme, on every seed of the reproduction: no packet dropped at the bottleneck
/// over the whole 200 s, and a fair share (Jain >= 0.95). FIABC, and FIEWA with its window
/// rounded up to whole segments, also hold the bottleneck's packet queue around the target Q0 =
/// 100 packets; FIEWA with the window as computed does not (docs/models/ficcrd.md: whole
/// segments of 4 KB at ~2 per round trip cannot grow by alpha). With one RD behind every data
/// packet, FIABC's data and RD packets then share the queue half and half (the RD packets leave
/// the edge right behind their data packet and wait with it).
#[test]
fn with_the_packets_reading_both_edges_drop_nothing_and_share_fairly_on_every_seed() {
    let packets = packets_reading();
    let mut up = packets.clone();
    up.push(("router[0].edge.window_rounding", serde_json::json!("up")));
    let cases: [(&str, &[(&str, Value)], bool); 3] =
        [("ficcrd/ficcrd-fiewa", &packets, false), ("ficcrd/ficcrd-fiewa", &up, true), ("ficcrd/ficcrd", &packets, true)];
    for (name, extra, near_q0) in cases {
        for seed in 1..=5u64 {
            let v = run_with(name, seed, extra);
            let (b, jain) = (port(&v, BOTTLENECK), f(&v["fairness_index"]));
            let mean_q = f(&b["mean_queue_packets"]);
            let (data, rd) = (f(&b["mean_data_queue_packets"]), f(&b["mean_rd_queue_packets"]));
            eprintln!("{name} {extra:?} seed {seed}: Jain {jain:.4}, drops {}, mean queue {mean_q:.1} = data {data:.1} + RD {rd:.1}", b["drops"]);
            assert_eq!(b["control_queue"], "packets");
            assert!((data + rd - mean_q).abs() < 1e-6 * mean_q.max(1.0));
            assert_eq!(b["drops"], 0, "{name} seed {seed}");
            assert!(jain >= 0.95, "{name} seed {seed}: Jain {jain}");
            if name == "ficcrd/ficcrd" {
                // The ACK bucket pays for acknowledged payload at ER / 8 bytes/s: each sender's
                // goodput follows its ER (the last one, ER moving little in steady state).
                for c in v["connections"].as_array().unwrap() {
                    let (g, er) = (f(&c["goodput_mbps"]), f(&c["er_mbps"]));
                    assert!((g - er).abs() < 0.05 * er, "{} seed {seed}: goodput {g} against ER {er}", c["name"]);
                    assert!(c["acks_held"].as_u64().unwrap() > 1000);
                }
                assert!((data - rd).abs() < 0.05 * data, "seed {seed}: data {data} against RD {rd}, one RD per data packet");
            }
            if near_q0 {
                assert!((50.0..150.0).contains(&mean_q), "{name} {extra:?} seed {seed}: mean queue {mean_q}");
            } else {
                assert!(mean_q < 20.0, "{name} seed {seed}: mean queue {mean_q}");
            }
        }
    }
}

/// The seed's reading (`queue = "data"`, the preset's): the data queue is what the control
/// holds at Q0. Its only fixed point is Q0 itself: MAPR is the mean of the APRs the flows send
/// at (FIABC sends at ER exactly), ER = DPF(Q) x MAPR, so MAPR stands still only where DPF = 1,
/// at Q = Q0 = 100 packets; the band is the reproduction's "at our target queue length"
/// criterion, +-10 % of Q0. With an RD every 4 or 32 data packets the RD packets take a quarter
/// or less of that again, the buffer never fills after the warm-up, and the time-average the
/// report gives agrees with the 50 ms samples of the `data_queue` series (two computations: the
/// integral of the RD count at admission, and the count at each sample). With one RD per data
/// packet the RD packets need as many slots as the data, Q0 + Q0 = the whole buffer: it
/// overflows after the warm-up, a finding of docs/reproductions/ficcrd.md pinned here.
#[test]
fn with_the_data_reading_the_data_queue_sits_at_q0_unless_rds_fill_the_rest_of_the_buffer() {
    for n_rd in [4u32, 32] {
        let v = run_with("ficcrd/ficcrd", 1, &[("router[0].edge.n_rd", serde_json::json!(n_rd))]);
        let b = port(&v, BOTTLENECK);
        let (data, rd) = (f(&b["mean_data_queue_packets"]), f(&b["mean_rd_queue_packets"]));
        eprintln!("n_rd {n_rd}: data {data:.1}, RD {rd:.1}, max {}, drops {}", b["max_queue_packets"], b["drops"]);
        assert_eq!(b["control_queue"], "data");
        assert!((data - 100.0).abs() <= 10.0, "n_rd {n_rd}: data queue {data}");
        assert!(rd < data / 2.0, "n_rd {n_rd}: RD queue {rd}");
        assert!(b["max_queue_packets"].as_u64().unwrap() < 200, "n_rd {n_rd}: the buffer filled in the window");
        let sampled: Vec<f64> = series(&v, "data_queue", "port", BOTTLENECK, "data_queue_packets").into_iter().filter(|(t, _)| *t >= 50.0).map(|x| x.1).collect();
        let mean = sampled.iter().sum::<f64>() / sampled.len() as f64;
        assert!((mean - data).abs() < 0.02 * data, "n_rd {n_rd}: sampled {mean} against {data}");
    }
    let v = run_with("ficcrd/ficcrd", 1, &[]);
    let b = port(&v, BOTTLENECK);
    eprintln!("n_rd 1: data {}, RD {}, max {}, drops {}", b["mean_data_queue_packets"], b["mean_rd_queue_packets"], b["max_queue_packets"], b["drops"]);
    assert_eq!(b["max_queue_packets"], 200, "one RD per data packet: the buffer fills");
    assert!(f(&b["mean_data_queue_packets"]) < 90.0);
}

/// Issue #38: RDs leave behind data packets, so a flow given ER = 0 sent no RD again and never
/// recovered (FIABC holds its ACKs at ER = 0: with one RD every 32 data packets, counting every
/// packet, one flow starved for good on seed 1). The edge's RD timer (`rd_interval`, 1 s by
/// default) sends an RD when a flow has gone that long without one: every flow's goodput after
/// the warm-up is then above zero, for every `n_rd` and both readings of the queue.
#[test]
fn no_flow_starves_for_any_n_rd() {
    let n = |k: u32| ("router[0].edge.n_rd", serde_json::json!(k));
    let off = ("router[0].edge.rd_interval", serde_json::json!("1000s"));
    let mut starving = packets_reading();
    starving.extend([n(32), off.clone()]);
    let v = run_with("ficcrd/ficcrd", 1, &starving);
    let lowest = v["connections"].as_array().unwrap().iter().map(|c| f(&c["goodput_mbps"])).fold(f64::MAX, f64::min);
    assert_eq!(lowest, 0.0, "without the timer a flow starves (the bug this test documents)");
    for reading in [vec![], packets_reading()] {
        for k in [1u32, 4, 32] {
            let mut o = reading.clone();
            o.push(n(k));
            let v = run_with("ficcrd/ficcrd", 1, &o);
            for c in v["connections"].as_array().unwrap() {
                assert!(f(&c["goodput_mbps"]) > 0.5, "n_rd {k} {reading:?}: {} at {}", c["name"], c["goodput_mbps"]);
            }
        }
    }
}

/// A small buffer overflows: RD packets are dropped like data, the edge forgets the RDs that
/// never return, and every item is still accounted for (`run` checks conservation).
#[test]
fn rd_packets_can_be_lost_and_the_books_still_balance() {
    let s = serde_json::json!({
        "name": "test/ficcrd-small-buffer",
        "run": {"duration": "10s", "measure_from": "2s"},
        "measure": {"interval": "10ms"},
        "defaults": {"link_rate": "10Mbps", "link_delay": "5ms", "router_buffer": "6packets",
                     "tcp": {"variant": "reno", "mss": "1460B", "window": "200000B"}},
        "router": [
            {"name": "R1", "edge": {"type": "fiewa"}, "control": {"type": "ficcrd"}},
            {"name": "R2", "control": {"type": "ficcrd"}},
            {"name": "R3"},
        ],
        "link": [{"between": ["R1", "R2"]}, {"between": ["R2", "R3"]}],
        "connection": [{"name": "T", "count": 4, "route": ["R1", "R2", "R3"], "access": {"rate": "100Mbps"}}],
    });
    let v = run_json(&s.to_string());
    let lost: u64 = v["connections"].as_array().unwrap().iter().map(|c| c["rd_sent"].as_u64().unwrap() - c["rd_returned"].as_u64().unwrap()).sum();
    let drops: u64 = v["ports"].as_array().unwrap().iter().map(|p| p["drops"].as_u64().unwrap()).sum();
    assert!(drops > 0, "the 6-packet buffers overflow");
    assert!(lost > 0, "some RDs are lost (or still in flight)");
    assert!(f(&v["goodput_mbps_total"]) > 1.0, "{}", v["goodput_mbps_total"]);
}

fn run_json(text: &str) -> Value {
    let mut r = Run::from_text(text, Format::Json, &Default::default()).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    v
}
