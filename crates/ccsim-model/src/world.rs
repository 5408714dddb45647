//! The world: arenas of ports and connections, the event queue, and one `match` to dispatch.
//!
//! Routing is by hop index. A VC's path is nodes n0 (source host), n1..nk (switches),
//! n(k+1) (destination host). `fwd_ports[i]` is the port at n(i) towards n(i+1) and
//! `rev_ports[i]` the port at n(i+1) towards n(i). A forward cell on `fwd_ports[i]` carries
//! `hop = i` and arrives at node i+1; a backward cell on `rev_ports[i]` arrives at node i.
//! No table look-up by node is needed on the per-cell path.

use crate::abr::{AbrDestination, AbrParams, AbrSource, Misbehaviour};
use crate::ip::{AnyEdge, AnyIpControl, FiewaFlow, FiewaParams};
use crate::port::AnyBufferPolicy;
use crate::tcp::{SenderStats, TcpReceiver, TcpSender};
use crate::tcp_host::{AbrAdapter, HostLink, HostStats, TcpEnds};
use std::collections::VecDeque;
use crate::cell::{cells_to_mbps, Cell, CellKind};
use crate::ids::{NodeId, PortId, VcId};
use crate::maxmin::{jain_index, maxmin_rates, Flow};
use crate::measure::{MeasureSpec, Recordings, WindowSnapshot};
use crate::port::{DropReason, InFlight, Port, Scheduling};
use crate::vbr::OnOffSource;
use ccsim_engine::{EventQueue, Fingerprint, IntrinsicOrder, RngStream, SimDuration, SimTime, StreamKey, TieBreak};

/// Who is woken. Small and `Copy`: the queue holds one per busy component.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head cell of a port's pipe reached the far end of the link.
    PipeArrival(PortId),
    /// The cell in service at an event-scheduled (strict-priority) port finished transmission.
    PortDeparture(PortId),
    /// A source connects.
    SourceStart(VcId),
    /// A source's pacing timer; the generation makes superseded wake-ups harmless.
    SourceWake(VcId, u32),
    /// A port's switch scheme asked for a timer (e.g. ERICA's averaging interval).
    SchemeTimer(PortId),
    /// A TCP connection opens.
    TcpStart(VcId),
    /// A TCP connection's timer (retransmission or delayed ACK); generation as for sources.
    TcpTimer(VcId, u32),
    /// Record one sample of every time series.
    Sample,
    /// The measurement window opens.
    WindowOpen,
}

/// Simultaneous events run in an order that depends only on what they are and when, never on
/// when they were scheduled, so that it survives any partition of the events into queues
/// (`World`'s windowed mode). By kind first: arrivals, departures, timers, sources, TCP, and
/// observers (the window, samples) last, so that a sample sees everything that happened at its
/// picosecond. Within a kind, in a pseudo-random order drawn afresh at every picosecond (a hash
/// of the time and the component), then by component: ordering by component alone would let
/// the lowest-numbered VC always go first when timers expire together (TCP's coarse ticks), a
/// bias the scheduling order (FIFO) did not have either. The generation (low 8 bits) only
/// separates superseded wake-ups, which do nothing.
impl IntrinsicOrder for Event {
    #[inline]
    fn tie(&self, time: SimTime) -> u64 {
        let (rank, comp, gen) = match *self {
            Event::PipeArrival(p) => (0u64, p.0, 0),
            Event::PortDeparture(p) => (1, p.0, 0),
            Event::SchemeTimer(p) => (2, p.0, 0),
            Event::SourceWake(v, g) => (3, v.0, g),
            Event::SourceStart(v) => (4, v.0, 0),
            Event::TcpTimer(v, g) => (5, v.0, g),
            Event::TcpStart(v) => (6, v.0, 0),
            Event::WindowOpen => (7, 0, 0),
            Event::Sample => (8, 0, 0),
        };
        let comp = comp as u64 & 0xff_ffff;
        rank << 56 | shuffle(time.as_ps(), comp) << 32 | comp << 8 | (gen as u64 & 0xff)
    }
}

/// Ties among simultaneous events of one kind (`IntrinsicOrder for Event`): 24 bits of a hash
/// of the time and the component.
#[inline]
fn shuffle(time_ps: u64, comp: u64) -> u64 {
    let mut h = (time_ps ^ comp.rotate_left(40)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 32;
    h & 0xff_ffff
}

/// `World::arrive_lp` of a pipe whose arrivals `run_node` takes in order itself (no events).
const IN_TOURNAMENT: u32 = u32::MAX;

/// A tournament leaf with no arrival left in the window (above every real key).
const NO_ARRIVAL: u64 = u64::MAX;

/// A tournament key (`World::tournament_key`): the time in the window above bit 31, the tie's
/// 24-bit hash in bits 7..31, the leaf in bits 0..7. So a node's tournament holds at most 128
/// pipes (others keep events) and a window spans less than 2^33 ps (8.6 ms).
const TOURNAMENT_TIME_SHIFT: u32 = 31;
const TOURNAMENT_LEAF_MASK: u64 = 0x7f;
const MAX_TOURNAMENT_INPUTS: usize = 128;
/// Below 2^33 ps, with room for the key's lower bits under `NO_ARRIVAL`.
const MAX_WINDOW_SPAN: SimDuration = SimDuration::from_ps((1 << 33) - 2);

/// How a world orders simultaneous events. Worlds of ABR and background traffic use the events'
/// own order (`IntrinsicOrder`), which the windowed mode needs and the single queue follows
/// too, so both give the same results. Worlds with TCP connections keep the order of scheduling
/// (FIFO): TCP's coarse timer ticks make many events simultaneous, and the documented TCP
/// results (seed 001's Selective Drop finding among them) were measured under it.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorldTie {
    intrinsic: bool,
}

impl TieBreak<Event> for WorldTie {
    #[inline]
    fn tie(&self, seq: u64, time: SimTime, event: &Event) -> u64 {
        if self.intrinsic {
            event.tie(time)
        } else {
            seq
        }
    }
}

/// The shortest link delay at which a world runs in windows (`World::set_windowed`). Each
/// window costs a visit to every node; below this, windows would hold too few cells to pay
/// for it (a 155.52 Mb/s link carries ~37 cells in 100 us). A performance choice only: both
/// modes give the same results.
pub const MIN_WINDOW: SimDuration = SimDuration::from_micros(100);

impl Event {
    fn kind_and_component(self) -> (u32, u32) {
        match self {
            Event::PipeArrival(p) => (1, p.0),
            Event::SourceStart(v) => (2, v.0),
            Event::SourceWake(v, _) => (3, v.0),
            Event::SchemeTimer(p) => (4, p.0),
            Event::Sample => (5, 0),
            Event::WindowOpen => (6, 0),
            Event::TcpStart(v) => (7, v.0),
            Event::TcpTimer(v, _) => (8, v.0),
            Event::PortDeparture(p) => (9, p.0),
        }
    }

    /// A readable description, for error messages.
    pub fn describe(self, world: &World) -> String {
        match self {
            Event::PipeArrival(p) => format!("arrival over link {}", world.ports[p.index()].name),
            Event::SourceStart(v) => format!("start of source {}", world.vcs[v.index()].name),
            Event::SourceWake(v, _) => format!("source {}", world.vcs[v.index()].name),
            Event::SchemeTimer(p) => format!("switch timer at port {}", world.ports[p.index()].name),
            Event::TcpStart(v) => format!("start of TCP connection {}", world.vcs[v.index()].name),
            Event::TcpTimer(v, _) => format!("TCP timer of {}", world.vcs[v.index()].name),
            Event::PortDeparture(p) => format!("departure at port {}", world.ports[p.index()].name),
            Event::Sample => "sampling".into(),
            Event::WindowOpen => "measurement window".into(),
        }
    }
}

/// Per-VC end-to-end books for the conservation check.
#[derive(Clone, Debug, Default)]
pub struct VcBooks {
    pub fwd_sent: u64,
    pub fwd_delivered: u64,
    pub fwd_dropped: u64,
    pub bwd_sent: u64,
    pub bwd_delivered: u64,
    pub bwd_dropped: u64,
    pub data_sent: u64,
    pub data_delivered: u64,
    pub data_dropped: u64,
}

impl VcBooks {
    fn count_drop(&mut self, cell: &Cell) {
        if cell.is_forward() {
            self.fwd_dropped += 1;
            if cell.kind == CellKind::Data {
                self.data_dropped += 1;
            }
        } else {
            self.bwd_dropped += 1;
        }
    }
}

/// What sits at the two ends of a VC.
pub enum Ends {
    /// A greedy TM 4.0 ABR source and its destination.
    Abr { source: AbrSource, dest: AbrDestination },
    /// A TCP connection over UBR through AAL5 adapters.
    Tcp(Box<TcpEnds>),
    /// Background CBR/VBR traffic (an ON-OFF source) into a sink.
    Vbr(OnOffSource),
}

pub struct Vc {
    pub name: String,
    pub dest_name: String,
    pub fwd_ports: Vec<PortId>,
    pub rev_ports: Vec<PortId>,
    pub ends: Ends,
    /// ABR traffic: switch schemes see its cells (UBR cells pass them by).
    pub abr: bool,
    wake_gen: u32,
    /// A TM 4.0 source whose emissions are generated in batches (`World::catch_up_source`).
    lazy_source: bool,
    /// Its next emission not generated yet.
    pending_wake: Option<SimTime>,
    pub books: VcBooks,
    /// This flow's state at its source edge router (FICCRD/FIEWA), if that router is one.
    pub edge: Option<Box<AnyEdge>>,
}

