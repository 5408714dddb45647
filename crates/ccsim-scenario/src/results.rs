//! The result of a run as one JSON text, written a row at a time: the summary contract for
//! scripts plus columnar time series and per-VC totals that the Python layer turns into
//! DataFrames.

use ccsim_model::ip::AnyEdge;
use ccsim_model::world::Report;
use ccsim_model::{cells_to_mbps, NodeKind, Recordings, Series, World};
use serde_json::{json, Map, Value};

fn series(s: &Series, key_name: &str, names: &[String], value_name: &str) -> Value {
    let keys: Vec<&str> = s.key.iter().map(|&k| names[k as usize].as_str()).collect();
    let mut m = Map::new();
    m.insert("time_s".into(), json!(s.time_s));
    m.insert(key_name.into(), json!(keys));
    m.insert(value_name.into(), json!(s.value));
    Value::Object(m)
}

/// One recorded series as columns: the key of each row indexes `names`.
pub struct SeriesColumns<'a> {
    pub name: &'static str,
    pub key_field: &'static str,
    pub value_field: &'static str,
    pub names: &'a [String],
    pub series: &'a Series,
}

/// The names series keys index: VCs, ports, gateways.
#[derive(Default)]
pub struct Names {
    pub vcs: Vec<String>,
    pub ports: Vec<String>,
    pub gateways: Vec<String>,
}

impl Names {
    pub fn of(world: &World) -> Names {
        Names {
            vcs: world.vcs.iter().map(|v| v.name.clone()).collect(),
            ports: world.ports.iter().map(|p| p.name.clone()).collect(),
            gateways: world.gateways.iter().map(|g| g.name.clone()).collect(),
        }
    }
}

/// Every recorded series, with the names its keys index.
pub fn series_columns<'a>(world: &'a World, names: &'a Names) -> Vec<SeriesColumns<'a>> {
    recorded_columns(&world.rec, names)
}

/// The series of `r` (the world's recordings, or a part taken from them while running), with the
/// names their keys index.
pub fn recorded_columns<'a>(r: &'a Recordings, names: &'a Names) -> Vec<SeriesColumns<'a>> {
    let by_vc = |name, key_field, value_field, series| SeriesColumns { name, key_field, value_field, names: &names.vcs, series };
    let by_port = |name, key_field, value_field, series| SeriesColumns { name, key_field, value_field, names: &names.ports, series };
    vec![
        by_vc("acr", "source", "acr_mbps", &r.acr),
        by_port("queue", "port", "queue_cells", &r.queue),
        by_vc("received", "source", "cells", &r.received),
        by_vc("dropped", "source", "cells", &r.dropped),
        by_port("utilization", "link", "utilization", &r.utilization),
        by_vc("cwnd", "connection", "cwnd_bytes", &r.cwnd),
        by_vc("ssthresh", "connection", "ssthresh_bytes", &r.ssthresh),
        by_vc("seq", "connection", "seq_bytes", &r.seq),
        by_vc("rtt", "connection", "rtt_s", &r.rtt),
        by_vc("srtt", "connection", "srtt_s", &r.srtt),
        by_vc("goodput", "connection", "goodput_mbps", &r.goodput),
        by_vc("retransmits", "connection", "retransmits", &r.retransmits),
        by_vc("timeouts", "connection", "timeouts", &r.timeouts),
        by_port("mapr", "port", "mapr_mbps", &r.mapr),
        by_port("dpf", "port", "dpf", &r.dpf),
        by_port("data_queue", "port", "data_queue_packets", &r.data_queue),
        by_port("red_avg", "port", "red_avg", &r.red_avg),
        by_vc("delay", "flow", "delay_s", &r.delay),
        SeriesColumns { name: "gateway_queue", key_field: "gateway", value_field: "queue_cells", names: &names.gateways, series: &r.gateway_queue },
    ]
}

/// Rows held in `r`, every series together.
pub fn recorded_rows(r: &Recordings) -> usize {
    recorded_columns(r, &Names::default()).iter().map(|c| c.series.len()).sum()
}

/// The unit a port counts its queue in, as its fields name it.
fn unit(packets: bool) -> &'static str {
    if packets {
        "packets"
    } else {
        "cells"
    }
}

/// Seconds as milliseconds, or JSON null.
fn ms(s: Option<f64>) -> Value {
    json!(s.map(|s| s * 1e3))
}

