//! The per-cell/packet event trace (`measure.trace`, docs/trace.md) against the books: per flow,
//! what it sent is what it delivered, dropped and still had in flight; a lone cell's deliver −
//! send is its path's propagation plus serialisation; drops carry the port's reason and match
//! its counter; filters keep exactly their events; the windowed engine and lazy sinks give the
//! single queue's trace; a cut trace is a prefix; a trace changes nothing else.

mod common;

use ccsim_model::trace::{is_forward_kind, Trace, TraceEvent, TraceReason, KIND_NAMES};
use ccsim_scenario::{Adjustments, Format, Run};
use common::{f, preset};
use serde_json::{json, Value};

fn run(text: &str, format: Format, overrides: &[(&str, Value)], windowed: Option<bool>) -> Run {
    let adj = Adjustments { overrides: overrides.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(), ..Default::default() };
    let mut r = Run::from_text(text, format, &adj).unwrap_or_else(|e| panic!("{e}"));
    if let Some(w) = windowed {
        r.world_mut().set_windowed(w).unwrap();
    }
    r.run_to_end();
    r
}

/// The rows in `Trace::finish`'s key order: time, flow, event, place, kind, reason, frame, size, seq.
fn rows(t: &Trace) -> Vec<(u64, u32, u8, u32, u8, u8, u64, u16, u64)> {
    (0..t.len()).map(|i| (t.time_ps[i], t.vc[i], t.event[i], t.place[i], t.kind[i], t.reason[i], t.frame[i], t.size[i], t.seq[i])).collect()
}

fn count(t: &Trace, vc: usize, ev: TraceEvent, forward: bool) -> u64 {
    (0..t.len()).filter(|&i| t.vc[i] as usize == vc && t.event[i] == ev as u8 && is_forward_kind(t.kind[i]) == forward).count() as u64
}

/// Per flow and direction, the trace's sends, deliveries and drops are the books' (`vcs`), and
/// sends = deliveries + drops + in flight at the end.
fn assert_conserved(r: &Run, what: &str) {
    let v = r.finish().unwrap();
    let t = r.trace().expect("a trace");
    assert!(t.cut.is_none(), "{what}: the trace is complete");
    let vcs = &v["vcs"];
    for (i, name) in vcs["name"].as_array().unwrap().iter().enumerate() {
        for (fwd, dir) in [(true, "fwd"), (false, "bwd")] {
            let book = |k: &str| vcs[format!("{dir}_{k}")][i].as_u64().unwrap();
            let (sent, delivered, dropped) =
                (count(t, i, TraceEvent::Send, fwd), count(t, i, TraceEvent::Deliver, fwd), count(t, i, TraceEvent::Drop, fwd));
            assert_eq!((sent, delivered, dropped), (book("sent"), book("delivered"), book("dropped")), "{what}: {name} {dir}");
            assert_eq!(sent, delivered + dropped + book("in_flight"), "{what}: {name} {dir}");
        }
    }
}

fn is_sorted(t: &Trace) -> bool {
    rows(t).windows(2).all(|w| w[0] <= w[1])
}

/// ABR sources with lazy ends (GFC1), HG-RCP gateways, Controlled Transfer, TCP over congested
/// drop-tail routers (FICCRD's baseline), GFR TCP over UBR with EPD, and a lossy link: the trace
/// conserves what the books do.
#[test]
fn the_trace_conserves_every_flows_items_as_the_books_do() {
    let cases: [(&str, &str, Vec<(&str, Value)>); 6] = [
        ("abr-benchmarks/gfc1", "30ms", vec![]),
        ("hgrcp/hgrcp-5", "2s", vec![]),
        ("ut-ct/two-node-case1-ct-bdp", "10s", vec![]),
        ("ficcrd/droptail", "3s", vec![]),
        ("gfr/n-source-15-epd", "200ms", vec![]),
        ("abr-benchmarks/parking-lot-3", "60ms", vec![("link[0].loss", json!(0.01))]),
    ];
    for (name, duration, extra) in cases {
        let mut o = vec![("run.duration", json!(duration)), ("run.measure_from", json!("0s")), ("measure.trace.enabled", json!(true))];
        o.extend(extra);
        let r = run(&preset(name), Format::Toml, &o, None);
        assert!(is_sorted(r.trace().unwrap()), "{name}: sorted by time");
        assert_conserved(&r, name);
    }
}

