//! Selective Drop (Goyal, Jain et al., UBR+, ICC '97): above the threshold R, refuse a new
//! frame only from a VC holding more than Z times its fair share X/N_a of the buffer.

use super::{BufferPolicy, Occupancy};

#[derive(Clone, Debug, PartialEq)]
pub struct SelectiveDrop {
    /// Threshold R, cells [RECON default 0.9 K].
    pub threshold: u32,
    /// Load-ratio bound Z [CORROB 0.8].
    pub z: f64,
}

impl BufferPolicy for SelectiveDrop {
    fn admit_frame(&self, o: &Occupancy) -> bool {
        if o.total < self.threshold || o.active_vcs == 0 {
            return true;
        }
        // Load ratio Y_i·N_a / X > Z ⇒ discard.
        (o.of_vc as f64) * (o.active_vcs as f64) <= self.z * o.total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_vcs_above_their_share_lose_frames() {
        let p = SelectiveDrop { threshold: 900, z: 0.8 };
        // 950 cells among 5 VCs: fair share 190; Z × share = 152.
        let o = |y| Occupancy { capacity: 1000, total: 950, of_vc: y, active_vcs: 5, ..Default::default() };
        assert!(p.admit_frame(&o(152)));
        assert!(!p.admit_frame(&o(153)));
        // Below the threshold everything enters.
        assert!(p.admit_frame(&Occupancy { total: 899, ..o(899) }));
    }
}