/// A JSON text, written as soon as its part of the result is known: the result is serialised a
/// row at a time, so that a run with 100,000 sources never holds its whole result as a tree of
/// `Value`s (~11 kB a source) beside its text (~1.4 kB a source).
struct Raw(String);

impl Raw {
    fn of(v: &Value) -> Raw {
        Raw(v.to_string())
    }
}

/// A JSON array of `items`, each serialised (and dropped) as it comes.
fn array(items: impl Iterator<Item = Value>) -> Raw {
    let mut s = String::from("[");
    for (i, v) in items.enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&v.to_string());
    }
    s.push(']');
    Raw(s)
}

/// A JSON object of `entries`, its keys in order (as `serde_json::Map` writes them).
fn object(mut entries: Vec<(String, Raw)>) -> Raw {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut s = String::from("{");
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&Value::String(k).to_string());
        s.push(':');
        s.push_str(&v.0);
    }
    s.push('}');
    Raw(s)
}

/// How much of the result `result_json` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Everything, the time series as JSON columns.
    Full,
    /// Everything but the time series (`series` is an empty object): the Python binding takes
    /// them as binary columns from `series_columns`.
    NoSeries,
    /// The summary `ccsim run --json` prints: neither `series` nor the per-VC columns `vcs`.
    Summary,
}

