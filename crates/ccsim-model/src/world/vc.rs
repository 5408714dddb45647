//! A connection (VC) as the world keeps it: its route as ports by hop, what sits at its two
//! ends, its source edge's state, its end-to-end books for the conservation check, and the
//! delays of what it delivered.
//!
//! Plain data with read-only helpers; the rooms of `world/` change it, nothing here schedules.

use crate::abr::{AbrDestination, AbrSource};
use crate::cell::{Cell, CellKind};
use crate::ids::{PortId, VcId};
use crate::ip::AnyEdge;
use crate::policer::AnyPolicer;
use crate::tcp_host::TcpEnds;
use crate::vbr::OnOffSource;
use ccsim_engine::SimTime;

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
    /// Threads (`gather.rs`): adds `other`'s drops to these and zeroes them. Drops happen
    /// anywhere, so a VC's are the sum of every thread's copy.
    pub(in crate::world) fn absorb_drops(&mut self, other: &mut VcBooks) {
        self.fwd_dropped += std::mem::take(&mut other.fwd_dropped);
        self.bwd_dropped += std::mem::take(&mut other.bwd_dropped);
        self.data_dropped += std::mem::take(&mut other.data_dropped);
    }

    /// Threads: swaps what the source host counts (sent forward, delivered backward) with
    /// `other`'s. Its thread's copy holds them whole, so that the trace numbers what it sends on
    /// from its own count (`World::trace_number_sent`).
    fn swap_source_counts(&mut self, other: &mut VcBooks) {
        std::mem::swap(&mut self.fwd_sent, &mut other.fwd_sent);
        std::mem::swap(&mut self.data_sent, &mut other.data_sent);
        std::mem::swap(&mut self.bwd_delivered, &mut other.bwd_delivered);
    }

    /// Threads: swaps what the destination host counts (delivered forward, sent backward).
    fn swap_dest_counts(&mut self, other: &mut VcBooks) {
        std::mem::swap(&mut self.fwd_delivered, &mut other.fwd_delivered);
        std::mem::swap(&mut self.data_delivered, &mut other.data_delivered);
        std::mem::swap(&mut self.bwd_sent, &mut other.bwd_sent);
    }

    pub(in crate::world) fn count_drop(&mut self, cell: &Cell) {
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
    /// An ABR connection between two gateways (HG-RCP): a TM 4.0 source whose data cells are the
    /// cells of gateway `gateway`'s ABR-SAP buffer, and its destination at the far gateway.
    Trunk { source: AbrSource, dest: AbrDestination, gateway: u32 },
}

pub struct Vc {
    pub name: String,
    pub dest_name: String,
    pub fwd_ports: Vec<PortId>,
    pub rev_ports: Vec<PortId>,
    pub ends: Ends,
    /// ABR traffic: switch schemes see its cells (UBR cells pass them by).
    pub abr: bool,
    pub(in crate::world) wake_gen: u32,
    /// A TM 4.0 source whose emissions are generated in batches (`World::catch_up_source`).
    pub(in crate::world) lazy_source: bool,
    /// Its next emission not generated yet.
    pub(in crate::world) pending_wake: Option<SimTime>,
    pub books: VcBooks,
    /// This flow's state at its source edge router (FICCRD/FIEWA), if that router is one.
    pub edge: Option<Box<AnyEdge>>,
    /// A GFR VC's minimum cell rate, cells/s (0: not a GFR VC).
    pub mcr: f64,
    /// The VC's policer at its ingress switch (GFR's F-GCRA), if that switch polices.
    pub policer: Option<Box<AnyPolicer>>,
    /// Its forward hops are credit-controlled (CT): every port of its forward route is one.
    pub credit: bool,
    /// Cell transfer delays of its data cells in the window (credit-controlled and TCP-over-ABR
    /// connections, whose adapters stamp their cells).
    pub ctd: Option<Box<crate::delays::DelayStats>>,
    /// End-to-end delays of the units it delivered in the window: data cells, or a TCP
    /// connection's segments (`crate::delays::FlowDelay`).
    pub delay: crate::delays::FlowDelay,
    /// The gateway's ABR connection (HG-RCP trunk) that carries this connection's cells across the
    /// ATM network, if one does (`World::mark_carriers`).
    pub carrier: Option<VcId>,
}

