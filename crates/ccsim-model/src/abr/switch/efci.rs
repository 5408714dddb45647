//! Binary feedback switches (docs/models/abr/efci.md): EFCI marking of data cells, or
//! relative-rate (RR) marking of CI/NI in backward RM cells. ER is never touched, so sources
//! follow TM 4.0 rule 8 only: additive increase by RIF·PCR, multiplicative decrease by RDF.
//!
//! The thresholds are reconstructions [RECON] (no seed gives them): parameters, not constants.

use super::{AbrSwitch, PortView};
use crate::cell::{Cell, CellKind, Flags};
use crate::ids::VcId;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EfciMode {
    /// Set EFCI on data cells while congested; the destination turns it into CI.
    Efci,
    /// Set CI (queue ≥ Q_hi) or NI (queue ≥ Q_lo) directly in backward RM cells.
    RelativeRate,
}

#[derive(Clone, Debug)]
pub struct EfciParams {
    pub mode: EfciMode,
    /// Queue length (cells) at which the port becomes congested [RECON 100].
    pub q_hi: u32,
    /// Queue length below which it is no longer congested [RECON 50].
    pub q_lo: u32,
}

impl Default for EfciParams {
    fn default() -> Self {
        EfciParams { mode: EfciMode::Efci, q_hi: 100, q_lo: 50 }
    }
}

#[derive(Clone, Debug)]
pub struct Efci {
    p: EfciParams,
    congested: bool,
}

impl Efci {
    pub fn new(p: EfciParams) -> Self {
        Efci { p, congested: false }
    }
    pub fn congested(&self) -> bool {
        self.congested
    }
}

impl AbrSwitch for Efci {
    fn on_cell_arrival(&mut self, cell: &mut Cell, view: &PortView) {
        if self.p.mode != EfciMode::Efci || cell.kind != CellKind::Data {
            return;
        }
        // Hysteresis between the two thresholds avoids flapping on every cell.
        if view.queue_len >= self.p.q_hi {
            self.congested = true;
        } else if view.queue_len < self.p.q_lo {
            self.congested = false;
        }
        if self.congested {
            cell.flags.set(Flags::EFCI, true);
        }
    }

    fn on_brm(&mut self, _vc: VcId, cell: &mut Cell, view: &PortView) {
        if self.p.mode != EfciMode::RelativeRate {
            return;
        }
        if view.queue_len >= self.p.q_hi {
            cell.flags.set(Flags::CI, true);
        } else if view.queue_len >= self.p.q_lo {
            cell.flags.set(Flags::NI, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::SimTime;

    fn view(q: u32) -> PortView {
        PortView { now: SimTime::ZERO, queue_len: q, link_rate: 1.0 }
    }

    #[test]
    fn marks_with_hysteresis() {
        let mut s = Efci::new(EfciParams::default());
        let mut c = Cell::data(VcId(0));
        s.on_cell_arrival(&mut c, &view(99));
        assert!(!c.efci());
        s.on_cell_arrival(&mut c, &view(100));
        assert!(c.efci());
        let mut c = Cell::data(VcId(0));
        s.on_cell_arrival(&mut c, &view(60)); // still congested between the thresholds
        assert!(c.efci());
        let mut c = Cell::data(VcId(0));
        s.on_cell_arrival(&mut c, &view(49));
        assert!(!c.efci());
    }

    #[test]
    fn relative_rate_sets_ci_or_ni_on_brms_only() {
        let mut s = Efci::new(EfciParams { mode: EfciMode::RelativeRate, ..Default::default() });
        let mut d = Cell::data(VcId(0));
        s.on_cell_arrival(&mut d, &view(500));
        assert!(!d.efci());
        let mut b = Cell::frm(VcId(0), 1.0, 1.0, 0.0);
        b.kind = CellKind::Brm;
        s.on_brm(VcId(0), &mut b, &view(70));
        assert!(b.ni() && !b.ci());
        s.on_brm(VcId(0), &mut b, &view(150));
        assert!(b.ci());
    }
}
