//! Where timeouts come from (docs/models/tcp.md, "Where timeouts come from"): every connection's
//! `timeouts` split into `timeouts_after_drop` (its oldest unacknowledged segment, or an ACK for
//! it, lost something since that segment was last sent) and `timeouts_without_loss` (the timer
//! expired while the segment or its ACK was still on its way).

mod common;

use common::*;
use serde_json::{json, Value};

fn run_json(s: &Value) -> Value {
    let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    v
}

/// Per connection: (timeouts, after a drop, without loss, drops); the two classes always add up.
fn classes(v: &Value) -> Vec<(u64, u64, u64, u64)> {
    v["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("{k} in {c}"));
            let t = (n("timeouts"), n("timeouts_after_drop"), n("timeouts_without_loss"), n("drops"));
            assert_eq!(t.1 + t.2, t.0, "{}: the classes add up to timeouts", c["name"]);
            t
        })
        .collect()
}

/// One TCP connection over UBR, host -> SW1 -> SW2 -> destination on 10 Mb/s links of `delay`
/// each, switch buffers that never fill.
fn ubr(delay: &str, tcp: Value) -> Value {
    json!({
        "name": "test/timeouts",
        "run": {"duration": "5s", "measure_from": "1s"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "10Mbps", "link_delay": delay, "buffer": "1000000cells", "tcp": tcp},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"between": ["SW1", "SW2"]}],
        "connection": [{"name": "T", "route": ["SW1", "SW2"]}],
    })
}

/// Nothing lost anywhere, but a retransmission timer far below the round trip (10 ms against
/// 300 ms of propagation): the timer expires before the ACKs come back, and every timeout is one
/// without loss.
#[test]
fn a_timer_below_the_round_trip_times_out_without_loss() {
    let tcp = json!({"variant": "tahoe", "mss": "1460B", "window": "65535B", "rto_initial": "10ms", "rto_min": "10ms"});
    let v = run_json(&ubr("50ms", tcp));
    let [(timeouts, after, without, drops)] = classes(&v)[..] else { panic!("one connection") };
    assert_eq!(drops, 0, "nothing is lost");
    assert!(timeouts > 0, "a 10 ms timer on a 300 ms round trip expires");
    assert_eq!((after, without), (0, timeouts));
}

/// The same connection with a timer above the round trip: no timeout at all.
#[test]
fn a_timer_above_the_round_trip_never_expires_without_loss() {
    let tcp = json!({"variant": "tahoe", "mss": "1460B", "window": "65535B"});
    let v = run_json(&ubr("50ms", tcp));
    assert_eq!(classes(&v), vec![(0, 0, 0, 0)]);
}

/// A 100-cell CT adapter under a 2 MB window drops whole PDUs; Jacobson '88 answers every loss
/// by a timeout, and nothing is slow (2 ms round trip, 300 ms minimum RTO): every timeout follows
/// a drop.
#[test]
fn adapter_drops_give_timeouts_after_drop() {
    let mut s = ct_one_hop(json!({"n2": 32, "policy_limit": 64}));
    s["defaults"]["host_buffer"] = json!("100cells");
    s["defaults"]["tcp"]["variant"] = json!("jacobson88");
    let v = run_json(&s);
    let [(timeouts, after, without, drops)] = classes(&v)[..] else { panic!("one connection") };
    assert!(drops > 0 && timeouts > 0, "{drops} drops, {timeouts} timeouts");
    assert_eq!((after, without), (timeouts, 0));
}

