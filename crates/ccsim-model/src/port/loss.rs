//! Cell (or packet) loss on a link: each item that finishes crossing the link is lost with a
//! fixed probability, drawn from the port's own random stream (bit errors on the wire, the
//! fault a credit scheme's BSC cells exist to repair; docs/models/credit.md).
//!
//! Owns the probability, the stream and the count. The item has been transmitted and has
//! propagated: it occupied the buffer and the link, and only its arrival is lost
//! (`World::arrive`).

use ccsim_engine::RngStream;

#[derive(Clone, Debug)]
pub struct LinkLoss {
    probability: f64,
    rng: RngStream,
    /// Items lost on this port's link.
    pub lost: u64,
}

impl LinkLoss {
    /// `probability` in [0, 1) (validated by the scenario).
    pub fn new(probability: f64, rng: RngStream) -> Self {
        debug_assert!((0.0..1.0).contains(&probability));
        LinkLoss { probability, rng, lost: 0 }
    }

    /// Whether the item arriving now is lost (one draw per item).
    #[inline]
    pub fn lose(&mut self) -> bool {
        let lost = self.rng.uniform() < self.probability;
        self.lost += lost as u64;
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fraction_lost_matches_the_probability() {
        let mut l = LinkLoss::new(0.01, RngStream::new(ccsim_engine::StreamKey { seed: 7, replication: 0, component: 1, purpose: 1 }));
        let n = 200_000;
        let lost = (0..n).filter(|_| l.lose()).count() as f64;
        // Binomial: mean 2000, sd ~44.5; 5 sd.
        assert!((lost - 2000.0).abs() < 5.0 * (n as f64 * 0.01 * 0.99).sqrt(), "{lost}");
        assert_eq!(l.lost, lost as u64);
    }

    #[test]
    fn probability_zero_loses_nothing() {
        let mut l = LinkLoss::new(0.0, RngStream::new(ccsim_engine::StreamKey { seed: 7, replication: 0, component: 1, purpose: 1 }));
        assert!((0..10_000).all(|_| !l.lose()));
    }
}
