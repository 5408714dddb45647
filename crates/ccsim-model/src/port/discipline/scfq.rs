//! Self-Clocked Fair Queuing (Golestani, INFOCOM 1994) for cells: per-VC queues over the port's
//! shared buffer, served by finish tag, weights from each VC's MCR (GFR's per-VC scheduling,
//! docs/models/ubr/gfr.md). A held discipline (`discipline/mod.rs`'s contract): the buffer's
//! policy still admits; this only orders.
//!
//! A cell of VC i arriving gets the tag F_i = max(F_i, v) + 1/w_i; the server takes the head cell
//! with the smallest tag (ties: the smaller VC index) and the system virtual time v becomes that
//! tag. A VC that was idle restarts from v, so idleness earns no credit to burst with later; a
//! VC's tags increase, so its cells keep their order. When the port empties, v and every F_i
//! restart at zero (a new busy period).

use super::{HeldOrder, Next};
use crate::cell::Cell;
use crate::ids::VcId;
use crate::vc_table::VcTable;
use ccsim_engine::SimTime;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A finish tag with a total order (tags are finite and non-negative).
#[derive(Copy, Clone, Debug, PartialEq)]
struct Tag(f64);

impl Eq for Tag {}
impl PartialOrd for Tag {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Tag {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// What SCFQ keeps per VC at a port.
#[derive(Clone, Debug)]
struct ScfqVc {
    /// Its queued cells with their tags.
    queue: VecDeque<(f64, Cell)>,
    /// Weight (cells/s: the MCR, or the floor).
    weight: f64,
    /// The last finish tag F_i of this busy period.
    finish: f64,
}

#[derive(Clone, Debug, Default)]
pub struct Scfq {
    /// Per VC that reaches the port.
    vcs: VcTable<ScfqVc>,
    /// Entries whose F_i is not zero (reset when the port empties).
    touched: Vec<u32>,
    /// The system virtual time v.
    v: f64,
    /// Backlogged VCs (numbers) by the tag of their head cell, ties to the lower VC number.
    heads: BinaryHeap<Reverse<(Tag, u32)>>,
    held: usize,
    /// The weight of VCs without an MCR.
    floor: f64,
}

impl Scfq {
    /// VCs without a weight get `floor` (cells/s, > 0).
    pub fn new(floor: f64) -> Self {
        assert!(floor > 0.0, "SCFQ needs positive weights");
        Scfq { floor, ..Default::default() }
    }

    /// The entry of VC `vc`, made with the floor weight if it has none.
    fn slot(&mut self, vc: VcId) -> usize {
        let floor = self.floor;
        self.vcs.insert_with(vc, || ScfqVc { queue: VecDeque::new(), weight: floor, finish: 0.0 })
    }

    /// VC `vc`'s weight: its MCR in cells/s (the floor if that is smaller, MCR 0 included).
    pub fn set_weight(&mut self, vc: VcId, mcr: f64) {
        let (s, floor) = (self.slot(vc), self.floor);
        self.vcs.at_mut(s).weight = mcr.max(floor);
    }
}

impl HeldOrder for Scfq {
    fn buffered(&self, _cell: &Cell) -> bool {
        true
    }

    fn hold(&mut self, cell: Cell) {
        let s = self.slot(cell.vc);
        let e = self.vcs.at_mut(s);
        if e.finish == 0.0 {
            self.touched.push(s as u32);
        }
        // Tags in units of 1 s of the VC's weight: 1/w_i seconds per cell.
        let tag = e.finish.max(self.v) + 1.0 / e.weight;
        e.finish = tag;
        if e.queue.is_empty() {
            self.heads.push(Reverse((Tag(tag), cell.vc.0)));
        }
        e.queue.push_back((tag, cell));
        self.held += 1;
    }

    fn next(&mut self, _now: SimTime) -> Next {
        let Some(Reverse((Tag(tag), i))) = self.heads.pop() else {
            // The port is empty: a new busy period starts from zero.
            self.v = 0.0;
            for s in self.touched.drain(..) {
                self.vcs.at_mut(s as usize).finish = 0.0;
            }
            return Next::Idle;
        };
        let s = self.vcs.slot(VcId(i)).expect("a backlogged VC has an entry");
        let q = &mut self.vcs.at_mut(s).queue;
        let (_, cell) = q.pop_front().expect("a backlogged VC has a head cell");
        if let Some(&(next, _)) = q.front() {
            self.heads.push(Reverse((Tag(next), i)));
        }
        self.v = tag;
        self.held -= 1;
        Next::Cell(cell)
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.vcs.values().flat_map(|e| e.queue.iter().map(|(_, c)| c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;

    fn cell(vc: u32, n: u16) -> Cell {
        let mut c = Cell::data(VcId(vc));
        c.frame = n;
        c
    }

    /// Serves `n` cells from two always-backlogged VCs (kept topped up); returns per-VC counts.
    fn serve_backlogged(s: &mut Scfq, n: usize) -> [usize; 2] {
        let mut got = [0; 2];
        let mut sent = [0u16; 2];
        for vc in 0..2 {
            for _ in 0..4 {
                s.hold(cell(vc, sent[vc as usize]));
                sent[vc as usize] += 1;
            }
        }
        for _ in 0..n {
            let c = s.next(SimTime::ZERO).cell().expect("backlogged");
            let vc = c.vc.index();
            assert_eq!(c.frame as usize, got[vc], "VC {vc} out of order");
            got[vc] += 1;
            s.hold(cell(vc as u32, sent[vc]));
            sent[vc] += 1;
        }
        got
    }

    #[test]
    fn backlogged_vcs_share_by_weight_within_a_cell() {
        let mut s = Scfq::new(1.0);
        s.set_weight(VcId(0), 1000.0);
        s.set_weight(VcId(1), 3000.0);
        for n in [4, 40, 400, 4001] {
            let mut t = s.clone();
            let got = serve_backlogged(&mut t, n);
            let want = n as f64 / 4.0;
            assert!((got[0] as f64 - want).abs() <= 1.0, "{n} cells: {got:?}");
        }
    }

    #[test]
    fn an_idle_vc_earns_no_credit() {
        let mut s = Scfq::new(1.0);
        s.set_weight(VcId(0), 1000.0);
        s.set_weight(VcId(1), 1000.0);
        // VC 0 alone for 100 cells (VC 1 idle, but the port stays busy).
        for k in 0..100 {
            s.hold(cell(0, k));
        }
        for _ in 0..50 {
            s.next(SimTime::ZERO);
        }
        // VC 1 comes back with a burst: it alternates with VC 0 from now on instead of
        // taking the 50 cells' worth of service it missed.
        for k in 0..50 {
            s.hold(cell(1, k));
        }
        let order: Vec<usize> = (0..20).map(|_| s.next(SimTime::ZERO).cell().unwrap().vc.index()).collect();
        let ones = order.iter().filter(|&&v| v == 1).count();
        assert!((9..=11).contains(&ones), "{order:?}");
    }

    #[test]
    fn mcr_zero_gets_the_floor_and_an_empty_port_restarts() {
        let mut s = Scfq::new(10.0);
        s.set_weight(VcId(0), 0.0);
        s.set_weight(VcId(1), 1000.0);
        let got = serve_backlogged(&mut s, 1010);
        assert!(got[0] >= 9 && got[0] <= 11, "{got:?}");
        while s.next(SimTime::ZERO).cell().is_some() {}
        assert_eq!(s.v, 0.0);
        assert!(s.vcs.values().all(|e| e.finish == 0.0));
        assert_eq!(s.cells().count(), 0);
    }
}
