//! Strict priority: CBR/VBR cells (the `PRIORITY` flag) before ABR/UBR cells, non-preemptive.
//! A later high-priority arrival can delay cells already queued, so this is a held discipline.
//!
//! High-priority cells have their own unbounded queue outside the buffer and are never dropped
//! [RECON]; the finite buffer and its policy apply to the low-priority class.

use super::{HeldOrder, Next};
use crate::cell::Cell;
use ccsim_engine::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct StrictPriority {
    high: VecDeque<Cell>,
    low: VecDeque<Cell>,
}

impl HeldOrder for StrictPriority {
    #[inline]
    fn buffered(&self, cell: &Cell) -> bool {
        !cell.high_priority()
    }

    fn hold(&mut self, cell: Cell) {
        if cell.high_priority() {
            self.high.push_back(cell);
        } else {
            self.low.push_back(cell);
        }
    }

    fn next(&mut self, _now: SimTime) -> Next {
        Next::from(self.high.pop_front().or_else(|| self.low.pop_front()))
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.high.iter().chain(self.low.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Flags;
    use crate::ids::VcId;

    #[test]
    fn high_priority_goes_first_and_each_class_keeps_its_order() {
        let mut d = StrictPriority::default();
        let hi = |n: u16| {
            let mut c = Cell::data(VcId(1));
            c.frame = n;
            c.flags.set(Flags::PRIORITY, true);
            c
        };
        let lo = |n: u16| {
            let mut c = Cell::data(VcId(0));
            c.frame = n;
            c
        };
        for c in [lo(0), hi(0), lo(1), hi(1)] {
            d.hold(c);
        }
        let order: Vec<(u32, u16)> = std::iter::from_fn(|| d.next(SimTime::ZERO).cell()).map(|c| (c.vc.0, c.frame)).collect();
        assert_eq!(order, [(1, 0), (1, 1), (0, 0), (0, 1)]);
        assert!(!d.buffered(&hi(2)) && d.buffered(&lo(2)));
    }
}
