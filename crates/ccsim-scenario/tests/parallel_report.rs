//! `--parallel-report`'s work counts on real worlds (crate `ccsim_model::parallel`): counting
//! changes nothing a run reports, two identical independent chains predict exactly 2 on two
//! threads, and a world that runs from one queue says why instead of counting.

mod common;

use ccsim_model::parallel::{partition::candidate_threads, THREADS};
use ccsim_scenario::{Adjustments, Format, Run, SeriesUse};
use common::*;
use serde_json::Value;

fn open(text: &str, duration: &str) -> Run {
    open_with(text, duration, SeriesUse::InMemory)
}

fn open_with(text: &str, duration: &str, series: SeriesUse) -> Run {
    let adj = Adjustments {
        overrides: vec![("run.duration".into(), Value::from(duration)), ("run.measure_from".into(), Value::Null)],
        ..Default::default()
    };
    Run::open(text, Format::Toml, &adj, series).unwrap_or_else(|e| panic!("{e}"))
}

/// Every number of the result, fingerprint and events included, with counting on and off, in
/// chunks (each chunk's end cuts a window), with series and without (`ccsim run --json`, whose
/// idle samples pass between windows: counted as serial).
#[test]
fn counting_work_changes_nothing() {
    for (name, duration) in [
        ("abr-benchmarks/gfc1", "40ms"),
        ("abr-benchmarks/gfc1-short-access", "30ms"),
        ("abr-benchmarks/parking-lot-5", "40ms"),
        ("scale/parking-lot-32", "6ms"),
    ] {
        for series in [SeriesUse::InMemory, SeriesUse::Discarded] {
            let text = preset(name);
            let result = |count: bool| {
                let mut r = open_with(&text, duration, series);
                assert!(r.world().is_windowed(), "{name} runs in windows");
                if count {
                    r.world_mut().count_work().unwrap();
                }
                let end = r.world().end().as_ps();
                for k in 1..=3 {
                    r.advance(ccsim_engine::SimTime::from_ps(end * k / 3));
                }
                let counted = r.world().work_counts().map(|w| (w.total(), w.windows()));
                (r.finish().unwrap(), counted, r.world().events())
            };
            let (plain, none, events) = result(false);
            let (counted, some, counted_events) = result(true);
            assert!(none.is_none());
            assert!(plain == counted, "{name}: counting changed the result\n{}", first_difference(&plain, &counted));
            assert_eq!(plain["fingerprint"], counted["fingerprint"]);
            // Every event is counted once: the processes' and the observers' between windows.
            let (total, windows) = some.unwrap();
            assert_eq!((total, events), (counted_events, counted_events), "{name}");
            assert!(windows > 0);
        }
    }
}

/// Two copies of one chain (host → switch → switch → host, ERICA) that share nothing: every
/// window holds the same work on both, and LPT puts one chain on each thread, so two threads
/// halve every window. Only the observers between windows stay serial: speed-up (2X + s)/(X + s).
#[test]
fn two_identical_independent_chains_predict_two() {
    let mut text = String::from(
        "[run]\nduration = \"30ms\"\n[measure]\ninterval = \"1ms\"\n[defaults]\nlink_rate = \"155.52Mbps\"\n\
         link_delay = \"1ms\"\nbuffer = \"1000cells\"\nalgorithm = { type = \"erica\" }\n",
    );
    for c in ["A", "B"] {
        text += &format!("[[switch]]\nname = \"{c}1\"\n[[switch]]\nname = \"{c}2\"\n");
        text += &format!("[[link]]\nname = \"{c}L\"\nbetween = [\"{c}1\", \"{c}2\"]\n");
        text += &format!("[[source]]\nname = \"{c}s\"\ncount = 2\nroute = [\"{c}1\", \"{c}2\"]\n");
    }
    let mut r = open(&text, "30ms");
    r.world_mut().count_work().unwrap();
    r.run_to_end();
    let w = r.world().work_counts().unwrap();
    let lps = w.lps();
    assert_eq!(lps, r.world().nodes.len());
    let report = w.report(&[1, 2, 64], 50.0, 0.0);
    let two = &report.threads[1];
    let x = (w.total() - report.serial_events) / 2;
    assert_eq!(two.loads, vec![x, x]);
    assert_eq!(two.critical_events, x + report.serial_events);
    let s = report.serial_events as f64;
    assert_eq!(two.speedup_work, (2.0 * x as f64 + s) / (x as f64 + s));
    assert!(two.speedup_work > 1.99, "{two:?}");
    // One thread: 1, with or without a barrier; never above the threads used.
    assert_eq!((report.threads[0].speedup_work, report.threads[0].speedup_with_barrier), (1.0, 1.0));
    assert_eq!(report.threads[2].threads_used, lps);
    for t in &report.threads {
        assert!(t.speedup_work <= t.threads_used as f64 && t.speedup_with_barrier <= t.speedup_work, "{t:?}");
    }
    // The with-barrier estimate: 50 ns an event, 1 µs a two-thread barrier per window.
    let b = w.report(&[2], 50.0, 1000.0).threads[0].speedup_with_barrier;
    let want = w.total() as f64 * 50.0 / (two.critical_events as f64 * 50.0 + w.windows() as f64 * 1000.0);
    assert!((b - want).abs() < 1e-12, "{b} {want}");
}

/// A world that runs from one queue has no windows to count: the reason is
/// `can_run_in_windows`'s, or that windows would not pay.
#[test]
fn a_world_from_one_queue_says_why() {
    let mut gw = open(&preset("hgrcp/hgrcp-2"), "5ms");
    assert!(!gw.world().is_windowed());
    let why = gw.world_mut().count_work().unwrap_err();
    assert!(why.contains("gateway"), "{why}");
    let mut r = open(&preset("abr-benchmarks/gfc1"), "5ms");
    r.run_to_end();
    assert!(r.world_mut().count_work().unwrap_err().contains("start of the run"));
    assert_eq!(candidate_threads(1000), THREADS.to_vec());
    assert_eq!(candidate_threads(5), vec![2, 4, 5]);
}
