//! The TM 4.0 ABR destination end system (DES), docs/models/abr/source.md.
//!
//! Benchmarks carry no reverse data, so every forward RM cell is turned around at once
//! ([IMPL]: docs/models/abr/source.md, "Deviations and implementation choices"; seed 000: the
//! DES "merely turns around any RM cell").

use crate::cell::{Cell, CellKind, Flags};

#[derive(Clone, Debug, Default)]
pub struct AbrDestination {
    /// DEBRA [RECON]: the FRM's ER carries the source's bid, and switches may only lower ER,
    /// so the turned-around cell starts from an unlimited ER; each switch then writes its
    /// advertisement and the source learns the smallest one (docs/models/abr/debra.md,
    /// "Reconstruction").
    pub reset_er: bool,
    efci_state: bool,
    pub data_received: u64,
    pub frm_received: u64,
}

impl AbrDestination {
    pub fn new(reset_er: bool) -> Self {
        AbrDestination { reset_er, ..Default::default() }
    }

    /// A forward cell arrived. Returns the backward RM cell to send, if any.
    pub fn on_cell(&mut self, cell: &Cell) -> Option<Cell> {
        match cell.kind {
            CellKind::Data => {
                // Rule 1: the last EFCI value wins.
                self.data_received += 1;
                self.efci_state = cell.efci();
                None
            }
            CellKind::Frm => {
                self.frm_received += 1;
                // Rule 2: turn around, keeping ER, CCR, MCR, CI, NI and BN; EFCI becomes CI.
                let mut b = *cell;
                b.kind = CellKind::Brm;
                if self.reset_er {
                    b.er = f32::MAX;
                }
                if self.efci_state {
                    b.flags.set(Flags::CI, true);
                    self.efci_state = false;
                }
                Some(b)
            }
            CellKind::Brm | CellKind::BwdData | CellKind::RdFwd | CellKind::RdBwd | CellKind::Icmp => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;

    #[test]
    fn turns_frms_around_unchanged() {
        let mut d = AbrDestination::default();
        let f = Cell::frm(VcId(3), 1000.0, 500.0, 10.0);
        let b = d.on_cell(&f).unwrap();
        assert_eq!(b.kind, CellKind::Brm);
        assert_eq!((b.er, b.ccr, b.mcr, b.vc), (1000.0, 500.0, 10.0, VcId(3)));
        assert!(!b.ci());
    }

    #[test]
    fn a_bidding_vc_gets_its_er_reset_at_turnaround() {
        let mut d = AbrDestination::new(true);
        let b = d.on_cell(&Cell::frm(VcId(0), 25.0, 25.0, 0.0)).unwrap();
        assert_eq!(b.er, f32::MAX);
        assert_eq!(b.ccr, 25.0);
    }

    #[test]
    fn efci_becomes_ci_once() {
        let mut d = AbrDestination::default();
        let mut data = Cell::data(VcId(0));
        data.flags.set(Flags::EFCI, true);
        d.on_cell(&data);
        let f = Cell::frm(VcId(0), 1.0, 1.0, 0.0);
        assert!(d.on_cell(&f).unwrap().ci());
        // The state was cleared by the turnaround.
        assert!(!d.on_cell(&f).unwrap().ci());
        // And the last data cell's EFCI wins.
        d.on_cell(&data);
        d.on_cell(&Cell::data(VcId(0)));
        assert!(!d.on_cell(&f).unwrap().ci());
    }
}
