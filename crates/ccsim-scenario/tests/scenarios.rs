//! Integration tests: every shipped preset runs, conserves cells and is deterministic; ERICA
//! reaches the rates theory predicts (docs/models/abr/erica.md, "Validation").

mod common;

use ccsim_scenario::{Format, Run};
use common::*;
use serde_json::Value;

/// The second run of each preset records no series (as `ccsim run --json`, whose samples then
/// only reschedule themselves and settle nothing): it must report everything else the same,
/// events and fingerprint included.
#[test]
fn every_preset_runs_conserves_and_is_deterministic() {
    let all = presets();
    assert!(all.len() >= 6, "presets missing: {:?}", all.iter().map(|p| &p.0).collect::<Vec<_>>());
    for (name, text) in all {
        let short = [("run.duration", Value::from(test_duration(&name, "60ms"))), ("run.measure_from", Value::Null)];
        let a = run(&text, &short);
        let adj = ccsim_scenario::Adjustments {
            overrides: short.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(),
            ..Default::default()
        };
        let mut bare = Run::open(&text, Format::Toml, &adj, ccsim_scenario::SeriesUse::Discarded).unwrap();
        bare.run_to_end();
        let b = bare.finish().unwrap();
        assert_eq!(a["scenario"], name.as_str(), "preset name must match its path");
        assert_eq!(a["fingerprint"], b["fingerprint"], "{name}: same seed, different events");
        let strip = |mut v: Value| {
            v.as_object_mut().unwrap().remove("series");
            v
        };
        let (a_, b_) = (strip(a.clone()), strip(b));
        assert!(a_ == b_, "{name}: same seed, different summary without series\n{}", first_difference(&a_, &b_));
        let hops = a["cell_hops"].as_u64().unwrap() + a["packet_hops"].as_u64().unwrap();
        assert!(hops > 0, "{name}: nothing moved");
    }
}

// --- water-filling on the shipped topologies (docs/reproductions/abr-benchmarks.md) ---------

#[test]
fn maxmin_column_of_gfc1_and_upstream() {
    let g = run(&preset("abr-benchmarks/gfc1"), &[("run.duration", Value::from("2ms"))]);
    for (group, want) in [("A", 5.556), ("B", 11.111), ("C", 33.333), ("D", 5.556), ("E", 11.111), ("F", 50.0)] {
        for s in g["sources"].as_array().unwrap() {
            if s["name"].as_str().unwrap().starts_with(group) {
                assert!((f(&s["maxmin_mbps"]) - want).abs() < 1e-3, "{} {}", s["name"], s["maxmin_mbps"]);
            }
        }
    }
    let u = run(&preset("abr-benchmarks/upstream"), &[("run.duration", Value::from("2ms"))]);
    for i in 1..=15 {
        assert!((f(&source(&u, &format!("S{i}"))["maxmin_mbps"]) - 10.368).abs() < 1e-3);
    }
    for s in ["S16", "S17"] {
        assert!((f(&source(&u, s)["maxmin_mbps"]) - 72.576).abs() < 1e-3);
    }
}

// --- ERICA against theory --------------------------------------------------------------------

/// Two greedy sources on one OC-3, U = 0.95: each ACR → 0.95 × 155.52 / 2 (docs/models/abr/erica.md,
/// "Validation").
#[test]
fn erica_two_sources_converge_to_half_the_target() {
    let v = run(&preset("abr-benchmarks/two-sources"), &[("run.duration", Value::from("100ms"))]);
    let want = 0.95 * 155.52 / 2.0;
    for s in ["S1", "S2"] {
        let acr = f(&source(&v, s)["acr_mbps"]);
        // The max-min fix may hold rates anywhere in [U, U(1+δ)]·C/n (the δ band,
        // docs/models/abr/erica.md, "Deviations and implementation choices").
        assert!(acr >= want * 0.99 && acr <= want * 1.2, "{s}: {acr} vs {want}");
    }
    let a = f(&source(&v, "S1")["acr_mbps"]);
    let b = f(&source(&v, "S2")["acr_mbps"]);
    assert!((a - b).abs() / a < 0.02, "unequal: {a} {b}");
    let q = v["ports"].as_array().unwrap().iter().find(|p| p["name"] == "SW1->SW2").unwrap();
    assert_eq!(q["drops"], 0);
}

/// Issue acceptance: ERICA on GFC1 (U = 0.9), every source within 10 % of 0.9 × max-min.
#[test]
fn erica_gfc1_rates_are_u_times_maxmin() {
    let v = run(&preset("abr-benchmarks/gfc1"), &[]);
    for s in v["sources"].as_array().unwrap() {
        let acr = f(&s["acr_mbps"]);
        let want = 0.9 * f(&s["maxmin_mbps"]);
        assert!((acr - want).abs() <= 0.1 * want, "{}: acr {acr:.3} vs {want:.3}", s["name"]);
    }
}

