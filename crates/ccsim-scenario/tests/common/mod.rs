//! Helpers shared by the integration tests: presets from the Python package, runs, lookups.
#![allow(dead_code)]

use ccsim_scenario::{Adjustments, Format, Run};
use serde_json::Value;
use std::path::PathBuf;

/// One TCP connection host -> SW1 -> destination at 10 Mb/s whose hops are credit-controlled
/// (`credit`): a 1 ms access hop and a 1 µs egress hop, so that only the access hop's
/// Policy_Limit can limit it; 3 s, measured from 1 s.
pub fn ct_one_hop(credit: Value) -> Value {
    serde_json::json!({
        "name": "test/ct",
        "run": {"duration": "3s", "measure_from": "1s"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "10Mbps", "link_delay": "1ms", "buffer": "100000cells", "host_buffer": "100000cells",
                     "tcp": {"variant": "reno", "mss": "1460B", "window": "2000000B"}},
        "switch": [{"name": "SW1"}],
        "connection": [{"name": "T", "route": ["SW1"], "egress": {"delay": "1us"}}],
        "credit": credit,
    })
}

pub fn preset_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../python/ccsim/presets")
}

/// Every shipped preset as (name, TOML text), sorted by name.
pub fn presets() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for paper in std::fs::read_dir(preset_dir()).unwrap() {
        let paper = paper.unwrap().path();
        if !paper.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&paper).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "toml") {
                let name = format!(
                    "{}/{}",
                    paper.file_name().unwrap().to_string_lossy(),
                    f.file_stem().unwrap().to_string_lossy()
                );
                out.push((name, std::fs::read_to_string(&f).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Seed 004's session sources start a session every 71 s on average: its presets need seconds
/// (a few of the sources have started by 10 s) where the others show everything in milliseconds.
pub const SESSION_DURATION: &str = "10s";

/// How long a short test run of preset `name` must be for its traffic to move: `short`, or
/// `SESSION_DURATION` for seed 004's session presets.
pub fn test_duration<'a>(name: &str, short: &'a str) -> &'a str {
    if name.starts_with("ut-ct/") {
        SESSION_DURATION
    } else {
        short
    }
}

pub fn preset(name: &str) -> String {
    std::fs::read_to_string(preset_dir().join(format!("{name}.toml"))).unwrap()
}

/// Runs a scenario text with a scheme swap and overrides; checks conservation.
pub fn run_with(text: &str, scheme: Option<&str>, overrides: &[(&str, Value)]) -> Value {
    let adj = Adjustments {
        overrides: overrides.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(),
        scheme: scheme.map(str::to_string),
        ..Default::default()
    };
    let mut r = Run::from_text(text, Format::Toml, &adj).unwrap_or_else(|e| panic!("{e}"));
    r.run_to_end();
    let v = r.finish().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["conservation_ok"], true);
    v
}

pub fn run(text: &str, overrides: &[(&str, Value)]) -> Value {
    run_with(text, None, overrides)
}

pub fn source<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["sources"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no source {name}"))
}

pub fn port<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["ports"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no port {name}"))
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Samples of one key's series: (time in s, value).
pub fn series(v: &Value, which: &str, key_field: &str, key: &str, value_field: &str) -> Vec<(f64, f64)> {
    let s = &v["series"][which];
    let t = s["time_s"].as_array().unwrap();
    let k = s[key_field].as_array().unwrap();
    let x = s[value_field].as_array().unwrap();
    (0..t.len()).filter(|&i| k[i] == key).map(|i| (f(&t[i]), f(&x[i]))).collect()
}

/// The first path at which two JSON values differ, for a readable failure.
pub fn first_difference(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => walk(v, w, format!("{path}.{k}")),
                None => Some(format!("{path}.{k}: missing on one side")),
            }),
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().find_map(|(i, (v, w))| walk(v, w, format!("{path}[{i}]")))
            }
            _ if a == b => None,
            _ => Some(format!("{path}: {a} vs {b}")),
        }
    }
    walk(a, b, String::new()).unwrap_or_default()
}
