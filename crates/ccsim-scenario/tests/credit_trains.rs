//! Credit trains (docs/models/credit.md, docs/DESIGN.md §2): a credit port carried by one
//! connection alone schedules its cells when they may start and applies its departures lazily.
//! That changes the number of events (and so the fingerprint), never a result: every summary
//! number and every series is the same as with an event per departure, run in chunks whose ends
//! bring the trains up to them or leave them behind (as the Python API runs).

mod common;

use common::*;
use serde_json::{json, Value};

/// The summary (without `events` and `fingerprint`, series included) and the event count of a
/// run in `chunks` uneven chunks, with trains or with an event per departure.
fn result(text: &str, format: ccsim_scenario::Format, adj: &ccsim_scenario::Adjustments, trains: bool) -> (Value, u64) {
    let mut r = ccsim_scenario::Run::from_text(text, format, adj).unwrap();
    if !trains {
        r.world_mut().disable_credit_trains();
    }
    let end = r.world().end().as_ps();
    for k in [1u64, 2, 3, 5, 8, 13, 21] {
        // Chunk ends that bring the trains up to them (`run_until`) and ones that leave them
        // behind (`advance`, as the Python API runs).
        let until = ccsim_engine::SimTime::from_ps(end * k / 21 - k);
        if k % 2 == 0 { r.run_until(until) } else { r.advance(until) };
    }
    r.run_until(ccsim_engine::SimTime::from_ps(end));
    let mut v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    let events = v["events"].as_u64().unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("events");
    o.remove("fingerprint");
    (v, events)
}

fn assert_same(label: &str, text: &str, format: ccsim_scenario::Format, adj: &ccsim_scenario::Adjustments) {
    let ((trains, fewer), (events, more)) = (result(text, format, adj, true), result(text, format, adj, false));
    assert!(fewer < more, "{label}: {fewer} events with trains vs {more}");
    if trains != events {
        let (a, b) = (trains.as_object().unwrap(), events.as_object().unwrap());
        let differ: Vec<&String> = a.keys().filter(|k| a[*k] != b[*k]).collect();
        panic!("{label}: trains changed {differ:?}");
    }
    eprintln!("{label}: {fewer} events with trains, {more} without");
}

/// Every CT preset of seed 004 (two-node cases 1-6 with the BDP, Table III and timeout-free
/// allocations, the max-min cases), briefly, with a measurement window opening mid-run.
#[test]
fn credit_trains_give_the_results_of_an_event_per_departure() {
    let names: Vec<String> = presets().into_iter().map(|(n, _)| n).filter(|n| n.starts_with("ut-ct/") && n.contains("-ct-")).collect();
    assert!(names.len() >= 21, "{names:?}");
    for name in &names {
        let adj = ccsim_scenario::Adjustments {
            overrides: vec![("run.duration".into(), Value::from("12s")), ("run.measure_from".into(), Value::from("4s"))],
            ..Default::default()
        };
        assert_same(name, &preset(name), ccsim_scenario::Format::Toml, &adj);
    }
}

/// Credit trains where BSC rounds matter: a lossy trunk whose BSCs restore the credit of lost
/// cells (the train's Tx_Counter counts only started cells), `allow_equal`, a Policy_Limit
/// below the bandwidth-delay product (cells wait for BSUs), and below N2 (only the BSCs' BSUs
/// return credit: a train never has N2 departures to wait for).
#[test]
fn credit_trains_keep_bsc_rounds_and_credit_waits_exact() {
    let lossy = |credit: Value| {
        let mut s = ct_one_hop(credit);
        s["switch"] = json!([{"name": "SW1"}, {"name": "SW2"}]);
        s["link"] = json!([{"between": ["SW1", "SW2"], "loss": 0.003}]);
        s["connection"][0]["route"] = json!(["SW1", "SW2"]);
        s["run"] = json!({"duration": "6s", "measure_from": "2s"});
        s["measure"] = json!({"interval": "10ms"});
        s
    };
    let cases = [
        ("lossy, BSC every 20 ms", lossy(json!({"n2": 32, "policy_limit": 64, "t_bsc": "20ms"}))),
        ("lossy, allow_equal", lossy(json!({"n2": 32, "policy_limit": 64, "t_bsc": "7ms", "allow_equal": true}))),
        ("one hop, allow_equal", ct_one_hop(json!({"n2": 8, "policy_limit": 40, "t_bsc": "3ms", "allow_equal": true}))),
        ("one hop, below the BDP", ct_one_hop(json!({"n2": 32, "policy_limit": 48, "t_bsc": "50ms"}))),
        ("lossy, below N2", lossy(json!({"n2": 32, "policy_limit": 24, "t_bsc": "20ms"}))),
        ("one hop, below N2", ct_one_hop(json!({"n2": 32, "policy_limit": 31, "t_bsc": "20ms"}))),
    ];
    for (label, s) in cases {
        assert_same(label, &s.to_string(), ccsim_scenario::Format::Json, &Default::default());
    }
}
