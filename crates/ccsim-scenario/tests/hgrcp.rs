//! HG-RCP (seed 000, docs/models/hgrcp.md). So far: a host's paced IP output (the rate-managed
//! queue) carries TCP at exactly the explicit rate it is given, through the held-discipline
//! machinery (wake-ups at the pacer's due times), and a rate change takes effect mid-run.

use ccsim_model::port::{AnyDiscipline, AnyHeldOrder, LanMedium};
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
    r.world_mut().ports[access].discipline = AnyDiscipline::held(AnyHeldOrder::Lan(LanMedium::new(true, rate, 0)));
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

mod gateway {
    use serde_json::Value;

    fn run(name: &str, overrides: &[(&str, Value)]) -> Value {
        let text = std::fs::read_to_string(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../python/ccsim/presets/{name}.toml")),
        )
        .unwrap();
        let adj = ccsim_scenario::Adjustments {
            overrides: overrides.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(),
            ..Default::default()
        };
        let mut r = ccsim_scenario::Run::from_text(&text, ccsim_scenario::Format::Toml, &adj).unwrap();
        r.run_to_end();
        let v = r.finish().unwrap();
        assert_eq!(v["conservation_ok"], true, "{name}: cells and packets conserved through the gateways");
        v
    }

    fn gw(v: &Value) -> &Value {
        &v["gateways"][0]
    }

    /// Seed 000's central finding (Fig. 6): conventional TCP/IP piles thousands of cells into the
    /// gateway; with HG-RCP the queue stays a few hundred cells, for about the same goodput.
    /// Measured (5 sources, 10 s): conventional 7 391 cells at most, HG-RCP 460; goodput 6.2
    /// and 6.3 Mb/s.
    #[test]
    fn hgrcp_keeps_the_gateway_queue_short() {
        let short = [("run.duration", Value::from("10s")), ("run.measure_from", Value::from("2s"))];
        let (h, c) = (run("hgrcp/hgrcp-5", &short), run("hgrcp/conventional-5", &short));
        let (hq, cq) = (gw(&h)["max_queue_cells"].as_u64().unwrap(), gw(&c)["max_queue_cells"].as_u64().unwrap());
        assert!(cq > 3000 && hq * 5 < cq, "max queue HG-RCP {hq} vs conventional {cq}");
        assert!(gw(&h)["mean_queue_cells"].as_f64().unwrap() < 200.0);
        let (hg, cg) = (h["goodput_mbps_total"].as_f64().unwrap(), c["goodput_mbps_total"].as_f64().unwrap());
        assert!(hg > 0.9 * cg, "goodput {hg} vs {cg}");
        // Rate notifications only from the gateway that controls; no QN with preloaded tables.
        assert!(gw(&h)["rn_sent"].as_u64().unwrap() > 0);
        assert_eq!(gw(&h)["qn_sent"], 0);
        assert_eq!(gw(&c)["rn_sent"], 0);
    }

    /// Hosts that start with empty Queue Mapping Tables get one queue notification each, on their
    /// first packet, and are rate-managed after it.
    #[test]
    fn queue_notifications_go_once_to_each_host() {
        let v = run("hgrcp/hgrcp-5", &[("run.duration", Value::from("3s")), ("run.measure_from", Value::from("1s")),
                                       ("gateway[0].control.preloaded", Value::from(false))]);
        assert_eq!(gw(&v)["qn_sent"], 5);
        assert!(gw(&v)["max_queue_cells"].as_u64().unwrap() < 3000);
    }

    /// Packet-level discard: with a small ABR-SAP buffer packets are discarded whole, cells are
    /// still conserved per connection, and TCP recovers.
    #[test]
    fn a_limited_buffer_discards_whole_packets() {
        let v = run("hgrcp/conventional-5", &[("run.duration", Value::from("5s")), ("run.measure_from", Value::from("1s")),
                                             ("gateway[0].buffer", Value::from("800cells"))]);
        assert!(gw(&v)["drops"].as_u64().unwrap() > 0);
        assert!(gw(&v)["max_queue_cells"].as_u64().unwrap() <= 800);
        assert!(v["goodput_mbps_total"].as_f64().unwrap() > 1.0);
    }

    /// With a constant available rate (no VBR background) the gateway's queue settles at Q, the
    /// controller's fixed point: the queue packets see on arrival is Q less about half a packet
    /// (measured 14 cells under Q for Q = 100 and 300), with no spikes.
    #[test]
    fn with_a_constant_available_rate_the_queue_settles_at_q() {
        for q in [100.0, 300.0] {
            let v = run("hgrcp/hgrcp-5", &[("background", serde_json::json!([])), ("gateway[0].control.Q", Value::from(q)),
                                           ("run.duration", Value::from("10s")), ("run.measure_from", Value::from("2s"))]);
            let mean = gw(&v)["mean_queue_cells"].as_f64().unwrap();
            assert!((mean - q).abs() < 25.0, "Q = {q}: mean queue {mean}");
            assert!((gw(&v)["max_queue_cells"].as_f64().unwrap() - q) < 100.0, "Q = {q}: {}", gw(&v)["max_queue_cells"]);
        }
    }

