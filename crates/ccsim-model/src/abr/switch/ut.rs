//! UT, Uniform Tracking (docs/models/abr/ut.md; Fulton, Li, Lim, ATM Forum 97-0239, via seed 004).
//!
//! Every control interval t_c the port estimates the effective number of sources as the total
//! ABR rate divided by the smoothed fair share it handed out before (seed 004, eq. 2), so VCs
//! held down elsewhere count only fractionally, and advertises `(ρ_T·C − background) / N_eff`
//! (eq. 1). The two low-pass filters' weights are [RECON].
//!
//! "r_A(n) is the total ABR rate at time interval n" has two readings, a [RECON] choice
//! (`AbrRateReading`; docs/validation/ut-queue.md): the ABR cells that arrived in the interval
//! per second, or the sum of the current cell rates of the VCs that sent in it. They agree
//! while every source sends at its ACR and part when sources send less than they may (TCP
//! windows): the first counts such a source as a fraction, the second as a whole one.

use super::{AbrSwitch, PortView};
use crate::cell::Cell;
use crate::ids::VcId;
use crate::vc_table::VcTable;
use ccsim_engine::{SimDuration, SimTime};

/// What `r_A(n)`, "the total ABR rate at time interval n" (seed 004, eq. 2), is measured as
/// [RECON: the seed does not say; Fulton et al.'s 97-0239 was not available].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum AbrRateReading {
    /// ABR cells (data and forward RM) that arrived for the port in the interval, divided by
    /// the interval's length: the measured input rate.
    #[default]
    Arrivals,
    /// Σ over the VCs with at least one forward ABR cell (data or RM) arriving in the interval
    /// of the CCR carried by that VC's latest forward RM cell seen at the port: the rates the
    /// sources present hold, whatever they actually send. A VC is present by any cell, not only
    /// by an FRM, because its FRMs are Nrm/CCR apart (32/3 200 cells/s = 10 ms = t_c at a 1.36
    /// Mb/s fair share): counted by FRMs alone it would flicker in and out of the sum.
    Ccr,
}

#[derive(Clone, Debug)]
pub struct UtParams {
    /// Target utilisation ρ_T.
    pub target_utilization: f64,
    /// Control interval t_c.
    pub interval: SimDuration,
    /// Weight β_F of the fair-share filter [RECON 0.25].
    pub beta_f: f64,
    /// Weight β_B of the background-rate filter [RECON 0.125].
    pub beta_b: f64,
    /// How r_A is measured [RECON `Arrivals`].
    pub r_a: AbrRateReading,
}

impl Default for UtParams {
    fn default() -> Self {
        UtParams {
            target_utilization: 0.9,
            interval: SimDuration::from_millis(10),
            beta_f: 0.25,
            beta_b: 0.125,
            r_a: AbrRateReading::Arrivals,
        }
    }
}

/// What the `Ccr` reading keeps per VC at a port.
#[derive(Clone, Debug, Default, PartialEq)]
struct UtVc {
    /// CCR of the VC's latest forward RM cell at the port, cells/s (0 before the first).
    ccr: f64,
    /// The last interval (`Ut::interval_no`) a forward cell of the VC arrived in; 0 = never.
    seen_in: u64,
}

#[derive(Clone, Debug)]
pub struct Ut {
    p: UtParams,
    abr_cells: u64,
    background_cells: u64,
    interval_start: SimTime,
    /// The current interval's number, from 1 (a per-VC stamp, so that an interval ends without
    /// clearing every VC's flag).
    interval_no: u64,
    rb_bar: f64,
    fs_bar: f64,
    fs_eff: f64,
    /// Per VC that crosses the port; filled only for the `Ccr` reading.
    vcs: VcTable<UtVc>,
}

impl Ut {
    pub fn new(p: UtParams, link_rate: f64) -> Self {
        let target = p.target_utilization * link_rate;
        Ut {
            p,
            abr_cells: 0,
            background_cells: 0,
            interval_start: SimTime::ZERO,
            interval_no: 1,
            rb_bar: 0.0,
            fs_bar: target,
            fs_eff: target,
            vcs: VcTable::new(),
        }
    }

