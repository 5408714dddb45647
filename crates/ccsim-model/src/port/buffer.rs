//! A finite FIFO port buffer that keeps the books: the policies only decide.
//!
//! The buffer holds a token per queued cell: its VC and the time its transmission ends. The
//! cell itself already sits in the link pipe (see `Port`), so the buffer is pure bookkeeping:
//! occupancy per VC and per port, and every drop with its reason.
//!
//! Every algorithm that decides whether a cell may enter (drop-tail today; EPD, PPD, Selective
//! Drop, DEBRA's selective discard later) only returns a verdict; this type does the counting:
//! per VC and per port it knows what arrived, what was accepted, what was dropped and why, and
//! what left, and debug builds assert `arrived = accepted + dropped` and
//! `occupancy = accepted − departed` on every change.
//!
//! Per-VC books (arrivals, drops, occupancy, and the number of VCs with cells queued) are kept
//! only where a policy reads them (the frame-aware ones: EPD, PPD, Selective Drop, FBA, WBA), in
//! a table of the VCs that reach the port (`VcTable`). Elsewhere a cell costs no per-VC work and
//! the port keeps no per-VC memory: `books` counts a VC's queued tokens when asked. Per-VC
//! totals over the route are the world's books (`Vc::books`), and per port the totals by reason.

use super::policy::{AnyBufferPolicy, Occupancy};
use crate::cell::Cell;
use crate::ids::VcId;
use crate::vc_table::VcTable;
use ccsim_engine::SimTime;
use super::ring::Ring;

/// Why a cell was dropped. An enum, never a string.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full (drop-tail).
    Overflow,
    /// The port's scheme refused the cell (DEBRA's selective discard).
    Selective,
    /// The buffer policy refused the whole frame at its first cell (EPD, SD, FBA).
    FrameDiscard,
    /// The rest of a frame after one of its cells overflowed (PPD).
    PartialDiscard,
    /// An active queue manager (RED) dropped the packet before the buffer was full.
    Early,
    /// The VC's ingress policer dropped a cell of a non-conforming frame (GFR's F-GCRA).
    Policed,
}

impl DropReason {
    pub const ALL: [DropReason; 6] = [
        DropReason::Overflow,
        DropReason::Selective,
        DropReason::FrameDiscard,
        DropReason::PartialDiscard,
        DropReason::Early,
        DropReason::Policed,
    ];
    pub const COUNT: usize = Self::ALL.len();

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Selective => "selective",
            DropReason::FrameDiscard => "frame_discard",
            DropReason::PartialDiscard => "partial_discard",
            DropReason::Early => "early",
            DropReason::Policed => "policed",
        }
    }
}

/// Per-VC counters at one port.
#[derive(Clone, Debug, Default)]
pub struct VcBooks {
    pub arrived: u64,
    pub accepted: u64,
    pub departed: u64,
    pub dropped: [u64; DropReason::COUNT],
    pub occupancy: u32,
    /// Untagged (CLP = 0) cells in the buffer, L_i (kept live with `occupancy`).
    pub untagged: u32,
}

impl VcBooks {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

/// Where each VC is within its current AAL5 frame (docs/models/ubr/buffer-policies.md, "Model").
#[derive(Copy, Clone, Debug)]
struct FrameState {
    expect_first: bool,
    /// Why the rest of the current frame is being discarded, if it is.
    discarding: Option<DropReason>,
}

impl Default for FrameState {
    fn default() -> Self {
        FrameState { expect_first: true, discarding: None }
    }
}

/// A queued item of a FIFO port: when its transmission ends, whose it is, its wire size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub departure: SimTime,
    pub vc: VcId,
    pub size: u16,
}

/// `repr(C)`, per-cell fields first (see `Port`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct PortBuffer {
    /// One token per queued cell or packet, in departure order.
    cells: Ring<Token>,
    capacity: u32,
    /// Cells in the buffer (FIFO tokens or cells held by an event-scheduled port).
    queued: u32,
    /// VCs with at least one cell queued (N_a).
    active_vcs: u32,
    /// Keep the end-of-frame cell of a discarded frame so reassembly resynchronises
    /// (seed 001; docs/models/ubr/buffer-policies.md, "Model").
    keep_eom: bool,
    /// Per-VC books and `active_vcs` are kept on every change (a policy reads them); otherwise
    /// none, and `books` derives the occupancy from the queued tokens.
    live: bool,
    /// Untagged cells per VC are kept too (WBA). Such a port holds its cells (a held
    /// discipline), so each departure knows its cell's tag: a tag in every FIFO token cost
    /// ~8-38 instructions per cell-hop on GFC1, where nothing reads it (docs/benchmarks.md).
    count_tags: bool,
    policy: AnyBufferPolicy,
    books: VcTable<VcBooks>,
    dropped: [u64; DropReason::COUNT],
    frames: VcTable<FrameState>,
}