impl Vc {
    pub fn abr_source(&self) -> Option<&AbrSource> {
        match &self.ends {
            Ends::Abr { source, .. } => Some(source),
            Ends::Tcp(t) => t.abr.as_ref().map(|a| &a.source),
            Ends::Vbr(_) => None,
        }
    }

    pub fn tcp(&self) -> Option<&TcpEnds> {
        match &self.ends {
            Ends::Tcp(t) => Some(t),
            _ => None,
        }
    }

    pub fn background(&self) -> Option<&OnOffSource> {
        match &self.ends {
            Ends::Vbr(s) => Some(s),
            _ => None,
        }
    }

    pub fn start_time(&self) -> SimTime {
        match &self.ends {
            Ends::Abr { source, .. } => source.start_time(),
            Ends::Tcp(t) => t.start,
            Ends::Vbr(s) => s.start_time(),
        }
    }

    pub fn stop_time(&self) -> SimTime {
        self.abr_source().map_or(SimTime::MAX, |s| s.stop_time())
    }

    /// The most this VC can use, cells/s (a greedy TCP connection: unlimited).
    pub fn demand(&self) -> f64 {
        self.abr_source().map_or(f64::INFINITY, |s| s.demand())
    }

    pub fn acr(&self) -> f64 {
        self.abr_source().map_or(0.0, |s| s.acr())
    }

    pub fn acr_integral(&self, now: SimTime) -> f64 {
        self.abr_source().map_or(0.0, |s| s.acr_integral(now))
    }

    /// Bytes delivered in order to the receiving application (TCP only).
    pub fn goodput_bytes(&self) -> u64 {
        self.tcp().map_or(0, |t| t.receiver.delivered)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An ATM switch: cells.
    Switch,
    /// An IP router: packets.
    Router,
    Host,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
}

/// A port to create, as the scenario layer describes it.
pub struct PortSpec {
    pub name: String,
    pub link_name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: ccsim_engine::SimDuration,
    /// Capacity in cells, or in packets on an IP link.
    pub buffer_cells: u32,
    pub scheme: Option<crate::abr::switch::AnyAbrSwitch>,
    pub policy: AnyBufferPolicy,
    /// An IP link: packets of their own sizes.
    pub packets: bool,
    /// Random Early Detection (IP router ports).
    pub red: Option<crate::port::Red>,
    /// IP congestion control at a router port (FICCRD).
    pub control: Option<AnyIpControl>,
}

impl PortSpec {
    /// A plain FIFO port of a link: drop-tail, no switch scheme, no IP queue management; set the
    /// rest with struct update syntax.
    pub fn link(name: String, link_name: String, from: NodeId, to: NodeId, rate_bps: u64, delay: SimDuration, buffer: u32) -> Self {
        PortSpec {
            name,
            link_name,
            from,
            to,
            rate_bps,
            delay,
            buffer_cells: buffer,
            scheme: None,
            policy: AnyBufferPolicy::CellDropTail,
            packets: false,
            red: None,
            control: None,
        }
    }
}

/// A connection to create.
pub struct VcSpec {
    pub name: String,
    pub dest_name: String,
    pub fwd_ports: Vec<PortId>,
    pub rev_ports: Vec<PortId>,
    pub start: SimTime,
    pub stop: SimTime,
    pub kind: VcKind,
    /// The first router of the route is a FICCRD source edge with FIEWA enforcement (TCP over
    /// IP only).
    pub edge: Option<FiewaParams>,
}

/// The traffic of a VC to create.
pub enum VcKind {
    Abr { params: AbrParams, misbehaviour: Misbehaviour },
    /// `abr`: run over ABR with these source parameters instead of UBR.
    Tcp { sender: TcpSender, receiver: TcpReceiver, link: HostLink, abr: Option<AbrParams> },
    Vbr { peak: f64, mean_on: SimDuration, mean_off: SimDuration, rng: RngStream },
}

pub struct WorldBuilder {
    n_vcs: usize,
    seed: u64,
    replication: u64,
    nodes: Vec<Node>,
    ports: Vec<Port>,
    vcs: Vec<Vc>,
}

impl WorldBuilder {
    /// `n_vcs` sizes the per-VC tables of ports and schemes; add exactly that many VCs.
    pub fn new(n_vcs: usize) -> Self {
        WorldBuilder { n_vcs, seed: 1, replication: 0, nodes: Vec::new(), ports: Vec::new(), vcs: Vec::new() }
    }

    /// The seed and replication every random stream of this world derives from.
    pub fn seed(mut self, seed: u64, replication: u64) -> Self {
        self.seed = seed;
        self.replication = replication;
        self
    }

    pub fn n_vcs(&self) -> usize {
        self.n_vcs
    }

    /// Ports created so far (the next port's index).
    pub fn n_ports(&self) -> usize {
        self.ports.len()
    }

    /// VCs added so far (the next VC's index).
    pub fn n_vcs_added(&self) -> usize {
        self.vcs.len()
    }

    /// A random stream of this world's seed for one component and purpose.
    pub fn stream(&self, component: u64, purpose: u64) -> RngStream {
        RngStream::new(StreamKey { seed: self.seed, replication: self.replication, component, purpose })
    }

    pub fn add_node(&mut self, name: impl Into<String>, kind: NodeKind) -> NodeId {
        self.nodes.push(Node { name: name.into(), kind });
        NodeId(self.nodes.len() as u32 - 1)
    }

    pub fn add_port(&mut self, s: PortSpec) -> PortId {
        let at_switch = self.nodes[s.from.index()].kind != NodeKind::Host;
        let mut port =
            Port::new(s.name, s.link_name, s.from, s.to, s.rate_bps, s.delay, s.buffer_cells, self.n_vcs, s.scheme, at_switch);
        port.buffer = port.buffer.with_policy(s.policy, true);
        port.packets = s.packets;
        port.red = s.red;
        port.control = s.control;
        self.ports.push(port);
        PortId(self.ports.len() as u32 - 1)
    }

    pub fn add_vc(&mut self, s: VcSpec) -> VcId {
        let id = VcId(self.vcs.len() as u32);
        assert!(id.index() < self.n_vcs, "more VCs than announced to WorldBuilder::new");
        assert!(!s.fwd_ports.is_empty() && s.fwd_ports.len() == s.rev_ports.len());
        let (ends, abr) = match s.kind {
            VcKind::Abr { params, misbehaviour } => (
                Ends::Abr {
                    dest: AbrDestination::new(params.bidding),
                    source: AbrSource::new(id, params, s.start, s.stop).with_misbehaviour(misbehaviour),
                },
                true,
            ),
            VcKind::Tcp { sender, receiver, link, abr } => {
                let mut ends = TcpEnds::new(sender, receiver, s.start, link);
                let over_abr = abr.is_some();
                ends.abr = abr.map(|params| AbrAdapter {
                    dest: AbrDestination::new(params.bidding),
                    source: AbrSource::new(id, params, s.start, s.stop).with_backlog(),
                    backlog: VecDeque::new(),
                });
                (Ends::Tcp(Box::new(ends)), over_abr)
            }
            VcKind::Vbr { peak, mean_on, mean_off, rng } => {
                // Every port it crosses serves it with strict priority.
                for p in &s.fwd_ports {
                    let port = &mut self.ports[p.index()];
                    if !port.is_event_scheduled() {
                        port.scheduling = Scheduling::StrictPriority(Default::default());
                    }
                }
                (Ends::Vbr(OnOffSource::new(id, peak, mean_on, mean_off, s.start, rng)), false)
            }
        };
        let edge = s.edge.map(|params| {
            let mss = match &ends {
                Ends::Tcp(t) => t.sender.core.cfg.smss,
                _ => panic!("an edge router's enforcement needs a TCP connection"),
            };
            let out = self.ports[s.fwd_ports[1].index()].rate_bps() as f64;
            let access = self.ports[s.fwd_ports[0].index()].delay;
            Box::new(AnyEdge::Fiewa(FiewaFlow::new(params, out, access, mss)))
        });
        self.vcs.push(Vc {
            name: s.name,
            dest_name: s.dest_name,
            fwd_ports: s.fwd_ports,
            rev_ports: s.rev_ports,
            ends,
            abr,
            wake_gen: 0,
            lazy_source: false,
            pending_wake: None,
            books: VcBooks::default(),
            edge,
        });
        id
    }

