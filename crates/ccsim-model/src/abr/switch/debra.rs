//! DEBRA, Dynamic Explicit Bid Rate Algorithm — a RECONSTRUCTION (docs/models/abr/debra.md).
//!
//! Gurski and Williamson's report is not available; this follows the reconstruction of
//! docs/models/abr/debra.md, from the loss-load curves of Williamson (IEEE/ACM ToN 4(6), 1996)
//! and every property seed 003 states. What is from the seed: sources bid, the switch sums the
//! bids, every bid is granted when the sum fits the target capacity `C × ABR capacity`,
//! otherwise low bidders are favoured; parameters C, V, K; greedy honest sources lose their
//! excess by selective discard, dishonest ones defeat it. What is reconstructed (each a
//! parameter):
//! - the allocation `a_j = min(b_j, L)` with the water level `L` that fills the target;
//! - the advertised rate, VC i's *knee*: the largest x with `x + Σ_{j≠i} min(b_j, x) ≤ V·T`;
//! - K smooths increases only: `adv = ccr + (knee − ccr)/K` when the knee is above the CCR;
//! - selective discard of data cells from a VC whose declared CCR exceeds both `(1+ε)` × what
//!   this port advertised to it lately and the water level, with probability `1 − L/CCR`,
//!   only while the declared rates overload the target;
//! - a VC is active when its last FRM is recent: within `active_timeout`, or within
//!   `active_frm_periods` of its own FRM spacing (Nrm/CCR, Nrm taken as `assumed_nrm`), so
//!   a slow VC is not forgotten between two of its FRMs. (Our first reconstruction, "two
//!   averaging intervals", forgets almost every VC when intervals end every 50 cells under
//!   load; the knees then ignore most bids and the WAN scenarios overload:
//!   docs/models/abr/debra.md, "Reconstruction".)

