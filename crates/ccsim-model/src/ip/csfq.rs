//! The per-flow arrival-rate estimator of the source edge (seed 002 Eq. 1, the CSFQ estimator
//! of Stoica, Shenker & Zhang, SIGCOMM'98; docs/models/ficcrd.md, "Model").
//!
//! `APR_new = (1 - exp(-T/K)) * l / T + exp(-T/K) * APR_old`, with `T` the gap since the
//! previous packet and `l` the packet's length in bits, so APR is in bits/s.

use ccsim_engine::SimTime;

#[derive(Clone, Debug)]
pub struct RateEstimator {
    /// Averaging constant K_e, seconds.
    k_e: f64,
    apr: f64,
    last: Option<SimTime>,
    /// Bits of packets that arrived at the same instant as the previous one [RECON: a zero gap
    /// accumulates its length into the next update].
    pending_bits: f64,
}

impl RateEstimator {
    pub fn new(k_e_s: f64) -> Self {
        assert!(k_e_s > 0.0);
        RateEstimator { k_e: k_e_s, apr: 0.0, last: None, pending_bits: 0.0 }
    }

    /// The current estimate, bits/s.
    pub fn apr(&self) -> f64 {
        self.apr
    }

    /// A packet of `bits` arrived at `now`.
    pub fn on_packet(&mut self, now: SimTime, bits: f64) {
        let Some(last) = self.last else {
            // First packet of the flow: APR = 0, only its time is recorded [RECON].
            self.last = Some(now);
            return;
        };
        let t = now.saturating_since(last).as_secs_f64();
        if t <= 0.0 {
            self.pending_bits += bits;
            return;
        }
        let l = bits + std::mem::take(&mut self.pending_bits);
        let e = (-t / self.k_e).exp();
        self.apr = (1.0 - e) * (l / t) + e * self.apr;
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::SimDuration;

    #[test]
    fn converges_to_the_rate_of_constant_rate_arrivals() {
        // 4136-byte packets every 3.3088 ms: 10 Mb/s.
        let mut e = RateEstimator::new(0.1);
        let gap = SimDuration::from_ps(3_308_800_000);
        let mut t = SimTime::ZERO;
        e.on_packet(t, 4136.0 * 8.0);
        assert_eq!(e.apr(), 0.0, "the first packet only records its time");
        for _ in 0..1000 {
            t = t + gap;
            e.on_packet(t, 4136.0 * 8.0);
        }
        assert!((e.apr() - 10e6).abs() / 10e6 < 1e-6, "{}", e.apr());
    }

    #[test]
    fn simultaneous_arrivals_count_in_the_next_update() {
        let mut a = RateEstimator::new(0.1);
        let mut b = RateEstimator::new(0.1);
        let t0 = SimTime::ZERO;
        let t1 = t0 + SimDuration::from_ps(1_000_000_000);
        a.on_packet(t0, 100.0);
        a.on_packet(t0, 100.0);
        a.on_packet(t1, 100.0);
        b.on_packet(t0, 100.0);
        b.on_packet(t1, 200.0);
        assert!(a.apr() > 0.0);
        assert_eq!(a.apr(), b.apr());
    }
}
