//! IP-level congestion control at routers: FICCRD core routers (seed 002, docs/models/ficcrd.md)
//! with the RD packets among their queued packets (`rd_queue.rs`), and the source edges that
//! drive them (`rd_edge.rs`), enforcing the rate with FIEWA (window rewriting) or FIABC (ACK
//! pacing). One algorithm per file; the `Any…` enums keep the
//! per-packet path free of trait objects.

pub mod csfq;
pub mod fiabc;
pub mod ficcrd;
pub mod fiewa;
pub mod rd_edge;
pub mod rd_queue;

pub use csfq::RateEstimator;
pub use fiabc::{AckBucket, FiabcFlow};
pub use ficcrd::{FiccrdCore, FiccrdParams, FiccrdQueue};
pub use fiewa::{FiewaFlow, FiewaParams, FiewaRtt, WindowRounding};
pub use rd_edge::{RdEdge, RdParams};
pub use rd_queue::RdQueue;

use crate::cell::Cell;
use crate::ids::VcId;
use ccsim_engine::{SimDuration, SimTime};

/// Congestion control at a router's output port, chosen per router.
#[derive(Clone, Debug)]
pub enum AnyIpControl {
    Ficcrd(FiccrdCore),
}

impl AnyIpControl {
    /// A forward RD packet about to enter this port's queue (`queue`: packets now held).
    #[inline]
    pub fn on_forward_rd(&mut self, apr: f64, queue: u32) {
        match self {
            AnyIpControl::Ficcrd(c) => c.on_forward_rd(apr, queue),
        }
    }

    /// A backward RD packet of a flow whose forward data leaves by this port: the ER it carries on.
    #[inline]
    pub fn on_backward_rd(&mut self, er: f64, queue: u32) -> f64 {
        match self {
            AnyIpControl::Ficcrd(c) => c.on_backward_rd(er, queue),
        }
    }

    /// Q as the control reads it at `now`, from the `packets` its port's buffer holds.
    #[inline]
    pub fn queue(&self, now: SimTime, packets: u32) -> u32 {
        match self {
            AnyIpControl::Ficcrd(c) => c.queue(now, packets),
        }
    }

    /// The port admitted an RD packet at `now` that leaves its buffer at `departure`.
    #[inline]
    pub fn on_rd_admitted(&mut self, now: SimTime, departure: SimTime) {
        match self {
            AnyIpControl::Ficcrd(c) => c.rds.admit(now, departure),
        }
    }

    /// The RD packets the port holds (the data queue is the rest).
    pub fn rds(&self) -> &RdQueue {
        match self {
            AnyIpControl::Ficcrd(c) => &c.rds,
        }
    }

    /// The measurement window opens at `now`.
    pub fn open_window(&mut self, now: SimTime) {
        match self {
            AnyIpControl::Ficcrd(c) => c.rds.open_window(now),
        }
    }

    pub fn ficcrd(&self) -> Option<&FiccrdCore> {
        match self {
            AnyIpControl::Ficcrd(c) => Some(c),
        }
    }
}

/// How a source edge enforces the ER on its flows, with the RD parameters both share.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum EdgeParams {
    /// FIEWA: the ACKs' advertised window capped at ER x RTT.
    Fiewa(RdParams, FiewaParams),
    /// FIABC: the ACKs paced at ER.
    Fiabc(RdParams),
}

/// Per-flow state a source edge router keeps for one connection.
#[derive(Clone, Debug)]
pub enum AnyEdge {
    Fiewa(FiewaFlow),
    Fiabc(FiabcFlow),
}

/// What became of an ACK at the source edge.
pub enum AckAtEdge {
    /// It goes on towards the sender now (its window possibly rewritten).
    Pass(Cell),
    /// It waits in the flow's ACK bucket (`AnyEdge::release`).
    Held,
}

