//! The network a scenario builds, read from the world before it runs (`ccsim show`): its nodes,
//! its output ports with their links' rates and delays, and each flow's route, max-min fair rate
//! and what holds it there (`World::maxmin_limits`). Nothing is simulated.

use ccsim_engine::SimTime;
use ccsim_model::{cells_to_mbps, MaxminLimit, NodeKind, World};
use serde_json::{json, Value};

/// The name `ccsim show` and its JSON give a node kind.
pub fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Host => "host",
        NodeKind::Switch => "switch",
        NodeKind::Router => "router",
        NodeKind::IpEdge => "edge router",
        NodeKind::Gateway => "gateway",
        NodeKind::Lan => "lan",
        NodeKind::LossyLink => "lossy link",
    }
}

/// The topology as JSON text (docs/scenarios.md, "Looking at a scenario"):
///
/// - `nodes`: `{name, kind}`;
/// - `ports`: one per direction of a link, `{name, link, from, to, rate_mbps, delay_ms, unit,
///   buffer}` (`from`, `to`: node indices; `unit`: cells or packets, the buffer's unit);
/// - `flows`: `{name, kind, destination, route, start_s, stop_s, demand_mbps, maxmin_mbps,
///   max_goodput_mbps, held_by, bottleneck, carrier}`: `route` the forward ports by index,
///   `maxmin_mbps` in 424-bit units per µs as the result's `maxmin_mbps` (a TCP connection's in
///   units of its own wire; `max_goodput_mbps` is what that rate carries as goodput), `held_by`
///   one of `link`, `demand`, `trunk`, `idle` (not running when the measurement window ends: no
///   share), `background` (not in the allocation), `unbound`; `bottleneck` the port when `held_by`
///   is `link`; `carrier` the gateway trunk carrying a connection.
pub fn topology_json(world: &World, scenario_name: &str) -> String {
    let secs = |t: SimTime| if t == SimTime::MAX { Value::Null } else { json!(t.as_secs_f64()) };
    let finite = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
    let nodes: Vec<Value> = world.nodes.iter().map(|n| json!({"name": n.name, "kind": kind_name(n.kind)})).collect();
    let ports: Vec<Value> = world
        .ports
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "link": p.link_name,
                "from": p.from.0,
                "to": p.to.0,
                "rate_mbps": p.rate_bps() as f64 / 1e6,
                "delay_ms": p.delay.as_secs_f64() * 1e3,
                "unit": if p.packets { "packets" } else { "cells" },
                "buffer": p.buffer.capacity(),
            })
        })
        .collect();
    let (rates, limits) = world.maxmin_limits();
    let flows: Vec<Value> = world
        .vcs
        .iter()
        .zip(rates.iter().zip(&limits))
        .map(|(vc, (&rate, &limit))| {
            let kind = if vc.is_trunk() {
                "trunk"
            } else if vc.tcp().is_some() {
                "connection"
            } else if vc.background().is_some() {
                "background"
            } else {
                "source"
            };
            let (held_by, bottleneck) = match limit {
                MaxminLimit::Port(p) => ("link", json!(p.0)),
                MaxminLimit::Demand => ("demand", Value::Null),
                MaxminLimit::Trunk(_) => ("trunk", Value::Null),
                MaxminLimit::Outside if vc.background().is_some() => ("background", Value::Null),
                MaxminLimit::Outside => ("idle", Value::Null),
                MaxminLimit::Unbound => ("unbound", Value::Null),
            };
            // The goodput a rate carries: whole segments of MSS bytes (as the result's
            // `max_goodput_mbps`).
            let goodput = vc.tcp().map(|t| {
                cells_to_mbps(rate) * (t.sender.core.cfg.smss as f64 * 8.0) / t.wire_bits_per_segment() as f64
            });
            json!({
                "name": vc.name,
                "kind": kind,
                "destination": vc.dest_name,
                "route": vc.fwd_ports.iter().map(|p| p.0).collect::<Vec<u32>>(),
                "start_s": secs(vc.start_time()),
                "stop_s": secs(vc.stop_time()),
                "demand_mbps": finite(cells_to_mbps(vc.demand())),
                "maxmin_mbps": if vc.background().is_some() { Value::Null } else { finite(cells_to_mbps(rate)) },
                "max_goodput_mbps": goodput.map_or(Value::Null, finite),
                "held_by": held_by,
                "bottleneck": bottleneck,
                "carrier": vc.carrier.map(|c| world.vcs[c.index()].name.clone()),
            })
        })
        .collect();
    json!({
        "scenario": scenario_name,
        "window_end_s": world.measure.end.as_secs_f64(),
        "nodes": nodes,
        "ports": ports,
        "flows": flows,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use crate::{Adjustments, Format, Run, SeriesUse};
    use serde_json::Value;

    fn topology(text: &str) -> Value {
        let run = Run::open(text, Format::Toml, &Adjustments::default(), SeriesUse::Discarded).unwrap();
        serde_json::from_str(&super::topology_json(run.world(), &run.scenario().name)).unwrap()
    }

    #[test]
    fn parking_lot_routes_rates_and_bottlenecks() {
        // A crosses both 100 Mb/s trunks, B only the first, C only the second and is limited
        // to 10 Mb/s by its PCR: B and A share the first link (50 each), C takes its demand.
        let t = topology(
            r#"
            name = "t/parking"
            run = { duration = "10ms" }
            switch = [{ name = "SW1" }, { name = "SW2" }, { name = "SW3" }]
            link = [{ between = ["SW1", "SW2"], rate = "100Mbps", delay = "1ms" },
                    { between = ["SW2", "SW3"], rate = "100Mbps", delay = "2ms" }]
            source = [{ name = "A", route = ["SW1", "SW2", "SW3"] },
                      { name = "B", route = ["SW1", "SW2"] },
                      { name = "C", route = ["SW2", "SW3"], abr = { pcr = "10Mbps" } }]
        "#,
        );
        let ports = t["ports"].as_array().unwrap();
        let flows = t["flows"].as_array().unwrap();
        let name = |p: &Value| ports[p.as_u64().unwrap() as usize]["name"].as_str().unwrap().to_string();
        let by = |n: &str| flows.iter().find(|f| f["name"] == n).unwrap();
        let a = by("A");
        let hops: Vec<String> = a["route"].as_array().unwrap().iter().map(name).collect();
        assert_eq!(hops[1..3], ["SW1->SW2", "SW2->SW3"], "{hops:?}");
        assert_eq!(a["held_by"], "link");
        assert_eq!(name(&a["bottleneck"]), "SW1->SW2");
        assert_eq!(by("B")["maxmin_mbps"], a["maxmin_mbps"]);
        assert_eq!(by("C")["held_by"], "demand");
        let trunk = ports.iter().find(|p| p["name"] == "SW2->SW3").unwrap();
        assert_eq!(trunk["delay_ms"].as_f64().unwrap(), 2.0);
        assert_eq!(trunk["rate_mbps"].as_f64().unwrap(), 100.0);
        // Max-min over the whole route: A's share is half the first link (in payload units of
        // the link's cells), at most the first link's capacity.
        let (ra, rc) = (a["maxmin_mbps"].as_f64().unwrap(), by("C")["maxmin_mbps"].as_f64().unwrap());
        assert!(ra > 0.0 && 2.0 * ra <= 100.0 * (1.0 + 1e-9), "{ra}");
        assert!((rc - 10.0).abs() < 0.1, "{rc}");
    }
}