use super::{AbrSwitch, PortView};
use crate::cell::{Cell, CellKind};
use crate::ids::VcId;
use crate::vc_table::VcTable;
use ccsim_engine::{RngStream, SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct DebraParams {
    /// C: target utilisation of the ABR capacity.
    pub target_utilization: f64,
    /// V: fraction of the target advertised to sources.
    pub advertised_fraction: f64,
    /// K: responsiveness (1 jumps straight to the knee; larger is gentler) [RECON meaning].
    pub k: f64,
    /// Recomputation interval by time (reuses ERICA's t_AI) [RECON].
    pub interval: SimDuration,
    /// …or by ABR input cells (ERICA's N_AI; 0 = by time only) [RECON].
    pub interval_cells: u32,
    /// ε of the greedy test [RECON 0.05].
    pub greedy_margin: f64,
    /// A VC is active if its last FRM is at most this old… [RECON 10 ms]
    pub active_timeout: SimDuration,
    /// …or at most this many of its FRM spacings (Nrm / CCR) old [RECON 3].
    pub active_frm_periods: f64,
    /// Nrm assumed for the FRM spacing (switches do not know it) [RECON 32].
    pub assumed_nrm: f64,
    /// Selective discard of greedy VCs' cells [RECON on].
    pub selective_discard: bool,
}

impl Default for DebraParams {
    fn default() -> Self {
        DebraParams {
            target_utilization: 0.95,
            advertised_fraction: 1.0,
            k: 2.0,
            interval: SimDuration::from_millis(1),
            interval_cells: 50,
            greedy_margin: 0.05,
            active_timeout: SimDuration::from_millis(10),
            active_frm_periods: 3.0,
            assumed_nrm: 32.0,
            selective_discard: true,
        }
    }
}

/// The level `L` with `Σ min(b_j, L) = x` over `sorted` bids; infinite when they all fit.
pub fn water_level(sorted: &[f64], x: f64) -> f64 {
    let total: f64 = sorted.iter().sum();
    if total <= x {
        return f64::INFINITY;
    }
    let mut below = 0.0;
    for (k, &b) in sorted.iter().enumerate() {
        let level = (x - below) / (sorted.len() - k) as f64;
        if level <= b {
            return level.max(0.0);
        }
        below += b;
    }
    unreachable!("total > x means some level fits")
}

/// VC i's knee: the largest `x` with `x + Σ min(b_j, x) ≤ a` over the *other* VCs' `sorted`
/// bids, i.e. the most it can ask and still be carried in full.
pub fn knee(sorted_others: &[f64], a: f64) -> f64 {
    knee_skipping(sorted_others, None, a)
}

/// `knee` over `sorted` without the entry at `skip` (the VC's own bid), allocation-free.
fn knee_skipping(sorted: &[f64], skip: Option<usize>, a: f64) -> f64 {
    let m = sorted.len() - usize::from(skip.is_some());
    let mut below = 0.0;
    let mut k = 0; // bids of the others consumed so far
    let mut others = sorted.iter().enumerate().filter(|&(i, _)| Some(i) != skip).map(|(_, &b)| b);
    loop {
        // x in [b_(k-1), b_(k)]: g(x) = (m − k + 1)·x + Σ_{j<k} b_j.
        let x = (a - below) / (m - k + 1) as f64;
        match others.next() {
            Some(b) if x > b => {
                below += b;
                k += 1;
            }
            _ => return x.max(0.0),
        }
    }
}

/// What DEBRA keeps per VC at a port.
#[derive(Clone, Debug)]
struct DebraVc {
    bid: f64,
    ccr: f64,
    last_frm: Option<SimTime>,
    knee: f64,
    adv_now: f64,
    adv_prev: f64,
}

#[derive(Clone, Debug)]
pub struct Debra {
    p: DebraParams,
    interval_start: SimTime,
    abr_cells: u32,
    /// Per VC that reaches the port.
    vcs: VcTable<DebraVc>,
    /// The knee of a VC before the first interval ends.
    initial_knee: f64,
    target: f64,
    level: f64,
    declared_total: f64,
    rng: RngStream,
    /// Reused buffers, so an interval end allocates nothing.
    scratch: Vec<f64>,
    active_now: Vec<bool>,
}

impl Debra {
    pub fn new(p: DebraParams, link_rate: f64, rng: RngStream) -> Self {
        let target = p.target_utilization * link_rate;
        Debra {
            interval_start: SimTime::ZERO,
            abr_cells: 0,
            vcs: VcTable::new(),
            initial_knee: p.advertised_fraction * target,
            target,
            level: f64::INFINITY,
            declared_total: 0.0,
            rng,
            scratch: Vec::new(),
            active_now: Vec::new(),
            p,
        }
    }

    fn vc(&mut self, vc: VcId) -> &mut DebraVc {
        let knee = self.initial_knee;
        let s = self.vcs.insert_with(vc, || DebraVc { bid: 0.0, ccr: 0.0, last_frm: None, knee, adv_now: 0.0, adv_prev: 0.0 });
        self.vcs.at_mut(s)
    }

    pub fn knee_of(&self, vc: VcId) -> f64 {
        self.vcs.get(vc).map_or(self.initial_knee, |e| e.knee)
    }
    pub fn water_level(&self) -> f64 {
        self.level
    }

    fn active(p: &DebraParams, e: &DebraVc, now: SimTime) -> bool {
        let Some(t) = e.last_frm else { return false };
        let age = now.saturating_since(t);
        if age <= p.active_timeout {
            return true;
        }
        let spacing = if e.ccr > 0.0 { p.assumed_nrm / e.ccr } else { f64::INFINITY };
        age.as_secs_f64() <= p.active_frm_periods * spacing
    }

    fn end_interval(&mut self, view: &PortView) {
        self.target = self.p.target_utilization * view.link_rate;
        let a = self.p.advertised_fraction * self.target;
        self.scratch.clear();
        self.declared_total = 0.0;
        let now = view.now;
        let mut active = std::mem::take(&mut self.active_now);
        active.clear();
        active.extend(self.vcs.values().map(|e| Self::active(&self.p, e, now)));
        for (e, &on) in self.vcs.values().zip(&active) {
            if on {
                self.scratch.push(e.bid);
                self.declared_total += e.ccr;
            }
        }
        self.scratch.sort_by(|x, y| x.total_cmp(y));
        self.level = water_level(&self.scratch, self.target);
        for (e, &on) in self.vcs.values_mut().zip(&active) {
            // The other active VCs' bids: remove this VC's own bid once if it is active.
            let own = on.then(|| self.scratch.partition_point(|&b| b < e.bid));
            e.knee = knee_skipping(&self.scratch, own, a);
            e.adv_prev = e.adv_now;
            e.adv_now = 0.0;
        }
        self.active_now = active;
        self.abr_cells = 0;
        self.interval_start = view.now;
    }
}

impl AbrSwitch for Debra {
    fn on_cell_arrival(&mut self, _cell: &mut Cell, view: &PortView) {
        self.abr_cells += 1;
        if self.p.interval_cells > 0 && self.abr_cells >= self.p.interval_cells {
            self.end_interval(view);
        }
    }

    fn admit(&mut self, cell: &Cell, _view: &PortView) -> bool {
        if !self.p.selective_discard || cell.kind != CellKind::Data {
            return true;
        }
        let e = self.vc(cell.vc);
        let (ccr, advertised) = (e.ccr, e.adv_now.max(e.adv_prev));
        let greedy = advertised > 0.0 && ccr > (1.0 + self.p.greedy_margin) * advertised;
        if self.declared_total > self.target && greedy && ccr > self.level {
            return !self.rng.bernoulli(1.0 - self.level / ccr);
        }
        true
    }

    fn on_frm(&mut self, vc: VcId, cell: &Cell, view: &PortView) {
        let e = self.vc(vc);
        e.bid = cell.er as f64;
        e.ccr = cell.ccr as f64;
        e.last_frm = Some(view.now);
    }

    fn on_brm(&mut self, vc: VcId, cell: &mut Cell, _view: &PortView) {
        let k = self.p.k;
        let e = self.vc(vc);
        let mut adv = e.knee;
        if adv > e.ccr {
            adv = e.ccr + (adv - e.ccr) / k;
        }
        e.adv_now = e.adv_now.max(adv);
        cell.lower_er(adv);
    }

    fn register(&mut self, vc: VcId) {
        self.vc(vc);
    }

    fn timer_due(&self) -> Option<SimTime> {
        Some(self.interval_start + self.p.interval)
    }

    fn on_timer(&mut self, view: &PortView) {
        self.end_interval(view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::StreamKey;

    fn rng() -> RngStream {
        RngStream::new(StreamKey { seed: 1, replication: 0, component: 0, purpose: 0 })
    }

    fn view(us: u64) -> PortView {
        PortView { now: SimTime::ZERO + SimDuration::from_micros(us), queue_len: 0, link_rate: 100.0 }
    }

    fn frm(vc: u32, bid: f64, ccr: f64) -> Cell {
        Cell::frm(VcId(vc), bid, ccr, 0.0)
    }

    fn brm(vc: u32) -> Cell {
        let mut c = Cell::frm(VcId(vc), 1e9, 0.0, 0.0);
        c.kind = CellKind::Brm;
        c
    }

    // --- the allocation function ----------------------------------------------------------

    #[test]
    fn water_level_by_hand() {
        assert_eq!(water_level(&[10.0, 20.0], 50.0), f64::INFINITY);
        // 10 + 2L = 60 → L = 25.
        assert_eq!(water_level(&[10.0, 40.0, 50.0], 60.0), 25.0);
        assert_eq!(water_level(&[30.0, 30.0], 40.0), 20.0);
    }

    #[test]
    fn knee_by_hand() {
        // Alone: the whole advertised capacity.
        assert_eq!(knee(&[], 90.0), 90.0);
        // Others bid 10 and 100 of 90: x + 10 + min(100, x) = 90 → x = 40.
        assert_eq!(knee(&[10.0, 100.0], 90.0), 40.0);
        // Others all small: x = 90 − 5 − 5.
        assert_eq!(knee(&[5.0, 5.0], 90.0), 80.0);
    }

    #[test]
    fn skipping_ones_own_bid_equals_removing_it() {
        let sorted = [5.0, 10.0, 30.0, 30.0, 100.0];
        for skip in 0..sorted.len() {
            let mut others = sorted.to_vec();
            others.remove(skip);
            assert_eq!(knee_skipping(&sorted, Some(skip), 90.0), knee(&others, 90.0), "skip {skip}");
        }
    }

    #[test]
    fn bids_at_the_knee_are_the_max_min_fixed_point() {
        // Three VCs, bidding their knees repeatedly, converge to an equal split.
        let mut bids = [10.0, 50.0, 90.0];
        for _ in 0..50 {
            let next: Vec<f64> = (0..3)
                .map(|i| {
                    let mut o: Vec<f64> = (0..3).filter(|&j| j != i).map(|j| bids[j]).collect();
                    o.sort_by(|a, b| a.total_cmp(b));
                    knee(&o, 90.0)
                })
                .collect();
            bids.copy_from_slice(&next);
        }
        for b in bids {
            assert!((b - 30.0).abs() < 1e-6, "{bids:?}");
        }
    }

    // --- scripted exchanges ---------------------------------------------------------------

    fn debra(k: f64) -> Debra {
        let p = DebraParams { target_utilization: 0.9, k, interval_cells: 0, ..DebraParams::default() };
        Debra::new(p, 100.0, rng())
    }

    #[test]
    fn advertises_the_knee_with_k_smoothing_increases() {
        let mut d = debra(2.0);
        d.on_frm(VcId(0), &frm(0, 20.0, 20.0), &view(10));
        d.on_frm(VcId(1), &frm(1, 80.0, 80.0), &view(10));
        d.on_timer(&view(1000));
        // Target 90: VC0's knee is 45 (the other bids 80); VC1's is 70 (the other bids 20).
        assert_eq!(d.knee_of(VcId(0)), 45.0);
        assert_eq!(d.knee_of(VcId(1)), 70.0);
        let mut c = brm(0);
        d.on_brm(VcId(0), &mut c, &view(1001));
        // Increase smoothed by K = 2: 20 + (45 − 20)/2.
        assert_eq!(c.er, 32.5);
        let mut c = brm(1);
        d.on_brm(VcId(1), &mut c, &view(1001));
        // Decrease straight to the knee.
        assert_eq!(c.er, 70.0);
    }

    #[test]
    fn selective_discard_hits_only_the_honest_greedy_vc() {
        let mut d = debra(1.0);
        // S1 declares 100 and bids 100; S2 obeys at 45.
        d.on_frm(VcId(0), &frm(0, 100.0, 100.0), &view(10));
        d.on_frm(VcId(1), &frm(1, 45.0, 45.0), &view(10));
        d.on_timer(&view(1000));
        assert_eq!(d.water_level(), 45.0);
        let (mut b0, mut b1) = (brm(0), brm(1));
        d.on_brm(VcId(0), &mut b0, &view(1001));
        d.on_brm(VcId(1), &mut b1, &view(1001));
        let mut kept = [0u32; 2];
        for i in 0..20_000 {
            let vc = i % 2;
            if d.admit(&Cell::data(VcId(vc)), &view(1002)) {
                kept[vc as usize] += 1;
            }
        }
        assert_eq!(kept[1], 10_000, "the obedient VC loses nothing");
        // S1 keeps 45/100 of its cells: 4 500 ± 5 standard deviations (≈ 250).
        assert!((kept[0] as i64 - 4_500).abs() < 250, "{kept:?}");
    }
}
