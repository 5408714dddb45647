//! GFR (seed 001 §4-6, docs/models/ubr/gfr.md): bad contracts refused with field paths;
//! conservation and determinism with tagging and per-VC queues; the seed's findings on its
//! Experiments A and B, asserted as robustly as the seeds measured allow.

mod common;

use common::*;
use ccsim_scenario::{load, Adjustments, Format};
use serde_json::{json, Value};

/// A small GFR scenario: two UBR connections with contracts through SW1 -> SW2.
fn base() -> Value {
    json!({
        "name": "test/gfr",
        "run": {"duration": "200ms", "seed": 1},
        "defaults": {"link_rate": "155.52Mbps", "sonet_payload": true, "link_delay": "1ms", "buffer": "2000cells",
                     "buffer_policy": {"type": "wba"}, "policer": {"type": "frame_gcra"}, "scheduling": {"type": "scfq"},
                     "tcp": {"variant": "sack1", "mss": "1024B", "window": "600000B"}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"name": "L1", "between": ["SW1", "SW2"]}],
        "connection": [{"name": "A", "count": 2, "route": ["SW1", "SW2"], "gfr": {"mcr": "20Mbps"}},
                       {"name": "B", "route": ["SW1", "SW2"], "gfr": {"mcr": "60Mbps"}}],
    })
}

fn refused(path: &str, value: Value) -> ccsim_scenario::ScenarioError {
    let mut v = base();
    ccsim_scenario::set_path(&mut v, path, value).unwrap();
    load(&v.to_string(), Format::Json, &Adjustments::default()).expect_err("must be refused")
}

#[test]
fn the_base_is_valid_and_bad_contracts_are_refused_by_field() {
    load(&base().to_string(), Format::Json, &Adjustments::default()).unwrap();
    let e = refused("connection[1].gfr.mcr", json!("200Mbps"));
    assert_eq!(e.path, "connection[1].gfr.mcr");
    assert!(e.message.contains("above the access link"), "{e}");
    let e = refused("connection[1].gfr.mcr", json!("120Mbps"));
    assert_eq!(e.path, "connection[0].gfr.mcr");
    assert!(e.message.contains("SW1->SW2 reserve 160.00 Mb/s"), "{e}");
    let e = refused("connection[0].gfr.mbs", json!("20cells"));
    assert_eq!(e.to_string(), "connection[0].gfr.mbs: must be at least the MFS (23 cells)");
    let e = refused("connection[0].gfr.mfs", json!("10cells"));
    assert_eq!(e.to_string(), "connection[0].gfr.mfs: must be at least the connection's full-size frame (23 cells)");
    let e = refused("connection[0].gfr.cdvt", json!("-1ms"));
    assert_eq!(e.path, "connection[0].gfr.cdvt");
    let e = refused("connection[0].transport", json!("abr"));
    assert_eq!(e.path, "connection[0].gfr");
    let e = refused("defaults.buffer_policy.z", json!(1.5));
    assert_eq!(e.to_string(), "defaults.buffer_policy.z: must be in [0, 1]");
    let e = refused("defaults.buffer_policy.hard_threshold", json!("500cells"));
    assert_eq!(e.path, "defaults.buffer_policy.hard_threshold");
    let e = refused("defaults.buffer_policy", json!({"type": "epd", "threshold": "1000cells", "clp1_threshold": "1001cells"}));
    assert_eq!(e.to_string(), "defaults.buffer_policy.clp1_threshold: must be between 1 and the threshold (1000 cells)");
    let e = refused("defaults.buffer_policy", json!({"type": "epd", "clp1_threshold": "1900cells"}));
    assert_eq!(e.to_string(), "defaults.buffer_policy.clp1_threshold: must be between 1 and the threshold (1800 cells)");
    let e = refused("background", json!([{"name": "V", "route": ["SW1", "SW2"], "peak": "10Mbps", "mean_on": "1ms", "mean_off": "1ms"}]));
    assert_eq!(e.path, "background[0].route[0]");
}

#[test]
fn per_vc_queues_on_a_router_are_refused() {
    let v = json!({
        "name": "test/wfq-router",
        "run": {"duration": "10ms"},
        "router": [{"name": "R1", "scheduling": {"type": "scfq"}}, {"name": "R2"}],
        "link": [{"between": ["R1", "R2"]}],
        "connection": [{"name": "T", "route": ["R1", "R2"]}],
    });
    let e = load(&v.to_string(), Format::Json, &Adjustments::default()).expect_err("refused");
    assert_eq!(e.path, "router[0].scheduling");
}