/// Upstream with U = 0.95 and the max-min fix: S16 and S17 start at 50 and 70 Mb/s but end
/// within 2 % of each other, inside [U, U(1+δ)] × max-min (the δ band, docs/models/abr/erica.md).
/// Without the fix ERICA's CCR/z term only rescales the two and their 50:70 ratio would persist.
#[test]
fn erica_upstream_max_min_fix_equalises_unequal_starts() {
    let v = run(&preset("abr-benchmarks/upstream"), &[("defaults.algorithm.target_utilization", Value::from(0.95))]);
    let a = f(&source(&v, "S16")["acr_mbps"]);
    let b = f(&source(&v, "S17")["acr_mbps"]);
    assert!((a - b).abs() / a.max(b) < 0.02, "S16 {a} S17 {b}");
    let want = 0.95 * 72.576;
    assert!(a >= want * 0.99 && a <= want * 1.2, "S16 {a} vs {want}");
}

/// Parking lot: A's bottleneck is downstream (L2), so A and B share L2 equally and L1 runs
/// below its target.
#[test]
fn erica_parking_lot_is_max_min_fair() {
    let v = run(&preset("abr-benchmarks/parking-lot-3"), &[("run.duration", Value::from("100ms"))]);
    let a = f(&source(&v, "A")["acr_mbps"]);
    let b = f(&source(&v, "B")["acr_mbps"]);
    assert!((a - b).abs() / a < 0.02, "A {a} B {b}");
    assert!((a - 0.95 * 77.76).abs() / (0.95 * 77.76) < 0.05, "A {a}");
    let util = |name: &str| {
        f(&v["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap()["utilization"])
    };
    assert!(util("L1 (SW1->SW2)") < 0.55, "L1 carries only A");
    assert!(util("L2 (SW2->SW3)") > 0.9, "L2 is the shared bottleneck");
}

/// Two Sources Staggered: S1 moves to half the target while S2 is active (100-200 ms) and
/// back to the whole target after S2 leaves, each within a few milliseconds.
#[test]
fn erica_staggered_sources_follow_arrivals_and_departures() {
    let v = run(&preset("abr-benchmarks/two-sources-staggered"), &[]);
    let acr = &v["series"]["acr"];
    let (t, who, val) = (acr["time_s"].as_array().unwrap(), acr["source"].as_array().unwrap(), acr["acr_mbps"].as_array().unwrap());
    let s1_at = |at: f64| {
        (0..t.len())
            .filter(|&i| who[i] == "S1" && f(&t[i]) >= at)
            .map(|i| f(&val[i]))
            .next()
            .unwrap()
    };
    let full = 0.95 * 155.52;
    for at in [0.05, 0.09] {
        assert!((s1_at(at) - full).abs() / full < 0.03, "alone at {at}: {}", s1_at(at));
    }
    for at in [0.11, 0.15, 0.19] {
        assert!((s1_at(at) - full / 2.0).abs() / (full / 2.0) < 0.2, "shared at {at}: {}", s1_at(at));
    }
    for at in [0.21, 0.25, 0.29] {
        assert!((s1_at(at) - full).abs() / full < 0.03, "alone again at {at}: {}", s1_at(at));
    }
}

/// EFCI with TM 4.0 sources (RIF = 1/16): binary feedback keeps the queue bounded and shares
/// the link between two equal sources; no ER is involved.
#[test]
fn efci_shares_a_link_with_binary_feedback() {
    let adj = ccsim_scenario::Adjustments {
        scheme: Some("efci".into()),
        overrides: vec![("defaults.abr.rif".into(), Value::from(0.0625)), ("run.duration".into(), Value::from("300ms"))],
        ..Default::default()
    };
    let mut r = Run::from_text(&preset("abr-benchmarks/two-sources"), Format::Toml, &adj).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    let a = f(&source(&v, "S1")["rate_mbps"]);
    let b = f(&source(&v, "S2")["rate_mbps"]);
    assert!((a - b).abs() / a < 0.05, "S1 {a} S2 {b}");
    assert!(a + b > 0.8 * 155.52 * 0.97, "link under-used: {}", a + b);
    let q = v["ports"].as_array().unwrap().iter().find(|p| p["name"] == "SW1->SW2").unwrap();
    assert_eq!(q["drops"], 0);
    assert!(q["max_queue_cells"].as_u64().unwrap() > 100, "EFCI acts on queue growth past q_hi");
}

/// A chunk end that leaves lazy state behind (`advance`, as the Python API runs) holds counters
/// back until a reader settles the world; settled, they are those of a chunk end that settles
/// (`run_until`). Two Sources delivers its data cells lazily, in both engines.
#[test]
fn readers_between_unsettled_chunks_settle_first() {
    let adj = ccsim_scenario::Adjustments {
        overrides: vec![("run.duration".into(), Value::from("50ms"))],
        ..Default::default()
    };
    for windowed in [false, true] {
        let open = || {
            let mut r = Run::from_text(&preset("abr-benchmarks/two-sources"), Format::Toml, &adj).unwrap();
            r.world_mut().set_windowed(windowed).unwrap();
            r
        };
        let (mut left, mut settled) = (open(), open());
        // Halfway between two samples (which settle the world themselves).
        let until = ccsim_engine::SimTime::from_ps(20_050_000_123);
        assert!(!left.advance(until) && !settled.run_until(until));
        let behind = left.world().cell_hops();
        left.settle_now();
        let hops = |r: &Run| (r.world().cell_hops(), r.world().port_drops());
        assert_eq!(hops(&left), hops(&settled), "windowed: {windowed}");
        assert!(behind < hops(&settled).0, "windowed: {windowed}: nothing was left to settle ({behind} hops)");
        left.run_to_end();
        settled.run_to_end();
        assert!(left.finish().unwrap() == settled.finish().unwrap(), "windowed: {windowed}");
    }
}

/// Lazy sources and sinks (emissions generated in batches, data cells to ABR destinations
/// delivered in batches, docs/DESIGN.md §2) change the number of events, never the results: every
/// summary number and every queue and utilisation sample is the same as with one event per
/// emission and per cell. A sample taken at the very picosecond of an emission or a delivery is
/// a tie between simultaneous events, which either order settles: the `acr` and `received`
/// samples may differ there (a cell, or the ACR on either side of that instant), at a handful of
/// samples at most.
#[test]
fn lazy_ends_give_the_results_of_an_event_per_cell() {
    let names: Vec<String> = presets().into_iter().map(|(n, _)| n).filter(|n| n.starts_with("abr-benchmarks/")).collect();
    assert!(names.len() >= 14);
    for name in &names {
        let adj = ccsim_scenario::Adjustments {
            overrides: vec![("run.duration".into(), Value::from("200ms")), ("run.measure_from".into(), Value::Null)],
            ..Default::default()
        };
        let result = |lazy: bool| {
            let mut r = ccsim_scenario::Run::from_text(&preset(name), ccsim_scenario::Format::Toml, &adj).unwrap();
            // Lazy sources are a device of the single queue (windows run each source host apart).
            r.world_mut().set_windowed(false).unwrap();
            if !lazy {
                r.world_mut().disable_lazy_sinks();
                r.world_mut().disable_lazy_sources();
            }
            // In chunks whose ends catch the lazy ends up (`run_until`) or leave them behind
            // (`advance`, as the Python API runs).
            for k in 1..=8u64 {
                let until = ccsim_engine::SimTime::from_ps(k * 25_000_000_000);
                if k % 2 == 0 { r.run_until(until) } else { r.advance(until) };
            }
            let mut v = r.finish().unwrap();
            let events = v["events"].as_u64().unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("events");
            o.remove("fingerprint");
            let series = o["series"].as_object_mut().unwrap();
            let ties = (series.remove("acr").unwrap(), series.remove("received").unwrap());
            (v, ties, events)
        };
        let ((lazy, lazy_ties, fewer), (eager, eager_ties, more)) = (result(true), result(false));
        assert!(fewer < more, "{name}: {fewer} events lazily vs {more}");
        assert!(lazy == eager, "{name}: lazy ends changed the summary or the queue/utilisation series");
        for ((a, b), value) in [(&lazy_ties.0, &eager_ties.0), (&lazy_ties.1, &eager_ties.1)].iter().zip(["acr_mbps", "cells"]) {
            assert_eq!(a["time_s"], b["time_s"]);
            let (x, y) = (a[value].as_array().unwrap(), b[value].as_array().unwrap());
            let differ = x.iter().zip(y).filter(|(p, q)| p != q).count();
            assert!(differ <= 3 + x.len() / 1000, "{name}: {differ} of {} {value} samples differ", x.len());
        }
    }
}

/// How `assert_windowed_matches_single_queue` runs a world.
#[derive(Clone)]
enum Engine {
    Single,
    /// Windows, grouped as the engine chooses (`World::choose_groups`).
    Windows,
    /// Windows with these logical processes (labels per node).
    Groups(Vec<u32>),
}

/// Groupings of a world of `nodes` nodes that the engine would not choose: every node alone,
/// the whole world as one logical process, and a random grouping into 2-4 processes (not
/// joined by links: any partition is allowed), drawn from a stream seeded by `label`.
fn forced_groupings(label: &str, nodes: usize) -> Vec<Vec<u32>> {
    let mut h = label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let mut next = move || {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        h
    };
    let k = 2 + next() % 3;
    let random: Vec<u32> = (0..nodes).map(|_| (next() % k) as u32).collect();
    vec![(0..nodes as u32).collect(), vec![0; nodes], random]
}

/// One ABR world run several ways: in windows (one queue per logical process, docs/DESIGN.md
/// §2) with the engine's grouping and with forced ones (`forced_groupings`), from one queue with
/// an event per emission, and from one queue with lazy sources. Windows, whatever the grouping,
/// and the single queue run the same events at the same times in the same order, so the whole
/// result (summary, every series) is identical, and so are the event count and fingerprint when
/// the single queue also has an event per emission; lazy sources change only those two.
fn assert_windowed_matches_single_queue(label: &str, text: &str, scheme: Option<&str>, duration: &str) {
    let adj = ccsim_scenario::Adjustments {
        overrides: vec![("run.duration".into(), Value::from(duration)), ("run.measure_from".into(), Value::Null)],
        scheme: scheme.map(str::to_string),
        ..Default::default()
    };
    let result = |engine: Engine, lazy_sources: bool, chunks: u64| {
        let mut r = ccsim_scenario::Run::from_text(text, ccsim_scenario::Format::Toml, &adj).unwrap();
        match engine {
            Engine::Single => r.world_mut().set_windowed(false),
            Engine::Windows => r.world_mut().set_windowed(true),
            Engine::Groups(labels) => r.world_mut().set_groups(ccsim_model::world::Groups::of_labels(&labels)),
        }
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        if !lazy_sources {
            r.world_mut().disable_lazy_sources();
        }
        let end = r.world().end().as_ps();
        for k in 1..=chunks {
            // Chunk ends that settle the world (`run_until`) and ones that leave it (`advance`,
            // as the Python API runs).
            let until = ccsim_engine::SimTime::from_ps(end * k / chunks);
            if k % 2 == 0 { r.run_until(until) } else { r.advance(until) };
        }
        assert!(r.world().is_done());
        let v = r.finish().unwrap();
        assert_eq!(v["conservation_ok"], true, "{label}");
        v
    };
    // Windows in chunks (each chunk's end cuts a window, half of them settle), the single queue in one go.
    let windowed = result(Engine::Windows, false, 7);
    let single = result(Engine::Single, false, 1);
    assert!(windowed == single, "{label}: windows and the single queue disagree\n{}", first_difference(&windowed, &single));
    let nodes = ccsim_scenario::Run::from_text(text, ccsim_scenario::Format::Toml, &adj).unwrap().world().nodes.len();
    for labels in forced_groupings(label, nodes) {
        let grouped = result(Engine::Groups(labels.clone()), false, 3);
        assert!(
            grouped == single,
            "{label}: windows grouped {labels:?} and the single queue disagree\n{}",
            first_difference(&grouped, &single)
        );
    }
    let mut lazy = result(Engine::Single, true, 1);
    assert!(lazy["events"].as_u64() <= windowed["events"].as_u64(), "{label}");
    // Windows with lazy sources where a host shares its switch's process (`mark_lazy_sources`).
    let mut windowed_lazy = result(Engine::Windows, true, 5);
    assert!(windowed_lazy["events"].as_u64() <= windowed["events"].as_u64(), "{label}");
    let mut windowed = windowed;
    for v in [&mut lazy, &mut windowed, &mut windowed_lazy] {
        let o = v.as_object_mut().unwrap();
        o.remove("events");
        o.remove("fingerprint");
    }
    assert!(windowed == lazy, "{label}: lazy sources changed the result\n{}", first_difference(&windowed, &lazy));
    assert!(
        windowed == windowed_lazy,
        "{label}: lazy sources in windows changed the result\n{}",
        first_difference(&windowed, &windowed_lazy)
    );
}


/// A windowed preset run on 1, 2 and 3 threads, in chunks (some settling, some not): the
/// same result, every series and the fingerprint included.
/// Runs `text` for `duration` on 1, 2 and 3 threads, in chunks too, and checks every result is the
/// same; returns it.
fn assert_threads_match(name: &str, text: &str, duration: &str) -> Value {
    let adj = ccsim_scenario::Adjustments {
        overrides: vec![("run.duration".into(), Value::from(duration)), ("run.measure_from".into(), Value::Null)],
        ..Default::default()
    };
    let result = |threads: usize, chunks: u64| {
        let mut r = Run::from_text(text, Format::Toml, &adj).unwrap();
        assert!(r.world().is_windowed(), "{name} runs in windows");
        let ran_on = r.set_threads(threads).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ran_on, threads.min(r.world().threads()), "{name}");
        let end = r.world().end().as_ps();
        for k in 1..=chunks {
            let until = ccsim_engine::SimTime::from_ps(end * k / chunks);
            if k % 2 == 0 { r.run_until(until) } else { r.advance(until) };
        }
        let v = r.finish().unwrap();
        assert_eq!(v["conservation_ok"], true, "{name}");
        (v, r.world().threads())
    };
    let (one, _) = result(1, 1);
    for (threads, chunks) in [(2, 1), (2, 5), (3, 4)] {
        let (many, ran) = result(threads, chunks);
        assert!(ran >= 2, "{name}: ran on {ran} threads");
        assert!(many == one, "{name}: {threads} threads ({ran} ran) in {chunks} chunks disagree with one\n{}", first_difference(&many, &one));
    }
    one
}

#[test]
fn threads_give_the_results_of_one() {
    assert_threads_match("abr-benchmarks/gfc1", &preset("abr-benchmarks/gfc1"), "60ms");
}

/// TCP connections whose cells are lost on a trunk run by another thread than their hosts: the
/// losses of data frames the receiver never sees the end of, and of ACK frames, which only the
/// loss's note tells the sender's record of (`crate::timeout_cause`), class the timeouts as on one
/// thread. A window of one segment turns every loss into a timeout, before any later frame shows the loss.
#[test]
fn tcp_losses_on_another_thread_class_timeouts_as_on_one() {
    let text = r#"
        name = "tcp-losses-elsewhere"
        [run]
        duration = "3s"
        [defaults]
        link_rate = "45Mbps"
        link_delay = "2ms"
        tcp = { variant = "reno", mss = "1024B", window = "1024B", rto_min = "200ms" }
        [[switch]]
        name = "SW1"
        [[switch]]
        name = "SW2"
        [[link]]
        between = ["SW1", "SW2"]
        loss = 0.01
        [[connection]]
        name = "T"
        count = 8
        route = ["SW1", "SW2"]
        start_jitter = "10ms"
    "#;
    let one = assert_threads_match("tcp-losses-elsewhere", text, "3s");
    let sum = |field: &str| one["connections"].as_array().unwrap().iter().map(|c| c[field].as_u64().unwrap()).sum::<u64>();
    let (timeouts, after_drop, acks_lost) = (sum("timeouts"), sum("timeouts_after_drop"), sum("ack_frames_lost"));
    assert!(timeouts >= 20 && after_drop >= timeouts / 2, "timeouts {timeouts}, after a drop {after_drop}");
    assert!(acks_lost > 0, "ACK frames lost: {acks_lost}");
}

/// Every windowed preset that can run on threads does, with the results of one thread; the
/// others say why not. (The scale presets are shortened to a few windows.)
#[test]
fn every_windowed_preset_runs_on_threads_with_the_results_of_one() {
    let mut threaded = Vec::new();
    for (name, text) in presets() {
        let r = Run::from_text(&text, Format::Toml, &Default::default()).unwrap();
        if !r.world().is_windowed() {
            continue;
        }
        match r.world().thread_plan(2) {
            Ok(_) => threaded.push(name),
            Err(why) => eprintln!("{name}: one thread ({why})"),
        }
    }
    eprintln!("on threads: {threaded:?}");
    for name in &threaded {
        // TCP connections for long enough to fill the bottleneck's buffer, lose cells there (on
        // the switch's thread, not their hosts') and time out.
        let tcp = name.starts_with("gfr/") || name.starts_with("ut-ct/");
        let duration = if name.starts_with("scale/") { "12ms" } else if tcp { "2s" } else { "40ms" };
        assert_threads_match(name, &preset(name), duration);
    }
    // Seed 003's 9 windowed presets, seed 001's 30 and seed 004's 9 with TCP over UBR or ABR
    // (UT) and its 9 with credit control (CT).
    assert!(threaded.len() >= 57, "{} on threads: {threaded:?}", threaded.len());
}

#[test]
fn windowed_and_single_queue_runs_agree() {
    let names: Vec<String> = presets().into_iter().map(|(n, _)| n).filter(|n| n.starts_with("abr-benchmarks/")).collect();
    assert!(names.len() >= 14);
    for name in &names {
        // Every scheme there is on GFC1 (a new one is covered without editing this test).
        let every: Vec<Option<&str>> = ccsim_scenario::algorithms::AlgorithmSpec::NAMES.iter().map(|&s| Some(s)).collect();
        let schemes: &[Option<&str>] = if name.ends_with("/gfc1") { &every } else { &[None] };
        for scheme in schemes {
            // LAN presets (5 us links) run in windows only when asked: short ones, still exact.
            assert_windowed_matches_single_queue(&format!("{name} {scheme:?}"), &preset(name), *scheme, "120ms");
        }
    }
}

/// Samples that record nothing (`ccsim run --json`) cut no windows: counted where they fall, they
/// leave every number of the result as the single queue gives it with its series kept, events and
/// fingerprint included.
#[test]
fn windows_uncut_by_idle_samples_agree_with_the_single_queue() {
    use ccsim_scenario::{Format, Run, SeriesUse};
    for (name, duration) in [("abr-benchmarks/gfc1", "150ms"), ("abr-benchmarks/parking-lot-5", "100ms"), ("gfr/n-source-15-sd", "2s")] {
        let adj = ccsim_scenario::Adjustments {
            overrides: vec![("run.duration".into(), Value::from(duration)), ("run.measure_from".into(), Value::Null)],
            ..Default::default()
        };
        let result = |windowed: bool, series: SeriesUse, chunks: u64| {
            let mut r = Run::open(&preset(name), Format::Toml, &adj, series).unwrap();
            r.world_mut().set_windowed(windowed).unwrap();
            // An event per emission, as windows count them.
            r.world_mut().disable_lazy_sources();
            let end = r.world().end().as_ps();
            for k in 1..=chunks {
                r.run_until(ccsim_engine::SimTime::from_ps(end * k / chunks));
            }
            let mut v = r.finish().unwrap();
            v.as_object_mut().unwrap().remove("series");
            v
        };
        let uncut = result(true, SeriesUse::Discarded, 3);
        let single = result(false, SeriesUse::InMemory, 1);
        assert!(uncut == single, "{name}: {}", first_difference(&uncut, &single));
    }
}

/// Windows with background VBR traffic: strict-priority ports schedule a departure event per
/// cell, which belongs to the port's node like its timers.
#[test]
fn windowed_and_single_queue_runs_agree_with_background_traffic() {
    let mut text = preset("abr-benchmarks/parking-lot-3");
    text.push_str("\n[[background]]\nname = \"V\"\nroute = [\"SW1\", \"SW2\"]\npeak = \"50Mbps\"\nmean_on = \"5ms\"\nmean_off = \"5ms\"\n");
    assert_windowed_matches_single_queue("parking-lot-3 + VBR", &text, None, "150ms");
}

/// Windows with a lossy link (fault injection): each direction's losses come from its own
/// stream, drawn in its arrivals' order, which both modes share.
#[test]
fn windowed_and_single_queue_runs_agree_with_link_losses() {
    let text = preset("abr-benchmarks/parking-lot-3").replacen("[[link]]\n", "[[link]]\nloss = 0.01\n", 1);
    assert!(text.contains("loss = 0.01"));
    assert_windowed_matches_single_queue("parking-lot-3 + loss", &text, None, "150ms");
}

/// Credit-controlled worlds (seed 004's CT) in windows and on threads: a hop's transmitter runs
/// at the node it leaves and its receiver at the node it leads to, and the BSU and BSC cells
/// between them cross processes and threads as cells do, so the results are the single queue's.
/// Per VP and per connection, with credit trains and without (a blocking adapter), with cells
/// lost on a hop (found by the BSCs), and with 100 us windows.
#[test]
fn credit_worlds_in_windows_and_on_threads_give_the_single_queue_s_results() {
    let case6 = preset("ut-ct/two-node-case6-ct-bdp");
    let per_connection = case6.replacen("scope = \"vp\"", "scope = \"connection\"", 1);
    let blocking = case6.replacen("[defaults]\n", "[defaults]\nadapter_full = \"block\"\n", 1);
    let lossy = case6.replacen("between = [\"SW1\", \"SW2\"]\n", "between = [\"SW1\", \"SW2\"]\nloss = 0.001\n", 1);
    for (label, text) in [("case6", &case6), ("per connection", &per_connection), ("blocking adapter", &blocking), ("lossy trunk", &lossy)] {
        assert!(label == "case6" || text != &case6, "{label}: the variant changed the preset");
        assert_windowed_matches_single_queue(label, text, None, "2s");
        let one = assert_threads_match(label, text, "2s");
        let ports = one["ports"].as_array().unwrap();
        let sum = |field: &str| ports.iter().filter_map(|p| p[field].as_u64()).sum::<u64>();
        assert!(sum("bsu_sent") > 0 && sum("bsc_sent") > 0, "{label}: BSUs and BSCs");
        if label == "lossy trunk" {
            assert!(sum("bsc_recovered_cells") > 0, "{label}: cells lost on the trunk are found by BSCs");
        }
    }
    // 100 us access links: windows only when asked.
    assert_windowed_matches_single_queue("maxmin case 1", &preset("ut-ct/maxmin-case1-ct-bdp"), None, "1s");
}

/// `auto` takes two threads where a window is expected to hold enough work to pay for its barrier
/// (500 events: docs/benchmarks.md, "Where `auto` takes two threads"), and one for seed 004's
/// 100–125 µs windows, worlds that run from one queue, and wide nodes.
#[test]
fn auto_takes_two_threads_where_windows_hold_enough_work() {
    let auto = |name: &str| Run::from_text(&preset(name), Format::Toml, &Default::default()).unwrap().world().auto_threads(2);
    for name in ["abr-benchmarks/gfc1", "abr-benchmarks/parking-lot-5", "abr-benchmarks/gfc3", "gfr/n-source-15-sd", "ut-ct/two-node-case3-ut"] {
        assert_eq!(auto(name), 2, "{name}");
    }
    for name in ["ut-ct/maxmin-case1-ut", "ut-ct/two-node-case1-ct-bdp", "ut-ct/two-node-case2-ut", "abr-benchmarks/two-sources", "scale/gfc1-10k"] {
        assert_eq!(auto(name), 1, "{name}");
    }
}

/// The engine picks windows for WAN cell worlds (with TCP too), the single queue for LANs and IP
/// worlds, and says why a world cannot run in windows.
#[test]
fn the_engine_mode_is_chosen_from_the_world() {
    let build = |name: &str| ccsim_scenario::Run::from_text(&preset(name), ccsim_scenario::Format::Toml, &Default::default()).unwrap();
    assert!(build("abr-benchmarks/gfc1").world().is_windowed());
    assert!(!build("abr-benchmarks/two-sources").world().is_windowed(), "5 us links: windows too short to pay");
    assert!(build("gfr/n-source-15-sd").world().is_windowed(), "TCP over UBR, 5 ms links");
    let mut ip = build("ficcrd/droptail");
    assert!(!ip.world().is_windowed(), "packets: about one per link per window");
    assert!(ip.world_mut().set_windowed(true).is_ok(), "IP worlds can run in windows when asked");
    let mut edges = build("ficcrd/ficcrd");
    let err = edges.world_mut().set_windowed(true).unwrap_err();
    assert!(err.contains("FICCRD edge"), "{err}");
    assert!(build("ut-ct/two-node-case1-ut").world().is_windowed(), "TCP over ABR, 6.25 ms links");
    assert!(build("ut-ct/two-node-case6-ct-bdp").world().is_windowed(), "CT, 6.25 ms links");
    let mut started = build("abr-benchmarks/gfc1");
    started.run_until(ccsim_engine::SimTime::from_ps(1_000_000_000));
    assert!(started.world_mut().set_windowed(false).is_err(), "the mode is fixed once the run starts");
}

/// Logical processes (docs/DESIGN.md §2): with 1 km access links each host runs in its switch's
/// process and windows are as long as the 1,000 km trunks (5 ms); where merging the short links
/// would leave one process (two-sources' 5 us LAN) or one with more than half of the ports, the
/// engine finds no grouping and keeps the single queue; worlds whose links are all long keep a
/// process per node.
#[test]
fn short_links_join_their_nodes_in_one_logical_process() {
    let build = |name: &str| ccsim_scenario::Run::from_text(&preset(name), ccsim_scenario::Format::Toml, &Default::default()).unwrap();
    let r = build("abr-benchmarks/gfc1-short-access");
    let w = r.world();
    assert!(w.is_windowed());
    let g = w.groups();
    assert_eq!(g.count, 5, "one process per switch");
    assert_eq!(w.lookahead(), ccsim_engine::SimDuration::from_millis(5));
    for p in &w.ports {
        let same = g.node_lp[p.from.index()] == g.node_lp[p.to.index()];
        assert_eq!(same, p.delay < ccsim_model::world::MIN_WINDOW, "{}", p.name);
    }
    assert_eq!(build("abr-benchmarks/two-sources").world().choose_groups(), None);
    assert!(!build("abr-benchmarks/two-sources").world().is_windowed());
    let gfc1 = build("abr-benchmarks/gfc1");
    assert_eq!(gfc1.world().groups(), ccsim_model::world::Groups::per_node(gfc1.world().nodes.len()));
    assert_eq!(gfc1.world().lookahead(), ccsim_engine::SimDuration::from_millis(5));
    // SW1, SW2 and the source hosts over 5 us links send on 11 of the 20 ports: more than half,
    // no grouping; the single queue, or one process per node when windows are forced.
    let text = "[run]\nduration = \"10ms\"\n[defaults]\nlink_rate = \"155.52Mbps\"\nlink_delay = \"5ms\"\n\
                buffer = \"1000cells\"\nalgorithm = { type = \"erica\" }\n\
                [[switch]]\nname = \"SW1\"\n[[switch]]\nname = \"SW2\"\n[[switch]]\nname = \"SW3\"\n\
                [[link]]\nname = \"L1\"\nbetween = [\"SW1\", \"SW2\"]\ndelay = \"5us\"\n\
                [[link]]\nname = \"L2\"\nbetween = [\"SW2\", \"SW3\"]\n\
                [[source]]\nname = \"S\"\ncount = 4\nroute = [\"SW1\", \"SW2\", \"SW3\"]\naccess = { delay = \"5us\" }\n";
    let mut heavy = ccsim_scenario::Run::from_text(text, ccsim_scenario::Format::Toml, &Default::default()).unwrap();
    assert_eq!((heavy.world().ports.len(), heavy.world().choose_groups()), (20, None));
    assert!(!heavy.world().is_windowed());
    heavy.world_mut().set_windowed(true).unwrap();
    assert_eq!(heavy.world().groups().count, heavy.world().nodes.len());
    assert_eq!(heavy.world().lookahead(), ccsim_engine::SimDuration::from_micros(5));
    // Without the access links' share (1,000 km access links) the same world groups SW1 with SW2.
    let light = ccsim_scenario::Run::from_text(&text.replace("access = { delay = \"5us\" }\n", ""), ccsim_scenario::Format::Toml, &Default::default()).unwrap();
    let g = light.world().choose_groups().expect("7 of 20 ports");
    assert_eq!(g.count, light.world().nodes.len() - 1);
    assert!(light.world().is_windowed());
    // A grouping with a link of no delay between processes is refused.
    let mut one = build("abr-benchmarks/gfc1");
    let n = one.world().nodes.len();
    assert!(one.world_mut().set_groups(ccsim_model::world::Groups { node_lp: vec![0; n - 1], count: 1 }).is_err());
}

/// Issue 40's scale presets are the worlds its contract names: 32 switches and 1,000 ABR VCs
/// under ERICA; GFC1 with 10,000 sources in group A (and B-F as in GFC1). Both run in windows.
#[test]
fn scale_presets_are_the_contract_s_worlds() {
    let build = |name: &str| ccsim_scenario::Run::from_text(&preset(name), ccsim_scenario::Format::Toml, &Default::default()).unwrap();
    let lot = build("scale/parking-lot-32");
    let w = lot.world();
    let switches = w.nodes.iter().filter(|n| n.name.starts_with("SW")).count();
    assert_eq!((switches, w.vcs.len()), (32, 1000));
    assert!(w.vcs.iter().all(|vc| vc.abr_source().is_some()) && w.is_windowed());
    let erica = w.ports.iter().filter(|p| p.scheme.is_some()).count();
    assert!(erica >= 31, "{erica} ports with a switch scheme");
    let g = build("scale/gfc1-10k");
    let w = g.world();
    let a = w.vcs.iter().filter(|vc| vc.name.starts_with('A')).count();
    assert_eq!((a, w.vcs.len()), (10_000, 10_000 + 20));
    assert!(w.is_windowed());
}

/// GFC1 with OC-3 trunks and 1 km access links (issue 40's contract): ERICA at U = 0.9 gives
/// A-E 0.9 × 155.52 / 9 = 15.552 and F (the rest of L2) 23.328 Mb/s, within ERICA's δ band
/// (docs/models/abr/erica.md), as on GFC1.
#[test]
fn erica_gfc1_short_access_rates_are_u_times_maxmin() {
    let v = run(&preset("abr-benchmarks/gfc1-short-access"), &[]);
    for s in v["sources"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let want = if name.starts_with('F') { 23.328 } else { 15.552 };
        assert!((0.9 * f(&s["maxmin_mbps"]) - want).abs() < 1e-3, "{name}: max-min {}", s["maxmin_mbps"]);
        let acr = f(&s["acr_mbps"]);
        assert!(acr >= 0.99 * want && acr <= 1.2 * want, "{name}: acr {acr:.3} vs {want:.3}");
    }
}

/// A switch fed by more links than the default tournament holds (128: the tournament widens, and
/// windows are cut to the time its keys have left), by more than the widest one holds (1,024: a
/// wide node, its tournament kept between windows, `wide.rs`), and links longer than a window may span (8.6 ms, with no samples to cut
/// windows shorter), still agree exactly.
#[test]
fn windowed_and_single_queue_runs_agree_at_the_mode_s_limits() {
    let line = |delay: &str, sources: u32, sampling: &str| {
        format!(
            "[run]\nduration = \"30ms\"\n[measure]\ninterval = \"{sampling}\"\n[defaults]\nlink_rate = \"155.52Mbps\"\n\
             link_delay = \"{delay}\"\nbuffer = \"1000cells\"\nalgorithm = {{ type = \"erica\" }}\n\
             [[switch]]\nname = \"SW1\"\n[[switch]]\nname = \"SW2\"\n\
             [[link]]\nname = \"L1\"\nbetween = [\"SW1\", \"SW2\"]\n\
             [[source]]\nname = \"S\"\ncount = {sources}\nroute = [\"SW1\", \"SW2\"]\n"
        )
    };
    assert_windowed_matches_single_queue("140 sources into one switch", &line("1ms", 140, "1ms"), None, "30ms");
    assert_windowed_matches_single_queue("1,100 sources into one switch, 5 ms links", &line("5ms", 1100, "0s"), None, "30ms");
    assert_windowed_matches_single_queue("20 ms links, no samples", &line("20ms", 3, "0s"), None, "300ms");
}

/// Random chains of switches with random link delays, short (5-50 us: joined into processes) and
/// long, and random sources on random stretches of the chain: windows with the engine's grouping,
/// one process per node, one in all and a random grouping all give the single queue's result.
#[test]
fn windowed_and_single_queue_runs_agree_on_random_chains() {
    let mut h = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        h % n
    };
    const DELAYS: [&str; 6] = ["5us", "20us", "50us", "200us", "1ms", "3ms"];
    let mut grouped = 0;
    let mut threaded = 0;
    for case in 0..10 {
        let switches = 2 + next(4) as usize;
        let mut text = String::from(
            "[run]\nduration = \"30ms\"\n[measure]\ninterval = \"1ms\"\n[defaults]\nlink_rate = \"155.52Mbps\"\n\
             link_delay = \"1ms\"\nbuffer = \"1000cells\"\nalgorithm = { type = \"erica\" }\n",
        );
        for k in 1..=switches {
            text += &format!("[[switch]]\nname = \"SW{k}\"\n");
        }
        for k in 1..switches {
            text += &format!("[[link]]\nname = \"L{k}\"\nbetween = [\"SW{k}\", \"SW{}\"]\ndelay = \"{}\"\n", k + 1, DELAYS[next(6) as usize]);
        }
        for g in 0..1 + next(4) {
            let a = 1 + next(switches as u64) as usize;
            let b = a + next((switches - a + 1) as u64) as usize;
            let route: Vec<String> = (a..=b).map(|k| format!("\"SW{k}\"")).collect();
            text += &format!(
                "[[source]]\nname = \"G{g}v\"\ncount = {}\nroute = [{}]\naccess = {{ delay = \"{}\" }}\negress = {{ delay = \"{}\" }}\n",
                1 + next(3),
                route.join(", "),
                DELAYS[next(6) as usize],
                DELAYS[next(6) as usize]
            );
        }
        let r = ccsim_scenario::Run::from_text(&text, ccsim_scenario::Format::Toml, &Default::default()).unwrap();
        if r.world().is_windowed() && r.world().groups().count < r.world().nodes.len() {
            grouped += 1;
        }
        assert_windowed_matches_single_queue(&format!("random chain {case}"), &text, None, "30ms");
        if r.world().thread_plan(2).is_ok() {
            threaded += 1;
            assert_threads_match(&format!("random chain {case}"), &text, "30ms");
        }
    }
    assert!(threaded >= 3, "{threaded} of the chains on threads");
    // The engine itself grouped some of them (the forced groupings cover the rest).
    assert!(grouped >= 2, "{grouped} of the chains in windows with processes of several nodes");
}

