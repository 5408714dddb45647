//! A finite FIFO port buffer that keeps the books: the policies only decide.
//!
//! The buffer is pure bookkeeping: how many cells are queued, occupancy per VC where a policy
//! reads it, and every drop with its reason. The cells themselves are elsewhere: a FIFO port's
//! queued cells are the newest entries of its link pipe (they entered it with their arrival
//! times at admission; see `Port`), a held discipline keeps its own.
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
//! the port keeps no per-VC memory. Per-VC totals over the route are the world's books
//! (`Vc::books`), and per port the totals by reason.

use super::policy::{AnyBufferPolicy, Occupancy};
use crate::cell::Cell;
use crate::ids::VcId;
use crate::vc_table::VcTable;

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

/// `repr(C)`, per-cell fields first (see `Port`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct PortBuffer {
    capacity: u32,
    /// Cells in the buffer (a FIFO port's newest pipe entries, or cells a held discipline holds).
    queued: u32,
    /// VCs with at least one cell queued (N_a).
    active_vcs: u32,
    /// Keep the end-of-frame cell of a discarded frame so reassembly resynchronises
    /// (seed 001; docs/models/ubr/buffer-policies.md, "Model").
    keep_eom: bool,
    /// Per-VC books and `active_vcs` are kept on every change (a policy reads them); otherwise
    /// none.
    live: bool,
    /// Untagged cells per VC are kept too (WBA). Such a port holds its cells (a held
    /// discipline), so each departure knows its cell's tag (a FIFO port's departures are
    /// applied lazily, where nothing reads the tag; docs/benchmarks.md).
    count_tags: bool,
    policy: AnyBufferPolicy,
    books: VcTable<VcBooks>,
    dropped: [u64; DropReason::COUNT],
    frames: VcTable<FrameState>,
}

