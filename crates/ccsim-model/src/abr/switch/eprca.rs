//! EPRCA, Enhanced Proportional Rate Control Algorithm (docs/models/abr/eprca.md; Roberts, ATM
//! Forum 94-0735, as summarised by Jain and Kalyanaraman).
//!
//! The port keeps an exponential average MACR of the CCRs it sees in forward RM cells. When the
//! queue passes QT (congested) a VC above the fair share DPF × MACR is told ERF × MACR; past
//! DQT (very congested) every VC is told MRF × MACR and CI is set. Congestion is detected by
//! queue thresholds, which is what makes EPRCA oscillate and favour early starters.

use super::{AbrSwitch, PortView};
use crate::cell::{Cell, CellKind, Flags};
use crate::ids::VcId;
use crate::vc_table::VcTable;

#[derive(Clone, Debug)]
pub struct EprcaParams {
    /// Averaging weight AV of MACR.
    pub av: f64,
    /// Down pressure factor DPF: the fair share is DPF × MACR.
    pub dpf: f64,
    /// Explicit reduction factor ERF (congested).
    pub erf: f64,
    /// Major reduction factor MRF (very congested).
    pub mrf: f64,
    /// Queue threshold QT, cells [RECON 100].
    pub qt: u32,
    /// Very-congested threshold DQT, cells [RECON 500].
    pub dqt: u32,
    /// While congested, update MACR only from CCRs below it [RECON on].
    pub macr_only_below: bool,
    /// Also set CI for a VC above the fair share while congested [RECON off].
    pub ci_when_congested: bool,
    /// Mark EFCI on data cells while the queue exceeds QT (some EPRCA versions) [RECON off].
    pub efci_marking: bool,
}

impl Default for EprcaParams {
    fn default() -> Self {
        EprcaParams {
            av: 1.0 / 16.0,
            dpf: 7.0 / 8.0,
            erf: 15.0 / 16.0,
            mrf: 1.0 / 4.0,
            qt: 100,
            dqt: 500,
            macr_only_below: true,
            ci_when_congested: false,
            efci_marking: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Eprca {
    p: EprcaParams,
    /// Mean allowed cell rate; `None` until the first FRM (then that VC's CCR).
    macr: Option<f64>,
    /// Each VC's CCR from its last FRM, per VC that reaches the port.
    ccr: VcTable<f64>,
}

impl Eprca {
    pub fn new(p: EprcaParams) -> Self {
        Eprca { p, macr: None, ccr: VcTable::new() }
    }

    pub fn macr(&self) -> Option<f64> {
        self.macr
    }
}

impl AbrSwitch for Eprca {
    fn on_cell_arrival(&mut self, cell: &mut Cell, view: &PortView) {
        if self.p.efci_marking && cell.kind == CellKind::Data && view.queue_len > self.p.qt {
            cell.flags.set(Flags::EFCI, true);
        }
    }

    fn on_frm(&mut self, vc: VcId, cell: &Cell, view: &PortView) {
        let ccr = cell.ccr as f64;
        *self.ccr.entry(vc) = ccr;
        let congested = view.queue_len > self.p.qt;
        self.macr = Some(match self.macr {
            None => ccr,
            Some(m) if self.p.macr_only_below && congested && ccr >= m => m,
            Some(m) => (1.0 - self.p.av) * m + self.p.av * ccr,
        });
    }

    fn on_brm(&mut self, vc: VcId, cell: &mut Cell, view: &PortView) {
        let Some(macr) = self.macr else { return };
        if view.queue_len > self.p.dqt {
            cell.lower_er(self.p.mrf * macr);
            cell.flags.set(Flags::CI, true);
        } else if view.queue_len > self.p.qt && self.ccr.get(vc).copied().unwrap_or(0.0) > self.p.dpf * macr {
            cell.lower_er(self.p.erf * macr);
            if self.p.ci_when_congested {
                cell.flags.set(Flags::CI, true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::SimTime;

    fn view(q: u32) -> PortView {
        PortView { now: SimTime::ZERO, queue_len: q, link_rate: 1e5 }
    }

    fn frm(vc: u32, ccr: f64) -> Cell {
        Cell::frm(VcId(vc), 1e9, ccr, 0.0)
    }

    fn brm(vc: u32) -> Cell {
        let mut c = Cell::frm(VcId(vc), 1e9, 0.0, 0.0);
        c.kind = CellKind::Brm;
        c
    }

    #[test]
    fn macr_starts_at_the_first_ccr_and_averages() {
        let mut e = Eprca::new(EprcaParams::default());
        e.on_frm(VcId(0), &frm(0, 1600.0), &view(0));
        assert_eq!(e.macr(), Some(1600.0));
        e.on_frm(VcId(1), &frm(1, 3200.0), &view(0));
        assert_eq!(e.macr(), Some(1600.0 * 15.0 / 16.0 + 3200.0 / 16.0));
        // Congested: a CCR above MACR leaves it alone.
        let m = e.macr();
        e.on_frm(VcId(1), &frm(1, 9000.0), &view(150));
        assert_eq!(e.macr(), m);
    }

    #[test]
    fn reductions_by_queue_state() {
        let mut e = Eprca::new(EprcaParams::default());
        e.on_frm(VcId(0), &frm(0, 1000.0), &view(0)); // MACR = 1000, fair = 875
        e.on_frm(VcId(0), &frm(0, 1000.0), &view(0));
        e.on_frm(VcId(1), &frm(1, 800.0), &view(150)); // below MACR: averaged in
        let macr = e.macr().unwrap();
        // Not congested: untouched.
        let mut c = brm(0);
        e.on_brm(VcId(0), &mut c, &view(50));
        assert_eq!(c.er as f64, 1e9);
        // Congested: VC0 (1000 > 7/8 MACR) gets ERF × MACR; VC1 (800 < fair) is left alone.
        let mut c = brm(0);
        e.on_brm(VcId(0), &mut c, &view(150));
        assert!((c.er as f64 - 15.0 / 16.0 * macr).abs() < 1e-3);
        let mut c = brm(1);
        e.on_brm(VcId(1), &mut c, &view(150));
        assert_eq!(c.er as f64, 1e9);
        // Very congested: everyone gets MRF × MACR and CI.
        let mut c = brm(1);
        e.on_brm(VcId(1), &mut c, &view(600));
        assert!((c.er as f64 - macr / 4.0).abs() < 1e-3 && c.ci());
    }
}