/// The result as JSON text, as much of it as `detail` asks for.
///
/// Every source, connection and background VC carries `delay_mean_ms`, `delay_p99_ms` and
/// `jitter_ms`: the end-to-end delay of the units it delivered in the measurement window, null
/// below one unit (two for the jitter); docs/scenarios.md, "Delays".
///
/// `r` is the world's report and `conservation_ok` whether conservation held
/// (`World::checked_report`), both taken by the caller, which may then free the cells in flight
/// (`Run::into_json`).
pub fn result_json(world: &World, r: &Report, conservation_ok: bool, scenario_name: &str, seed: u64, scenario_hash: &str, detail: Detail) -> String {
    let sources = array(
        r.vcs
        .iter()
        .filter(|v| v.tcp.is_none() && !v.background)
        .map(|v| {
            json!({
                "name": v.name,
                "destination": v.dest_name,
                "acr_mbps": cells_to_mbps(v.acr),
                "final_acr_mbps": cells_to_mbps(v.final_acr),
                "rate_mbps": cells_to_mbps(v.rate),
                "maxmin_mbps": cells_to_mbps(v.maxmin),
                "cells_sent": v.books.data_sent,
                "cells_received": v.books.data_delivered,
                "cells_dropped": v.books.data_dropped,
                "clr": v.clr,
                "window_clr": v.window_clr,
                "delay_mean_ms": ms(v.delay_mean),
                "delay_p99_ms": ms(v.delay_p99),
                "jitter_ms": ms(v.jitter),
            })
        }),
    );
    let mut goodput_total = 0.0;
    let mut goodput_max = 0.0;
    let gfr_targets = world.gfr_targets();
    let mut gfr_met = None;
    let mut connections_n = 0usize;
    let connections = array(
        r.vcs
        .iter()
        .zip(&gfr_targets)
        .filter_map(|(v, target)| v.tcp.as_ref().map(|t| (v, t, target)))
        .map(|(v, t, target)| {
            // The goodput a rate of `cells` per second carries: whole frames of MSS bytes.
            // (Cells/s; on IP links in 424-bit units of the link's bits.)
            let goodput_of = |cells: f64| cells * ccsim_model::CELL_BITS as f64 * (t.mss as f64 * 8.0) / t.wire_bits_per_segment as f64;
            let max_goodput = goodput_of(v.maxmin);
            goodput_total += v.goodput;
            goodput_max += max_goodput;
            let gfr = (v.mcr > 0.0).then(|| {
                let target = goodput_of(*target);
                // Met: CLP0+1 goodput at least 0.9 × the target (docs/models/ubr/gfr.md).
                let met = v.goodput >= 0.9 * target;
                gfr_met = Some(gfr_met.unwrap_or(true) && met);
                json!({
                    "mcr_mbps": cells_to_mbps(v.mcr),
                    "target_mbps": target / 1e6,
                    "clp0_mbps": v.clp0_goodput / 1e6,
                    "clp01_mbps": v.goodput / 1e6,
                    "frames_tagged": v.frames_tagged,
                    "guarantee_met": met,
                })
            });
            let mut c = json!({
                "name": v.name,
                "destination": v.dest_name,
                "variant": t.variant,
                "goodput_mbps": v.goodput / 1e6,
                "max_goodput_mbps": max_goodput / 1e6,
                "delivered_bytes": t.delivered_bytes,
                "segments_sent": t.stats.segments_sent,
                "retransmits": t.stats.retransmissions,
                "fast_retransmits": t.stats.fast_retransmits,
                // Every retransmission fast retransmit did not send: after a timeout (seed 004).
                "timeout_retransmits": t.stats.retransmissions.saturating_sub(t.stats.fast_retransmits),
                "timeouts": t.stats.timeouts,
                // Where they come from (docs/models/tcp.md): the two add up to `timeouts`.
                "timeouts_after_drop": t.host.timeouts_after_drop,
                "timeouts_without_loss": t.host.timeouts_without_loss,
                "drops": v.books.fwd_dropped + v.books.bwd_dropped + t.host.adapter_drops,
                "frames_corrupted": t.host.frames_corrupted,
                "ack_frames_lost": t.host.ack_frames_lost,
                "delay_mean_ms": ms(v.delay_mean),
                "delay_p99_ms": ms(v.delay_p99),
                "jitter_ms": ms(v.jitter),
            });
            if let Some(Value::Object(g)) = gfr {
                c.as_object_mut().expect("an object").extend(g);
            }
            c
        })
        .zip(world.vcs.iter().enumerate().filter(|(_, v)| v.tcp().is_some()))
        .map(|(mut c, (i, vc))| {
            // A FICCRD source edge's books of this flow (only where there is one).
            if let Some(e) = vc.edge.as_deref() {
                let m = c.as_object_mut().expect("an object");
                let f = e.rd();
                m.insert("rd_sent".into(), json!(f.rds_sent));
                m.insert("rd_sent_on_timer".into(), json!(f.rds_on_timer));
                m.insert("rd_returned".into(), json!(f.rds_returned));
                m.insert("er_mbps".into(), json!(f.er.map(|e| e / 1e6)));
                m.insert("apr_mbps".into(), json!(f.estimator.apr() / 1e6));
                if let AnyEdge::Fiewa(w) = e {
                    m.insert("window_cap_bytes".into(), json!(e.window_cap()));
                    m.insert("edge_data_rtt_ms".into(), json!(w.data_rtt.map(|r| r * 1e3)));
                    m.insert("edge_rd_rtt_ms".into(), json!(f.rd_rtt.map(|r| r * 1e3)));
                }
                for (name, n) in e.counts() {
                    m.insert(name.into(), json!(n));
                }
            }
            // Seed 004's session model: what the application wrote, and what it offers on average.
            if let Some(s) = vc.tcp().and_then(|t| t.sessions.as_ref()) {
                let m = c.as_object_mut().expect("an object");
                m.insert("sessions_started".into(), json!(s.sessions_started));
                m.insert("bursts_written".into(), json!(s.bursts_written));
                m.insert("app_bytes_written".into(), json!(s.written));
                let before = world.app_written_when_window_opened(i);
                m.insert("app_bytes_window".into(), json!(s.written - before));
                m.insert("offered_mbps".into(), json!(s.params().offered_bps() / 1e6));
            }
            // Packet-to-ACK time: first transmission to the covering ACK (seed 004's timeout rule).
            if let Some(t) = vc.tcp() {
                let m = c.as_object_mut().expect("an object");
                let ms = |d: Option<ccsim_engine::SimDuration>| d.map(|d| d.as_secs_f64() * 1e3);
                m.insert("ack_time_mean_ms".into(), json!(ms(t.ack_times.stats.mean())));
                m.insert("ack_time_p999_ms".into(), json!(ms(t.ack_times.stats.quantile(0.999))));
            }
            // Cell transfer delay, where the adapters stamp their cells (CT, TCP over ABR).
            if let Some(ctd) = vc.ctd.as_ref() {
                let m = c.as_object_mut().expect("an object");
                let ms = |d: Option<ccsim_engine::SimDuration>| d.map(|d| d.as_secs_f64() * 1e3);
                m.insert("ctd_mean_ms".into(), json!(ms(ctd.mean())));
                m.insert("ctd_p99_ms".into(), json!(ms(ctd.quantile(0.99))));
                m.insert("ctd_cells".into(), json!(ctd.count()));
            }
            connections_n += 1;
            c
        }),
    );
    let background = array(
        r.vcs
        .iter()
        .filter(|v| v.background)
        .map(|v| {
            json!({
                "name": v.name,
                "rate_mbps": cells_to_mbps(v.rate),
                "cells_sent": v.books.data_sent,
                "cells_received": v.books.data_delivered,
                "delay_mean_ms": ms(v.delay_mean),
                "delay_p99_ms": ms(v.delay_p99),
                "jitter_ms": ms(v.jitter),
            })
        }),
    );
    let ports = array(
        r.ports
        .iter()
        .filter(|p| p.at_switch)
        .map(|p| {
            // Queue lengths and buffer sizes in the port's unit, which their names carry: cells at
            // ATM ports, packets at IP ports (`mean_queue_packets`, ...).
            let u = unit(p.packets);
            let mut m = Map::new();
            m.insert("name".into(), json!(p.name));
            m.insert("link".into(), json!(p.link));
            m.insert("unit".into(), json!(u));
            m.insert(format!("mean_queue_{u}"), json!(p.mean_queue));
            m.insert(format!("max_queue_{u}"), json!(p.max_queue));
            m.insert(format!("max_queue_{u}_run"), json!(p.max_queue_run));
            // Items stored at once (the buffer memory the port needed in the window).
            m.insert(format!("buffer_max_{u}"), json!(p.max_queue));
            m.insert("drops".into(), json!(p.drops));
            m.insert("early_drops".into(), json!(p.early_drops));
            Value::Object(m)
        })
        .zip(world.ports.iter().enumerate().zip(&r.ports).filter(|((_, p), _)| p.at_switch))
        .map(|(mut v, ((i, port), rep))| {
            // The buffer's size, in the port's unit (what a queue plot draws its limit at).
            let u = unit(port.packets);
            let m = v.as_object_mut().expect("an object");
            m.insert(format!("buffer_{u}"), json!(port.buffer.capacity()));
            // The levels where its buffer policy or RED starts dropping, in the port's unit.
            let mut thresholds: Map<String, Value> =
                port.buffer.policy().thresholds().into_iter().map(|(name, level)| (name.to_string(), json!(level))).collect();
            if let Some(red) = &port.red {
                thresholds.insert("red_min_th".into(), json!(red.p.min_th));
                thresholds.insert("red_max_th".into(), json!(red.p.max_th));
            }
            if !thresholds.is_empty() {
                m.insert("thresholds".into(), Value::Object(thresholds));
            }
            // FICCRD's per-queue state at the end of the run (only where there is some), and its
            // queue over the window told apart: data packets and RD packets (they add up to
            // `mean_queue_packets`).
            if let Some(c) = port.control.as_ref().and_then(|c| c.ficcrd()) {
                let m = v.as_object_mut().expect("an object");
                let (mean, rd) = (rep.mean_queue, rep.mean_rd_queue.unwrap_or(0.0));
                m.insert("mean_data_queue_packets".into(), json!((mean - rd).max(0.0)));
                m.insert("mean_rd_queue_packets".into(), json!(rd));
                m.insert("control_queue".into(), json!(match c.params.queue {
                    ccsim_model::ip::FiccrdQueue::Data => "data",
                    ccsim_model::ip::FiccrdQueue::Packets => "packets",
                }));
                m.insert("mapr_mbps".into(), json!(c.mapr / 1e6));
                m.insert("dpf".into(), json!(c.dpf));
                m.insert("forward_rds".into(), json!(c.forward_rds));
                m.insert("backward_rds".into(), json!(c.backward_rds));
            }
            // Faults: what the link lost (only on links that lose).
            if let Some(l) = &port.loss {
                v.as_object_mut().expect("an object").insert("link_losses".into(), json!(l.lost));
            }
            // Controlled Transfer: this hop's credit counters (docs/models/credit.md).
            if let (Some(c), Some(rx)) = (port.credit(), world.credit_receiver(ccsim_model::ids::PortId(i as u32))) {
                let m = v.as_object_mut().expect("an object");
                m.insert("credit_overflows".into(), json!(rx.stats.overflows));
                m.insert("policy_limit_cells".into(), json!(c.params().policy_limit));
                // The receiver's buffer for this hop: one Policy_Limit per VP (or connection).
                m.insert("allocated_cells".into(), json!(c.allocated()));
                m.insert("bsu_sent".into(), json!(rx.stats.bsu_sent));
                m.insert("bsc_sent".into(), json!(c.bsc_sent));
                m.insert("bsc_recovered_cells".into(), json!(rx.stats.cells_recovered));
            }
            v
        }),
    );
    // Buffer memory (seed 004): what the switches held at most, and what CT allocates there.
    let switch_ports = || world.ports.iter().zip(&r.ports).filter(|(p, _)| world.nodes[p.from.index()].kind == NodeKind::Switch);
    let buffer_memory: u64 = switch_ports().map(|(_, rep)| rep.max_queue as u64).sum();
    let allocated: u64 = world
        .ports
        .iter()
        .filter(|p| world.nodes[p.to.index()].kind == NodeKind::Switch)
        .filter_map(|p| p.credit().map(|c| c.allocated()))
        .sum();
    let links = array(
        r.ports
        .iter()
        .map(|p| {
            json!({
                "name": format!("{} ({}->{})", p.link, p.from, p.to),
                "link": p.link,
                "from": p.from,
                "to": p.to,
                "rate_mbps": p.rate_bps as f64 / 1e6,
                "utilization": p.utilization,
            })
        }),
    );
    let names = Names::of(world);
    type Column<'a> = (&'a str, &'a dyn Fn(&ccsim_model::world::VcReport) -> Value);
    let columns: [Column; 17] = [
        ("name", &|v| json!(v.name)),
        ("destination", &|v| json!(v.dest_name)),
        ("data_sent", &|v| json!(v.books.data_sent)),
        ("data_delivered", &|v| json!(v.books.data_delivered)),
        ("data_dropped", &|v| json!(v.books.data_dropped)),
        ("fwd_sent", &|v| json!(v.books.fwd_sent)),
        ("fwd_delivered", &|v| json!(v.books.fwd_delivered)),
        ("fwd_dropped", &|v| json!(v.books.fwd_dropped)),
        ("fwd_in_flight", &|v| json!(v.in_flight_fwd)),
        ("bwd_sent", &|v| json!(v.books.bwd_sent)),
        ("bwd_delivered", &|v| json!(v.books.bwd_delivered)),
        ("bwd_dropped", &|v| json!(v.books.bwd_dropped)),
        ("bwd_in_flight", &|v| json!(v.in_flight_bwd)),
        ("frm_sent", &|v| json!(v.frm_sent)),
        ("oor_frm_sent", &|v| json!(v.oor_frm_sent)),
        ("brm_received", &|v| json!(v.brm_received)),
        ("clr", &|v| json!(v.clr)),
    ];
    let per_vc = detail != Detail::Summary;
    let vcs = per_vc.then(|| object(columns.iter().map(|(name, f)| (name.to_string(), array(r.vcs.iter().map(f)))).collect()));
    let mut series_json = Vec::new();
    if detail == Detail::Full {
        for c in series_columns(world, &names) {
            series_json.push((c.name.to_string(), Raw::of(&series(c.series, c.key_field, c.names, c.value_field))));
        }
    }
    let small = json!({
        "scenario": scenario_name,
        "seed": seed,
        "sim_time_s": world.now().as_secs_f64(),
        "events": world.events(),
        "cell_hops": world.cell_hops(),
        "packet_hops": world.packet_hops(),
        "fingerprint": world.fingerprint().hex(),
        "scenario_hash": scenario_hash,
        "window_s": [r.window.0.as_secs_f64(), r.window.1.as_secs_f64()],
        // Over the ABR sources, or over TCP goodputs where every ABR VC is a gateway's connection;
        // null where there is nothing to compare (no source with a max-min rate, no connection).
        "fairness_index": if r.vcs.iter().all(|v| v.tcp.is_some() || v.background || v.trunk) && connections_n > 0 {
            r.tcp_fairness_index
        } else {
            r.fairness_index
        },
        // The connections' numbers are null in a run without TCP connections (not 1 and 0: there is
        // nothing to be fair or efficient about), and the efficiency also where no connection has a
        // max-min share at the end of the window.
        "connections_fairness_index": r.tcp_fairness_index,
        "goodput_mbps_total": (connections_n > 0).then(|| goodput_total / 1e6),
        // At most 1 by definition: what the window's goodput holds beyond the max-min shares is the
        // window's edge (in-order bytes released in it that crossed the bottleneck before it opened),
        // not capacity (docs/scenarios.md, "What the summary numbers cover"); `goodput_mbps` keeps
        // the measured bytes.
        "efficiency": (goodput_max > 0.0).then(|| (goodput_total / goodput_max).min(1.0)),
        "gfr_guarantee_met": gfr_met,
        "conservation_ok": conservation_ok,
        "buffer_memory_cells": buffer_memory,
        "buffer_allocated_cells": if world.ports.iter().any(|p| p.credit().is_some()) { json!(allocated) } else { Value::Null },
        "gateways": r.gateways.iter().map(|g| {
            let mut row = json!({
                "name": g.name,
                "max_queue_cells": g.max_queue,
                // Three means of the ABR-SAP buffer (docs/models/hgrcp.md, "Queue statistics"): seen
                // by arriving packets before and after their cells entered, and over time.
                "mean_queue_cells": g.mean_queue_seen,
                "mean_queue_after_arrival_cells": g.mean_queue_left,
                "time_mean_queue_cells": g.time_mean_queue,
                "mean_queue_delay_ms": g.mean_delay_s * 1e3,
                "rn_sent": g.rn_sent,
                "qn_sent": g.qn_sent,
                "drops": g.drops,
            });
            // A CSMA/CD LAN's contention over the whole run (a collision-free LAN has none).
            if let Some(l) = g.lan {
                row["lan"] = json!({
                    "medium": "csma_cd",
                    "frames": l.successes,
                    "collisions": l.collisions,
                    "collided_frames": l.collided_frames,
                    "excessive_collision_drops": l.discards,
                });
            }
            row
        }).collect::<Vec<_>>(),
    });
    let Value::Object(small) = small else { unreachable!("an object") };
    let mut entries: Vec<(String, Raw)> = small.into_iter().map(|(k, v)| (k, Raw::of(&v))).collect();
    for (k, v) in [("sources", sources), ("connections", connections), ("background", background), ("ports", ports), ("links", links)] {
        entries.push((k.to_string(), v));
    }
    if let Some(vcs) = vcs {
        // The summary has neither the series nor the per-VC columns.
        entries.push(("series".to_string(), object(series_json)));
        entries.push(("vcs".to_string(), vcs));
    }
    if let Some(t) = world.trace() {
        entries.push(("trace".to_string(), Raw::of(&trace_summary(t))));
    }
    object(entries).0
}