/// The same with the cells lost elsewhere: a 200-cell switch buffer before a 2 Mb/s link, too
/// small for the window (UBR), and a lossy link (every cell crossing SW1-SW2 lost with probability 10^-3). Both only after drops.
#[test]
fn switch_and_link_losses_give_timeouts_after_drop() {
    let tcp = json!({"variant": "jacobson88", "mss": "1460B", "window": "1000000B"});
    let mut small_buffer = ubr("1ms", tcp.clone());
    small_buffer["defaults"]["buffer"] = json!("200cells");
    small_buffer["link"] = json!([{"between": ["SW1", "SW2"], "rate": "2Mbps"}]);
    let mut lossy = ubr("1ms", tcp);
    lossy["link"] = json!([{"between": ["SW1", "SW2"], "loss": 1e-3}]);
    for (what, s) in [("small buffer", small_buffer), ("lossy link", lossy)] {
        let [(timeouts, after, without, drops)] = classes(&run_json(&s))[..] else { panic!("one connection") };
        assert!(drops > 0 && timeouts > 0, "{what}: {drops} drops, {timeouts} timeouts");
        assert_eq!((after, without), (timeouts, 0), "{what}");
    }
}

/// Seed 004's presets (10 s each, the quick ones): the classes add up on every connection (checked
/// in `classes`); the long-delay cases with BDP buffers time out only after the adapters' drops,
/// and Table III's 31-cell allocations of case 4 (below N2: credit returns once per T_BSC) only
/// without loss.
#[test]
fn seed_004_presets_split_their_timeouts() {
    let mut seen = Vec::new();
    for name in ["ut-ct/two-node-case1-ct-bdp", "ut-ct/two-node-case4-ct-table3", "ut-ct/two-node-case4-ct-bdp", "ut-ct/two-node-case5-ut"] {
        let v = run(&preset(name), &[("run.duration", json!("20s")), ("run.measure_from", json!("5s"))]);
        let total = classes(&v).iter().fold((0, 0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2, a.3 + c.3));
        seen.push((name, total));
    }
    let get = |n: &str| seen.iter().find(|(name, _)| *name == n).unwrap().1;
    let (t, after, _, _) = get("ut-ct/two-node-case4-ct-bdp");
    assert!(t > 0 && after == t, "{seen:?}");
    let (t, after, without, drops) = get("ut-ct/two-node-case4-ct-table3");
    assert!(t > 0 && without == t && after == 0 && drops == 0, "{seen:?}");
}

/// Run `s` in windows or from one queue.
fn run_mode(s: &Value, windowed: bool) -> Value {
    let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap();
    r.world_mut().set_windowed(windowed).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    v
}

/// In the windowed mode a switch handles its drops after the source host has run its own window:
/// a drop may come in after a later timeout was counted (and moves it to after a drop) or before
/// an earlier one (and does not count for it). Losses are compared by their time, so both modes
/// split the timeouts alike. Twenty connections queue up to 127 ms at a 3000-cell switch buffer
/// before a 10 Mb/s link that loses one cell in 100 (1 ms links: windows of 1 ms); the RTO held
/// between 10 and 20 ms expires while cells still wait, and some of them are lost on the link in
/// the same window as the timeout, before or after it; both kinds of timeout.
#[test]
fn windows_and_the_single_queue_split_timeouts_alike() {
    let tcp = json!({"variant": "reno", "mss": "1460B", "window": "200000B", "rto_initial": "10ms", "rto_min": "10ms",
                     "rto_max": "20ms"});
    let mut s = ubr("1ms", tcp);
    s["defaults"]["link_rate"] = json!("155.52Mbps");
    s["defaults"]["buffer"] = json!("3000cells");
    s["link"] = json!([{"between": ["SW1", "SW2"], "rate": "10Mbps", "loss": 1e-2}]);
    s["connection"][0]["count"] = json!(20);
    s["run"] = json!({"duration": "3s", "measure_from": "1s"});
    let windowed = run_mode(&s, true);
    let single = run_mode(&s, false);
    assert_eq!(windowed["fingerprint"], single["fingerprint"]);
    let (w, q) = (classes(&windowed), classes(&single));
    assert_eq!(w, q, "windowed vs single queue");
    let total = q.iter().fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
    assert!(total.1 > 0 && total.2 > 0, "both kinds: {total:?}");
}
