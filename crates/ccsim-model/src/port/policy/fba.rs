//! Fair Buffer Allocation (Heinanen & Kilkki, 1995): like Selective Drop, but the tolerated
//! load ratio shrinks as the buffer fills, from infinite at X = R to Z at X = K.

use super::{BufferPolicy, Occupancy};

#[derive(Clone, Debug, PartialEq)]
pub struct Fba {
    /// Threshold R, cells [RECON default 0.9 K].
    pub threshold: u32,
    /// Z [CORROB 0.8].
    pub z: f64,
}

impl BufferPolicy for Fba {
    fn admit_frame(&self, o: &Occupancy) -> bool {
        if o.total <= self.threshold || o.active_vcs == 0 {
            return true;
        }
        // Y_i·N_a·(X − R) > Z·(K − R)·X ⇒ discard (the integer-safe form).
        let lhs = o.of_vc as f64 * o.active_vcs as f64 * (o.total - self.threshold) as f64;
        let rhs = self.z * (o.capacity.saturating_sub(self.threshold)) as f64 * o.total as f64;
        lhs <= rhs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_tightens_as_the_buffer_fills() {
        let p = Fba { threshold: 800, z: 0.8 };
        let o = |x, y| Occupancy { capacity: 1000, total: x, of_vc: y, active_vcs: 4, ..Default::default() };
        // X = 900: bound Z(K−R)/(X−R) = 1.6 × fair share 225 = 360 cells.
        assert!(p.admit_frame(&o(900, 360)));
        assert!(!p.admit_frame(&o(900, 361)));
        // X = 1000: bound Z = 0.8 × 250 = 200.
        assert!(p.admit_frame(&o(1000, 200)));
        assert!(!p.admit_frame(&o(1000, 201)));
        assert!(p.admit_frame(&o(800, 800)));
    }
}
