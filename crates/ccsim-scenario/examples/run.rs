//! Runs a scenario file and prints its summary; used for profiling without Python.
//!
//! `cargo run --release --example run -- FILE.toml [scheme=NAME] [engine=single|windowed]
//! [series=memory|none] [chunks=N] [PATH=JSON ...]`: `series=none` runs as `ccsim run --json` does;
//! `chunks=N` runs to the end in N equal chunks, as the Python API's runs do (what chunk ends cost).

use ccsim_scenario::{Adjustments, Format, Run, SeriesUse};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: run FILE.toml [PATH=JSON ...]");
        std::process::exit(2);
    };
    let mut scheme = None;
    let mut engine = None;
    let mut series = SeriesUse::InMemory;
    let mut chunks = 1u64;
    let overrides = args
        .filter(|a| {
            if let Some(name) = a.strip_prefix("scheme=") {
                scheme = Some(name.to_string());
                false
            } else if let Some(mode) = a.strip_prefix("engine=") {
                engine = Some(mode == "windowed");
                false
            } else if let Some(n) = a.strip_prefix("chunks=") {
                chunks = n.parse().expect("chunks=N");
                false
            } else if let Some(mode) = a.strip_prefix("series=") {
                series = if mode == "none" { SeriesUse::Discarded } else { SeriesUse::InMemory };
                false
            } else {
                true
            }
        })
        .map(|a| {
            let (p, v) = a.split_once('=').expect("PATH=VALUE");
            let v = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::from(v));
            (p.to_string(), v)
        })
        .collect();
    let text = std::fs::read_to_string(&file).expect("readable file");
    let adj = Adjustments { overrides, scheme, ..Default::default() };
    let mut run = Run::open(&text, Format::Toml, &adj, series).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    if let Some(windowed) = engine {
        run.world_mut().set_windowed(windowed).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        });
    }
    let w = run.world();
    if w.is_windowed() {
        eprintln!(
            "engine: windowed ({} logical processes, windows up to {}, {:.0} expected events a window, {} threads)",
            w.groups().count,
            w.lookahead(),
            w.expected_events_per_window(),
            w.threads()
        );
    } else {
        eprintln!("engine: single queue");
    }
    let t = Instant::now();
    // Chunk ends cut windows; the results are the same. As in the Python API, they leave lazy
    // state to the next reader (`advance`).
    let end = run.world().end().as_ps();
    for k in 1..chunks {
        run.advance(ccsim_engine::SimTime::from_ps(end * k / chunks));
    }
    run.run_to_end();
    let wall = t.elapsed().as_secs_f64();
    // The run's peak memory, before the result is assembled (Linux only).
    let peak = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_string()))
    });
    let drops = run.world().port_drops() as f64;
    let mut v = run.finish().expect("run completes");
    let o = v.as_object_mut().unwrap();
    o.remove("series");
    o.remove("vcs");
    o.insert("wall_s".into(), wall.into());
    let hops = o["cell_hops"].as_f64().unwrap() + o.get("packet_hops").and_then(|h| h.as_f64()).unwrap_or(0.0);
    let ev = o["events"].as_f64().unwrap();
    eprintln!("{:.3} s wall, {:.2} M events/s, {:.2} M hops/s, {:.1} ns/hop", wall, ev / wall / 1e6, hops / wall / 1e6, wall * 1e9 / hops);
    // Cells a port refused cost their arrival's work but are no hop.
    if drops > 0.0 {
        eprintln!("{:.0} units refused at ports ({:.1} % of those offered): {:.1} ns per offered unit", drops, 100.0 * drops / (hops + drops), wall * 1e9 / (hops + drops));
    }
    if let Some(peak) = peak {
        eprintln!("peak memory after the run: {peak}");
    }
    println!("{}", serde_json::to_string_pretty(&v).unwrap());
}