impl PortBuffer {
    pub fn new(capacity: u32) -> Self {
        PortBuffer {
            cells: Ring::default(),
            capacity,
            books: VcTable::new(),
            dropped: [0; DropReason::COUNT],
            policy: AnyBufferPolicy::CellDropTail,
            keep_eom: true,
            frames: VcTable::new(),
            active_vcs: 0,
            queued: 0,
            live: false,
            count_tags: false,
        }
    }

    pub fn with_policy(mut self, policy: AnyBufferPolicy, keep_eom: bool) -> Self {
        self.live = policy.frame_aware();
        self.count_tags = policy.counts_tags();
        self.policy = policy;
        self.keep_eom = keep_eom;
        self
    }

    pub fn policy(&self) -> &AnyBufferPolicy {
        &self.policy
    }

    /// The policy, for per-VC settings made after the port was built (WBA's weights).
    pub fn policy_mut(&mut self) -> &mut AnyBufferPolicy {
        &mut self.policy
    }

    /// VCs with at least one cell queued (N_a).
    pub fn active_vcs(&self) -> u32 {
        if self.live {
            return self.active_vcs;
        }
        let mut vcs: Vec<VcId> = self.cells.iter().map(|t| t.vc).collect();
        vcs.sort_unstable();
        vcs.dedup();
        vcs.len() as u32
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.queued
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.queued == 0
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }



    /// Offers a cell to a FIFO port. Frame-blind ports (and RM cells) use drop-tail per cell;
    /// frame-aware policies decide at a frame's first cell and enforce it on the rest
    /// (docs/models/ubr/buffer-policies.md, "Model"). The caller supplies the departure time only once the cell enters.
    #[inline]
    pub fn offer(&mut self, cell: &Cell, departure: impl FnOnce() -> SimTime) -> Result<SimTime, DropReason> {
        self.admit(cell)?;
        let dep = departure();
        debug_assert!(!self.policy.counts_tags(), "a policy that counts tags runs on a held discipline");
        self.cells.push_back(Token { departure: dep, vc: cell.vc, size: cell.size });
        Ok(dep)
    }

    /// The books of an arrival without the FIFO token (ports that schedule departures as
    /// events keep the cells themselves; they call `release` when one leaves).
    #[inline]
    pub fn admit(&mut self, cell: &Cell) -> Result<(), DropReason> {
        if self.live {
            return self.admit_live(cell);
        }
        if self.queued >= self.capacity {
            self.dropped[DropReason::Overflow.index()] += 1;
            return Err(DropReason::Overflow);
        }
        self.queued += 1;
        Ok(())
    }

    /// `admit` where a policy reads per-VC books (frame-aware policies), out of the inline path
    /// of the frame-blind ports.
    #[inline(never)]
    fn admit_live(&mut self, cell: &Cell) -> Result<(), DropReason> {
        self.books.entry(cell.vc).arrived += 1;
        let full = self.queued >= self.capacity;
        let verdict = if cell.is_control() {
            if full {
                Err(DropReason::Overflow)
            } else {
                Ok(())
            }
        } else {
            self.frame_verdict(cell, full)
        };
        if let Err(reason) = verdict {
            self.count_drop(cell.vc, reason);
            return Err(reason);
        }
        let b = self.books.entry(cell.vc);
        b.accepted += 1;
        b.occupancy += 1;
        b.untagged += (self.count_tags && !cell.clp()) as u32;
        debug_assert_eq!(b.occupancy as u64, b.accepted - b.departed);
        debug_assert_eq!(b.arrived, b.accepted + b.dropped_total());
        if b.occupancy == 1 {
            self.active_vcs += 1;
        }
        self.queued += 1;
        Ok(())
    }

    /// A cell of `vc` left (event-scheduled ports); `clp`: it was tagged.
    #[inline]
    pub fn release(&mut self, vc: VcId, clp: bool) {
        if self.live {
            self.release_books(vc, clp);
        }
        self.queued -= 1;
    }

    /// A departure's per-VC books, out of the inline path: most ports keep none.
    #[inline(never)]
    fn release_books(&mut self, vc: VcId, clp: bool) {
        let b = self.books.entry(vc);
        b.departed += 1;
        b.occupancy -= 1;
        b.untagged -= (self.count_tags && !clp) as u32;
        if b.occupancy == 0 {
            self.active_vcs -= 1;
        }
        debug_assert_eq!(b.occupancy as u64, b.accepted - b.departed);
    }