/// Tagging, WBA and SCFQ together, run twice: cells are conserved per VC (tags, per-VC queues
/// and policed drops included) and the run is deterministic.
#[test]
fn tagging_and_per_vc_queues_conserve_cells_and_are_deterministic() {
    let text = base().to_string();
    let run_once = || {
        let mut r = ccsim_scenario::Run::from_text(&text, Format::Json, &Adjustments::default()).unwrap();
        r.run_to_end();
        r.finish().unwrap()
    };
    let (a, b) = (run_once(), run_once());
    assert_eq!(a["conservation_ok"], true);
    assert_eq!(a["fingerprint"], b["fingerprint"]);
    assert_eq!(a["connections"], b["connections"]);
    let c = a["connections"].as_array().unwrap();
    // The two 20 Mb/s VCs send above their MCR (they share what B leaves): frames get tagged.
    assert!(c.iter().any(|x| x["frames_tagged"].as_u64().unwrap() > 0), "{c:?}");
    for x in c {
        assert!(f(&x["clp0_mbps"]) <= f(&x["clp01_mbps"]) + 1e-9);
        assert!(x["mcr_mbps"].as_f64().is_some() && x["target_mbps"].as_f64().is_some());
    }
    // The same with the policer dropping instead of tagging.
    let mut v = base();
    ccsim_scenario::set_path(&mut v, "defaults.policer.action", json!("drop")).unwrap();
    let mut r = ccsim_scenario::Run::from_text(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
    r.run_to_end();
    let d = r.finish().unwrap();
    assert_eq!(d["conservation_ok"], true);
    assert!(d["connections"].as_array().unwrap().iter().all(|x| x["frames_tagged"].as_u64().is_some()));
}

/// A seed's summary for `preset`.
fn gfr_run(name: &str, seed: u64) -> Value {
    run(&preset(name), &[("run.seed", Value::from(seed))])
}

/// Per MCR group (connections G1_… G5_), the mean of CLP0+1 goodput / target.
fn group_ratios(v: &Value) -> Vec<f64> {
    let mut sums = [(0.0, 0.0); 5];
    for c in v["connections"].as_array().unwrap() {
        let g: usize = c["name"].as_str().unwrap()[1..2].parse().unwrap();
        sums[g - 1].0 += f(&c["clp01_mbps"]) / f(&c["target_mbps"]);
        sums[g - 1].1 += 1.0;
    }
    sums.iter().map(|(s, n)| s / n).collect()
}

/// Runs `preset` on seeds 1..=n, two at a time.
fn seeds(preset_name: &str, n: u64) -> Vec<Value> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..=n).map(|seed| s.spawn(move || gfr_run(preset_name, seed))).collect();
        handles.into_iter().map(|h| h.join().expect("a seed's run")).collect()
    })
}

/// Experiment B1 (FIFO + WBA + F-GCRA tagging, Fig. 6) fails the way the seed says: the lowest
/// MCR group gets far more than its target, the highest far less, with the link still full.
/// Measured over seeds 1-5: group 1 at 2.49-3.05 × its target, group 5 at 0.56-0.66 ×
/// (the seed: "over 2.5" and "0.8"), efficiency 0.994-0.996. Asserted on every seed tried.
#[test]
fn b1_fifo_with_accounting_and_tagging_fails_as_the_seed_says() {
    for v in seeds("gfr/unequal-b1", 3) {
        let g = group_ratios(&v);
        assert!(g[0] > 2.0 && g[4] < 0.8, "group ratios {g:?}");
        assert!(g.windows(2).all(|w| w[0] > w[1]), "ratios fall with the MCR: {g:?}");
        assert!(f(&v["efficiency"]) > 0.95);
        assert_eq!(v["gfr_guarantee_met"], false);
        assert_eq!(v["conservation_ok"], true);
        let tagged: u64 = v["connections"].as_array().unwrap().iter().map(|c| c["frames_tagged"].as_u64().unwrap()).sum();
        assert!(tagged > 0);
    }
}

