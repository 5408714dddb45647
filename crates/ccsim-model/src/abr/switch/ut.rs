//! UT, Uniform Tracking (docs/models/abr/ut.md; Fulton, Li, Lim, ATM Forum 97-0239, via seed 004).
//!
//! Every control interval t_c the port estimates the effective number of sources as the total
//! ABR rate divided by the smoothed fair share it handed out before, so VCs held down
//! elsewhere count only fractionally, and advertises `(ρ_T·C − background) / N_eff`.
//! The two low-pass filters' weights are [RECON].

use super::{AbrSwitch, PortView};
use crate::cell::Cell;
use crate::ids::VcId;
use ccsim_engine::{SimDuration, SimTime};

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
}

impl Default for UtParams {
    fn default() -> Self {
        UtParams { target_utilization: 0.9, interval: SimDuration::from_millis(10), beta_f: 0.25, beta_b: 0.125 }
    }
}

#[derive(Clone, Debug)]
pub struct Ut {
    p: UtParams,
    abr_cells: u64,
    background_cells: u64,
    interval_start: SimTime,
    rb_bar: f64,
    fs_bar: f64,
    fs_eff: f64,
}

impl Ut {
    pub fn new(p: UtParams, link_rate: f64) -> Self {
        let target = p.target_utilization * link_rate;
        Ut { p, abr_cells: 0, background_cells: 0, interval_start: SimTime::ZERO, rb_bar: 0.0, fs_bar: target, fs_eff: target }
    }

    pub fn fair_share(&self) -> f64 {
        self.fs_eff
    }

    fn tick(&mut self, view: &PortView) {
        let dt = view.now.saturating_since(self.interval_start).as_secs_f64();
        if dt <= 0.0 {
            return;
        }
        let target = self.p.target_utilization * view.link_rate;
        let r_a = self.abr_cells as f64 / dt;
        let r_b = self.background_cells as f64 / dt;
        self.rb_bar = (1.0 - self.p.beta_b) * self.rb_bar + self.p.beta_b * r_b;
        let n_eff = if self.fs_bar > 0.0 { (r_a / self.fs_bar).max(1.0) } else { 1.0 };
        self.fs_eff = ((target - self.rb_bar) / n_eff).clamp(0.0, target);
        self.fs_bar = (1.0 - self.p.beta_f) * self.fs_bar + self.p.beta_f * self.fs_eff;
        self.abr_cells = 0;
        self.background_cells = 0;
        self.interval_start = view.now;
    }
}

impl AbrSwitch for Ut {
    fn on_cell_arrival(&mut self, _cell: &mut Cell, _view: &PortView) {
        self.abr_cells += 1;
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
}