    fn frame_verdict(&mut self, cell: &Cell, full: bool) -> Result<(), DropReason> {
        let (of_vc, untagged_of_vc) = self.books.get(cell.vc).map_or((0, 0), |b| (b.occupancy, b.untagged));
        let occupancy = Occupancy {
            capacity: self.capacity,
            total: self.queued,
            of_vc,
            active_vcs: self.active_vcs,
            untagged_of_vc,
            tagged: cell.clp(),
            vc: cell.vc,
        };
        let st = self.frames.entry(cell.vc);
        if st.expect_first {
            st.expect_first = false;
            st.discarding = (!self.policy.admit_frame(&occupancy)).then_some(DropReason::FrameDiscard);
        }
        let verdict = match st.discarding {
            None if !full => Ok(()),
            None => {
                // Overflow inside an admitted frame: the rest of it is useless (PPD).
                st.discarding = Some(DropReason::PartialDiscard);
                Err(DropReason::Overflow)
            }
            Some(_) if cell.eom() && self.keep_eom && !full => Ok(()),
            Some(reason) => Err(if full { DropReason::Overflow } else { reason }),
        };
        if cell.eom() {
            *st = FrameState::default();
        }
        verdict
    }

    fn count_drop(&mut self, vc: VcId, reason: DropReason) {
        self.dropped[reason.index()] += 1;
        if self.live {
            let b = self.books.entry(vc);
            b.dropped[reason.index()] += 1;
            debug_assert_eq!(b.arrived, b.accepted + b.dropped_total());
        }
    }

    /// Records a cell of `vc` that arrived but was refused before the buffer was consulted.
    #[inline]
    pub fn reject(&mut self, vc: VcId, reason: DropReason) {
        if self.live {
            self.books.entry(vc).arrived += 1;
        }
        self.count_drop(vc, reason);
    }

    /// The queued FIFO tokens, oldest first.
    pub fn tokens(&self) -> impl Iterator<Item = &Token> {
        self.cells.iter()
    }

    /// When the cell at the head finishes transmission.
    #[inline]
    pub fn head_departure(&self) -> Option<SimTime> {
        self.cells.front().map(|t| t.departure)
    }

    /// The FIFO token at the head: the item in transmission.
    #[inline]
    pub fn head(&self) -> Option<&Token> {
        self.cells.front()
    }

    /// The head FIFO token leaves.
    #[inline]
    pub fn pop(&mut self) -> Option<Token> {
        self.pop_departed(SimTime::MAX)
    }

    /// The head FIFO token leaves if its transmission ended by `now`.
    #[inline]
    pub fn pop_departed(&mut self, now: SimTime) -> Option<Token> {
        let t = self.cells.pop_front_if(|t| t.departure <= now)?;
        // No tag kept with a token: FIFO ports never count tags (`AnyBufferPolicy::counts_tags`).
        self.release(t.vc, false);
        Some(t)
    }

    /// The books of `vc` at this port. Without live books (see the module doc) only the
    /// occupancy, counted from the queued tokens: FIFO ports only (an event-scheduled port holds
    /// its cells).
    pub fn books(&self, vc: VcId) -> VcBooks {
        if self.live {
            return self.books.get(vc).cloned().unwrap_or_default();
        }
        VcBooks { occupancy: self.cells.iter().filter(|t| t.vc == vc).count() as u32, ..Default::default() }
    }

    pub fn dropped(&self, reason: DropReason) -> u64 {
        self.dropped[reason.index()]
    }

    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Flags;
    use crate::port::policy::Epd;

    fn t(ps: u64) -> impl FnOnce() -> SimTime {
        move || SimTime::from_ps(ps)
    }

    fn data(vc: u32, eom: bool) -> Cell {
        let mut c = Cell::data(VcId(vc));
        c.flags.set(Flags::EOM, eom);
        c
    }

