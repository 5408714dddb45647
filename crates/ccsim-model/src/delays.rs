//! Delay distributions of a connection (seed 004; docs/models/credit.md): its cell transfer delay,
//! from the moment a data cell reaches the head of its source adapter's queue (the adapter stamps
//! it, `Cell::stamp`) to its arrival at the destination's adapter; and its packet-to-ACK time, from
//! a segment's first transmission to the ACK that covers it (`AckTimes`). Each is kept in an HDR
//! histogram (two significant digits, 1 ns to 1000 s: about 30 kB) for percentiles; the mean is
//! exact.

use ccsim_engine::{SimDuration, SimTime};
use hdrhistogram::Histogram;

#[derive(Clone, Debug)]
pub struct DelayStats {
    hist: Histogram<u64>,
    sum_ps: u128,
    n: u64,
}

impl Default for DelayStats {
    fn default() -> Self {
        let hist = Histogram::new_with_bounds(1, 1_000_000_000_000, 2).expect("valid bounds and precision");
        DelayStats { hist, sum_ps: 0, n: 0 }
    }
}

impl DelayStats {
    /// Something that started at `head` ended at `now`.
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

/// A sender's segments in flight with their first transmission, for the packet-to-ACK time.
#[derive(Clone, Debug, Default)]
pub struct AckTimes {
    /// (end sequence number, first sent), in sequence order.
    pending: std::collections::VecDeque<(u64, SimTime)>,
    pub stats: DelayStats,
}

impl AckTimes {
    /// A new segment ending at `end` left at `now` (retransmissions keep their first time).
    pub fn sent(&mut self, end: u64, now: SimTime) {
        if self.pending.back().is_none_or(|&(e, _)| end > e) {
            self.pending.push_back((end, now));
        }
    }

    /// The cumulative ACK reached `ack` at `now`: every segment it covers is timed.
    pub fn acked(&mut self, ack: u64, now: SimTime) {
        while let Some(&(end, sent)) = self.pending.front() {
            if end > ack {
                break;
            }
            self.pending.pop_front();
            self.stats.record(sent, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_is_exact_and_percentiles_are_within_the_precision() {
        let mut c = DelayStats::default();
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

    #[test]
    fn a_cumulative_ack_times_every_segment_it_covers_from_its_first_transmission() {
        let t = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        let mut a = AckTimes::default();
        a.sent(1000, t(0));
        a.sent(2000, t(10));
        a.sent(1000, t(500)); // a retransmission keeps the first time
        a.acked(999, t(600));
        assert_eq!(a.stats.count(), 0);
        a.acked(2000, t(700));
        assert_eq!(a.stats.count(), 2);
        assert_eq!(a.stats.mean(), Some(SimDuration::from_millis(695)));
    }
}
