//! An intranet LAN's medium (`[[gateway]] lan.medium`, docs/models/hgrcp.md, "LAN medium"):
//! CSMA/CD runs under conventional TCP and HG-RCP with its books balanced, collisions where
//! stations contend, reproducible draws, the round-robin default unchanged, and impossible
//! LANs refused by field.

use serde_json::{json, Value};

fn preset(name: &str) -> String {
    std::fs::read_to_string(std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../python/ccsim/presets/{name}.toml"))).unwrap()
}

fn adjust(overrides: &[(&str, Value)]) -> ccsim_scenario::Adjustments {
    let mut all: Vec<(String, Value)> = vec![("run.duration".into(), json!("4s")), ("run.measure_from".into(), json!("1s"))];
    all.extend(overrides.iter().map(|(p, v)| (p.to_string(), v.clone())));
    ccsim_scenario::Adjustments { overrides: all, ..Default::default() }
}

fn run(name: &str, overrides: &[(&str, Value)]) -> Value {
    let mut r = ccsim_scenario::Run::from_text(&preset(name), ccsim_scenario::Format::Toml, &adjust(overrides)).unwrap();
    r.run_to_end();
    let v = r.finish().unwrap();
    assert_eq!(v["conservation_ok"], true, "{name}: frames conserved, discards after 16 collisions included");
    v
}

fn csma(extra: &[(&str, Value)]) -> Vec<(&'static str, Value)> {
    let mut o = vec![("gateway[0].lan.medium", json!("csma_cd")), ("gateway[1].lan.medium", json!("csma_cd"))];
    o.extend(extra.iter().map(|(p, v)| (if *p == "seed" { "run.seed" } else { "gateway[0].lan.gateway_frames" }, v.clone())));
    o
}

fn lan(v: &Value, g: usize) -> &Value {
    &v["gateways"][g]["lan"]
}

/// Conventional TCP: eight hosts send windows at LAN speed, so the sources' LAN sees collisions;
/// every frame that went counts, and goodput flows.
#[test]
fn csma_cd_carries_conventional_tcp_with_collisions() {
    let v = run("hgrcp/conventional-8-buffer-800", &csma(&[]));
    let a = lan(&v, 0);
    assert_eq!(a["medium"], "csma_cd");
    assert!(a["collisions"].as_u64().unwrap() > 100, "{a}");
    assert!(a["collided_frames"].as_u64().unwrap() >= 2 * a["collisions"].as_u64().unwrap());
    assert!(a["frames"].as_u64().unwrap() > 1000);
    assert!(v["goodput_mbps_total"].as_f64().unwrap() > 1.0);
    assert!(lan(&v, 1)["frames"].as_u64().unwrap() > 1000, "the destinations' LAN carries data and ACKs");
}

/// HG-RCP: the hosts' paced queues contend instead of taking turns, the rate notifications
/// cross the medium, and the connections get their goodput.
#[test]
fn csma_cd_carries_hgrcp() {
    let v = run("hgrcp/hgrcp-8-buffer-800", &csma(&[]));
    assert!(lan(&v, 0)["frames"].as_u64().unwrap() > 1000);
    assert!(v["gateways"][0]["rn_sent"].as_u64().unwrap() > 0);
    assert!(v["goodput_mbps_total"].as_f64().unwrap() > 3.0, "{}", v["goodput_mbps_total"]);
}

/// Backoffs come from the run's random streams: the same seed gives the same run, another seed
/// another one.
#[test]
fn csma_cd_runs_are_reproducible() {
    let f = |seed: u64| run("hgrcp/conventional-8-buffer-800", &csma(&[("seed", json!(seed))]))["fingerprint"].clone();
    assert_eq!(f(3), f(3));
    assert_ne!(f(3), f(4));
}

/// With the gateway's frames apart (the seed's ACKs use no LAN bandwidth), only the hosts
/// contend on the sources' LAN: fewer frames cross it than when the ACKs share it.
#[test]
fn separate_gateway_frames_leave_the_hosts_alone_on_the_medium() {
    let shared = run("hgrcp/conventional-8-buffer-800", &csma(&[]));
    let apart = run("hgrcp/conventional-8-buffer-800", &csma(&[("frames", json!("separate"))]));
    let (s, a) = (lan(&shared, 0)["frames"].as_u64().unwrap(), lan(&apart, 0)["frames"].as_u64().unwrap());
    // Shared: data and one ACK per segment; apart: data only.
    assert!(s as f64 > 1.6 * a as f64, "shared {s} vs apart {a}");
    assert!(lan(&apart, 0)["collisions"].as_u64().unwrap() > 0);
}

/// The default LAN is the round robin: naming it changes nothing, and it reports no contention.
#[test]
fn round_robin_is_the_default_and_unchanged() {
    let d = run("hgrcp/hgrcp-8-buffer-800", &[]);
    let rr = run("hgrcp/hgrcp-8-buffer-800", &[("gateway[0].lan.medium", json!("round_robin"))]);
    assert_eq!(d["fingerprint"], rr["fingerprint"]);
    assert!(d["gateways"][0].get("lan").is_none());
}

#[test]
fn impossible_lans_are_refused_by_field() {
    let text = preset("hgrcp/hgrcp-8-buffer-800");
    let refused = |o: &[(&str, Value)]| {
        let adj = ccsim_scenario::Adjustments { overrides: o.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(), ..Default::default() };
        ccsim_scenario::load(&text, ccsim_scenario::Format::Toml, &adj).expect_err("refused")
    };
    let cd = ("gateway[0].lan.medium", json!("csma_cd"));
    // 2 × 30 us + the jam exceed a 51.2 us slot.
    let e = refused(&[cd.clone(), ("gateway[0].lan.delay", json!("30us"))]);
    assert_eq!(e.path, "gateway[0].lan.delay");
    assert!(e.message.contains("slot"), "{e}");
    assert_eq!(refused(&[cd.clone(), ("gateway[0].lan.rate", json!("1Gbps"))]).path, "gateway[0].lan.rate");
    assert_eq!(refused(&[cd, ("gateway[0].lan.rate", json!("3Mbps"))]).path, "gateway[0].lan.rate");
    assert_eq!(refused(&[("gateway[0].lan.gateway_frames", json!("shared"))]).path, "gateway[0].lan.gateway_frames");
    assert_eq!(refused(&[("gateway[0].lan.medium", json!("token_ring"))]).path.split('.').next(), Some("gateway[0]"));
}
