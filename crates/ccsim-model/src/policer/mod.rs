//! The `AnyPolicer` family: conformance checking of a VC's cells where it enters the network
//! (GFR's frame-based GCRA, docs/models/ubr/gfr.md). A policer is per VC, sits at the VC's first
//! switch before the scheme hooks and the buffer, and only decides; the switch applies the
//! verdict (tags the cell, or drops it and counts the drop) and keeps the books.

mod frame_gcra;

pub use frame_gcra::{FrameGcra, FrameGcraParams, Tolerance};

use crate::cell::Cell;
use ccsim_engine::SimTime;

/// What to do with a non-conforming frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PolicerAction {
    /// Set CLP = 1 on its cells (never on the end-of-frame cell).
    Tag,
    /// Discard its cells (never the end-of-frame cell, so reassembly resynchronises).
    Drop,
}

/// A policer's verdict on one cell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Tag,
    Drop,
}

pub trait Policer {
    /// A forward data cell of the VC entering the network at `now`.
    fn on_cell(&mut self, now: SimTime, cell: &Cell) -> Verdict;
}

/// Every policer, stored inline.
#[derive(Clone, Debug)]
pub enum AnyPolicer {
    FrameGcra(FrameGcra),
}

impl AnyPolicer {
    #[inline]
    pub fn on_cell(&mut self, now: SimTime, cell: &Cell) -> Verdict {
        match self {
            AnyPolicer::FrameGcra(p) => p.on_cell(now, cell),
        }
    }

    /// Frames found non-conforming so far (tagged or dropped).
    pub fn frames_nonconforming(&self) -> u64 {
        match self {
            AnyPolicer::FrameGcra(p) => p.frames_nonconforming,
        }
    }

    /// Frames seen so far.
    pub fn frames_seen(&self) -> u64 {
        match self {
            AnyPolicer::FrameGcra(p) => p.frames_seen,
        }
    }
}
