//! The world: arenas of nodes, ports and connections, the event queues, and the rooms that act
//! on them. This file owns the `World` struct, its ids and its read-only public API; every
//! behaviour lives in a room of its own:
//!
//! | room | owns |
//! |---|---|
//! | `event.rs` | the `Event` enum and the one order of simultaneous events |
//! | `build.rs` | `WorldBuilder`: nodes, ports and VCs from specs, the initial events |
//! | `run.rs` | the single-queue loop, dispatch of events, scheduling |
//! | `windows.rs` | the windowed mode: one queue per logical process, the tournament over pipe heads |
//! | `threads.rs` | the windowed mode on several threads: the plan, the shards, the loop of windows, the mailboxes |
//! | `gather.rs` | threads: the world gathered into thread 0's copy for observers and readers, and given back |
//! | `work.rs` | the windowed mode's work counts per logical process and window (`--parallel-report`) |
//! | `groups.rs` | the windowed mode's logical processes: which nodes share a queue, the window they allow |
//! | `wide.rs` | windowed nodes fed by more pipes than a window's tournament holds: kept tournaments |
//! | `forward.rs` | a cell leaving a pipe, entering a port, leaving an event-scheduled port |
//! | `node/` | what a cell meets at a node, by the node's kind (host, switch, router, IP edge) |
//! | `emit.rs` | sources: start, pacing wake-ups, cells leaving hosts |
//! | `lazy.rs` | lazy sources and sinks (emissions and deliveries applied in batches) |
//! | `tcp.rs` | TCP connections: start, timers, cells their hosts produce, their source adapters |
//! | `credit.rs` | Controlled Transfer across a hop: forwarded cells, BSU and BSC cells, their events |
//! | `credit_train.rs` | credit trains: single-connection credit ports' departures applied lazily |
//! | `sample.rs` | time series samples and the measurement window's opening |
//! | `report.rs` | the end-of-run report, conservation, max-min rates and what holds each VC there |
//! | `trace.rs` | the event trace's hooks (`crate::trace`): sends, enqueues, drops, deliveries |
//! | `vc.rs` | a connection's record: route by hop, ends, edge state, books |
//!
//! Routing is by hop index. A VC's path is nodes n0 (source host), n1..nk (switches or routers),
//! n(k+1) (destination host). `fwd_ports[i]` is the port at n(i) towards n(i+1) and
//! `rev_ports[i]` the port at n(i+1) towards n(i). A forward cell on `fwd_ports[i]` carries
//! `hop = i` and arrives at node i+1; a backward cell on `rev_ports[i]` arrives at node i.
//! No table look-up by node is needed on the per-cell path; the kind of the node a port leads to
//! is one byte per port (`arrive_kind`).

mod build;
mod credit;
mod credit_train;
mod emit;
mod event;
mod forward;
mod gather;
mod groups;
mod lazy;
pub mod node;
mod report;
mod run;
mod route;
mod sample;
mod tcp;
mod threads;
mod trace;
mod vc;
mod wide;
mod windows;
mod work;

pub use build::{GfrVc, PortSpec, VcKind, VcSpec, WorldBuilder};
pub use event::Event;
pub use groups::Groups;
pub use threads::ThreadPlan;
pub use node::{Node, NodeKind};
pub use report::{GatewayReport, MaxminLimit, PortReport, Report, TcpReport, VcReport};
pub use vc::{Ends, Vc, VcBooks};
pub use windows::MIN_WINDOW;

use crate::cell::Cell;
use crate::measure::{MeasureSpec, Recordings, WindowSnapshot};
use crate::port::Port;
use ccsim_engine::{ByEvent, EventQueue, Fingerprint, RngStream, SimDuration, SimTime, StreamKey};