    pub fn build(self, measure: MeasureSpec) -> World {
        assert_eq!(self.vcs.len(), self.n_vcs, "fewer VCs than announced to WorldBuilder::new");
        // An event's tie holds its component in 24 bits.
        assert!(self.ports.len() < 1 << 24 && self.vcs.len() < 1 << 24, "more than 2^24 ports or VCs");
        let intrinsic = self.vcs.iter().all(|vc| !matches!(vc.ends, Ends::Tcp(_)));
        let mut w = World {
            nodes: self.nodes,
            ports: self.ports,
            vcs: self.vcs,
            queue: EventQueue::with_rule(WorldTie { intrinsic }),
            lps: Vec::new(),
            lookahead: SimDuration::ZERO,
            bound: (SimTime::ZERO, 0),
            node_inputs: Vec::new(),
            tournament: Vec::new(),
            arrive_lp: Vec::new(),
            port_lp: Vec::new(),
            vc_lp: Vec::new(),
            now: SimTime::ZERO,
            measure,
            rec: Recordings::default(),
            window: WindowSnapshot::default(),
            last_port_bits: Vec::new(),
            events: 0,
            cell_hops: 0,
            fingerprint: Fingerprint::default(),
            current: None,
            seed: self.seed,
            replication: self.replication,
            scratch_fwd: Vec::new(),
            scratch_bwd: Vec::new(),
        };
        w.last_port_bits = vec![0; w.ports.len()];
        w.port_lp = w.ports.iter().map(|p| p.from.0).collect();
        w.vc_lp = w.vcs.iter().map(|vc| w.ports[vc.fwd_ports[0].index()].from.0).collect();
        w.mark_lazy_ends();
        w.index_inputs();
        w.drop_idle_schemes();
        let mut initial = Vec::new();
        for (i, vc) in w.vcs.iter().enumerate() {
            let id = VcId(i as u32);
            if vc.abr_source().is_some() || vc.background().is_some() {
                initial.push((vc.start_time(), Event::SourceStart(id)));
            }
            if vc.tcp().is_some() {
                initial.push((vc.start_time(), Event::TcpStart(id)));
            }
        }
        for (i, port) in w.ports.iter().enumerate() {
            if let Some(due) = port.scheme.as_ref().and_then(|s| s.timer_due()) {
                initial.push((due, Event::SchemeTimer(PortId(i as u32))));
            }
        }
        initial.push((w.measure.window_start.min(w.measure.end), Event::WindowOpen));
        if !w.measure.interval.is_zero() {
            initial.push((SimTime::ZERO, Event::Sample));
        }
        for (t, ev) in initial {
            w.schedule(t, ev);
        }
        if w.can_run_in_windows().is_ok() && w.lookahead_bound() >= MIN_WINDOW {
            w.set_windowed(true).expect("checked");
        }
        w
    }
}

pub struct World {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    pub vcs: Vec<Vc>,
    /// Every event (single-queue mode), or only the observers' (windowed mode).
    queue: EventQueue<Event, WorldTie>,
    /// Windowed mode: one queue per node (empty in single-queue mode); see `run_windows`.
    lps: Vec<EventQueue<Event, WorldTie>>,
    /// Windowed mode: the shortest link delay, the longest a window may be.
    lookahead: SimDuration,
    /// Windowed mode: the window being run ends before this key (time, tie).
    bound: (SimTime, u64),
    /// Windowed mode: per node, the pipes whose arrivals `run_node` takes in order itself
    /// (`index_inputs`), in port order; the reused tournament over their heads.
    node_inputs: Vec<Vec<PortId>>,
    tournament: Vec<u64>,
    /// The node whose queue holds each event (windowed mode): a port's arrivals belong to its
    /// far end, its departures and timers to its own node, a VC's source events to its source
    /// host.
    arrive_lp: Vec<u32>,
    port_lp: Vec<u32>,
    vc_lp: Vec<u32>,
    now: SimTime,
    pub measure: MeasureSpec,
    pub rec: Recordings,
    window: WindowSnapshot,
    last_port_bits: Vec<u64>,
    events: u64,
    cell_hops: u64,
    fingerprint: Fingerprint,
    current: Option<Event>,
    seed: u64,
    replication: u64,
    /// Reused cell buffers for TCP hosts (no allocation per packet).
    scratch_fwd: Vec<Cell>,
    scratch_bwd: Vec<Cell>,
}

impl World {
    /// An independent random stream for one component and purpose (STYLE §12): adding a
    /// component never changes the draws of another.
    pub fn stream(&self, component: u64, purpose: u64) -> RngStream {
        RngStream::new(StreamKey { seed: self.seed, replication: self.replication, component, purpose })
    }

    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn end(&self) -> SimTime {
        self.measure.end
    }
    pub fn events(&self) -> u64 {
        self.events
    }
    /// Cells that finished crossing a link (IP packets are counted by `packet_hops`).
    pub fn cell_hops(&self) -> u64 {
        self.cell_hops - self.packet_hops()
    }
    /// IP packets that finished crossing a link.
    pub fn packet_hops(&self) -> u64 {
        self.ports.iter().filter(|p| p.packets).map(|p| p.delivered).sum()
    }
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }
    pub fn is_done(&self) -> bool {
        self.now >= self.measure.end
    }
    /// The event being processed (for error reports after a panic).
    pub fn current_event(&self) -> Option<Event> {
        self.current
    }

    /// Processes every event up to and including `until` (capped at the end of the run).
    /// Returns true once the run is complete.
    pub fn run_until(&mut self, until: SimTime) -> bool {
        let until = until.min(self.measure.end);
        if self.lps.is_empty() {
            while let Some((t, ev)) = self.queue.pop_until(until) {
                self.process(t, ev);
            }
        } else {
            self.run_windows(until);
        }
        self.current = None;
        self.now = self.now.max(until);
        self.settle();
        self.is_done()
    }

    #[inline]
    fn process(&mut self, t: SimTime, ev: Event) {
        self.current = Some(ev);
        self.enter(t, ev);
        self.dispatch(ev);
    }

    /// An event starts at `t`: the clock, the count and the fingerprint.
    #[inline]
    fn enter(&mut self, t: SimTime, ev: Event) {
        self.now = t;
        let (kind, comp) = ev.kind_and_component();
        self.fingerprint.add(t.as_ps(), kind, comp);
        self.events += 1;
    }

    /// Windowed mode. Nodes touch each other only through links, and a cell sent at `t` reaches
    /// the far end at `t + delay` at the earliest. So once every event before time `T` has run,
    /// each node can run all its own events before `T + L` (L the shortest link delay) without
    /// waiting for the others: whatever they send it in that window arrives after it. Nodes
    /// run one after another, each from its own small queue, with its ports, pipes and scheme
    /// state in cache, instead of every event going through one queue of every component.
    /// Observers (samples, the window opening) and the end of the chunk cut windows short and
    /// run when every node has run everything before them. Every event runs with the same
    /// state, and simultaneous events in the same order (`IntrinsicOrder`), as in one queue:
    /// results are identical (`windowed_and_single_queue_runs_agree`).
    fn run_windows(&mut self, until: SimTime) {
        // The key just after every event at `until`.
        let end = (until + SimDuration::from_ps(1), 0);
        loop {
            let lookahead = (self.now + self.lookahead.min(MAX_WINDOW_SPAN), 0);
            let observer = self.queue.peek_key();
            let bound = observer.map_or(lookahead, |o| o.min(lookahead)).min(end);
            self.bound = bound;
            let start = self.now;
            for i in 0..self.lps.len() {
                self.run_node(i, start, bound);
            }
            if Some(bound) == observer {
                let (t, ev) = self.queue.pop().expect("peeked");
                self.process(t, ev);
            } else if bound == end {
                self.now = until;
                return;
            } else {
                self.now = bound.0;
            }
        }
    }

    /// Windowed mode: node `lp` runs its events before `bound`. Its arrivals over links that
    /// carry forward traffic are no events: every cell that reaches it in the window is already
    /// in its pipes, so a tournament over the pipes' heads yields them in the queue's order (time,
    /// then the tie a `PipeArrival` would have), interleaved with the node's queue exactly where
    /// the queue would have run them.
    fn run_node(&mut self, lp: usize, start: SimTime, bound: (SimTime, u64)) {
        let inputs = std::mem::take(&mut self.node_inputs[lp]);
        // A tournament over the pipes' heads: each arrival replays one leaf-to-root path,
        // ⌈log2 k⌉ comparisons, where a queue event would cost a push and a pop. Keys are 64-bit
        // (`tournament_key`), ordered as the queue orders the arrivals' own keys.
        let limit = Self::arrivals_before(start, bound);
        let mut tree = std::mem::take(&mut self.tournament);
        let size = inputs.len().next_power_of_two();
        tree.clear();
        tree.resize(2 * size, NO_ARRIVAL);
        for (j, &p) in inputs.iter().enumerate() {
            tree[size + j] = self.tournament_key(p, j, start, limit);
        }
        for i in (1..size).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        // The node's next queued event (its queue key, that key as a tournament bound, and the
        // queue's push count when looked up): arrivals with smaller tournament keys come first;
        // one at the same time with the same hash needs the full comparison. Looked up again
        // only when the queue changed.
        let next_queued = |w: &World| {
            let q = w.lps[lp].peek_key();
            (q, q.map_or(NO_ARRIVAL, |q| Self::arrivals_before(start, q)), w.lps[lp].pushes())
        };
        // A tournament key's place in the queue's order: (time, tie).
        let queue_key = |key: u64, p: PortId| {
            let t = start + SimDuration::from_ps(key >> TOURNAMENT_TIME_SHIFT);
            (t, Event::PipeArrival(p).tie(t))
        };
        let (mut queued, mut before_queued, mut pushes) = next_queued(self);
        loop {
            // With no inputs the root is a leaf that never holds an arrival (size 1).
            let key = tree[1];
            if self.lps[lp].pushes() != pushes {
                (queued, before_queued, pushes) = next_queued(self);
            }
            let leaf = (key & TOURNAMENT_LEAF_MASK) as usize;
            let first = key < before_queued
                || (key != NO_ARRIVAL
                    && key >> 7 == before_queued >> 7
                    && queued.is_none_or(|q| queue_key(key, inputs[leaf]) < q));
            if first {
                let p = inputs[leaf];
                let ev = Event::PipeArrival(p);
                self.current = Some(ev);
                self.enter(start + SimDuration::from_ps(key >> TOURNAMENT_TIME_SHIFT), ev);
                let (cell, _) = self.take_arrival(p);
                // Replay the leaf's path: each parent is the smaller of its two children. (The
                // tree's length is a power of two: masked indices need no bounds checks.)
                let mask = tree.len() - 1;
                let mut i = size + leaf;
                let mut m = self.tournament_key(p, leaf, start, limit);
                tree[i & mask] = m;
                while i > 1 {
                    m = m.min(tree[(i ^ 1) & mask]);
                    i /= 2;
                    tree[i & mask] = m;
                }
                self.arrive(cell);
            } else {
                match self.lps[lp].pop_before(bound) {
                    Some((t, ev)) => {
                        // What a handler may run at once (`run_source`) must also come before
                        // the next arrival.
                        self.bound = if key == NO_ARRIVAL { bound } else { bound.min(queue_key(key, inputs[leaf])) };
                        self.process(t, ev);
                        (queued, before_queued, pushes) = next_queued(self);
                    }
                    None => break,
                }
            }
        }
        debug_assert!(inputs.iter().enumerate().all(|(j, &p)| self.tournament_key(p, j, start, limit) == NO_ARRIVAL));
        self.tournament = tree;
        self.node_inputs[lp] = inputs;
    }