impl PortBuffer {
    pub fn new(capacity: u32) -> Self {
        PortBuffer {
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

    /// VCs with at least one cell queued (N_a), where the port keeps per-VC books.
    pub fn active_vcs(&self) -> Option<u32> {
        self.live.then_some(self.active_vcs)
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


    /// Offers a cell: the books of an arrival, and whether it may enter. Frame-blind ports (and
    /// RM cells) use drop-tail per cell; frame-aware policies decide at a frame's first cell and
    /// enforce it on the rest (docs/models/ubr/buffer-policies.md, "Model"). The port keeps the
    /// cell and calls `release` when it leaves.
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

    /// A cell of `vc` left; `clp`: it was tagged.
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

    /// The books of `vc` at this port, where the port keeps per-VC books (see the module doc).
    pub fn books(&self, vc: VcId) -> Option<VcBooks> {
        self.live.then(|| self.books.get(vc).cloned().unwrap_or_default())
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
    use std::collections::VecDeque;

    /// A buffer with its cells' VCs in FIFO order, as a FIFO port keeps them in its pipe.
    struct Fifo {
        b: PortBuffer,
        vcs: VecDeque<VcId>,
    }

    impl Fifo {
        fn new(b: PortBuffer) -> Self {
            Fifo { b, vcs: VecDeque::new() }
        }
        fn offer(&mut self, cell: &Cell) -> Result<(), DropReason> {
            self.b.admit(cell)?;
            self.vcs.push_back(cell.vc);
            Ok(())
        }
        /// The oldest cell leaves.
        fn pop(&mut self) -> Option<VcId> {
            let vc = self.vcs.pop_front()?;
            self.b.release(vc, false);
            Some(vc)
        }
    }

    impl std::ops::Deref for Fifo {
        type Target = PortBuffer;
        fn deref(&self) -> &PortBuffer {
            &self.b
        }
    }

    fn data(vc: u32, eom: bool) -> Cell {
        let mut c = Cell::data(VcId(vc));
        c.flags.set(Flags::EOM, eom);
        c
    }

    #[test]
    fn drop_tail_keeps_the_port_s_books_and_no_per_vc_table() {
        let mut b = Fifo::new(PortBuffer::new(2));
        assert!(b.offer(&data(0, false)).is_ok());
        assert!(b.offer(&data(1, false)).is_ok());
        assert_eq!(b.offer(&data(1, false)), Err(DropReason::Overflow));
        assert_eq!(b.dropped(DropReason::Overflow), 1);
        assert!(b.books(VcId(1)).is_none() && b.active_vcs().is_none());
        assert_eq!(b.pop().unwrap(), VcId(0));
        assert_eq!(b.dropped_total(), 1);
        assert_eq!(b.len(), 1);
        assert!(b.b.books.is_empty() && b.b.frames.is_empty(), "a frame-blind port keeps nothing per VC");
    }

    #[test]
    fn a_frame_aware_port_keeps_books_for_the_vcs_it_saw() {
        let mut b = Fifo::new(PortBuffer::new(2).with_policy(AnyBufferPolicy::Ppd, true));
        assert!(b.offer(&data(7, false)).is_ok());
        assert!(b.offer(&data(9, false)).is_ok());
        assert_eq!(b.offer(&data(9, false)), Err(DropReason::Overflow));
        let nine = b.books(VcId(9)).unwrap();
        assert_eq!((nine.arrived, nine.accepted, nine.dropped_total(), nine.occupancy), (2, 1, 1, 1));
        assert_eq!(b.pop().unwrap(), VcId(7));
        let seven = b.books(VcId(7)).unwrap();
        assert_eq!((seven.departed, seven.occupancy), (1, 0));
        assert_eq!(b.active_vcs(), Some(1));
        assert_eq!(b.b.books.len(), 2);
    }

    /// Offers a frame of `n` cells; returns how many entered.
    fn frame(b: &mut Fifo, vc: u32, n: u32) -> u32 {
        (0..n).filter(|&k| b.offer(&data(vc, k + 1 == n)).is_ok()).count() as u32
    }

    #[test]
    fn ppd_discards_the_rest_of_a_frame_after_an_overflow_but_keeps_the_eom() {
        let mut b = Fifo::new(PortBuffer::new(5).with_policy(AnyBufferPolicy::Ppd, true));
        assert_eq!(frame(&mut b, 0, 3), 3);
        // Two cells fit, the third overflows; the fourth is discarded although space frees.
        assert!(b.offer(&data(1, false)).is_ok());
        assert!(b.offer(&data(1, false)).is_ok());
        assert_eq!(b.offer(&data(1, false)), Err(DropReason::Overflow));
        b.pop();
        assert_eq!(b.offer(&data(1, false)), Err(DropReason::PartialDiscard));
        assert!(b.offer(&data(1, true)).is_ok(), "the end-of-frame cell is kept");
        // The next frame starts afresh.
        b.pop();
        assert!(b.offer(&data(1, false)).is_ok());
    }

    #[test]
    fn cell_drop_tail_keeps_admitting_cells_of_a_damaged_frame() {
        let mut b = Fifo::new(PortBuffer::new(1));
        assert!(b.offer(&data(0, false)).is_ok());
        assert!(b.offer(&data(0, false)).is_err());
        b.pop();
        assert!(b.offer(&data(0, false)).is_ok());
    }

    #[test]
    fn epd_refuses_whole_frames_above_the_threshold() {
        let mut b = Fifo::new(PortBuffer::new(10).with_policy(AnyBufferPolicy::Epd(Epd::new(4)), true));
        assert_eq!(frame(&mut b, 0, 4), 4);
        // Buffer at 4 = R: the next frame is refused whole, except its EOM cell.
        assert_eq!(frame(&mut b, 1, 3), 1);
        assert_eq!(b.books(VcId(1)).unwrap().dropped[DropReason::FrameDiscard.index()], 2);
        // A frame already admitted below R finishes above it.
        for _ in 0..4 {
            b.pop();
        }
        b.pop();
        assert!(b.offer(&data(0, false)).is_ok()); // starts at X = 0
        for _ in 0..5 {
            assert!(b.offer(&data(1, true)).is_ok()); // single-cell frames fill to 6
        }
        assert!(b.offer(&data(0, true)).is_ok(), "VC 0's frame completes above R");
    }

    /// Offers a frame of `n` cells tagged as the F-GCRA tags one (every cell but the end-of-frame
    /// cell has CLP = 1); returns how many entered.
    fn tagged_frame(b: &mut Fifo, vc: u32, n: u32) -> u32 {
        (0..n)
            .filter(|&k| {
                let mut c = data(vc, k + 1 == n);
                c.flags.set(Flags::CLP, k + 1 < n);
                b.offer(&c).is_ok()
            })
            .count() as u32
    }

    /// CLP-aware EPD (seed 001's "preferential dropping of tagged frames"): with tagged and
    /// untagged frames offered above the tagged frames' threshold R1, only tagged frames lose cells
    /// until the buffer reaches the untagged threshold R; from R both are refused. A frame admitted
    /// below its threshold finishes above it, as with plain EPD.
    #[test]
    fn clp_aware_epd_drops_only_tagged_frames_between_its_thresholds() {
        let epd = Epd { threshold: 60, clp1_threshold: Some(30) };
        let mut b = Fifo::new(PortBuffer::new(100).with_policy(AnyBufferPolicy::Epd(epd), true));
        for _ in 0..4 {
            assert_eq!(frame(&mut b, 0, 7), 7);
        }
        assert_eq!(tagged_frame(&mut b, 1, 5), 5, "a tagged frame admitted at X = 28 < R1 finishes above R1");
        // X from 33 to 63: each tagged frame keeps only its end-of-frame cell, each untagged one enters.
        while b.len() < 60 {
            let x = b.len();
            assert_eq!(tagged_frame(&mut b, 1, 5), 1, "tagged frame at X = {x}");
            assert_eq!(frame(&mut b, 2, 5), 5, "untagged frame at X = {}", x + 1);
        }
        assert_eq!(b.len(), 63);
        let (tagged, untagged) = (b.books(VcId(1)).unwrap(), b.books(VcId(2)).unwrap());
        assert_eq!(tagged.dropped[DropReason::FrameDiscard.index()], 5 * 4);
        assert_eq!(untagged.dropped_total(), 0, "no untagged frame lost below R");
        // From R on, untagged frames are refused too (all but their end-of-frame cell).
        assert_eq!(frame(&mut b, 2, 5), 1);
        assert_eq!(tagged_frame(&mut b, 1, 5), 1);
        assert_eq!(b.books(VcId(2)).unwrap().dropped[DropReason::FrameDiscard.index()], 4);
        assert_eq!(b.dropped(DropReason::Overflow), 0);
    }

    #[test]
    fn rm_cells_are_never_frame_discarded() {
        let mut b = Fifo::new(PortBuffer::new(10).with_policy(AnyBufferPolicy::Epd(Epd::new(1)), true));
        assert!(b.offer(&data(0, true)).is_ok());
        let rm = Cell::frm(VcId(0), 1.0, 1.0, 0.0);
        assert!(b.offer(&rm).is_ok());
    }
}
