//! HG-RCP (seed 000, docs/models/hgrcp.md). So far: a host's paced IP output (the rate-managed
//! queue) carries TCP at exactly the explicit rate it is given, through the held-discipline
//! machinery (wake-ups at the pacer's due times), and a rate change takes effect mid-run.

use ccsim_model::port::{AnyDiscipline, AnyHeldOrder, Held, Paced};
use serde_json::json;

/// One Jacobson '88 connection H -> R1 -> R2 -> D over 10 Mb/s links (1460-byte segments, a
/// window far above the bandwidth-delay product), its host's output paced at `rate` cells/s.
fn paced_run(rate: f64, change: Option<(f64, f64)>) -> serde_json::Value {
    let s = json!({
        "name": "test/paced-host",
        "run": {"duration": "10s", "measure_from": "2s"},
        "measure": {"interval": "0s"},
        "defaults": {"link_rate": "10Mbps", "link_delay": "1ms", "router_buffer": "1000packets",
                     "tcp": {"variant": "jacobson88", "mss": "1460B", "window": "64240B"}},
        "router": [{"name": "R1"}, {"name": "R2"}],
        "link": [{"name": "L1", "between": ["R1", "R2"]}],
        "connection": [{"name": "T", "route": ["R1", "R2"]}],
    });
    let mut r = ccsim_scenario::Run::from_text(&s.to_string(), ccsim_scenario::Format::Json, &Default::default()).unwrap();
    let access = r.world().ports.iter().position(|p| p.name == "T->R1").expect("the host's port");
    r.world_mut().ports[access].discipline = AnyDiscipline::Held(Box::new(Held::new(AnyHeldOrder::Paced(Paced::new(true, rate, 0)))));
    if let Some((at, new_rate)) = change {
        r.run_until(ccsim_engine::SimTime::ZERO + ccsim_engine::SimDuration::from_secs_f64(at));
        r.world_mut().notify_rate(ccsim_model::PortId(access as u32), new_rate);
    }
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true);
    v
}

/// A 1500-byte IP packet is charged 32 cells (LLC/SNAP and the AAL5 trailer: 1516 bytes in
/// 48-byte payloads), so at R cells/s the host releases R/32 packets per second.
#[test]
fn a_paced_host_sends_at_the_explicit_rate() {
    for rate in [1600.0, 6400.0] {
        let v = paced_run(rate, None);
        let goodput = v["connections"][0]["goodput_mbps"].as_f64().unwrap() * 1e6;
        let want = rate / 32.0 * 1460.0 * 8.0;
        assert!((goodput - want).abs() / want < 0.01, "{rate} cells/s: {goodput:.0} b/s vs {want:.0}");
        assert_eq!(v["connections"][0]["retransmits"], 0);
    }
}

/// A rate notification mid-run: the goodput after it follows the new rate; a zero rate holds
/// the host, and a positive one releases it again.
#[test]
fn a_new_rate_takes_effect() {
    let v = paced_run(1600.0, Some((1.0, 6400.0)));
    let goodput = v["connections"][0]["goodput_mbps"].as_f64().unwrap() * 1e6;
    let want = 6400.0 / 32.0 * 1460.0 * 8.0;
    assert!((goodput - want).abs() / want < 0.01, "{goodput:.0} b/s vs {want:.0}");
    let held = paced_run(1600.0, Some((1.0, 0.0)));
    assert!(held["connections"][0]["goodput_mbps"].as_f64().unwrap() < 0.01, "ER = 0 holds the host");
}