pub struct World {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Per port, the receiving end of its credit-controlled hop, owned by the node the hop leads
    /// to (`credit.rs`; empty in a world without credit control).
    credit_rx: Vec<Option<crate::port::CreditRx>>,
    pub vcs: Vec<Vc>,
    /// The VCs' routes and per-cell flags, packed for the per-cell path (`route.rs`).
    routes: route::Routes,
    /// Per port, the kind of the node at its far end: what arriving cells meet (`node/`), or
    /// `LossyLink` first.
    arrive_kind: Vec<NodeKind>,
    /// Reused buffer of the ACKs a source edge's bucket releases at once (FIABC).
    edge_out: Vec<crate::cell::Cell>,
    /// IP-over-ATM gateways (HG-RCP), and per node its gateway's index (`NO_GATEWAY` if none).
    pub gateways: Vec<crate::hgrcp::Gateway>,
    node_gateway: Vec<u32>,
    /// Every event (single-queue mode), or only the observers' (windowed mode).
    queue: EventQueue<Event, ByEvent>,
    /// Windowed mode: one queue per logical process (empty in single-queue mode); see `windows.rs`.
    lps: Vec<EventQueue<Event, ByEvent>>,
    /// Per node, its logical process (`groups.rs`; one per node in single-queue mode).
    node_lp: Vec<u32>,
    /// Windowed mode: the shortest delay of a link between logical processes, the longest a
    /// window may be.
    lookahead: SimDuration,
    /// Windowed mode: the window being run ends before this key (time, tie).
    bound: (SimTime, u64),
    /// Windowed mode: per node, the pipes whose arrivals `run_node` takes in order itself
    /// (`index_inputs`), in port order; the reused tournament over their heads.
    node_inputs: Vec<Vec<crate::ids::PortId>>,
    tournament: Vec<u64>,
    /// Windowed mode: per node, the tournament a wide node keeps between windows (empty for the
    /// others) and the keys of its pipes' new heads not yet in it; per port, its leaf there
    /// (`wide.rs`).
    wide_trees: Vec<Vec<wide::WideKey>>,
    new_heads: Vec<Vec<wide::WideKey>>,
    input_leaf: Vec<u32>,
    /// Windowed mode: per node, no event of its queue is earlier than this (a lower bound, kept
    /// by `schedule` and raised when the node runs); `SimTime::ZERO` for a node with tournament
    /// inputs, whose arrivals are not in its queue. A window skips the nodes it bounds out
    /// without reading their queues (`run_windows`).
    lp_next: Vec<SimTime>,
    /// Windowed mode: how the tournaments' keys split their bits (`index_inputs`).
    layout: windows::TournamentLayout,
    /// The logical process whose queue holds each event (windowed mode): a port's arrivals
    /// belong to its far end's, its departures and timers to its own node's, a VC's source events
    /// to its source host's.
    arrive_lp: Vec<u32>,
    port_lp: Vec<u32>,
    vc_lp: Vec<u32>,
    /// Each VC's destination host (the node of a TCP receiver's timer).
    vc_dest_lp: Vec<u32>,
    now: SimTime,
    pub measure: MeasureSpec,
    pub rec: Recordings,
    window: WindowSnapshot,
    last_port_bits: Vec<f64>,
    /// Each VC's goodput bytes at the previous sample (the goodput series' differences).
    last_goodput_bytes: Vec<u64>,
    /// Per VC, its delay totals (`FlowDelay::totals`) at the previous sample, less what the
    /// window's opening reset since: the delay series differences them.
    last_delay: Vec<(i128, i64)>,
    events: u64,
    cell_hops: u64,
    fingerprint: Fingerprint,
    current: Option<Event>,
    seed: u64,
    replication: u64,
    /// Reused cell buffers for TCP hosts (no allocation per packet).
    scratch_fwd: Vec<Cell>,
    scratch_bwd: Vec<Cell>,
    /// The per-item event trace, if recorded (`trace.rs`): every hook tests this field only.
    trace: Option<Box<crate::trace::Trace>>,
    /// The credit ports that run as trains (`credit_train.rs`).
    train_ports: Vec<crate::ids::PortId>,
    /// Windowed mode, when asked (`work.rs`): each logical process's events in each window.
    work: Option<Box<crate::parallel::WorkCounts>>,
    /// On several threads (`threads.rs`): this copy's place among them (every thread's copy), and
    /// the other threads' copies with who owns what (thread 0's, the one callers hold).
    shard: Option<Box<threads::Shard>>,
    threads: Option<Box<threads::Threads>>,
}

impl World {
    /// An independent random stream for one component and purpose (docs/DESIGN.md §2): adding a
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
    /// Events scheduled and not yet run, in every queue.
    pub fn pending_events(&self) -> usize {
        self.queue.len() + self.lps.iter().map(|q| q.len()).sum::<usize>() + self.threads.as_ref().map_or(0, |t| t.other_pending)
    }
    /// Cells that finished crossing a link (IP packets are counted by `packet_hops`).
    pub fn cell_hops(&self) -> u64 {
        self.cell_hops - self.packet_hops()
    }
    /// Cells and packets the ports refused, for every reason: with the hops, every unit a port
    /// was offered (an engine's cost per unit of work where many are dropped, docs/benchmarks.md).
    pub fn port_drops(&self) -> u64 {
        self.ports.iter().map(|p| p.buffer.dropped_total()).sum()
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
}
