//! Cell transfer delay (seed 004; docs/models/credit.md): per connection, the time from the moment
//! a data cell reaches the head of its source adapter's queue to its arrival at the destination's
//! adapter, over the measurement window. The adapter stamps the cell (`Cell::stamp`) when it
//! becomes the head of the queue; the destination measures. The distribution is kept in an HDR
//! histogram (two significant digits, 1 ns to 1000 s: about 30 kB per connection) for
//! percentiles; the mean is exact.

use ccsim_engine::{SimDuration, SimTime};
use hdrhistogram::Histogram;

#[derive(Clone, Debug)]
pub struct Ctd {
    hist: Histogram<u64>,
    sum_ps: u128,
    n: u64,
}

impl Default for Ctd {
    fn default() -> Self {
        let hist = Histogram::new_with_bounds(1, 1_000_000_000_000, 2).expect("valid bounds and precision");
        Ctd { hist, sum_ps: 0, n: 0 }
    }
}

impl Ctd {
    /// A cell stamped at `head` arrived at `now`.
    pub fn record(&mut self, head: SimTime, now: SimTime) {
        let d = now.saturating_since(head);
        self.sum_ps += d.as_ps() as u128;
        self.n += 1;
        // In nanoseconds, at least 1 (the histogram counts positive values), at most 1000 s.
        self.hist.saturating_record((d.as_ps() / 1000).max(1));
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Mean delay (none without a sample).
    pub fn mean(&self) -> Option<SimDuration> {
        (self.n > 0).then(|| SimDuration::from_ps((self.sum_ps / self.n as u128) as u64))
    }

    /// The `q` quantile (0..=1), to the histogram's precision.
    pub fn quantile(&self, q: f64) -> Option<SimDuration> {
        (self.n > 0).then(|| SimDuration::from_ps(self.hist.value_at_quantile(q) * 1000))
    }

    /// Forgets every sample (the measurement window opens).
    pub fn reset(&mut self) {
        self.hist.reset();
        self.sum_ps = 0;
        self.n = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_is_exact_and_percentiles_are_within_the_precision() {
        let mut c = Ctd::default();
        assert_eq!(c.mean(), None);
        for k in 1..=1000u64 {
            c.record(SimTime::ZERO, SimTime::ZERO + SimDuration::from_micros(k));
        }
        assert_eq!(c.count(), 1000);
        assert_eq!(c.mean(), Some(SimDuration::from_ps(500_500_000)));
        let p99 = c.quantile(0.99).unwrap().as_secs_f64();
        assert!((p99 - 990e-6).abs() < 990e-6 * 0.01, "{p99}");
        c.reset();
        assert_eq!(c.count(), 0);
    }
}