/// A lone ABR source at its access link's rate on a path whose links get faster (as in
/// tests/delays.rs): every data cell's deliver − send is 2 + 3 + 1 ms of propagation and
/// 4 + 2 + 1 µs of serialisation, the source's `delay_mean_ms`; each cell is enqueued at each of
/// its three ports in between, in order.
#[test]
fn a_lone_cells_deliver_minus_send_is_propagation_plus_serialisation() {
    let s = json!({
        "name": "test/trace-lone",
        "run": {"duration": "20ms", "measure_from": "0s"},
        "measure": {"interval": "0s", "trace": {}},
        "defaults": {"link_rate": "424Mbps", "link_delay": "1ms", "abr": {"pcr": "106Mbps", "icr": "106Mbps"}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"between": ["SW1", "SW2"], "rate": "212Mbps", "delay": "3ms"}],
        "source": [{"name": "ABR", "route": ["SW1", "SW2"], "access": {"rate": "106Mbps", "delay": "2ms"}}],
    });
    let r = run(&s.to_string(), Format::Json, &[], None);
    let v = r.finish().unwrap();
    let t = r.trace().unwrap();
    let want_ps: u64 = 6_007_000_000;
    let data = KIND_NAMES.iter().position(|&k| k == "data").unwrap() as u8;
    // Data cells of one VC stay in order: the k-th send is the k-th delivery.
    let of = |ev: TraceEvent| (0..t.len()).filter(|&i| t.kind[i] == data && t.event[i] == ev as u8).map(|i| t.time_ps[i]).collect::<Vec<_>>();
    let (sends, delivers) = (of(TraceEvent::Send), of(TraceEvent::Deliver));
    assert!(delivers.len() > 1000, "{} cells delivered", delivers.len());
    for (k, (s, d)) in sends.iter().zip(&delivers).enumerate() {
        assert_eq!(d - s, want_ps, "cell {k}");
    }
    // Each port on the way took every cell delivered, and none that was not sent.
    let enqueues = of(TraceEvent::Enqueue).len();
    assert!(enqueues >= 3 * delivers.len() && enqueues <= 3 * sends.len(), "{enqueues} enqueues");
    let mean_ms = f(&v["sources"][0]["delay_mean_ms"]);
    assert!((mean_ms - want_ps as f64 / 1e9).abs() < 1e-9, "delay_mean_ms {mean_ms}");
    // Places: the host for sends and deliveries, the ports in between for enqueues.
    let w = r.world();
    let names: std::collections::BTreeSet<&str> =
        (0..t.len()).filter(|&i| t.kind[i] == data).map(|i| w.trace_place_name(t.place[i])).collect();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.contains("SW1->SW2"), "{names:?}");
}

/// Drop-tail at FICCRD's bottleneck router and EPD at a GFR switch: every drop the port's
/// counter holds is in the trace at that port, with the reason it counted.
#[test]
fn drops_appear_at_their_port_with_their_reason() {
    for (name, duration) in [("ficcrd/droptail", "5s"), ("gfr/n-source-15-epd", "300ms")] {
        let o = [("run.duration", json!(duration)), ("run.measure_from", json!("0s")), ("measure.trace.enabled", json!(true))];
        let r = run(&preset(name), Format::Toml, &o, None);
        let t = r.trace().unwrap();
        let w = r.world();
        let mut seen = 0;
        for (p, port) in w.ports.iter().enumerate() {
            let drops: Vec<usize> = (0..t.len()).filter(|&i| t.event[i] == TraceEvent::Drop as u8 && t.place[i] as usize == p).collect();
            for reason in ccsim_model::port::DropReason::ALL {
                let code = TraceReason::Port(reason).code();
                let n = drops.iter().filter(|&&i| t.reason[i] == code).count() as u64;
                assert_eq!(n, port.buffer.dropped(reason), "{name}: {} {}", port.name, reason.name());
            }
            seen += drops.len();
        }
        assert!(seen > 0, "{name}: a congested scenario drops");
        let codes: std::collections::BTreeSet<&str> =
            (0..t.len()).filter(|&i| t.event[i] == TraceEvent::Drop as u8).map(|i| TraceReason::NAMES[t.reason[i] as usize]).collect();
        let want = if name.contains("epd") { "frame_discard" } else { "overflow" };
        assert!(codes.contains(want), "{name}: {codes:?}");
        assert!((0..t.len()).all(|i| (t.event[i] == TraceEvent::Drop as u8) == (t.reason[i] != 0)), "a reason on drops only");
    }
}