    /// The tournament keys of arrivals that certainly come before the event at `key` (a queue
    /// key at or after `start`) are below the result; an arrival whose key agrees with it above
    /// bit 7 (same time, same hash) needs the full comparison. Arrivals rank first among
    /// simultaneous events, so after any other kind of event at the same time come all of them.
    #[inline]
    fn arrivals_before(start: SimTime, key: (SimTime, u64)) -> u64 {
        let offset = key.0.saturating_since(start).as_ps();
        if offset >= MAX_WINDOW_SPAN.as_ps() {
            return NO_ARRIVAL;
        }
        let rank = key.1 >> 56;
        if rank > 0 {
            // Every arrival at that time comes first.
            (offset + 1) << TOURNAMENT_TIME_SHIFT
        } else {
            offset << TOURNAMENT_TIME_SHIFT | (key.1 >> 32 & 0xff_ffff) << 7
        }
    }

    /// The tournament key of the next arrival over pipe `p` (leaf `leaf` of its node's
    /// tournament), if it comes before the window's end (`limit`, from `arrivals_before`): its
    /// time in the window (from `start`, under `MAX_WINDOW_SPAN`), the 24-bit hash of its tie,
    /// then the leaf. Among one node's arrivals this is the queue's order: the tie is the hash,
    /// then the port, and leaves are in port order.
    #[inline]
    fn tournament_key(&self, p: PortId, leaf: usize, start: SimTime, limit: u64) -> u64 {
        let Some(f) = self.ports[p.index()].pipe.front() else { return NO_ARRIVAL };
        let offset = f.arrival.saturating_since(start).as_ps();
        debug_assert!(f.arrival >= start);
        if offset >= MAX_WINDOW_SPAN.as_ps() {
            return NO_ARRIVAL;
        }
        let key = offset << TOURNAMENT_TIME_SHIFT | shuffle(f.arrival.as_ps(), p.0 as u64 & 0xff_ffff) << 7 | leaf as u64;
        // The window's end is a lookahead or chunk end (tie 0: arrivals at that time are after
        // it) or an observer (every arrival at its time is before it): no equal hashes to settle.
        if key < limit {
            key
        } else {
            NO_ARRIVAL
        }
    }

    /// Schedules `ev` at `t`, in the queue of the node it belongs to (windowed mode).
    #[inline(always)]
    fn schedule(&mut self, t: SimTime, ev: Event) {
        if self.lps.is_empty() {
            return self.queue.push(t, ev);
        }
        let lp = match ev {
            // Taken in order by `run_node`'s tournament: no event.
            Event::PipeArrival(p) if self.arrive_lp[p.index()] == IN_TOURNAMENT => return,
            Event::PipeArrival(p) => self.arrive_lp[p.index()],
            Event::PortDeparture(p) | Event::SchemeTimer(p) => self.port_lp[p.index()],
            Event::SourceStart(v) | Event::SourceWake(v, _) | Event::TcpStart(v) | Event::TcpTimer(v, _) => {
                self.vc_lp[v.index()]
            }
            Event::Sample | Event::WindowOpen => return self.queue.push(t, ev),
        };
        self.lps[lp as usize].push(t, ev);
    }

    /// Why this world cannot run in windows, if it cannot: every event must belong to one node
    /// and touch other nodes only through links. A TCP connection's two ends share one timer
    /// and its state, so TCP worlds run from one queue.
    pub fn can_run_in_windows(&self) -> Result<(), String> {
        if let Some(vc) = self.vcs.iter().find(|vc| matches!(vc.ends, Ends::Tcp(_)) || vc.edge.is_some()) {
            return Err(format!("connection {} is TCP: its two ends share state", vc.name));
        }
        if self.ports.is_empty() {
            return Err("the world has no links".into());
        }
        Ok(())
    }

    /// The longest window the links allow: the shortest link delay.
    fn lookahead_bound(&self) -> SimDuration {
        self.ports.iter().map(|p| p.delay).min().unwrap_or(SimDuration::ZERO)
    }

    /// Where each pipe's arrivals go: events in its far end's queue, or (windowed mode) taken
    /// in order by `run_node`'s tournament. Only pipes that carry forward traffic join the
    /// tournament: a pipe that only ever carries backward RM cells (the reverse half of an
    /// access link) has an arrival every few dozen cells and would only deepen the tree; lazy
    /// sinks keep their own events.
    fn index_inputs(&mut self) {
        let on = self.is_windowed();
        self.arrive_lp = self.ports.iter().map(|p| p.to.0).collect();
        self.node_inputs = vec![Vec::new(); if on { self.nodes.len() } else { 0 }];
        if on {
            let forward = self.crossed_forward(|_| true);
            for (i, port) in self.ports.iter().enumerate() {
                let inputs = &mut self.node_inputs[port.to.index()];
                if !port.lazy_sink && forward[i] && inputs.len() < MAX_TOURNAMENT_INPUTS {
                    inputs.push(PortId(i as u32));
                    self.arrive_lp[i] = IN_TOURNAMENT;
                }
            }
        }
    }

    /// Whether the world runs in windows, one queue per node (`run_windows`).
    pub fn is_windowed(&self) -> bool {
        !self.lps.is_empty()
    }

