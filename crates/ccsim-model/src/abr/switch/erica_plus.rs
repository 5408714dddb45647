//! ERICA+: ERICA with a queue control function instead of a fixed target utilisation
//! (docs/models/abr/erica-plus.md; Kalyanaraman's dissertation §6.14-6.20; Vandalore et al., ATM
//! Forum 98-0408).
//!
//! Everything else is ERICA (`erica.rs`, same options, δ, t_AI, N_AI): only the target
//! capacity changes, to `f(q) × ABR capacity`, where `f` is 1 at the target queue
//! `Q0 = T0 × capacity`, rises towards `b` as the queue empties and falls towards `QDLF` as
//! it grows. The link then runs at 100 % with a standing queue of about `Q0`.

use ccsim_engine::SimDuration;

/// The queue control function of ERICA+.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueControl {
    /// Target queueing delay T0 (the seed's `D`).
    pub t0: SimDuration,
    /// Overload hyperbola parameter (> 1).
    pub a: f64,
    /// Underload hyperbola parameter (> 1).
    pub b: f64,
    /// Queue drain limit factor: the lowest `f` allowed.
    pub qdlf: f64,
}

impl Default for QueueControl {
    /// docs/models/abr/erica-plus.md, "Parameters": T0 = 100 µs (the seed's example), a = 1.15,
    /// b = 1.05, QDLF = 0.5.
    fn default() -> Self {
        QueueControl { t0: SimDuration::from_micros(100), a: 1.15, b: 1.05, qdlf: 0.5 }
    }
}

impl QueueControl {
    /// `f(q)` for a queue of `q` cells on a port with `abr_cap` cells/s of ABR capacity.
    /// Both branches are rectangular hyperbolas through f(Q0) = 1.
    pub fn factor(&self, q: f64, abr_cap: f64) -> f64 {
        let q0 = self.t0.as_secs_f64() * abr_cap;
        if q0 <= 0.0 {
            // No target queue: behave as if always at it (plain 100 % target).
            return 1.0;
        }
        if q <= q0 {
            self.b * q0 / ((self.b - 1.0) * q + q0)
        } else {
            (self.a * q0 / ((self.a - 1.0) * q + q0)).max(self.qdlf)
        }
    }

    /// The target queue in cells.
    pub fn target_queue(&self, abr_cap: f64) -> f64 {
        self.t0.as_secs_f64() * abr_cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qc() -> QueueControl {
        QueueControl { t0: SimDuration::from_micros(200), ..QueueControl::default() }
    }

    const CAP: f64 = 366_792.45; // OC-3 cells/s: Q0 = 73.36 cells for T0 = 0.2 ms

    #[test]
    fn one_at_the_target_queue() {
        let q0 = qc().target_queue(CAP);
        assert!((q0 - 73.358).abs() < 1e-3);
        assert!((qc().factor(q0, CAP) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn b_with_an_empty_queue() {
        assert!((qc().factor(0.0, CAP) - 1.05).abs() < 1e-12);
    }

    #[test]
    fn overload_branch_by_hand() {
        // q = 2 Q0: f = 1.15 Q0 / (0.15 · 2 Q0 + Q0) = 1.15 / 1.3.
        let q0 = qc().target_queue(CAP);
        assert!((qc().factor(2.0 * q0, CAP) - 1.15 / 1.3).abs() < 1e-12);
    }

    #[test]
    fn qdlf_floors_a_long_queue() {
        assert_eq!(qc().factor(1e6, CAP), 0.5);
    }

    #[test]
    fn monotone_decreasing_in_the_queue() {
        let mut last = f64::INFINITY;
        for q in 0..2000 {
            let f = qc().factor(q as f64, CAP);
            assert!(f <= last);
            last = f;
        }
    }
}