impl AnyEdge {
    pub fn new(params: EdgeParams, out_rate_bps: f64, access_delay: SimDuration, mss_bytes: u32) -> Self {
        match params {
            EdgeParams::Fiewa(rd, p) => AnyEdge::Fiewa(FiewaFlow::new(rd, p, out_rate_bps, access_delay, mss_bytes)),
            EdgeParams::Fiabc(rd) => AnyEdge::Fiabc(FiabcFlow::new(rd, out_rate_bps, mss_bytes)),
        }
    }

    /// The RD machinery both schemes share (rate estimate, ER, RD round trip, counts).
    pub fn rd(&self) -> &RdEdge {
        match self {
            AnyEdge::Fiewa(f) => &f.rd,
            AnyEdge::Fiabc(f) => &f.rd,
        }
    }

    pub fn rd_mut(&mut self) -> &mut RdEdge {
        match self {
            AnyEdge::Fiewa(f) => &mut f.rd,
            AnyEdge::Fiabc(f) => &mut f.rd,
        }
    }

    /// A data packet of the flow passed the edge (`bits` on the wire; `segment`: the TCP
    /// segment's end byte and whether it is a retransmission): the forward RD packet to send
    /// right behind it, if one is due.
    #[inline]
    pub fn on_data(&mut self, now: SimTime, vc: VcId, bits: f64, segment: Option<(u64, bool)>) -> Option<Cell> {
        match self {
            AnyEdge::Fiewa(f) => {
                if let Some((end, retransmission)) = segment {
                    f.on_segment(now, end, retransmission);
                }
                f.rd.on_data(now, vc, bits)
            }
            AnyEdge::Fiabc(f) => f.rd.on_data(now, vc, bits),
        }
    }

    /// A backward RD packet of the flow came home to the edge.
    pub fn on_backward_rd(&mut self, now: SimTime, rd: &Cell) {
        match self {
            AnyEdge::Fiewa(f) => f.rd.on_backward_rd(now, rd),
            AnyEdge::Fiabc(f) => f.on_backward_rd(now, rd),
        }
    }

    /// An ACK of the flow, carrying cumulative ACK `ack` (bytes), passes the edge towards the
    /// sender: FIEWA rewrites its window, FIABC may hold it.
    #[inline]
    pub fn on_ack(&mut self, now: SimTime, mut cell: Cell, ack: u64) -> AckAtEdge {
        match self {
            AnyEdge::Fiewa(f) => {
                f.on_ack(now, &mut cell, ack);
                AckAtEdge::Pass(cell)
            }
            AnyEdge::Fiabc(f) => f.bucket.on_ack(now, cell, ack).map_or(AckAtEdge::Held, AckAtEdge::Pass),
        }
    }

    /// The ACKs the flow's bucket releases by `now`, in order; the result is when to wake it
    /// next, unless a wake-up is already pending by then (FIEWA holds nothing).
    pub fn release(&mut self, now: SimTime, out: &mut Vec<Cell>) -> Option<SimTime> {
        match self {
            AnyEdge::Fiewa(_) => None,
            AnyEdge::Fiabc(f) => {
                let due = f.bucket.release(now, out);
                f.bucket.wake_at(now, due)
            }
        }
    }

    /// ACK packets the edge holds (conservation counts them).
    pub fn held(&self) -> Box<dyn Iterator<Item = &Cell> + '_> {
        match self {
            AnyEdge::Fiewa(_) => Box::new(std::iter::empty()),
            AnyEdge::Fiabc(f) => Box::new(f.bucket.held()),
        }
    }

    /// The scheme's own counts for the report: (name, count) pairs.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        match self {
            AnyEdge::Fiewa(f) => vec![("acks_capped", f.acks_capped)],
            AnyEdge::Fiabc(f) => vec![("acks_held", f.bucket.acks_held), ("acks_passed", f.bucket.acks_passed)],
        }
    }

    /// FIEWA's window cap now, bytes (`None` before the first ER, and for FIABC).
    pub fn window_cap(&self) -> Option<f64> {
        match self {
            AnyEdge::Fiewa(f) => f.window_cap(),
            AnyEdge::Fiabc(_) => None,
        }
    }
}
