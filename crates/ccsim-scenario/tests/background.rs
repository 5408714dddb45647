//! Background CBR/VBR traffic served with strict priority: ABR schemes see the capacity it
//! leaves (docs/models/vbr.md, "Model"), it is never delayed behind ABR cells, and cells are
//! conserved.

mod common;

use common::*;
use serde_json::Value;

fn with_background(mean_on: &str, mean_off: &str, scheme: &str) -> Value {
    let mut text = preset("abr-benchmarks/two-sources");
    text.push_str(&format!(
        "\n[[background]]\nname = \"V\"\nroute = [\"SW1\", \"SW2\"]\npeak = \"50Mbps\"\nmean_on = \"{mean_on}\"\nmean_off = \"{mean_off}\"\n"
    ));
    run_with(&text, Some(scheme), &[("run.duration", Value::from("200ms"))])
}

/// A background that is always on (ON periods of hours) at 50 Mb/s: ERICA gives each of the
/// two ABR sources U × (155.52 − 50) / 2, and the max-min reference is computed on the
/// capacity the background leaves.
#[test]
fn erica_shares_what_constant_background_leaves() {
    let v = with_background("10000s", "1ms", "erica");
    let want = 0.95 * (155.52 - 50.0) / 2.0;
    for s in ["S1", "S2"] {
        let acr = f(&source(&v, s)["acr_mbps"]);
        assert!(acr >= want * 0.99 && acr <= want * 1.2, "{s}: {acr} vs {want}");
        assert!((f(&source(&v, s)["maxmin_mbps"]) - (155.52 - 50.0) / 2.0).abs() < 1e-3);
    }
    let bg = &v["background"][0];
    assert!((f(&bg["rate_mbps"]) - 50.0).abs() / 50.0 < 0.01, "background {}", bg["rate_mbps"]);
    assert_eq!(bg["cells_sent"].as_u64().unwrap() - bg["cells_received"].as_u64().unwrap() < 200, true);
}

/// Strict priority: the background's cells are never dropped, whatever ABR does, and the
/// ABR sources still fill what it leaves on average.
#[test]
fn on_off_background_is_never_dropped() {
    for scheme in ["erica", "erica_plus", "debra", "ut"] {
        let v = with_background("20ms", "20ms", scheme);
        assert_eq!(v["conservation_ok"], true);
        let bg = &v["background"][0];
        let sent = bg["cells_sent"].as_u64().unwrap();
        let got = bg["cells_received"].as_u64().unwrap();
        // Whatever is not delivered is still in flight (5 µs links): a handful of cells.
        assert!(sent - got < 10, "{scheme}: sent {sent} received {got}");
        let vcs = &v["vcs"];
        let names = vcs["name"].as_array().unwrap();
        let i = names.iter().position(|n| n == "V").unwrap();
        assert_eq!(vcs["fwd_dropped"][i], 0, "{scheme}");
    }
}