    #[test]
    fn drop_tail_keeps_the_port_s_books_and_no_per_vc_table() {
        let mut b = PortBuffer::new(2);
        assert!(b.offer(&data(0, false), t(1)).is_ok());
        assert!(b.offer(&data(1, false), t(2)).is_ok());
        assert_eq!(b.offer(&data(1, false), t(3)), Err(DropReason::Overflow));
        assert_eq!(b.dropped(DropReason::Overflow), 1);
        assert_eq!(b.books(VcId(1)).occupancy, 1);
        assert_eq!(b.active_vcs(), 2);
        assert_eq!(b.head_departure(), Some(SimTime::from_ps(1)));
        assert_eq!(b.pop().unwrap().vc, VcId(0));
        assert_eq!(b.books(VcId(0)).occupancy, 0);
        assert_eq!(b.active_vcs(), 1);
        assert_eq!(b.dropped_total(), 1);
        assert_eq!(b.len(), 1);
        assert!(b.books.is_empty() && b.frames.is_empty(), "a frame-blind port keeps nothing per VC");
    }

    #[test]
    fn a_frame_aware_port_keeps_books_for_the_vcs_it_saw() {
        let mut b = PortBuffer::new(2).with_policy(AnyBufferPolicy::Ppd, true);
        assert!(b.offer(&data(7, false), t(1)).is_ok());
        assert!(b.offer(&data(9, false), t(2)).is_ok());
        assert_eq!(b.offer(&data(9, false), t(3)), Err(DropReason::Overflow));
        let nine = b.books(VcId(9));
        assert_eq!((nine.arrived, nine.accepted, nine.dropped_total(), nine.occupancy), (2, 1, 1, 1));
        assert_eq!(b.pop().unwrap().vc, VcId(7));
        assert_eq!((b.books(VcId(7)).departed, b.books(VcId(7)).occupancy), (1, 0));
        assert_eq!(b.active_vcs(), 1);
        assert_eq!(b.books.len(), 2);
    }

    /// Offers a frame of `n` cells; returns how many entered.
    fn frame(b: &mut PortBuffer, vc: u32, n: u32) -> u32 {
        (0..n).filter(|&k| b.offer(&data(vc, k + 1 == n), t(0)).is_ok()).count() as u32
    }

    #[test]
    fn ppd_discards_the_rest_of_a_frame_after_an_overflow_but_keeps_the_eom() {
        let mut b = PortBuffer::new(5).with_policy(AnyBufferPolicy::Ppd, true);
        assert_eq!(frame(&mut b, 0, 3), 3);
        // Two cells fit, the third overflows; the fourth is discarded although space frees.
        assert!(b.offer(&data(1, false), t(0)).is_ok());
        assert!(b.offer(&data(1, false), t(0)).is_ok());
        assert_eq!(b.offer(&data(1, false), t(0)), Err(DropReason::Overflow));
        b.pop();
        assert_eq!(b.offer(&data(1, false), t(0)), Err(DropReason::PartialDiscard));
        assert!(b.offer(&data(1, true), t(0)).is_ok(), "the end-of-frame cell is kept");
        // The next frame starts afresh.
        b.pop();
        assert!(b.offer(&data(1, false), t(0)).is_ok());
    }

    #[test]
    fn cell_drop_tail_keeps_admitting_cells_of_a_damaged_frame() {
        let mut b = PortBuffer::new(1);
        assert!(b.offer(&data(0, false), t(0)).is_ok());
        assert!(b.offer(&data(0, false), t(0)).is_err());
        b.pop();
        assert!(b.offer(&data(0, false), t(0)).is_ok());
    }

    #[test]
    fn epd_refuses_whole_frames_above_the_threshold() {
        let mut b = PortBuffer::new(10).with_policy(AnyBufferPolicy::Epd(Epd { threshold: 4 }), true);
        assert_eq!(frame(&mut b, 0, 4), 4);
        // Buffer at 4 = R: the next frame is refused whole, except its EOM cell.
        assert_eq!(frame(&mut b, 1, 3), 1);
        assert_eq!(b.books(VcId(1)).dropped[DropReason::FrameDiscard.index()], 2);
        // A frame already admitted below R finishes above it.
        for _ in 0..4 {
            b.pop();
        }
        b.pop();
        assert!(b.offer(&data(0, false), t(0)).is_ok()); // starts at X = 0
        for _ in 0..5 {
            assert!(b.offer(&data(1, true), t(0)).is_ok()); // single-cell frames fill to 6
        }
        assert!(b.offer(&data(0, true), t(0)).is_ok(), "VC 0's frame completes above R");
    }

    #[test]
    fn rm_cells_are_never_frame_discarded() {
        let mut b = PortBuffer::new(10).with_policy(AnyBufferPolicy::Epd(Epd { threshold: 1 }), true);
        assert!(b.offer(&data(0, true), t(0)).is_ok());
        let rm = Cell::frm(VcId(0), 1.0, 1.0, 0.0);
        assert!(b.offer(&rm, t(0)).is_ok());
    }
}