/// `flows`, `from` and `to` keep exactly the full trace's rows of those flows in [from, to).
#[test]
fn flow_and_time_filters_keep_exactly_the_selected_events() {
    let text = preset("abr-benchmarks/gfc1");
    let base = [("run.duration", json!("20ms")), ("run.measure_from", json!("0s"))];
    let mut all = base.to_vec();
    all.push(("measure.trace", json!({})));
    let full = run(&text, Format::Toml, &all, None);
    let mut some = base.to_vec();
    some.push(("measure.trace", json!({"flows": ["A1", "C2"], "from": "5ms", "to": "12ms"})));
    let part = run(&text, Format::Toml, &some, None);
    let w = full.world();
    let keep: Vec<u32> = ["A1", "C2"].iter().map(|n| w.vcs.iter().position(|v| v.name == *n).unwrap() as u32).collect();
    let want: Vec<_> = rows(full.trace().unwrap())
        .into_iter()
        .filter(|r| keep.contains(&r.1) && r.0 >= 5_000_000_000 && r.0 < 12_000_000_000)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(rows(part.trace().unwrap()), want);
    // An unknown flow is refused with its field path.
    let adj = Adjustments { overrides: vec![("measure.trace.flows".into(), json!(["A1", "nope"]))], ..Default::default() };
    let e = Run::from_text(&text, Format::Toml, &adj).err().expect("refused");
    assert!(e.to_string().contains("measure.trace.flows[1]") && e.to_string().contains("nope"), "{e}");
}

/// The windowed engine runs nodes a window apart and lazy sinks deliver late: the trace, sorted,
/// is the single queue's with an event per delivery, row for row.
#[test]
fn windowed_single_queue_and_eager_sinks_give_the_same_trace() {
    for (name, duration) in [("abr-benchmarks/gfc1", "40ms"), ("abr-benchmarks/parking-lot-3", "40ms")] {
        let o = [("run.duration", json!(duration)), ("run.measure_from", json!("0s")), ("measure.trace.enabled", json!(true))];
        let single = run(&preset(name), Format::Toml, &o, Some(false));
        let windowed = run(&preset(name), Format::Toml, &o, Some(true));
        assert!(windowed.world().is_windowed() && !single.world().is_windowed());
        let a = rows(single.trace().unwrap());
        assert!(a.len() > 10_000, "{name}: {} rows", a.len());
        assert_eq!(a, rows(windowed.trace().unwrap()), "{name}: windowed");
        let adj = Adjustments { overrides: o.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(), ..Default::default() };
        let mut eager = Run::from_text(&preset(name), Format::Toml, &adj).unwrap();
        eager.world_mut().set_windowed(false).unwrap();
        eager.world_mut().disable_lazy_sinks();
        eager.world_mut().disable_lazy_sources();
        eager.run_to_end();
        assert_eq!(a, rows(eager.trace().unwrap()), "{name}: an event per cell");
    }
}

/// A trace that reaches `max_mb` stops: it holds exactly the full trace's rows before its cut,
/// and says so in the summary.
#[test]
fn a_full_trace_keeps_every_event_before_its_cut() {
    let text = preset("abr-benchmarks/gfc1");
    let o = |t: Value| vec![("run.duration", json!("30ms")), ("run.measure_from", json!("0s")), ("measure.trace", t)];
    let full = run(&text, Format::Toml, &o(json!({})), None);
    let cut = run(&text, Format::Toml, &o(json!({"max_mb": 1})), None);
    let t = cut.trace().unwrap();
    let at = t.cut.expect("1 MB is too little for 30 ms of GFC1").as_ps();
    let want: Vec<_> = rows(full.trace().unwrap()).into_iter().filter(|r| r.0 < at).collect();
    assert!(want.len() as u64 <= 1_000_000 / ccsim_model::trace::ROW_BYTES);
    assert_eq!(rows(t), want);
    let s = cut.finish().unwrap();
    assert_eq!((s["trace"]["complete"].clone(), s["trace"]["events"].as_u64()), (json!(false), Some(want.len() as u64)));
    assert!((f(&s["trace"]["cut_s"]) - at as f64 / 1e12).abs() < 1e-15);
}