    pub fn fair_share(&self) -> f64 {
        self.fs_eff
    }

    /// r_A of the interval that ends now, cells/s.
    fn total_abr_rate(&self, dt: f64) -> f64 {
        match self.p.r_a {
            AbrRateReading::Arrivals => self.abr_cells as f64 / dt,
            // In VC order (the builder registers VCs in order), so the sum is reproducible.
            AbrRateReading::Ccr => {
                self.vcs.values().filter(|v| v.seen_in == self.interval_no).map(|v| v.ccr).sum()
            }
        }
    }

    fn tick(&mut self, view: &PortView) {
        let dt = view.now.saturating_since(self.interval_start).as_secs_f64();
        if dt <= 0.0 {
            return;
        }
        let target = self.p.target_utilization * view.link_rate;
        let r_a = self.total_abr_rate(dt);
        let r_b = self.background_cells as f64 / dt;
        self.rb_bar = (1.0 - self.p.beta_b) * self.rb_bar + self.p.beta_b * r_b;
        let n_eff = if self.fs_bar > 0.0 { (r_a / self.fs_bar).max(1.0) } else { 1.0 };
        self.fs_eff = ((target - self.rb_bar) / n_eff).clamp(0.0, target);
        self.fs_bar = (1.0 - self.p.beta_f) * self.fs_bar + self.p.beta_f * self.fs_eff;
        self.abr_cells = 0;
        self.background_cells = 0;
        self.interval_start = view.now;
        self.interval_no += 1;
    }
}

impl AbrSwitch for Ut {
    #[inline]
    fn on_cell_arrival(&mut self, cell: &mut Cell, _view: &PortView) {
        self.abr_cells += 1;
        if self.p.r_a == AbrRateReading::Ccr {
            self.vcs.entry(cell.vc).seen_in = self.interval_no;
        }
    }

    fn on_frm(&mut self, vc: VcId, cell: &Cell, _view: &PortView) {
        if self.p.r_a == AbrRateReading::Ccr {
            self.vcs.entry(vc).ccr = cell.ccr as f64;
        }
    }

    fn on_background_cell(&mut self, _view: &PortView) {
        self.background_cells += 1;
    }

    fn on_brm(&mut self, _vc: VcId, cell: &mut Cell, _view: &PortView) {
        cell.lower_er(self.fs_eff);
    }

    fn timer_due(&self) -> Option<SimTime> {
        Some(self.interval_start + self.p.interval)
    }

    fn on_timer(&mut self, view: &PortView) {
        self.tick(view);
    }

