//! Golden results: per preset, an event fingerprint (a hash over every processed event's time,
//! kind and component) and a readable summary table, kept in `tests/golden/`. A changed
//! fingerprint means behaviour changed; the table diff says how. After an intended change,
//! re-bless explicitly: `make bless` (CCSIM_BLESS=1). Goldens guard against regressions;
//! correctness is argued by the theory tests.

mod common;

use common::*;
use serde_json::Value;
use std::fmt::Write;
use std::path::PathBuf;

/// Short runs keep the suite fast while exercising start-up, feedback and steady state.
const DURATION: &str = "60ms";
/// IP presets run at 10 Mb/s with round trips near 60 ms: they need longer to show anything.
const IP_DURATION: &str = "5s";
fn duration(name: &str) -> &'static str {
    if name.starts_with("ficcrd/") || name.starts_with("hgrcp/") {
        IP_DURATION
    } else {
        test_duration(name, DURATION)
    }
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{}.txt", name.replace('/', "__")))
}

fn render(name: &str, v: &Value) -> String {
    let mut out = String::new();
    writeln!(out, "preset {name} ({}, seed {})", duration(name), v["seed"]).unwrap();
    writeln!(out, "fingerprint {}", v["fingerprint"].as_str().unwrap()).unwrap();
    writeln!(out, "events {} cell_hops {}", v["events"], v["cell_hops"]).unwrap();
    if v["packet_hops"].as_u64().is_some_and(|n| n > 0) {
        writeln!(out, "packet_hops {}", v["packet_hops"]).unwrap();
    }
    writeln!(out, "{:<8} {:>12} {:>12} {:>10} {:>8}", "source", "acr_mbps", "rate_mbps", "received", "dropped").unwrap();
    for s in v["sources"].as_array().unwrap() {
        writeln!(
            out,
            "{:<8} {:>12.6} {:>12.6} {:>10} {:>8}",
            s["name"].as_str().unwrap(),
            f(&s["acr_mbps"]),
            f(&s["rate_mbps"]),
            s["cells_received"].as_u64().unwrap(),
            s["cells_dropped"].as_u64().unwrap()
        )
        .unwrap();
    }
    for c in v["connections"].as_array().unwrap() {
        writeln!(
            out,
            "connection {:<6} goodput_mbps {:>12.6} retransmits {:>5} timeouts {:>3}",
            c["name"].as_str().unwrap(),
            f(&c["goodput_mbps"]),
            c["retransmits"].as_u64().unwrap(),
            c["timeouts"].as_u64().unwrap()
        )
        .unwrap();
    }
    for p in v["ports"].as_array().unwrap() {
        // Queue fields carry the port's unit (`mean_queue_packets` at IP ports).
        let u = p["unit"].as_str().unwrap();
        let (mean, max_run) = (&p[format!("mean_queue_{u}").as_str()], &p[format!("max_queue_{u}_run").as_str()]);
        if p["drops"].as_u64().unwrap() > 0 || max_run.as_u64().unwrap() > 2 {
            writeln!(
                out,
                "port {:<12} mean_queue {:>10.4} max_queue {:>5} drops {}",
                p["name"].as_str().unwrap(),
                f(mean),
                max_run.as_u64().unwrap(),
                p["drops"].as_u64().unwrap()
            )
            .unwrap();
        }
    }
    out
}

#[test]
fn presets_match_their_goldens() {
    let bless = std::env::var("CCSIM_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for (name, text) in presets() {
        let v = run(&text, &[("run.duration", Value::from(duration(&name))), ("run.measure_from", Value::Null)]);
        let got = render(&name, &v);
        let path = golden_path(&name);
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let Ok(want) = std::fs::read_to_string(&path) else {
            failures.push(format!("{name}: no golden at {} (run `make bless`)", path.display()));
            continue;
        };
        if want != got {
            let mut diff = format!("{name}: result changed (re-bless with `make bless` if intended)\n");
            for (w, g) in want.lines().zip(got.lines()) {
                if w != g {
                    diff.push_str(&format!("  - {w}\n  + {g}\n"));
                }
            }
            if want.lines().count() != got.lines().count() {
                diff.push_str("  (line counts differ)\n");
            }
            failures.push(diff);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