/// On threads each records its own rows and thread 0's trace takes the others' whenever the world
/// is gathered: the trace, whole or cut by its memory limit, is one thread's, row for row and cut
/// for cut, in one chunk or several. TCP over UBR with EPD drops: the sequence numbers a switch on
/// another thread than the connection's hosts records come from its copy of the frames in flight.
#[test]
fn the_trace_is_the_same_on_every_thread_count() {
    for (name, duration) in [("abr-benchmarks/gfc1", "30ms"), ("abr-benchmarks/parking-lot-5", "30ms"), ("gfr/n-source-15-epd", "400ms")] {
        for trace in [json!({}), json!({"max_mb": 1})] {
            let o = [("run.duration", json!(duration)), ("run.measure_from", json!("0s")), ("measure.trace", trace.clone())];
            let traced = |threads: usize, chunks: u64| {
                let adj = Adjustments { overrides: o.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(), ..Default::default() };
                let mut r = Run::from_text(&preset(name), Format::Toml, &adj).unwrap();
                assert_eq!(r.set_threads(threads).unwrap(), threads, "{name}");
                let end = r.world().end().as_ps();
                for k in 1..=chunks {
                    r.run_until(ccsim_engine::SimTime::from_ps(end * k / chunks));
                }
                let t = r.trace().unwrap();
                (rows(t), t.cut)
            };
            let one = traced(1, 1);
            assert!(one.0.len() > 10_000, "{name}: {} rows", one.0.len());
            if name.starts_with("gfr/") {
                let known = one.0.iter().filter(|r| r.8 != ccsim_model::trace::NO_SEQ).count();
                assert!(known > one.0.len() / 2, "{name}: {known} rows with a sequence number");
            }
            assert_eq!(one.1.is_some(), trace.get("max_mb").is_some(), "{name} {trace}: cut");
            for (threads, chunks) in [(2, 1), (2, 3), (3, 2)] {
                assert!(traced(threads, chunks) == one, "{name} {trace}: {threads} threads, {chunks} chunks");
            }
        }
    }
}

/// Recording a trace changes nothing else: the same summary, fingerprint and event count, and
/// without `measure.trace` the resolved scenario (and its hash) is what it was.
#[test]
fn a_trace_changes_nothing_else() {
    let text = preset("gfr/n-source-15-epd");
    let base = [("run.duration", json!("100ms"))];
    let off = run(&text, Format::Toml, &base, None);
    let on = run(&text, Format::Toml, &[base[0].clone(), ("measure.trace.enabled", json!(true))], None);
    let (mut a, mut b) = (off.finish().unwrap(), on.finish().unwrap());
    assert!(a.get("trace").is_none() && b.get("trace").is_some());
    b.as_object_mut().unwrap().remove("trace");
    for v in [&mut a, &mut b] {
        v.as_object_mut().unwrap().remove("scenario_hash");
    }
    assert_eq!(a, b);
    assert!(!off.resolved_json().contains("trace"));
}

