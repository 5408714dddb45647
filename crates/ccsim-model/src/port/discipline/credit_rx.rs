//! The receiver of a credit-controlled hop (Controlled Transfer, seed 004; docs/models/credit.md):
//! its counters, kept at the node the hop leads to. The transmitter is the port's held order
//! (`credit.rs`); the two ends share only the BSU and BSC cells between them, each on its
//! `ControlLine`.
//!
//! Per unit of credit (a VP, or a connection: the same units as the transmitter's), the receiver
//! counts the cells it forwarded (`Fwd_Counter`), those since its last BSU (`N2_Counter`) and
//! those it holds. The world tells `received` each time the next element took one of the unit's
//! cells into its buffer and `forwarded` each time it forwarded one; every N2 forwarded, a BSU
//! carrying `Fwd_Counter` goes back. A BSC carries the transmitter's `Tx_Counter`: cells sent
//! before it that the receiver neither forwarded nor holds were lost on the hop (their credit
//! comes back), and the receiver answers with a BSU.

use super::credit::{Control, ControlLine, CreditParams, UnitMap};
use crate::ids::VcId;

/// One unit of credit at the receiver.
#[derive(Clone, Debug, Default)]
struct RxUnit {
    /// Cells forwarded (Fwd_Counter), since the last BSU (N2_Counter), and held (received, not
    /// yet forwarded: its buffer occupancy).
    fwd: u64,
    n2: u32,
    held: u32,
}

/// The receiver's counters of a hop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreditStats {
    /// Cells it held beyond a unit's Policy_Limit (0 unless `allow_equal`).
    pub overflows: u64,
    pub bsu_sent: u64,
    /// Cells a BSC found lost on this hop (their credit restored).
    pub cells_recovered: u64,
}

/// The receiving end of one credit-controlled hop.
#[derive(Clone, Debug)]
pub struct CreditRx {
    p: CreditParams,
    map: UnitMap,
    units: Vec<RxUnit>,
    /// The transmitter's BSCs on their way here.
    pub bscs: ControlLine,
    pub stats: CreditStats,
}

impl CreditRx {
    pub fn new(p: CreditParams) -> Self {
        CreditRx { p, map: UnitMap::default(), units: Vec::new(), bscs: ControlLine::default(), stats: CreditStats::default() }
    }

    /// Connection `vc` crosses the hop in VP `vp`, or alone (`Credit::join`, in the same order).
    pub fn join(&mut self, vc: VcId, vp: Option<u32>) {
        if self.map.join(vc, vp) {
            self.units.push(RxUnit::default());
        }
    }

    /// The unit of `vc` (joined alone if it never joined, as the transmitter does).
    #[inline]
    fn unit_of(&mut self, vc: VcId) -> usize {
        match self.map.unit(vc) {
            Some(u) => u as usize,
            None => self.join_alone(vc),
        }
    }

    #[cold]
    fn join_alone(&mut self, vc: VcId) -> usize {
        self.join(vc, None);
        self.units.len() - 1
    }

    /// The next element took a cell of `vc` into its buffer (the next port held it, or the
    /// destination's adapter took it). More than its unit's Policy_Limit there is an overflow
    /// (only with `allow_equal`).
    #[inline]
    pub fn received(&mut self, vc: VcId) {
        let k = self.unit_of(vc);
        let u = &mut self.units[k];
        u.held += 1;
        if u.held > self.p.policy_limit {
            self.stats.overflows += 1;
        }
    }

    /// It forwarded a cell of `vc` (to the next element, which holds it no more here): its
    /// counters; the result is the BSU to send back if one is due (every N2 cells of the unit).
    pub fn forwarded(&mut self, vc: VcId) -> Option<Control> {
        let k = self.unit_of(vc);
        let u = &mut self.units[k];
        debug_assert!(u.held > 0, "a cell forwarded that the receiver never held");
        u.held = u.held.saturating_sub(1);
        u.fwd += 1;
        u.n2 += 1;
        if u.n2 < self.p.n2 {
            return None;
        }
        u.n2 = 0;
        self.stats.bsu_sent += 1;
        Some(Control::Bsu { unit: k as u32, fwd: u.fwd })
    }

    /// A BSC of unit `unit` arrived: cells sent before it and neither forwarded nor held count as
    /// forwarded (lost on the hop: their credit comes back); the result is the BSU it answers
    /// with. Its books must be up to now.
    pub fn on_bsc(&mut self, unit: u32, tx: u64) -> Control {
        let u = &mut self.units[unit as usize];
        let received = u.fwd + u.held as u64;
        if tx > received {
            u.fwd += tx - received;
            self.stats.cells_recovered += tx - received;
        }
        u.n2 = 0;
        self.stats.bsu_sent += 1;
        Control::Bsu { unit, fwd: u.fwd }
    }

    /// N2_Counter of `vc`'s unit: cells forwarded since its last BSU.
    pub fn n2_of(&self, vc: VcId) -> u32 {
        self.map.unit(vc).map_or(0, |u| self.units[u as usize].n2)
    }

    /// N2, the cells it forwards between two BSUs.
    pub fn n2(&self) -> u32 {
        self.p.n2
    }

    /// The first connection of unit `unit`, and whether it is the unit's only one.
    pub fn unit_first(&self, unit: u32) -> (VcId, bool) {
        self.map.first(unit)
    }

    /// Units of credit on the hop.
    pub fn units(&self) -> usize {
        self.map.units()
    }
}
