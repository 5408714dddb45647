//! A finite FIFO port buffer that keeps the books (STYLE §7).
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

use crate::ids::VcId;
use ccsim_engine::SimTime;
use std::collections::VecDeque;

/// Why a cell was dropped. An enum, never a string.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full (drop-tail).
    Overflow,
    /// The port's scheme refused the cell (DEBRA's selective discard).
    Selective,
}

impl DropReason {
    pub const ALL: [DropReason; 2] = [DropReason::Overflow, DropReason::Selective];
    pub const COUNT: usize = Self::ALL.len();

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Selective => "selective",
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
}

impl VcBooks {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

#[derive(Clone, Debug)]
pub struct PortBuffer {
    /// (end of transmission, VC) per queued cell, in departure order.
    cells: VecDeque<(SimTime, VcId)>,
    capacity: u32,
    books: Vec<VcBooks>,
    dropped: [u64; DropReason::COUNT],
}

impl PortBuffer {
    pub fn new(capacity: u32, n_vcs: usize) -> Self {
        PortBuffer {
            cells: VecDeque::with_capacity((capacity as usize).min(4096)),
            capacity,
            books: vec![VcBooks::default(); n_vcs],
            dropped: [0; DropReason::COUNT],
        }
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.cells.len() as u32
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    #[inline]
    pub fn is_full(&self) -> bool {
        self.len() >= self.capacity
    }

    /// Offers a cell of `vc`; the drop-tail rule is the only policy so far. The caller
    /// supplies the departure time only once the cell is known to fit.
    #[inline]
    pub fn offer(&mut self, vc: VcId, departure: impl FnOnce() -> SimTime) -> Result<SimTime, DropReason> {
        let b = &mut self.books[vc.index()];
        b.arrived += 1;
        if self.cells.len() as u32 >= self.capacity {
            b.dropped[DropReason::Overflow.index()] += 1;
            self.dropped[DropReason::Overflow.index()] += 1;
            debug_assert_eq!(b.arrived, b.accepted + b.dropped_total());
            return Err(DropReason::Overflow);
        }
        b.accepted += 1;
        b.occupancy += 1;
        let dep = departure();
        self.cells.push_back((dep, vc));
        debug_assert_eq!(b.arrived, b.accepted + b.dropped_total());
        debug_assert_eq!(b.occupancy as u64, b.accepted - b.departed);
        Ok(dep)
    }

    /// Records a cell of `vc` that arrived but was refused before the buffer was consulted.
    #[inline]
    pub fn reject(&mut self, vc: VcId, reason: DropReason) {
        let b = &mut self.books[vc.index()];
        b.arrived += 1;
        b.dropped[reason.index()] += 1;
        self.dropped[reason.index()] += 1;
        debug_assert_eq!(b.arrived, b.accepted + b.dropped_total());
    }

    /// When the cell at the head finishes transmission.
    #[inline]
    pub fn head_departure(&self) -> Option<SimTime> {
        self.cells.front().map(|&(t, _)| t)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, VcId)> {
        let (t, vc) = self.cells.pop_front()?;
        let b = &mut self.books[vc.index()];
        b.departed += 1;
        b.occupancy -= 1;
        debug_assert_eq!(b.occupancy as u64, b.accepted - b.departed);
        Some((t, vc))
    }

    pub fn books(&self, vc: VcId) -> &VcBooks {
        &self.books[vc.index()]
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

    #[test]
    fn drop_tail_keeps_the_books() {
        let mut b = PortBuffer::new(2, 2);
        let t = |ps| move || SimTime::from_ps(ps);
        assert!(b.offer(VcId(0), t(1)).is_ok());
        assert!(b.offer(VcId(1), t(2)).is_ok());
        assert_eq!(b.offer(VcId(1), t(3)), Err(DropReason::Overflow));
        assert_eq!(b.books(VcId(1)).dropped_total(), 1);
        assert_eq!(b.books(VcId(1)).occupancy, 1);
        assert_eq!(b.head_departure(), Some(SimTime::from_ps(1)));
        assert_eq!(b.pop().unwrap().1, VcId(0));
        assert_eq!(b.books(VcId(0)).departed, 1);
        assert_eq!(b.books(VcId(0)).occupancy, 0);
        assert_eq!(b.dropped_total(), 1);
        assert_eq!(b.len(), 1);
    }
}
