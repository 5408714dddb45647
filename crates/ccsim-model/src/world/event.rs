//! The world's events: who is woken, and the one order of simultaneous events.
//!
//! Owns the `Event` enum, its intrinsic tie (the only tie order any world uses) and its
//! fingerprint words. It runs nothing: `run.rs` dispatches, the rooms handle.

use super::World;
use crate::ids::{PortId, VcId};
use ccsim_engine::{IntrinsicOrder, SimTime};

/// Who is woken. Small and `Copy`: the queue holds one per busy component.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head cell of a port's pipe reached the far end of the link.
    PipeArrival(PortId),
    /// The cell in service at an event-scheduled port (a held discipline) finished transmission.
    PortDeparture(PortId),
    /// A credit-controlled port's BSC round is due (CT): at its node.
    Credit(PortId),
    /// BSU cells reach a credit-controlled port's transmitter: at its node.
    Bsu(PortId),
    /// BSC cells reach the receiver of a credit-controlled port's hop: at the node it leads to.
    Bsc(PortId),
    /// A source connects.
    SourceStart(VcId),
    /// A source's pacing timer; the generation makes superseded wake-ups harmless.
    SourceWake(VcId, u32),
    /// A port's switch scheme asked for a timer (e.g. ERICA's averaging interval).
    SchemeTimer(PortId),
    /// A TCP connection opens.
    TcpStart(VcId),
    /// A TCP connection's timer at its source host (retransmission, the application's next
    /// write); generation as for sources.
    TcpTimer(VcId, u32),
    /// A TCP connection's timer at its destination host (the delayed ACK).
    TcpAckTimer(VcId, u32),
    /// A FICCRD source edge's ACK bucket releases the ACKs it has paid for (FIABC).
    EdgeRelease(VcId),
    /// A FICCRD source edge's RD timer for a flow: an RD if the flow went `rd_interval` without.
    EdgeRdTimer(VcId),
    /// An HG-RCP gateway's controller tick (the gateway's index).
    GatewayTimer(u32),
    /// Record one sample of every time series.
    Sample,
    /// The measurement window opens.
    WindowOpen,
}

/// Simultaneous events run in an order that depends only on what they are and when, never on
/// when they were scheduled, so that it survives any partition of the events into queues
/// (`World`'s windowed mode). Every world, with TCP or without, uses this order. By kind
/// first: arrivals, departures, credit updates, timers, sources, TCP, edges' ACK buckets and RD timers, gateways, and observers (the window, samples)
/// last, so that a sample sees everything that happened at its picosecond. Within a kind, in a
/// pseudo-random order drawn afresh at every picosecond (a hash of the time and the
/// component), then by component: ordering by component alone would let the lowest-numbered VC
/// always go first when timers expire together (TCP's coarse ticks, GFC1's equal starts), a
/// bias the order of scheduling did not have either. The generation (low 8 bits) only
/// separates superseded wake-ups, which do nothing.
impl IntrinsicOrder for Event {
    #[inline]
    fn tie(&self, time: SimTime) -> u64 {
        let (rank, comp, gen) = match *self {
            Event::PipeArrival(p) => (0u64, p.0, 0),
            Event::PortDeparture(p) => (1, p.0, 0),
            // A hop's BSUs before its BSC round at the same picosecond (a BSU may start a cell,
            // which the round's Tx_Counter counts); its BSCs act at the other end.
            Event::Bsu(p) => (2, p.0, 0),
            Event::Credit(p) => (2, p.0, 1),
            Event::Bsc(p) => (2, p.0, 2),
            Event::SchemeTimer(p) => (3, p.0, 0),
            Event::SourceWake(v, g) => (4, v.0, g),
            Event::SourceStart(v) => (5, v.0, 0),
            Event::TcpTimer(v, g) => (6, v.0, g),
            Event::TcpAckTimer(v, g) => (7, v.0, g),
            Event::TcpStart(v) => (8, v.0, 0),
            Event::EdgeRelease(v) => (9, v.0, 0),
            Event::EdgeRdTimer(v) => (10, v.0, 0),
            Event::GatewayTimer(g) => (11, g, 0),
            Event::WindowOpen => (12, 0, 0),
            Event::Sample => (13, 0, 0),
        };
        let comp = comp as u64 & 0xff_ffff;
        rank << 56 | shuffle(time.as_ps(), comp) << 32 | comp << 8 | (gen as u64 & 0xff)
    }
}

/// Ties among simultaneous events of one kind (`IntrinsicOrder for Event`): 24 bits of a hash
/// of the time and the component.
#[inline]
pub(super) fn shuffle(time_ps: u64, comp: u64) -> u64 {
    let mut h = (time_ps ^ comp.rotate_left(40)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 32;
    h & 0xff_ffff
}

impl Event {
    /// The event's words in the fingerprint.
    pub(super) fn kind_and_component(self) -> (u32, u32) {
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
            Event::GatewayTimer(g) => (10, g),
            Event::Credit(p) => (11, p.0),
            Event::EdgeRelease(v) => (12, v.0),
            Event::TcpAckTimer(v, _) => (13, v.0),
            Event::EdgeRdTimer(v) => (14, v.0),
            Event::Bsu(p) => (15, p.0),
            Event::Bsc(p) => (16, p.0),
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
            Event::TcpAckTimer(v, _) => format!("delayed-ACK timer of {}", world.vcs[v.index()].name),
            Event::PortDeparture(p) => format!("departure at port {}", world.ports[p.index()].name),
            Event::GatewayTimer(g) => format!("controller of gateway {}", world.gateways[g as usize].name),
            Event::Credit(p) => format!("BSC round at port {}", world.ports[p.index()].name),
            Event::Bsu(p) => format!("BSU at port {}", world.ports[p.index()].name),
            Event::Bsc(p) => format!("BSC at the far end of port {}", world.ports[p.index()].name),
            Event::EdgeRelease(v) => format!("ACK bucket of {}", world.vcs[v.index()].name),
            Event::EdgeRdTimer(v) => format!("RD timer of {}", world.vcs[v.index()].name),
            Event::Sample => "sampling".into(),
            Event::WindowOpen => "measurement window".into(),
        }
    }
}
