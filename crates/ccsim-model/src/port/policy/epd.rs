//! Early Packet Discard (Romanow & Floyd, IEEE JSAC 1995): refuse a whole new frame once the
//! buffer holds R cells or more, so the space above R finishes frames already admitted.

use super::{BufferPolicy, Occupancy};

#[derive(Clone, Debug, PartialEq)]
pub struct Epd {
    /// Threshold R, cells (0 < R ≤ K) [RECON default 0.9 K].
    pub threshold: u32,
}

impl BufferPolicy for Epd {
    fn admit_frame(&self, o: &Occupancy) -> bool {
        // Ties count as congested (docs/models/ubr/buffer-policies.md [RECON]).
        o.total < self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_at_and_above_the_threshold() {
        let p = Epd { threshold: 900 };
        let o = |x| Occupancy { capacity: 1000, total: x, of_vc: 0, active_vcs: 1, ..Default::default() };
        assert!(p.admit_frame(&o(899)));
        assert!(!p.admit_frame(&o(900)));
    }
}