impl Vc {
    pub fn abr_source(&self) -> Option<&AbrSource> {
        match &self.ends {
            Ends::Abr { source, .. } | Ends::Trunk { source, .. } => Some(source),
            Ends::Tcp(t) => t.abr.as_ref().map(|a| &a.source),
            Ends::Vbr(_) => None,
        }
    }

    /// A gateway's ABR connection (HG-RCP): it carries other VCs' cells.
    pub fn is_trunk(&self) -> bool {
        matches!(self.ends, Ends::Trunk { .. })
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
            Ends::Abr { source, .. } | Ends::Trunk { source, .. } => source.start_time(),
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

    /// A forward cell of this VC reached its destination host at `at`: its books, and a data
    /// cell's transfer delay if the VC keeps them and the window is open (`measuring`).
    #[inline]
    pub(in crate::world) fn count_delivered(&mut self, cell: &Cell, at: SimTime, measuring: bool) {
        let data = cell.kind == CellKind::Data;
        if let (Some(ctd), true, true) = (self.ctd.as_mut(), data, measuring) {
            ctd.record(cell.queued().at(at), at);
        }
        self.books.fwd_delivered += 1;
        self.books.data_delivered += data as u64;
    }

    /// Threads (`gather.rs`): swaps what the VC's source host owns (the source and its wake-ups,
    /// its books' counts; a TCP connection's both ends) with `other`'s copy of the same VC.
    pub(in crate::world) fn swap_source_side(&mut self, other: &mut Vc) {
        match (&mut self.ends, &mut other.ends) {
            (Ends::Abr { source: a, .. }, Ends::Abr { source: b, .. }) => std::mem::swap(a, b),
            (Ends::Vbr(a), Ends::Vbr(b)) => std::mem::swap(a, b),
            // Both hosts run on one thread (`thread_units`): the whole connection goes.
            (Ends::Tcp(a), Ends::Tcp(b)) => std::mem::swap(a, b),
            _ => unreachable!("no gateway trunks on threads (`can_run_on_threads`)"),
        }
        std::mem::swap(&mut self.wake_gen, &mut other.wake_gen);
        std::mem::swap(&mut self.pending_wake, &mut other.pending_wake);
        self.books.swap_source_counts(&mut other.books);
    }

    /// Threads (`gather.rs`): swaps what the VC's destination host owns (the destination end
    /// system, the delays of what it delivered, its books' counts) with `other`'s copy of the
    /// same VC.
    pub(in crate::world) fn swap_dest_side(&mut self, other: &mut Vc) {
        if let (Ends::Abr { dest: a, .. }, Ends::Abr { dest: b, .. }) = (&mut self.ends, &mut other.ends) {
            std::mem::swap(a, b);
        }
        std::mem::swap(&mut self.delay, &mut other.delay);
        std::mem::swap(&mut self.ctd, &mut other.ctd);
        self.books.swap_dest_counts(&mut other.books);
    }

    /// Bytes delivered in order to the receiving application (TCP only).
    pub fn goodput_bytes(&self) -> u64 {
        self.tcp().map_or(0, |t| t.receiver.delivered)
    }
}

impl super::World {
    /// A cell (or packet) of its VC was dropped at `now`, anywhere: the VC's books, and a TCP
    /// connection's note of what it lost (the cause of its timeouts, `crate::timeout_cause`). On
    /// threads, the note for a connection whose hosts another thread runs waits for the window's
    /// end and goes there with the cells (`threads.rs`); the cause compares times, not the order
    /// notes come in, so the counts are those of one thread.
    pub(in crate::world) fn count_drop(&mut self, cell: &Cell, now: SimTime) {
        let vc = &mut self.vcs[cell.vc.index()];
        vc.books.count_drop(cell);
        if let Ends::Tcp(t) = &mut vc.ends {
            match self.shard.as_deref_mut().filter(|s| !s.runs_ends_of(cell.vc)) {
                Some(shard) => shard.tcp_drops.push((*cell, now)),
                None => t.on_cell_dropped(cell, now),
            }
        }
    }
}
