//! Time and peak memory of `load` (parse, adjust, validate) for a generated scenario with N
//! sources: `cargo run --release --example load_scale -- N [toml|json]`.

use ccsim_scenario::{load, Adjustments, Format};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let format = args.next().unwrap_or_else(|| "toml".into());
    let mut text = String::from("name = \"scale\"\nrun = { duration = \"1ms\" }\nswitch = [{ name = \"SW1\" }]\n");
    for i in 0..n {
        text.push_str(&format!("[[source]]\nname = \"S{i}\"\nroute = [\"SW1\"]\n"));
    }
    let (text, format) = if format == "json" {
        let v: serde_json::Value = toml::from_str(&text).unwrap();
        (v.to_string(), Format::Json)
    } else {
        (text, Format::Toml)
    };
    let before = peak_rss_mb();
    let t = Instant::now();
    let s = load(&text, format, &Adjustments::default()).expect("valid");
    let dt = t.elapsed();
    println!("n={n} text={:.1}MB load={:.2}s peak_rss={:.0}MB (before load {:.0}MB) sources={}", text.len() as f64 / 1e6, dt.as_secs_f64(), peak_rss_mb(), before, s.source.len());
}
