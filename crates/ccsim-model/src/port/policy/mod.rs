//! The `AnyBufferPolicy` family: who may enter a port's buffer (docs/models/ubr/buffer-policies.md).
//!
//! Decisions are per AAL5 frame, taken at its first cell and enforced on the rest; the
//! generic skeleton (frame state per VC, partial packet discard after an overflow, keeping
//! the end-of-frame cell) is here, each policy only answers "admit this new frame?" from the
//! buffer's books (the buffer keeps the books, the policy only decides).

mod epd;
mod fba;
mod selective_drop;
mod wba;

pub use epd::Epd;
pub use fba::Fba;
pub use selective_drop::SelectiveDrop;
pub use wba::Wba;

use crate::ids::VcId;

/// What a policy may look at when a frame starts.
#[derive(Copy, Clone, Debug, Default)]
pub struct Occupancy {
    /// Buffer capacity K, cells.
    pub capacity: u32,
    /// Cells in the buffer, X.
    pub total: u32,
    /// Cells of the arriving frame's VC in the buffer, Y_i.
    pub of_vc: u32,
    /// VCs with at least one cell in the buffer, N_a.
    pub active_vcs: u32,
    /// Untagged (CLP = 0) cells of the VC in the buffer, L_i (kept only where a policy reads it).
    pub untagged_of_vc: u32,
    /// The frame's first cell is tagged (CLP = 1).
    pub tagged: bool,
    /// The arriving frame's VC.
    pub vc: VcId,
}

pub trait BufferPolicy {
    /// Admit the frame whose first cell is arriving?
    fn admit_frame(&self, o: &Occupancy) -> bool;
}

/// Every buffer policy, stored inline (WBA boxed).
#[derive(Clone, Debug, PartialEq)]
pub enum AnyBufferPolicy {
    /// Drop-tail per cell, blind to frames ("vanilla UBR", and every ABR port).
    CellDropTail,
    /// Partial packet discard: after an overflow the rest of that frame goes too.
    Ppd,
    Epd(Epd),
    SelectiveDrop(SelectiveDrop),
    Fba(Fba),
    /// Weighted Buffer Allocation (GFR). Boxed: its per-VC weights would make every port's
    /// policy as large.
    Wba(Box<Wba>),
}

impl AnyBufferPolicy {
    /// Does this policy read the untagged cells of each VC (`Occupancy::untagged_of_vc`)? Its
    /// port then holds its cells (`WorldBuilder::add_port`).
    pub fn counts_tags(&self) -> bool {
        matches!(self, AnyBufferPolicy::Wba(_))
    }

    /// Does this policy look at frames at all?
    pub fn frame_aware(&self) -> bool {
        !matches!(self, AnyBufferPolicy::CellDropTail)
    }

    #[inline]
    pub fn admit_frame(&self, o: &Occupancy) -> bool {
        match self {
            AnyBufferPolicy::CellDropTail | AnyBufferPolicy::Ppd => true,
            AnyBufferPolicy::Epd(p) => p.admit_frame(o),
            AnyBufferPolicy::SelectiveDrop(p) => p.admit_frame(o),
            AnyBufferPolicy::Fba(p) => p.admit_frame(o),
            AnyBufferPolicy::Wba(p) => p.admit_frame(o),
        }
    }

    /// The buffer levels at which this policy starts refusing frames, in the port's unit (what a
    /// queue plot draws): EPD's, Selective Drop's, FBA's and WBA's threshold R, EPD's threshold for
    /// tagged frames and WBA's hard threshold.
    pub fn thresholds(&self) -> Vec<(&'static str, u32)> {
        match self {
            AnyBufferPolicy::CellDropTail | AnyBufferPolicy::Ppd => Vec::new(),
            AnyBufferPolicy::Epd(p) => std::iter::once(("epd", p.threshold)).chain(p.clp1_threshold.map(|t| ("epd_clp1", t))).collect(),
            AnyBufferPolicy::SelectiveDrop(p) => vec![("selective_drop", p.threshold)],
            AnyBufferPolicy::Fba(p) => vec![("fba", p.threshold)],
            AnyBufferPolicy::Wba(p) => std::iter::once(("wba", p.threshold)).chain(p.hard_threshold.map(|h| ("wba_hard", h))).collect(),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            AnyBufferPolicy::CellDropTail => "drop_tail",
            AnyBufferPolicy::Ppd => "ppd",
            AnyBufferPolicy::Epd(_) => "epd",
            AnyBufferPolicy::SelectiveDrop(_) => "selective_drop",
            AnyBufferPolicy::Fba(_) => "fba",
            AnyBufferPolicy::Wba(_) => "wba",
        }
    }
}
