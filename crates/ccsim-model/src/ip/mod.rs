//! IP-level congestion control at routers: FICCRD core routers (seed 002, ip-edge-control.md
//! Part B) and the edge routers that drive them (FIEWA). One algorithm per file; the `Any…`
//! enums keep the per-packet path free of trait objects.

pub mod csfq;
pub mod ficcrd;
pub mod fiewa;

pub use csfq::RateEstimator;
pub use ficcrd::{FiccrdCore, FiccrdParams};
pub use fiewa::{FiewaFlow, FiewaParams};

use crate::cell::Cell;
use crate::ids::VcId;
use ccsim_engine::SimTime;

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

    pub fn ficcrd(&self) -> Option<&FiccrdCore> {
        match self {
            AnyIpControl::Ficcrd(c) => Some(c),
        }
    }
}

/// Per-flow state a source edge router keeps for one connection.
#[derive(Clone, Debug)]
pub enum AnyEdge {
    Fiewa(FiewaFlow),
}

impl AnyEdge {
    /// A data packet of the flow passed the edge (`bits` on the wire): the forward RD packet to
    /// send right behind it, if one is due.
    #[inline]
    pub fn on_data(&mut self, now: SimTime, vc: VcId, bits: f64) -> Option<Cell> {
        match self {
            AnyEdge::Fiewa(f) => f.on_data(now, vc, bits),
        }
    }

    /// A backward RD packet of the flow came home to the edge.
    pub fn on_backward_rd(&mut self, now: SimTime, rd: &Cell) {
        match self {
            AnyEdge::Fiewa(f) => f.on_backward_rd(now, rd),
        }
    }

    /// An ACK of the flow passes the edge towards the sender (the edge may rewrite it).
    #[inline]
    pub fn on_ack(&mut self, ack: &mut Cell) {
        match self {
            AnyEdge::Fiewa(f) => f.on_ack(ack),
        }
    }

    pub fn fiewa(&self) -> Option<&FiewaFlow> {
        match self {
            AnyEdge::Fiewa(f) => Some(f),
        }
    }
}