/// The summary's `trace` entry (only when a trace was recorded): its events, whether it is
/// complete, and where the memory limit cut it.
pub fn trace_summary(t: &ccsim_model::trace::Trace) -> Value {
    let s = t.spec();
    json!({
        "events": t.len(),
        "bytes": t.len() as u64 * ccsim_model::trace::ROW_BYTES,
        "complete": t.cut.is_none(),
        "cut_s": t.cut.map(|c| c.as_secs_f64()),
        "from_s": s.from.as_secs_f64(),
        "to_s": (s.to != ccsim_engine::SimTime::MAX).then(|| s.to.as_secs_f64()),
        "max_rows": s.max_rows,
    })
}

/// The names the trace's coded columns index: events, flows (VCs), places (ports, then
/// nodes), kinds and drop reasons (code 0: none).
pub struct TraceNames {
    pub events: Vec<String>,
    pub flows: Vec<String>,
    pub places: Vec<String>,
    pub kinds: Vec<String>,
    pub reasons: Vec<String>,
}

impl TraceNames {
    pub fn of(world: &World) -> TraceNames {
        use ccsim_model::trace::{TraceEvent, TraceReason, KIND_NAMES};
        let strings = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        TraceNames {
            events: strings(&TraceEvent::NAMES),
            flows: world.vcs.iter().map(|v| v.name.clone()).collect(),
            places: (0..(world.ports.len() + world.nodes.len()) as u32).map(|p| world.trace_place_name(p).to_string()).collect(),
            kinds: strings(&KIND_NAMES),
            reasons: strings(&TraceReason::NAMES),
        }
    }
}

/// Every flow's delay histogram over the measurement window as columns (one row per non-empty
/// bucket, flows in `World::vcs` order, buckets in order): the flow's index, the bucket's bounds
/// in seconds, and its units. What `Result.delay_histogram` and the delay CDF plot read.
#[derive(Default)]
pub struct DelayHistograms {
    pub flow: Vec<u32>,
    pub low_s: Vec<f64>,
    pub high_s: Vec<f64>,
    pub count: Vec<u64>,
}

impl DelayHistograms {
    pub fn of(world: &World) -> DelayHistograms {
        let mut h = DelayHistograms::default();
        let s = |ps: u64| ps as f64 / ccsim_engine::PS_PER_SEC as f64;
        for v in 0..world.vcs.len() {
            for (lo, hi, n) in world.delay_buckets(v) {
                h.flow.push(v as u32);
                h.low_s.push(s(lo));
                h.high_s.push(s(hi));
                h.count.push(n as u64);
            }
        }
        h
    }
}