    fn register(&mut self, vc: VcId) {
        if self.p.r_a == AbrRateReading::Ccr {
            self.vcs.insert(vc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;

    const C: f64 = 100_000.0;

    fn view(ms: u64) -> PortView {
        PortView { now: SimTime::ZERO + SimDuration::from_millis(ms), queue_len: 0, link_rate: C }
    }

    fn brm() -> Cell {
        let mut c = Cell::frm(VcId(0), 1e9, 0.0, 0.0);
        c.kind = CellKind::Brm;
        c
    }

    #[test]
    fn starts_at_the_target_and_tracks_the_effective_number_of_sources() {
        let p = UtParams { beta_f: 1.0, ..UtParams::default() };
        let mut u = Ut::new(p, C);
        let mut c = brm();
        u.on_brm(VcId(0), &mut c, &view(0));
        assert_eq!(c.er as f64, 90_000.0);
        // 1800 cells in 10 ms = 180 000 cells/s = 2 × FS: N_eff = 2, FS = 45 000.
        for _ in 0..1800 {
            u.on_cell_arrival(&mut Cell::data(VcId(0)), &view(5));
        }
        u.on_timer(&view(10));
        assert!((u.fair_share() - 45_000.0).abs() < 1e-6);
        // Three sources each at the 45 000 offered: 135 000 / 45 000 = 3 → 30 000.
        for _ in 0..1350 {
            u.on_cell_arrival(&mut Cell::data(VcId(0)), &view(15));
        }
        u.on_timer(&view(20));
        assert!((u.fair_share() - 30_000.0).abs() < 1e-6);
    }

    #[test]
    fn light_load_counts_as_one_source() {
        let mut u = Ut::new(UtParams::default(), C);
        u.on_cell_arrival(&mut Cell::data(VcId(0)), &view(1));
        u.on_timer(&view(10));
        assert!((u.fair_share() - 90_000.0).abs() < 1e-6);
    }

    #[test]
    fn fair_share_filter_smooths() {
        let mut u = Ut::new(UtParams::default(), C); // β_F = 0.25
        for _ in 0..1800 {
            u.on_cell_arrival(&mut Cell::data(VcId(0)), &view(5));
        }
        u.on_timer(&view(10));
        // N_eff = 180 000 / 90 000 = 2 → FS_eff 45 000; FS_bar = 0.75·90 000 + 0.25·45 000.
        assert!((u.fair_share() - 45_000.0).abs() < 1e-6);
        assert!((u.fs_bar - 78_750.0).abs() < 1e-6);
    }

    // --- r_A read as the sum of the present VCs' CCRs (`AbrRateReading::Ccr`) ---

    fn ccr_reading(beta_f: f64) -> Ut {
        Ut::new(UtParams { beta_f, r_a: AbrRateReading::Ccr, ..UtParams::default() }, C)
    }

    /// One interval ending at `end_ms` in which each VC `(vc, ccr)` sends an FRM carrying `ccr`
    /// at the interval's start and then `cells` data cells, all arriving at the port (5 ms is
    /// inside the 10-ms interval).
    fn interval(u: &mut Ut, vcs: &[(u32, f64)], cells: u32, end_ms: u64) {
        for &(vc, ccr) in vcs {
            let mut f = Cell::frm(VcId(vc), 1e9, ccr, 0.0);
            u.on_cell_arrival(&mut f, &view(end_ms - 5));
            u.on_frm(VcId(vc), &f, &view(end_ms - 5));
            for _ in 0..cells {
                u.on_cell_arrival(&mut Cell::data(VcId(vc)), &view(end_ms - 5));
            }
        }
        u.on_timer(&view(end_ms));
    }

    /// The failure the `Ccr` reading exists for (docs/validation/ut-queue.md, F): three VCs hold
    /// ACR = 90 000 cells/s (the first ER, the whole target) but are window-limited to a tenth
    /// of it. Arrivals: 3 × 9 000 = 27 000 cells/s, N_eff = max(0.3, 1) = 1, and the port keeps
    /// advertising 90 000 while the sum of the ACRs it allowed is 3 × the target. CCR: Σ = 270 000,
    /// N_eff = 3, FS = 30 000; the sources now hold 30 000 each, still send a tenth, and N_eff stays 3.
    #[test]
    fn sources_sending_a_fraction_of_their_ccr_count_whole_under_ccr_and_as_fractions_under_arrivals() {
        let three = [(0, 90_000.0), (1, 90_000.0), (2, 90_000.0)];
        // 89 data cells + 1 FRM per VC in 10 ms = 9 000 cells/s each.
        let mut arrivals = Ut::new(UtParams { beta_f: 1.0, ..UtParams::default() }, C);
        interval(&mut arrivals, &three, 89, 10);
        assert!((arrivals.fair_share() - 90_000.0).abs() < 1e-6, "{}", arrivals.fair_share());

        let mut ccr = ccr_reading(1.0);
        interval(&mut ccr, &three, 89, 10);
        assert!((ccr.fair_share() - 30_000.0).abs() < 1e-6, "{}", ccr.fair_share());
        let held = [(0, 30_000.0), (1, 30_000.0), (2, 30_000.0)];
        interval(&mut ccr, &held, 29, 20);
        assert!((ccr.fair_share() - 30_000.0).abs() < 1e-6, "{}", ccr.fair_share());
    }

    /// Sources that do send at their CCR give both readings the same N_eff: the readings part
    /// only where sources under-use their rates.
    #[test]
    fn both_readings_agree_when_sources_send_at_their_ccr() {
        // Two VCs at 90 000 cells/s each for 10 ms: 900 cells each (1 FRM + 899 data).
        let two = [(0, 90_000.0), (1, 90_000.0)];
        let mut arrivals = Ut::new(UtParams { beta_f: 1.0, ..UtParams::default() }, C);
        let mut ccr = ccr_reading(1.0);
        interval(&mut arrivals, &two, 899, 10);
        interval(&mut ccr, &two, 899, 10);
        assert!((arrivals.fair_share() - 45_000.0).abs() < 1e-6);
        assert!((ccr.fair_share() - 45_000.0).abs() < 1e-6);
    }

    /// A VC held down elsewhere reports its low CCR and still counts as a fraction, as the
    /// scheme intends: one VC at 90 000 and one at 9 000 give N_eff = 1.1.
    #[test]
    fn a_vc_bottlenecked_elsewhere_counts_as_a_fraction() {
        let mut u = ccr_reading(1.0);
        interval(&mut u, &[(0, 90_000.0), (1, 9_000.0)], 0, 10);
        assert!((u.fair_share() - 90_000.0 / 1.1).abs() < 1e-6, "{}", u.fair_share());
    }

    /// A VC counts at the CCR of its latest FRM, once per interval however many FRMs it sends;
    /// in a later interval its data cells alone make it present (its FRMs may be more than t_c
    /// apart), still at that CCR.
    #[test]
    fn the_latest_ccr_counts_once_and_data_cells_alone_make_a_vc_present() {
        let mut u = ccr_reading(1.0);
        interval(&mut u, &[(0, 60_000.0), (0, 20_000.0), (1, 20_000.0)], 0, 10);
        // Σ = 20 000 + 20 000 = 40 000 < FS̄ = 90 000: N_eff = 1.
        assert!((u.fair_share() - 90_000.0).abs() < 1e-6);
        // FS̄ = 90 000; next interval: VC 0 and VC 1 send only data cells, no FRM; a third VC
        // appears with an FRM at 140 000. Σ = 20 000 + 20 000 + 140 000 = 180 000: N_eff = 2.
        for vc in [0, 1] {
            u.on_cell_arrival(&mut Cell::data(VcId(vc)), &view(15));
        }
        interval(&mut u, &[(2, 140_000.0)], 0, 20);
        assert!((u.fair_share() - 45_000.0).abs() < 1e-6, "{}", u.fair_share());
    }

    /// A VC with no cell in the interval is absent from r_A, whatever rate it last reported.
    #[test]
    fn an_idle_vc_is_not_counted() {
        let mut u = ccr_reading(1.0);
        interval(&mut u, &[(0, 90_000.0), (1, 90_000.0)], 0, 10);
        assert!((u.fair_share() - 45_000.0).abs() < 1e-6);
        // Only VC 0 sends in the second interval: Σ = 90 000 over FS̄ = 45 000 is N_eff = 2
        // (the port still tracks what it handed out); in the third, Σ = 45 000: N_eff = 1.
        interval(&mut u, &[(0, 90_000.0)], 0, 20);
        assert!((u.fair_share() - 45_000.0).abs() < 1e-6);
        interval(&mut u, &[(0, 45_000.0)], 0, 30);
        assert!((u.fair_share() - 90_000.0).abs() < 1e-6, "{}", u.fair_share());
    }

    /// Per-VC state only for the reading that needs it: the default keeps none.
    #[test]
    fn only_the_ccr_reading_keeps_per_vc_state() {
        let mut arrivals = Ut::new(UtParams::default(), C);
        let mut ccr = ccr_reading(0.25);
        for u in [&mut arrivals, &mut ccr] {
            u.register(VcId(3));
            interval(u, &[(7, 1_000.0)], 3, 10);
        }
        assert!(arrivals.vcs.is_empty());
        assert_eq!(ccr.vcs.len(), 2);
    }
}
