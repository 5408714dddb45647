//! Early Packet Discard (Romanow & Floyd, IEEE JSAC 1995): refuse a whole new frame once the
//! buffer holds R cells or more, so the space above R finishes frames already admitted.
//!
//! With a CLP1 threshold it is the "preferential dropping of tagged frames" of seed 001 (§4.2,
//! §4.3, §6.2, after Basak & Pappu): a frame whose first cell is tagged (CLP = 1) is refused from
//! the lower threshold R1 ≤ R up, an untagged one only from R, so between R1 and R only tagged
//! frames are lost. The rest of a refused frame (all but its end-of-frame cell) and of a frame
//! that overflows once admitted goes too, as for every frame-aware policy (`port/buffer.rs`).

use super::{BufferPolicy, Occupancy};

#[derive(Clone, Debug, PartialEq)]
pub struct Epd {
    /// Threshold R, cells (0 < R ≤ K) [RECON default 0.9 K].
    pub threshold: u32,
    /// Threshold R1 for tagged frames, cells (0 < R1 ≤ R); `None`: blind to the CLP bit.
    pub clp1_threshold: Option<u32>,
}

impl Epd {
    /// EPD blind to the CLP bit.
    pub fn new(threshold: u32) -> Self {
        Epd { threshold, clp1_threshold: None }
    }
}

impl BufferPolicy for Epd {
    fn admit_frame(&self, o: &Occupancy) -> bool {
        let r = match self.clp1_threshold {
            Some(r1) if o.tagged => r1,
            _ => self.threshold,
        };
        // Ties count as congested (docs/models/ubr/buffer-policies.md [RECON]).
        o.total < r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_at_and_above_the_threshold() {
        let p = Epd::new(900);
        let o = |x| Occupancy { capacity: 1000, total: x, of_vc: 0, active_vcs: 1, ..Default::default() };
        assert!(p.admit_frame(&o(899)));
        assert!(!p.admit_frame(&o(900)));
        // Blind to the CLP bit: a tagged frame is judged alike.
        assert!(p.admit_frame(&Occupancy { tagged: true, ..o(899) }));
        assert!(!p.admit_frame(&Occupancy { tagged: true, ..o(900) }));
    }

    /// With R1 = 500 < R = 900: below 500 both enter; from 500 to 899 only untagged frames; from
    /// 900 neither.
    #[test]
    fn tagged_frames_are_refused_from_the_lower_threshold() {
        let p = Epd { threshold: 900, clp1_threshold: Some(500) };
        for x in 0..1000 {
            let untagged = Occupancy { capacity: 1000, total: x, active_vcs: 1, ..Default::default() };
            let tagged = Occupancy { tagged: true, ..untagged };
            assert_eq!(p.admit_frame(&untagged), x < 900, "untagged at X = {x}");
            assert_eq!(p.admit_frame(&tagged), x < 500, "tagged at X = {x}");
        }
    }
}