/// TCP worlds in windows: each end of a connection runs its own timer at its own host, the
/// frames in flight are appended by one end and taken by the other in its own time, so windows
/// and the single queue give the same result (seed 001's TCP over UBR and over GFR, seed 002's
/// drop-tail dumbbell, one with delayed ACKs, whose timer runs at the destination host, and
/// seed 004's TCP over ABR).
#[test]
fn windowed_and_single_queue_runs_agree_with_tcp() {
    for name in ["gfr/n-source-15-sd", "gfr/unequal-b2", "ficcrd/droptail"] {
        assert_windowed_matches_single_queue(name, &preset(name), None, "3s");
    }
    let delayed = preset("gfr/n-source-15-sd").replacen("tcp = { variant", "tcp = { delayed_ack = \"200ms\", variant", 1);
    assert!(delayed.contains("delayed_ack"));
    assert_windowed_matches_single_queue("n-source-15-sd + delayed ACKs", &delayed, None, "3s");
    // TCP over ABR (seed 004's UT): the adapter's TM 4.0 source paces the cells of its PDUs.
    assert_windowed_matches_single_queue("two-node-case6-ut", &preset("ut-ct/two-node-case6-ut"), None, "1s");
    // Its blocking adapter: PDUs held back move in as the source frees room, and wake it.
    let blocking = preset("ut-ct/two-node-case6-ut").replacen("[defaults]\n", "[defaults]\nadapter_full = \"block\"\n", 1);
    assert!(blocking.contains("adapter_full"));
    assert_windowed_matches_single_queue("two-node-case6-ut, blocking adapter", &blocking, None, "1s");
}