/// Issue 39: every unit can be followed through the network by its `uid`. Over ABR sources
/// (GFC1, cells of their own), TCP over IP routers (FICCRD's baseline, packets) and TCP over UBR
/// with EPD (AAL5 frames, whose cells share their frame's uid), at every port each unit's
/// enqueues and dequeues pair up in order, a dequeue at least one transmission after its enqueue,
/// and the units still queued at the end are the ones without one; the items a flow sends get
/// distinct uids (a frame's cells one); TCP data and ACK rows carry sequence numbers that stay
/// with their uid.
#[test]
fn units_are_followed_by_uid_from_enqueue_to_dequeue_with_their_tcp_sequence_numbers() {
    use std::collections::HashMap;
    let cases = [("abr-benchmarks/gfc1", "20ms", false), ("ficcrd/droptail", "3s", true), ("gfr/n-source-15-epd", "100ms", true)];
    for (name, duration, tcp) in cases {
        let o = [("run.duration", json!(duration)), ("run.measure_from", json!("0s")), ("measure.trace.enabled", json!(true))];
        let r = run(&preset(name), Format::Toml, &o, None);
        let t = r.trace().unwrap();
        let w = r.world();
        let end = w.now().as_ps();
        // Per (place, uid): the times of its enqueues and dequeues, in order.
        let mut at: HashMap<(u32, u64, u8), (Vec<u64>, Vec<u64>)> = HashMap::new();
        let mut sends: HashMap<u64, usize> = HashMap::new();
        let mut seq_of: HashMap<u64, u64> = HashMap::new();
        for i in 0..t.len() {
            let key = (t.place[i], t.uid(i), t.kind[i]);
            match t.event[i] {
                e if e == TraceEvent::Enqueue as u8 => at.entry(key).or_default().0.push(t.time_ps[i]),
                e if e == TraceEvent::Dequeue as u8 => at.entry(key).or_default().1.push(t.time_ps[i]),
                e if e == TraceEvent::Send as u8 => *sends.entry(t.uid(i)).or_default() += 1,
                _ => {}
            }
            if t.seq[i] != ccsim_model::trace::NO_SEQ {
                assert!(tcp, "{name}: a sequence number on a cell source's item");
                let s = *seq_of.entry(t.uid(i)).or_insert(t.seq[i]);
                assert_eq!(s, t.seq[i], "{name}: one unit, one sequence number");
            }
        }
        let mut still_queued = 0usize;
        for ((place, uid, _), (enq, deq)) in &at {
            let port = &w.ports[*place as usize];
            assert!(deq.len() <= enq.len(), "{name}: uid {uid:#x} dequeued more than enqueued at {}", port.name);
            for (e, d) in enq.iter().zip(deq) {
                // A cell's transmission, to the picosecond the transmitter's clock rounds it.
                let cell_ps = (port.cell_time().as_ps() - 1) * if port.packets { 0 } else { 1 };
                assert!(d >= &(e + cell_ps) && *d <= end, "{name}: uid {uid:#x} at {}: enqueued {e}, dequeued {d}", port.name);
            }
            still_queued += enq.len() - deq.len();
        }
        // The units without a dequeue are still in a buffer (or in transmission) at the end.
        let queued: usize = w.ports.iter().map(|p| p.buffer.len() as usize).sum();
        assert_eq!(still_queued, queued, "{name}: enqueued without a dequeue = still queued");
        let cells_per_uid = sends.values().max().copied().unwrap_or(0);
        if name.starts_with("abr") || name.starts_with("ficcrd") {
            assert_eq!(cells_per_uid, 1, "{name}: one send per cell or packet");
        } else {
            assert!(cells_per_uid > 1, "{name}: an AAL5 frame's cells share its uid");
        }
        assert_eq!(!seq_of.is_empty(), tcp, "{name}: TCP rows carry sequence numbers");
    }
}

/// Items numbered while tracing keep their uid through held disciplines too: the VBR background
/// of the example parking lot goes through strict-priority ports (held), and HG-RCP's rate
/// notifications through a LAN medium; each unit a flow sends has its own uid, dequeued where it
/// was enqueued (never before), and the numbering changes nothing else (the fingerprint is the
/// untraced run's).
#[test]
fn uids_are_unique_through_held_disciplines_and_change_nothing() {
    use std::collections::HashMap;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios/abr-parking-lot-vbr.toml");
    let vbr = std::fs::read_to_string(dir).unwrap();
    for (text, duration) in [(vbr, "30ms"), (preset("hgrcp/hgrcp-5"), "1s")] {
        let base = [("run.duration", json!(duration)), ("run.measure_from", json!("0s"))];
        let plain = run(&text, Format::Toml, &base, None);
        let mut o = base.to_vec();
        o.push(("measure.trace.enabled", json!(true)));
        let r = run(&text, Format::Toml, &o, None);
        assert_eq!(plain.world().fingerprint().hex(), r.world().fingerprint().hex(), "{duration}: tracing changed the run");
        let t = r.trace().unwrap();
        let icmp = KIND_NAMES.iter().position(|&k| k == "icmp").unwrap() as u8;
        let mut sends: HashMap<u64, usize> = HashMap::new();
        let mut balance: HashMap<(u32, u64), i64> = HashMap::new();
        for i in 0..t.len() {
            let own = t.kind[i] != KIND_NAMES.iter().position(|&k| k == "data").unwrap() as u8
                || r.world().vcs[t.vc[i] as usize].tcp().is_none();
            if t.event[i] == TraceEvent::Send as u8 && own && t.kind[i] != icmp {
                *sends.entry(t.uid(i)).or_default() += 1;
            }
            let step = if t.event[i] == TraceEvent::Enqueue as u8 { 1 } else if t.event[i] == TraceEvent::Dequeue as u8 { -1 } else { 0 };
            *balance.entry((t.place[i], t.uid(i))).or_default() += step;
        }
        assert!(!sends.is_empty() && sends.values().all(|&n| n == 1), "{duration}: one send per numbered unit");
        // Never a dequeue before its enqueue; at most one item of a unit still queued where units are
        // single cells (HG-RCP's gateway cells share their packet's uid).
        let most = if duration == "30ms" { 1 } else { i64::MAX };
        assert!(balance.values().all(|&b| (0..=most).contains(&b)), "{duration}: a dequeue for every enqueue but those still queued");
    }
}