    /// Runs in windows (one queue per node) or from one queue; only before the run starts.
    /// `build` chooses windows when the world allows them and its shortest link delay is at
    /// least `MIN_WINDOW`. The results are the same either way. Lazy sources (an emission
    /// generated when its access link runs dry, `catch_up_source`) are a single-queue device:
    /// in windows each source host runs its own emissions from its own queue.
    pub fn set_windowed(&mut self, on: bool) -> Result<(), String> {
        if self.events != 0 {
            return Err("the engine mode can only change before the run".into());
        }
        if on == self.is_windowed() {
            return Ok(());
        }
        if on {
            self.can_run_in_windows()?;
            let l = self.lookahead_bound();
            if l.is_zero() {
                return Err("a link has no propagation delay: windows would be empty".into());
            }
            self.lookahead = l;
        }
        let mut pending: Vec<(SimTime, Event)> = std::iter::from_fn(|| self.queue.pop()).collect();
        for q in &mut self.lps {
            pending.extend(std::iter::from_fn(|| q.pop()));
        }
        let rule = WorldTie { intrinsic: true };
        self.lps = if on { (0..self.nodes.len()).map(|_| EventQueue::with_rule(rule)).collect() } else { Vec::new() };
        self.index_inputs();
        self.queue = EventQueue::with_rule(rule);
        for vc in &mut self.vcs {
            vc.lazy_source = false;
        }
        for p in &mut self.ports {
            p.lazy_source = false;
        }
        if !on {
            let users = self.port_users();
            self.mark_lazy_sources(&users);
        }
        for (t, ev) in pending {
            self.schedule(t, ev);
        }
        Ok(())
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::PipeArrival(p) => self.on_pipe_arrival(p),
            Event::SourceStart(v) if self.vcs[v.index()].lazy_source => {
                let vc = &mut self.vcs[v.index()];
                let Ends::Abr { source, .. } = &mut vc.ends else { unreachable!("lazy sources are TM 4.0 sources") };
                vc.pending_wake = source.start(self.now);
                self.advance_source(v);
            }
            Event::SourceStart(v) => {
                let next = match &mut self.vcs[v.index()].ends {
                    Ends::Abr { source, .. } => source.start(self.now),
                    Ends::Vbr(s) => s.start(self.now),
                    Ends::Tcp(t) => t.abr.as_mut().and_then(|a| a.source.start(self.now)),
                };
                self.schedule_source(v, next);
            }
            Event::PortDeparture(p) => self.on_port_departure(p),
            Event::TcpStart(v) => {
                let mut fwd = std::mem::take(&mut self.scratch_fwd);
                if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
                    t.start(self.now, v, &mut fwd);
                }
                self.tcp_emit(v, &mut fwd, true);
                self.scratch_fwd = fwd;
                self.schedule_tcp(v);
            }
            Event::TcpTimer(v, gen) => self.on_tcp_timer(v, gen),
            Event::SourceWake(v, gen) => {
                if gen == self.vcs[v.index()].wake_gen {
                    if self.vcs[v.index()].lazy_source {
                        self.advance_source(v);
                    } else {
                        self.on_source_wake(v, gen);
                    }
                }
            }
            Event::SchemeTimer(p) => self.on_scheme_timer(p),
            Event::Sample => self.on_sample(),
            Event::WindowOpen => self.open_window(),
        }
    }

    fn schedule_source(&mut self, v: VcId, next: Option<SimTime>) {
        let vc = &mut self.vcs[v.index()];
        vc.wake_gen = vc.wake_gen.wrapping_add(1);
        let gen = vc.wake_gen;
        if let Some(t) = next {
            self.schedule(t, Event::SourceWake(v, gen));
        }
    }

    /// Sends the cells a TCP host produced (forward from the source host, or backward from the
    /// destination host), counting them in the VC's books.
    fn tcp_emit(&mut self, v: VcId, cells: &mut Vec<Cell>, forward: bool) {
        if forward {
            // Over ABR the cells wait in the adapter for the source's pacing.
            if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
                if let Some(a) = t.abr.as_mut() {
                    let n = cells.len() as u64;
                    a.backlog.extend(cells.drain(..));
                    let next = a.source.data_arrived(self.now, n);
                    if next.is_some() {
                        self.schedule_source(v, next);
                    }
                    return;
                }
            }
        }
        for c in cells.drain(..) {
            if forward {
                self.send_forward(v, c);
            } else {
                self.send_backward(v, c);
            }
        }
    }

    /// A cell leaves the VC's source host now, counted in its books.
    fn send_forward(&mut self, v: VcId, c: Cell) {
        self.send_forward_at(v, c, self.now);
    }

    /// A cell leaves the VC's source host at `t` (a lazy source's emission may be generated
    /// after its time; its access port has seen nothing later).
    fn send_forward_at(&mut self, v: VcId, mut c: Cell, t: SimTime) {
        let vc = &mut self.vcs[v.index()];
        vc.books.fwd_sent += 1;
        if c.kind == CellKind::Data {
            vc.books.data_sent += 1;
        }
        c.hop = 0;
        let port = vc.fwd_ports[0];
        self.ports[port.index()].sync(t);
        self.enqueue_at(port, c, t);
    }

    /// Lazy sources. A TM 4.0 source's emissions depend only on its own clock and on the
    /// backward RM cells that reach it, and its access link is its own FIFO: so instead of an
    /// event per cell, its emissions are generated in a batch whenever that link's pipe runs dry,
    /// each at its own time, and before anything reads or changes the source (a backward RM
    /// cell, a sample, the window opening, the end of a chunk). A cell generated late still
    /// leaves the host at its emission time and reaches the switch after everything already on
    /// the link, so the switches see exactly the arrivals of an event per emission. When the
    /// pipe is dry and stays dry, the next emission gets an ordinary wake-up event.
    fn mark_lazy_sources(&mut self, users: &[u32]) {
        for vc in &mut self.vcs {
            let access = vc.fwd_ports[0];
            let port = &mut self.ports[access.index()];
            if matches!(vc.ends, Ends::Abr { .. }) && users[access.index()] == 1 && !port.is_event_scheduled() {
                vc.lazy_source = true;
                port.lazy_source = true;
            }
        }
    }

    /// Generates the emissions of lazy source `v` up to and including `t`.
    fn catch_up_source(&mut self, v: VcId, t: SimTime) {
        loop {
            let vc = &mut self.vcs[v.index()];
            let Some(e) = vc.pending_wake.filter(|&e| e <= t) else { return };
            let Ends::Abr { source, .. } = &mut vc.ends else { unreachable!("lazy sources are TM 4.0 sources") };
            let (cell, next) = source.on_wake(e);
            vc.pending_wake = next;
            if let Some(c) = cell {
                self.send_forward_at(v, c, e);
            }
        }
    }

    /// A lazy source's emissions up to now, then its wake-up re-armed (`rearm_source`).
    fn advance_source(&mut self, v: VcId) {
        self.catch_up_source(v, self.now);
        self.rearm_source(v);
    }

    /// After a lazy source changed: a wake-up event for its next emission if its access link is
    /// dry (otherwise the link's next arrival catches it up), and none left over from before.
    fn rearm_source(&mut self, v: VcId) {
        let vc = &self.vcs[v.index()];
        let dry = self.ports[vc.fwd_ports[0].index()].pipe.is_empty();
        let next = if dry { vc.pending_wake } else { None };
        self.schedule_source(v, next);
    }

    /// Brings every lazy source up to `t` (before anything reads the sources or their books).
    fn catch_up_sources(&mut self, t: SimTime) {
        for i in 0..self.vcs.len() {
            if self.vcs[i].lazy_source {
                self.catch_up_source(VcId(i as u32), t);
            }
        }
    }

    /// A cell leaves the VC's destination host towards the source, counted in its books.
    fn send_backward(&mut self, v: VcId, mut c: Cell) {
        let vc = &mut self.vcs[v.index()];
        vc.books.bwd_sent += 1;
        let last = vc.rev_ports.len() - 1;
        c.hop = last as u16;
        let port = vc.rev_ports[last];
        self.enqueue(port, c);
    }

    /// Keeps exactly one live timer event per TCP connection.
    fn schedule_tcp(&mut self, v: VcId) {
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { return };
        let due = t.timer_due();
        if due != t.timer_at {
            t.timer_gen = t.timer_gen.wrapping_add(1);
            t.timer_at = due;
            let gen = t.timer_gen;
            if let Some(at) = due {
                self.schedule(at, Event::TcpTimer(v, gen));
            }
        }
    }

    fn on_tcp_timer(&mut self, v: VcId, gen: u32) {
        let (mut fwd, mut bwd) = (std::mem::take(&mut self.scratch_fwd), std::mem::take(&mut self.scratch_bwd));
        if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
            if t.timer_gen != gen {
                self.scratch_fwd = fwd;
                self.scratch_bwd = bwd;
                return;
            }
            t.timer_at = None;
            t.on_timer(self.now, v, &mut fwd, &mut bwd);
        }
        self.tcp_emit(v, &mut fwd, true);
        self.tcp_emit(v, &mut bwd, false);
        self.scratch_fwd = fwd;
        self.scratch_bwd = bwd;
        self.schedule_tcp(v);
    }

    fn on_port_departure(&mut self, p: PortId) {
        let now = self.now;
        let ((arrival, head), next) = self.ports[p.index()].depart(now);
        if head {
            self.schedule(arrival, Event::PipeArrival(p));
        }
        if let Some(t) = next {
            self.schedule(t, Event::PortDeparture(p));
        }
    }

    fn on_source_wake(&mut self, v: VcId, gen: u32) {
        if !self.lps.is_empty() {
            return self.run_source(v, gen);
        }
        let vc = &mut self.vcs[v.index()];
        let (cell, next) = match &mut vc.ends {
            Ends::Abr { source, .. } => source.on_wake(self.now),
            Ends::Vbr(s) => s.on_wake(self.now),
            Ends::Tcp(t) => {
                let Some(a) = t.abr.as_mut() else { return };
                let (cell, next) = a.source.on_wake(self.now);
                // A data opportunity carries the adapter's next cell (its frame and EOM mark).
                let cell = match cell {
                    Some(c) if c.kind == CellKind::Data => a.backlog.pop_front(),
                    other => other,
                };
                (cell, next)
            }
        };
        if let Some(t) = next {
            self.schedule(t, Event::SourceWake(v, gen));
        }
        if let Some(cell) = cell {
            self.send_forward(v, cell);
        }
    }

    /// Windowed mode: a source wake-up, and the ones after it for as long as each is its host's
    /// next event in the window. A source host's other events are its backward
    /// RM cells, so a source emits its cells for a window in one loop, as a lazy source does in
    /// the single queue, while each emission still counts as an event.
    fn run_source(&mut self, v: VcId, gen: u32) {
        let lp = self.vc_lp[v.index()] as usize;
        let ev = Event::SourceWake(v, gen);
        // What the host must run before this source's next emission: its next queued event, the
        // end of the window or the node's next arrival (`bound`). Looked up again only when the
        // host's queue changed (a strict-priority access port schedules its departures there).
        let limit_of = |w: &World| w.lps[lp].peek_key().map_or(w.bound, |k| k.min(w.bound));
        let mut limit = limit_of(self);
        let mut pushes = self.lps[lp].pushes();
        loop {
            let (cell, next) = match &mut self.vcs[v.index()].ends {
                Ends::Abr { source, .. } => source.on_wake(self.now),
                Ends::Vbr(s) => s.on_wake(self.now),
                Ends::Tcp(_) => unreachable!("TCP worlds run from one queue"),
            };
            if let Some(cell) = cell {
                self.send_forward(v, cell);
            }
            let Some(t) = next else { return };
            if self.lps[lp].pushes() != pushes {
                limit = limit_of(self);
                pushes = self.lps[lp].pushes();
            }
            let first = t < limit.0 || (t == limit.0 && self.lps[lp].key_of(t, &ev) < limit);
            if !first {
                return self.schedule(t, ev);
            }
            self.enter(t, ev);
        }
    }

    /// Egress links whose far end only counts data cells (a TM 4.0 destination, the only user of
    /// the port, behind a FIFO) deliver their data cells lazily: one event per RM cell instead of
    /// one per cell. Nothing observes a data cell's delivery but counters, and every reader of
    /// those drains the sinks first, so results are those of an event per cell.
    fn mark_lazy_ends(&mut self) {
        let users = self.port_users();
        self.mark_lazy_sources(&users);
        for vc in &self.vcs {
            let last = *vc.fwd_ports.last().expect("routes are non-empty");
            let port = &mut self.ports[last.index()];
            if matches!(vc.ends, Ends::Abr { .. }) && users[last.index()] == 1 && !port.is_event_scheduled() {
                port.lazy_sink = true;
            }
        }
    }

    /// A switch scheme is consulted only by the cells of VCs that cross its port forward (a
    /// backward RM cell consults the scheme of its VC's forward port at that switch). A port that
    /// no ABR or background VC crosses forward (the reverse half of an access link, say) gives
    /// its scheme nothing to measure and nobody to tell: the scheme is removed, and with it a
    /// timer event per averaging interval (half of GFC1's 54).
    fn drop_idle_schemes(&mut self) {
        let used = self.crossed_forward(|vc| vc.abr || vc.background().is_some());
        for (port, used) in self.ports.iter_mut().zip(used) {
            if !used {
                port.scheme = None;
            }
        }
    }

    /// Per port, whether a VC that `which` selects crosses it forward.
    fn crossed_forward(&self, which: impl Fn(&Vc) -> bool) -> Vec<bool> {
        let mut crossed = vec![false; self.ports.len()];
        for vc in self.vcs.iter().filter(|vc| which(vc)) {
            for p in &vc.fwd_ports {
                crossed[p.index()] = true;
            }
        }
        crossed
    }

    /// How many VCs use each port.
    fn port_users(&self) -> Vec<u32> {
        let mut users = vec![0u32; self.ports.len()];
        for vc in &self.vcs {
            for p in vc.fwd_ports.iter().chain(&vc.rev_ports) {
                users[p.index()] += 1;
            }
        }
        users
    }

    /// Delivers every cell by its own event (for tests that compare against lazy sinks). Only
    /// before the run starts.
    pub fn disable_lazy_sinks(&mut self) {
        assert!(self.events == 0, "lazy sinks can only be turned off before the run");
        for p in &mut self.ports {
            p.lazy_sink = false;
        }
        self.index_inputs();
    }

    /// An event per source emission (for tests that compare against lazy sources). Only before
    /// the run starts.
    pub fn disable_lazy_sources(&mut self) {
        assert!(self.events == 0, "lazy sources can only be turned off before the run");
        for vc in &mut self.vcs {
            vc.lazy_source = false;
        }
        for p in &mut self.ports {
            p.lazy_source = false;
        }
    }

    /// Delivers what reached the far end of lazy sink `p` by `until`: its data cells, and its RM
    /// cells only with `with_rm` (an RM cell is delivered by its own event, in event order). Then
    /// schedules the next RM cell's arrival.
    fn drain_sink(&mut self, p: PortId, until: SimTime, with_rm: bool) {
        loop {
            let port = &mut self.ports[p.index()];
            let Some(&InFlight { arrival: t, cell }) = port.pipe.front() else { break };
            if t > until || (cell.is_rm() && !with_rm) {
                break;
            }
            port.pipe.pop_front();
            port.delivered += 1;
            if cell.is_rm() {
                port.sink_rm -= 1;
                port.sink_event = false;
            }
            self.cell_hops += 1;
            self.arrive(cell);
        }
        let port = &mut self.ports[p.index()];
        if !port.sink_event && port.sink_rm > 0 {
            let t = port.pipe.iter().find(|f| f.cell.is_rm()).expect("counted RM cells are in the pipe").arrival;
            port.sink_event = true;
            self.schedule(t, Event::PipeArrival(p));
        }
    }

    /// Brings every lazy sink's deliveries up to `now` (before anything reads the counters).
    fn drain_sinks(&mut self, until: SimTime) {
        for i in 0..self.ports.len() {
            if self.ports[i].lazy_sink {
                self.drain_sink(PortId(i as u32), until, false);
            }
        }
    }

    fn on_pipe_arrival(&mut self, p: PortId) {
        if self.ports[p.index()].lazy_sink {
            return self.drain_sink(p, self.now, true);
        }
        let (cell, next) = self.take_arrival(p);
        let dry = self.ports[p.index()].lazy_source && next.is_none();
        if let Some(next) = next {
            self.schedule(next, Event::PipeArrival(p));
        }
        self.arrive(cell);
        if dry {
            self.advance_source(cell.vc);
        }
    }

    /// The head cell of pipe `p` reaches the far end now: it leaves the pipe and counts as a
    /// hop; the result is the cell and when the pipe's next cell arrives. (Its departure from
    /// the buffer is applied by the port's next `sync`, at its own time: everything that reads
    /// the port syncs it first.)
    #[inline(always)]
    fn take_arrival(&mut self, p: PortId) -> (Cell, Option<SimTime>) {
        let port = &mut self.ports[p.index()];
        let InFlight { arrival, cell } = port.pipe.pop_front().expect("an arrival has a cell");
        debug_assert_eq!(arrival, self.now);
        port.delivered += 1;
        let next = port.pipe.front().map(|n| n.arrival);
        // A pipe's entries were written one propagation delay ago and have left the nearer
        // caches. Touching the entry after next now (a load nothing waits for) brings its cache
        // line in long before this pipe's next events need it.
        if let Some(later) = port.pipe.get(2) {
            std::hint::black_box(later.arrival);
        }
        self.cell_hops += 1;
        (cell, next)
    }

    /// A cell reached the node at the far end of a link.
    #[inline(always)]
    fn arrive(&mut self, mut cell: Cell) {
        let v = cell.vc.index();
        if cell.is_forward() {
            let node = cell.hop as usize + 1;
            let vc = &mut self.vcs[v];
            if node == vc.fwd_ports.len() {
                vc.books.fwd_delivered += 1;
                if cell.kind == CellKind::Data {
                    vc.books.data_delivered += 1;
                }
                let brm = match &mut vc.ends {
                    Ends::Abr { dest, .. } => dest.on_cell(&cell),
                    // TCP over ABR: the destination end system turns the FRM around.
                    Ends::Tcp(t) if cell.kind == CellKind::Frm => t.abr.as_mut().and_then(|a| a.dest.on_cell(&cell)),
                    Ends::Tcp(t) => {
                        if let Some(a) = t.abr.as_mut() {
                            a.dest.on_cell(&cell);
                        }
                        let mut bwd = std::mem::take(&mut self.scratch_bwd);
                        t.on_data_cell(self.now, &cell, &mut bwd);
                        self.tcp_emit(cell.vc, &mut bwd, false);
                        self.scratch_bwd = bwd;
                        self.schedule_tcp(cell.vc);
                        None
                    }
                    Ends::Vbr(_) => None,
                };
                if let Some(brm) = brm {
                    self.send_backward(cell.vc, brm);
                }
            } else if cell.kind == CellKind::Frm && !vc.abr {
                // A FICCRD resource-discovery packet (ABR FRMs are only on ABR VCs).
                self.forward_rd(node, cell);
            } else {
                if node == 1 && cell.kind == CellKind::Data && vc.edge.is_some() {
                    return self.at_source_edge(cell);
                }
                cell.hop = node as u16;
                let out = vc.fwd_ports[node];
                let abr = vc.abr;
                let port = &mut self.ports[out.index()];
                let view = port.view(self.now);
                if cell.high_priority() {
                    if let Some(scheme) = port.scheme.as_mut() {
                        scheme.on_background_cell(&view);
                    }
                } else if let (true, Some(scheme)) = (abr, port.scheme.as_mut()) {
                    scheme.on_cell_arrival(&mut cell, &view);
                    if cell.kind == CellKind::Frm {
                        scheme.on_frm(cell.vc, &cell, &view);
                    } else if cell.kind == CellKind::Data && !scheme.admit(&cell, &view) {
                        port.buffer.reject(cell.vc, DropReason::Selective);
                        self.vcs[v].books.count_drop(&cell);
                        return;
                    }
                }
                // `view` above brought the port up to now.
                self.enqueue_synced(out, cell);
            }
        } else {
            let node = cell.hop as usize;
            if node == 0 {
                let vc = &mut self.vcs[v];
                vc.books.bwd_delivered += 1;
                match &mut vc.ends {
                    Ends::Abr { .. } if vc.lazy_source => {
                        self.catch_up_source(cell.vc, self.now);
                        let vc = &mut self.vcs[v];
                        let Ends::Abr { source, .. } = &mut vc.ends else { unreachable!() };
                        if let Some(next) = source.on_brm(self.now, &cell) {
                            vc.pending_wake = Some(next);
                            self.advance_source(cell.vc);
                        }
                    }
                    Ends::Abr { source, .. } => {
                        if let Some(next) = source.on_brm(self.now, &cell) {
                            self.schedule_source(cell.vc, Some(next));
                        }
                    }
                    Ends::Tcp(t) if cell.kind == CellKind::Brm => {
                        let next = t.abr.as_mut().and_then(|a| a.source.on_brm(self.now, &cell));
                        if next.is_some() {
                            self.schedule_source(cell.vc, next);
                        }
                    }
                    Ends::Tcp(t) => {
                        let mut fwd = std::mem::take(&mut self.scratch_fwd);
                        t.on_ack_cell(self.now, &cell, &mut fwd);
                        self.tcp_emit(cell.vc, &mut fwd, true);
                        self.scratch_fwd = fwd;
                        self.schedule_tcp(cell.vc);
                    }
                    Ends::Vbr(_) => {}
                }
            } else if cell.kind == CellKind::Brm && !self.vcs[v].abr {
                self.backward_rd(node, cell);
            } else {
                let vc = &mut self.vcs[v];
                if node == 1 && cell.kind == CellKind::BwdData {
                    if let Some(edge) = vc.edge.as_deref_mut() {
                        let AnyEdge::Fiewa(f) = edge;
                        f.on_ack(&mut cell);
                    }
                }
                let fwd = vc.fwd_ports[node];
                let out = vc.rev_ports[node - 1];
                if cell.kind == CellKind::Brm {
                    let port = &mut self.ports[fwd.index()];
                    let view = port.view(self.now);
                    if let Some(scheme) = port.scheme.as_mut() {
                        scheme.on_brm(cell.vc, &mut cell, &view);
                    }
                }
                cell.hop = (node - 1) as u16;
                self.enqueue(out, cell);
            }
        }
    }

    /// A data packet reached its source edge router (node 1): the rate estimate, the packet on
    /// its way, and a forward RD packet right behind it when one is due.
    fn at_source_edge(&mut self, mut cell: Cell) {
        let vc = &mut self.vcs[cell.vc.index()];
        let AnyEdge::Fiewa(f) = vc.edge.as_deref_mut().expect("checked by the caller");
        let rd = f.on_data(self.now, cell.vc, cell.bits() as f64);
        cell.hop = 1;
        let out = vc.fwd_ports[1];
        self.enqueue(out, cell);
        if let Some(rd) = rd {
            self.vcs[cell.vc.index()].books.fwd_sent += 1;
            self.forward_rd(1, rd);
        }
    }

    /// A forward RD packet at router `node` of its route: the output port's control sees it;
    /// the last router of the route (the destination edge) turns it around.
    fn forward_rd(&mut self, node: usize, mut rd: Cell) {
        let vc = &mut self.vcs[rd.vc.index()];
        let out = vc.fwd_ports[node];
        let last = node + 1 == vc.fwd_ports.len();
        let port = &mut self.ports[out.index()];
        port.sync(self.now);
        let q = port.buffer.len();
        if let Some(c) = port.control.as_mut() {
            c.on_forward_rd(rd.ccr as f64, q);
        }
        if last {
            vc.books.fwd_delivered += 1;
            vc.books.bwd_sent += 1;
            rd.kind = CellKind::Brm;
            return self.backward_rd(node, rd);
        }
        rd.hop = node as u16;
        self.enqueue_synced(out, rd);
    }

    /// A backward RD packet at router `node`: the control of the flow's forward port there may
    /// lower its ER; the source edge (node 1) keeps it.
    fn backward_rd(&mut self, node: usize, mut rd: Cell) {
        let vc = &mut self.vcs[rd.vc.index()];
        let fwd = vc.fwd_ports[node];
        let port = &mut self.ports[fwd.index()];
        if port.control.is_some() {
            port.sync(self.now);
            let q = port.buffer.len();
            let c = port.control.as_mut().expect("checked");
            rd.er = c.on_backward_rd(rd.er as f64, q) as f32;
        }
        if node == 1 {
            if let Some(edge) = vc.edge.as_deref_mut() {
                let AnyEdge::Fiewa(f) = edge;
                f.on_backward_rd(self.now, &rd);
                vc.books.bwd_delivered += 1;
                return;
            }
        }
        let out = vc.rev_ports[node - 1];
        rd.hop = (node - 1) as u16;
        self.enqueue(out, rd);
    }

    /// Offers a cell to port `p`.
    #[inline]
    fn enqueue(&mut self, p: PortId, cell: Cell) {
        self.ports[p.index()].sync(self.now);
        self.enqueue_synced(p, cell);
    }

    /// As `enqueue`, for a port already brought up to now (`Port::sync` or `Port::view`).
    #[inline]
    fn enqueue_synced(&mut self, p: PortId, cell: Cell) {
        self.enqueue_at(p, cell, self.now);
    }

    /// Offers a cell to port `p`, brought up to `now` already, at time `now`.
    #[inline]
    fn enqueue_at(&mut self, p: PortId, cell: Cell, now: SimTime) {
        let port = &mut self.ports[p.index()];
        if port.is_event_scheduled() {
            match port.offer_scheduled(now, cell) {
                Ok(Some(t)) => self.schedule(t, Event::PortDeparture(p)),
                Ok(None) => {}
                Err(_reason) => self.vcs[cell.vc.index()].books.count_drop(&cell),
            }
            return;
        }
        match port.offer(now, cell) {
            Ok((arrival, head)) => {
                if port.lazy_sink {
                    // Only RM cells get an event (the first one in the pipe).
                    if cell.is_rm() {
                        port.sink_rm += 1;
                        if !port.sink_event {
                            port.sink_event = true;
                            self.schedule(arrival, Event::PipeArrival(p));
                        }
                    }
                } else if head {
                    self.schedule(arrival, Event::PipeArrival(p));
                }
            }
            Err(_reason) => self.vcs[cell.vc.index()].books.count_drop(&cell),
        }
    }

    /// Brings everything that is applied lazily up to `now` before anything reads the counters
    /// (sampling, the window opening, the end of a chunk): lazy sources' emissions, lazy sinks'
    /// deliveries, ports' departures.
    fn settle(&mut self) {
        let now = self.now;
        self.catch_up_sources(now);
        self.drain_sinks(now);
        for p in &mut self.ports {
            p.sync(now);
        }
    }

    fn on_scheme_timer(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.ports[p.index()];
        let view = port.view(now);
        let Some(scheme) = port.scheme.as_mut() else { return };
        if let Some(due) = scheme.timer_due() {
            if now >= due {
                scheme.on_timer(&view);
            }
        }
        // One pending timer per port: re-arm at the (possibly moved) deadline.
        if let Some(due) = scheme.timer_due() {
            let due = due.max(now + ccsim_engine::SimDuration::from_ps(1));
            self.schedule(due, Event::SchemeTimer(p));
        }
    }

    fn on_sample(&mut self) {
        self.settle();
        let now = self.now;
        let m = &self.measure;
        if m.acr || m.received || m.tcp {
            for (i, vc) in self.vcs.iter().enumerate() {
                if m.acr && vc.abr {
                    self.rec.acr.push(now, i, cells_to_mbps(vc.acr()));
                }
                if m.received {
                    self.rec.received.push(now, i, vc.books.data_delivered as f64);
                }
                if let (true, Some(t)) = (m.tcp, vc.tcp()) {
                    let c = &t.sender.core;
                    self.rec.cwnd.push(now, i, c.cwnd);
                    self.rec.ssthresh.push(now, i, c.ssthresh);
                    self.rec.seq.push(now, i, c.snd_max as f64);
                    if let Some(r) = c.rtt.last_sample_s() {
                        self.rec.rtt.push(now, i, r);
                    }
                    if let Some(r) = c.rtt.srtt_s() {
                        self.rec.srtt.push(now, i, r);
                    }
                    let st = t.sender.stats();
                    self.rec.retransmits.push(now, i, st.retransmissions as f64);
                    self.rec.timeouts.push(now, i, st.timeouts as f64);
                }
            }
        }
        let dt = m.interval.as_secs_f64();
        for (i, port) in self.ports.iter().enumerate() {
            if !port.at_switch {
                continue;
            }
            if m.queue {
                self.rec.queue.push(now, i, port.buffer.len() as f64);
            }
            if let Some(c) = port.control.as_ref().and_then(|c| c.ficcrd()) {
                self.rec.mapr.push(now, i, c.mapr / 1e6);
                self.rec.dpf.push(now, i, c.dpf_at(port.buffer.len() as f64));
            }
            if m.utilization && now > SimTime::ZERO {
                let sent = port.departed_bits - self.last_port_bits[i];
                self.rec.utilization.push(now, i, sent as f64 / (dt * port.rate_bps() as f64));
            }
            self.last_port_bits[i] = port.departed_bits;
        }
        let next = now + m.interval;
        if next <= m.end {
            self.schedule(next, Event::Sample);
        }
    }

    fn open_window(&mut self) {
        self.settle();
        let now = self.now;
        let w = &mut self.window;
        w.opened = true;
        w.acr_integral = self.vcs.iter().map(|v| v.acr_integral(now)).collect();
        w.goodput_bytes = self.vcs.iter().map(|v| v.goodput_bytes()).collect();
        w.data_delivered = self.vcs.iter().map(|v| v.books.data_delivered).collect();
        w.data_sent = self.vcs.iter().map(|v| v.books.data_sent).collect();
        w.data_dropped = self.vcs.iter().map(|v| v.books.data_dropped).collect();
        w.queue_area = self.ports.iter().map(|p| p.queue_area(now)).collect();
        w.port_departed_bits = self.ports.iter().map(|p| p.departed_bits).collect();
        for p in &mut self.ports {
            p.queue.window_max = p.buffer.len();
        }
    }

    /// Cells of each VC still inside the network, (forward, backward).
    pub fn in_flight(&self) -> Vec<(u64, u64)> {
        let mut n = vec![(0u64, 0u64); self.vcs.len()];
        // A queued cell already sits in its pipe (see `Port`), so the pipes hold them all.
        for port in &self.ports {
            let held = match &port.scheduling {
                Scheduling::StrictPriority(q) => Some(q.cells()),
                Scheduling::Fifo => None,
            };
            for c in port.pipe.iter().map(|f| &f.cell).chain(held.into_iter().flatten()) {
                let e = &mut n[c.vc.index()];
                if c.is_forward() {
                    e.0 += 1
                } else {
                    e.1 += 1
                }
            }
        }
        n
    }

    /// Per VC: cells sent = delivered + dropped + in flight, in both directions.
    pub fn check_conservation(&self) -> Result<(), String> {
        let flight = self.in_flight();
        for (vc, &(f, b)) in self.vcs.iter().zip(&flight) {
            let k = &vc.books;
            if k.fwd_sent != k.fwd_delivered + k.fwd_dropped + f {
                return Err(format!(
                    "VC {}: forward cells sent {} != delivered {} + dropped {} + in flight {}",
                    vc.name, k.fwd_sent, k.fwd_delivered, k.fwd_dropped, f
                ));
            }
            if k.bwd_sent != k.bwd_delivered + k.bwd_dropped + b {
                return Err(format!(
                    "VC {}: backward cells sent {} != delivered {} + dropped {} + in flight {}",
                    vc.name, k.bwd_sent, k.bwd_delivered, k.bwd_dropped, b
                ));
            }
            if let Some(src) = vc.abr_source() {
                let s = &src.counters;
                // Over TCP the backward direction also carries ACK frames.
                let brms_ok = vc.tcp().is_some() || s.brm_received == k.bwd_delivered;
                if s.cells_sent() != k.fwd_sent || !brms_ok {
                    return Err(format!("VC {}: source counters disagree with the network's books", vc.name));
                }
            }
        }
        // Port books: what the buffers dropped is what the VCs lost.
        let port_drops: u64 = self.ports.iter().map(|p| p.buffer.dropped_total()).sum();
        let vc_drops: u64 = self.vcs.iter().map(|v| v.books.fwd_dropped + v.books.bwd_dropped).sum();
        if port_drops != vc_drops {
            return Err(format!("ports dropped {port_drops} cells but VCs lost {vc_drops}"));
        }
        Ok(())
    }

    /// Max-min fair rates (cells/s) of the VCs running at the end of the window, at full link
    /// capacity and capped by each source's demand (PCR, or the fixed rate of a source that
    /// ignores feedback); VCs not running then get zero.
    pub fn maxmin_rates(&self) -> Vec<f64> {
        let end = self.measure.end;
        let active: Vec<usize> = (0..self.vcs.len())
            .filter(|&i| {
                let vc = &self.vcs[i];
                vc.start_time() < end && vc.stop_time() >= end
            })
            .collect();
        // Background traffic takes its mean rate off every link it crosses.
        let mut caps: Vec<f64> = self.ports.iter().map(|p| p.cell_rate()).collect();
        for vc in &self.vcs {
            if let Some(b) = vc.background() {
                for p in &vc.fwd_ports {
                    caps[p.index()] = (caps[p.index()] - b.mean_rate()).max(0.0);
                }
            }
        }
        let active: Vec<usize> = active.into_iter().filter(|&i| self.vcs[i].background().is_none()).collect();
        let flows: Vec<Flow> = active
            .iter()
            .map(|&i| {
                let vc = &self.vcs[i];
                Flow { links: vc.fwd_ports.iter().map(|p| p.index()).collect(), demand: vc.demand() }
            })
            .collect();
        let r = maxmin_rates(&caps, &flows);
        let mut out = vec![0.0; self.vcs.len()];
        for (k, &i) in active.iter().enumerate() {
            out[i] = r[k];
        }
        out
    }

    /// Summary numbers over the measurement window.
    pub fn report(&self) -> Report {
        let now = self.now;
        let w = &self.window;
        let (t0, span) = if w.opened {
            let t0 = self.measure.window_start.min(self.measure.end);
            (t0, now.saturating_since(t0).as_secs_f64())
        } else {
            (now, 0.0)
        };
        let maxmin = self.maxmin_rates();
        let flight = self.in_flight();
        let vcs: Vec<VcReport> = self
            .vcs
            .iter()
            .enumerate()
            .map(|(i, vc)| {
                let pick = |v: &Vec<u64>| if w.opened { v[i] } else { 0 };
                let acr0 = if w.opened { w.acr_integral[i] } else { 0.0 };
                let per_s = |x: f64| if span > 0.0 { x / span } else { 0.0 };
                let win_sent = vc.books.data_sent - pick(&w.data_sent);
                let win_lost = vc.books.data_dropped - pick(&w.data_dropped);
                VcReport {
                    name: vc.name.clone(),
                    dest_name: vc.dest_name.clone(),
                    acr: per_s(vc.acr_integral(now) - acr0),
                    final_acr: vc.acr(),
                    rate: per_s((vc.books.data_delivered - pick(&w.data_delivered)) as f64),
                    maxmin: maxmin[i],
                    books: vc.books.clone(),
                    frm_sent: vc.abr_source().map_or(0, |s| s.counters.frm_sent),
                    oor_frm_sent: vc.abr_source().map_or(0, |s| s.counters.oor_frm_sent),
                    brm_received: vc.abr_source().map_or(0, |s| s.counters.brm_received),
                    background: vc.background().is_some(),
                    goodput: per_s((vc.goodput_bytes() - w.goodput_bytes.get(i).copied().unwrap_or(0)) as f64 * 8.0),
                    tcp: vc.tcp().map(|t| TcpReport {
                        variant: t.sender.variant(),
                        stats: t.sender.stats().clone(),
                        host: t.stats.clone(),
                        delivered_bytes: t.receiver.delivered,
                        mss: t.sender.core.cfg.smss,
                        cells_per_segment: t.cells_per_segment(),
                        wire_bits_per_segment: t.wire_bits_per_segment(),
                    }),
                    in_flight_fwd: flight[i].0,
                    in_flight_bwd: flight[i].1,
                    clr: ratio(vc.books.data_dropped, vc.books.data_sent),
                    window_clr: ratio(win_lost, win_sent),
                }
            })
            .collect();
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let a0 = if w.opened { w.queue_area[i] } else { 0 };
                let d0 = if w.opened { w.port_departed_bits[i] } else { 0 };
                let mean_q = if span > 0.0 {
                    (p.queue_area(now) - a0) as f64 / (span * ccsim_engine::PS_PER_SEC as f64)
                } else {
                    0.0
                };
                let util = if span > 0.0 { (p.departed_bits - d0) as f64 / (span * p.rate_bps() as f64) } else { 0.0 };
                PortReport {
                    name: p.name.clone(),
                    link: p.link_name.clone(),
                    from: self.nodes[p.from.index()].name.clone(),
                    to: self.nodes[p.to.index()].name.clone(),
                    at_switch: p.at_switch,
                    rate_bps: p.rate_bps(),
                    mean_queue: mean_q,
                    max_queue: p.queue.window_max,
                    max_queue_run: p.queue.max,
                    drops: p.buffer.dropped_total(),
                    early_drops: p.buffer.dropped(DropReason::Early),
                    packets: p.packets,
                    departed: p.departed,
                    utilization: util,
                }
            })
            .collect();
        let x: Vec<f64> = vcs.iter().filter(|v| v.tcp.is_none() && v.maxmin > 0.0).map(|v| v.rate / v.maxmin).collect();
        // Seed 001 §2: over TCP connections the index is over raw throughputs.
        let g: Vec<f64> = vcs.iter().filter(|v| v.tcp.is_some()).map(|v| v.goodput).collect();
        Report { window: (t0, now), vcs, ports, fairness_index: jain_index(&x), tcp_fairness_index: jain_index(&g) }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// One VC over the measurement window. Rates in cells/s.