/// Experiment B2 (per-VC SCFQ, EPD, no tagging, Fig. 7). The seed: every group within 10 % of its
/// target, efficiency over 90 %. ccsim, seeds 1-5: efficiency 1.000, groups at 0.81-1.18 of their
/// targets (the lowest MCRs above, the highest below): per-VC queuing brings B1's 0.56-3.05 close,
/// not within 10 % (docs/reproductions/gfr.md). Asserted: the seed's efficiency, and every group
/// within 25 % of its target on the mean over seeds 1-3 (measured at most 19 % on any seed).
#[test]
fn b2_per_vc_queuing_comes_close_to_the_targets() {
    let runs = seeds("gfr/unequal-b2", 3);
    let mean: Vec<f64> = (0..5).map(|k| runs.iter().map(|v| group_ratios(v)[k]).sum::<f64>() / runs.len() as f64).collect();
    assert!(mean.iter().all(|r| (r - 1.0).abs() < 0.25), "group ratios {mean:?}");
    for v in &runs {
        assert!(f(&v["efficiency"]) > 0.90);
        assert_eq!(v["conservation_ok"], true);
    }
}

/// Table 1's last rows: per-VC accounting with per-VC queuing gives every group its target
/// (seeds 1-5: every group within 3 %, the guarantee met on every seed).
#[test]
fn per_vc_accounting_with_per_vc_queuing_meets_the_guarantee() {
    for v in seeds("gfr/option-acct-notag-vcq", 3) {
        let g = group_ratios(&v);
        assert!(g.iter().all(|r| (r - 1.0).abs() < 0.05), "group ratios {g:?}");
        assert_eq!(v["gfr_guarantee_met"], true);
    }
}

/// Experiment A (Fig. 5): with equal allocations and Selective Drop the sources share the link
/// with almost 100 % efficiency and a mean of about 8.4 Mb/s each (the seed: "about 8.2"). The
/// seed also has every source within 20 % of the mean; ccsim's spread is wider (seeds 1-5: the
/// farthest source 23-50 % from the mean), reported by the reproduction, not asserted.
#[test]
fn experiment_a_shares_the_link_efficiently() {
    let capacity = 149.76e6 / 424.0 / 23.0 * 1024.0 * 8.0 / 1e6;
    for v in seeds("gfr/equal-15-12k", 2) {
        assert!(f(&v["efficiency"]) > 0.95);
        let c = v["connections"].as_array().unwrap();
        let mean = c.iter().map(|x| f(&x["clp01_mbps"])).sum::<f64>() / c.len() as f64;
        assert!((mean - capacity / 15.0).abs() / (capacity / 15.0) < 0.05, "mean {mean}");
        assert!(c.iter().all(|x| x["frames_tagged"] == 0), "no policer in Experiment A");
    }
}

/// Table 1's rows 3 and 7 (tagging without per-VC accounting) drop tagged frames first (issue
/// #38): EPD with `clp1_threshold` = 0.5 × buffer. They are no longer rows 1 and 5 (no tagging)
/// under another name, and the mechanism shows: the F-GCRA tags most frames of these bursty TCP
/// sources, so the shared queue settles below the tagged frames' threshold R1, where with the
/// same tags and a CLP-blind EPD (R1 = R) it sits above it. Measured, seeds 1-3, 3 s: mean
/// queue 2,900-3,850 cells against 6,300-9,200.
#[test]
fn tagging_rows_drop_tagged_frames_first() {
    let short = |name: &str, seed: u64, extra: &[(&str, Value)]| {
        let mut o = vec![("run.seed", Value::from(seed)), ("run.duration", json!("3s")), ("run.measure_from", json!("1s"))];
        o.extend(extra.iter().cloned());
        run(&preset(name), &o)
    };
    let queue = |v: &Value| f(&port(v, "SW1->SW2")["mean_queue_cells"]);
    for (tagged, plain) in [("gfr/option-noacct-tag-fifo", "gfr/option-noacct-notag-fifo"), ("gfr/option-noacct-tag-vcq", "gfr/option-noacct-notag-vcq")] {
        for seed in 1..=2 {
            let aware = short(tagged, seed, &[]);
            assert_ne!(aware["fingerprint"], short(plain, seed, &[])["fingerprint"], "{tagged} runs as {plain}");
            let th = &port(&aware, "SW1->SW2")["thresholds"];
            assert_eq!((th["epd"].as_u64(), th["epd_clp1"].as_u64()), (Some(10800), Some(6000)));
            let blind = short(tagged, seed, &[("defaults.buffer_policy.clp1_threshold", json!("10800cells"))]);
            assert!(queue(&aware) < 6000.0 && queue(&blind) > 6000.0, "{tagged} seed {seed}: {} vs {}", queue(&aware), queue(&blind));
        }
    }
}
