//! Weighted Buffer Allocation (seed 001 §4.2; docs/models/ubr/gfr.md): per-VC weights from MCR.
//! Below the threshold R every frame enters. Above it, an untagged frame of a VC holding fewer
//! untagged cells than its reserved share R·W_i enters; otherwise a VC may use its even share
//! of the space above R (scaled by Z). Tagged frames are therefore the first to go. An optional
//! hard threshold refuses every new frame above it (EPD on top of WBA; off in the seed's runs).

use super::{BufferPolicy, Occupancy};
use crate::vc_table::VcTable;

#[derive(Clone, Debug, PartialEq)]
pub struct Wba {
    /// Congestion threshold R, cells [SEED default 0.5 K].
    pub threshold: u32,
    /// Share of the space above R, Z in [0, 1] [RECON default 1].
    pub z: f64,
    /// EPD threshold above R, cells (off: `None`).
    pub hard_threshold: Option<u32>,
    /// Per VC with an MCR: its weight W_i = MCR_i / port capacity (0 for the others).
    pub weights: VcTable<f64>,
}

impl Wba {
    pub fn new(threshold: u32, z: f64, hard_threshold: Option<u32>) -> Self {
        Wba { threshold, z, hard_threshold, weights: VcTable::new() }
    }
}

impl BufferPolicy for Wba {
    fn admit_frame(&self, o: &Occupancy) -> bool {
        if self.hard_threshold.is_some_and(|h| o.total >= h) {
            return false;
        }
        // Ties count as congested (docs/models/ubr/buffer-policies.md [RECON]).
        if o.total < self.threshold {
            return true;
        }
        let reserved = self.threshold as f64 * self.weights.get(o.vc).copied().unwrap_or(0.0);
        if (o.untagged_of_vc as f64) < reserved && !o.tagged {
            return true;
        }
        (o.of_vc as f64 - reserved) * (o.active_vcs as f64) < self.z * (o.total - self.threshold) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;

    fn wba() -> Wba {
        let mut w = Wba::new(500, 1.0, None);
        *w.weights.entry(VcId(0)) = 0.1;
        *w.weights.entry(VcId(1)) = 0.4;
        w
    }

    #[test]
    fn below_the_threshold_everything_enters() {
        let o = Occupancy { capacity: 1000, total: 499, of_vc: 499, untagged_of_vc: 0, active_vcs: 1, tagged: true, vc: VcId(0) };
        assert!(wba().admit_frame(&o));
    }

    /// A VC below its reserved share R·W_i with an untagged frame is never refused while X < K.
    #[test]
    fn an_untagged_frame_below_the_reserved_share_always_enters() {
        let p = wba();
        for total in 500..1000 {
            // VC 0 reserves 50 cells; it holds 49 untagged (and far more tagged) cells.
            let o = Occupancy { capacity: 1000, total, of_vc: 400, untagged_of_vc: 49, active_vcs: 5, tagged: false, vc: VcId(0) };
            assert!(p.admit_frame(&o), "X = {total}");
            // Tagged, the same frame is refused: it holds far more than its share of the excess.
            assert!(!p.admit_frame(&Occupancy { tagged: true, ..o }), "X = {total}");
        }
    }

    #[test]
    fn above_the_reserved_share_a_vc_gets_its_even_share_of_the_excess() {
        let p = wba();
        // X = 700: 200 cells above R, 4 active VCs -> 50 each beyond the reserved 200 of VC 1.
        let o = |y| Occupancy { capacity: 1000, total: 700, of_vc: y, untagged_of_vc: 300, active_vcs: 4, tagged: false, vc: VcId(1) };
        assert!(p.admit_frame(&o(249)));
        assert!(!p.admit_frame(&o(250)));
    }

    #[test]
    fn the_hard_threshold_refuses_everything_above_it() {
        let mut p = wba();
        p.hard_threshold = Some(900);
        let o = Occupancy { capacity: 1000, total: 900, of_vc: 0, untagged_of_vc: 0, active_vcs: 1, tagged: false, vc: VcId(0) };
        assert!(!p.admit_frame(&o));
    }
}