#[derive(Clone, Debug)]
pub struct VcReport {
    pub name: String,
    pub dest_name: String,
    /// Time-average ACR over the window.
    pub acr: f64,
    pub final_acr: f64,
    /// Data cells delivered per second over the window.
    pub rate: f64,
    pub maxmin: f64,
    pub books: VcBooks,
    pub frm_sent: u64,
    pub oor_frm_sent: u64,
    pub brm_received: u64,
    pub in_flight_fwd: u64,
    pub in_flight_bwd: u64,
    /// Data cells lost / data cells sent, whole run.
    pub clr: f64,
    /// Goodput over the window, bits/s (TCP; zero otherwise).
    pub goodput: f64,
    /// Background CBR/VBR traffic.
    pub background: bool,
    pub tcp: Option<TcpReport>,
    /// The same over the measurement window.
    pub window_clr: f64,
}

/// A TCP connection's totals.
#[derive(Clone, Debug)]
pub struct TcpReport {
    pub variant: &'static str,
    pub stats: SenderStats,
    pub host: HostStats,
    pub delivered_bytes: u64,
    pub mss: u32,
    /// Items per full-size segment: cells, or 1 on IP links.
    pub cells_per_segment: u32,
    pub wire_bits_per_segment: u64,
}

#[derive(Clone, Debug)]
pub struct PortReport {
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    pub at_switch: bool,
    pub rate_bps: u64,
    pub mean_queue: f64,
    /// Largest queue inside the window.
    pub max_queue: u32,
    /// Largest queue over the whole run.
    pub max_queue_run: u32,
    pub drops: u64,
    /// Of which RED's early drops.
    pub early_drops: u64,
    /// An IP link: queue lengths and drops count packets.
    pub packets: bool,
    pub departed: u64,
    pub utilization: f64,
}

#[derive(Clone, Debug)]
pub struct Report {
    pub window: (SimTime, SimTime),
    pub vcs: Vec<VcReport>,
    pub ports: Vec<PortReport>,
    /// Jain's index over measured rate / max-min rate (ABR VCs).
    pub fairness_index: f64,
    /// Jain's index over TCP goodputs.
    pub tcp_fairness_index: f64,
}