    /// Seed 000: "When the VBR source is silent … the ABR connection is allowed to transmit at the
    /// PCR" (RIF = 1 with ER switches). With the presets' ER switch (ERICA+, a 100 % target) and no
    /// VBR, the gateway's ACR is PCR within a few 60 ms round trips and stays there; ERICA at its
    /// 0.95 target (the other reading) holds it at 0.95 × PCR, so the check can fail.
    #[test]
    fn with_the_vbr_source_off_the_gateway_reaches_pcr() {
        let silent = |alg: &str| {
            run("hgrcp/hgrcp-5", &[("background", serde_json::json!([])), ("defaults.algorithm", serde_json::json!({"type": alg})),
                                   ("run.duration", Value::from("1.3s")), ("run.measure_from", Value::from("0.3s"))])
        };
        let pcr = 23_585.0 * 424.0 / 1e6;
        let v = silent("erica_plus");
        let s = &v["sources"][0];
        assert_eq!(s["name"], "GWA ABR");
        let (mean, last) = (s["acr_mbps"].as_f64().unwrap(), s["final_acr_mbps"].as_f64().unwrap());
        assert!((last - pcr).abs() < 1e-6, "final ACR {last} Mb/s against PCR {pcr}");
        assert!(mean > 0.999 * pcr, "ACR from 0.3 s (five round trips) {mean} Mb/s against PCR {pcr}");
        let e = silent("erica");
        let mean = e["sources"][0]["acr_mbps"].as_f64().unwrap();
        assert!(mean < 0.951 * pcr, "ERICA's target keeps ACR at 0.95 PCR: {mean}");
    }

    /// The gateway's ABR connection carries its connections' cells: its row counts them (it sent
    /// none of its own), and each connection's max-min reference is its share of the trunk's data
    /// cells, not a share beside the trunk. With VBR at its mean (ON 100 ms of 500 at PCR − MCR) the
    /// trunk has PCR − 0.2 (PCR − MCR) = 18 938 cells/s, 31 of each 32 of them data (Nrm = 32),
    /// and a 1500-byte IP packet takes 32 cells: 18 938 · 31/32 / 32 · 1460 · 8 = 6.696 Mb/s of
    /// goodput in all, shared equally.
    #[test]
    fn the_trunk_row_counts_what_it_carries_and_shares_it() {
        let short = [("run.duration", Value::from("6s")), ("run.measure_from", Value::from("2s"))];
        let v = run("hgrcp/hgrcp-5", &short);
        let s = &v["sources"][0];
        let (sent, received) = (s["cells_sent"].as_u64().unwrap(), s["cells_received"].as_u64().unwrap());
        assert!(sent > 50_000 && received <= sent && sent - received < 2_000, "trunk sent {sent}, received {received}");
        let rate = s["rate_mbps"].as_f64().unwrap();
        let trunk = 23_585.0 - 0.2 * (23_585.0 - 350.0);
        assert!((s["maxmin_mbps"].as_f64().unwrap() - trunk * 424.0 / 1e6).abs() < 1e-6, "{}", s["maxmin_mbps"]);
        assert!(rate > 0.5 * trunk * 424.0 / 1e6 && rate <= trunk * 424.0 / 1e6 * 1.2, "trunk rate {rate}");
        let total = trunk * 31.0 / 32.0 / 32.0 * 1460.0 * 8.0 / 1e6;
        for c in v["connections"].as_array().unwrap() {
            let m = c["max_goodput_mbps"].as_f64().unwrap();
            assert!((m - total / 5.0).abs() < 1e-9, "{}: {m} against {}", c["name"], total / 5.0);
        }
    }

    /// The three means of the ABR-SAP buffer: what a packet's arrival leaves is what it found plus
    /// its own cells (32 per full-size packet; no packet is discarded with an unlimited buffer),
    /// and the time average of a queue held at Q by the controller is near Q.
    #[test]
    fn the_three_mean_queues_agree_with_each_other() {
        let v = run("hgrcp/hgrcp-5", &[("background", serde_json::json!([])), ("run.duration", Value::from("6s")),
                                       ("run.measure_from", Value::from("2s"))]);
        let g = gw(&v);
        let (before, after, time) = (g["mean_queue_cells"].as_f64().unwrap(), g["mean_queue_after_arrival_cells"].as_f64().unwrap(),
                                     g["time_mean_queue_cells"].as_f64().unwrap());
        assert!((after - before - 32.0).abs() < 0.5, "after {after}, before {before}");
        assert!((time - 100.0).abs() < 25.0, "time average {time}");
    }

    #[test]
    fn bad_gateways_are_refused_by_field() {
        let text = std::fs::read_to_string(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../python/ccsim/presets/hgrcp/hgrcp-5.toml"),
        )
        .unwrap();
        let refused = |path: &str, value: Value| {
            let adj = ccsim_scenario::Adjustments { overrides: vec![(path.to_string(), value)], ..Default::default() };
            ccsim_scenario::load(&text, ccsim_scenario::Format::Toml, &adj).expect_err("refused")
        };
        let e = refused("gateway[0].control.K", Value::from(250.0));
        assert_eq!(e.path, "gateway[0].control.K");
        assert!(e.message.contains("unstable"), "{e}");
        assert_eq!(refused("gateway[0].control.T", Value::from("0s")).path, "gateway[0].control.T");
        assert_eq!(refused("gateway[0].control.Q", Value::from(-1.0)).path, "gateway[0].control.Q");
        assert_eq!(refused("gateway[0].control.W", Value::from("5ms")).path, "gateway[0].control.W");
        assert_eq!(refused("gateway[0].buffer", Value::from("0cells")).path, "gateway[0].buffer");
        assert_eq!(refused("connection[0].route", serde_json::json!(["GWA", "SW1"])).path, "connection[0].route");
        assert_eq!(refused("gateway[0].abr.mcr", Value::from("30000cells/s")).path, "gateway[0].abr.mcr");
    }
}
