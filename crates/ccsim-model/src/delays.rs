//! Delay distributions.
//!
//! A flow's end-to-end delay (`FlowDelay`, every source and connection): from the moment a unit
//! left its source (its transmission on the source's access link began: the `sent` stamp it
//! carries, `Cell::sent`) to its arrival at the destination that counts it (a cell source's data
//! cell at its destination host; a TCP segment's frame when its last cell completes it at the
//! receiver's adapter, timed from its first cell), with the mean, the 99th percentile and the
//! jitter of the units delivered in the measurement window.
//!
//! A connection's cell transfer delay (seed 004; docs/models/credit.md), from the moment a data
//! cell reaches the head of its source adapter's queue (the adapter stamps it, `Cell::queued`)
//! to its arrival at the destination's adapter; and its packet-to-ACK time, from a segment's
//! first transmission to the ACK that covers it (`AckTimes`). Each is kept in an HDR histogram
//! (the `hdrhistogram` crate: two significant digits, 1 ns to 1000 s, about 30 kB) for
//! percentiles; the mean is exact.

use crate::cell::Stamp;
use ccsim_engine::{SimDuration, SimTime, PS_PER_SEC};
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

/// One flow's end-to-end delays in the measurement window: their exact sum (the mean), the sum of
/// the differences between consecutive delays (the jitter), and a log-linear histogram (the 99th
/// percentile) of fixed size, so that memory grows with flows, never with units.
///
/// The histogram (`LogHistogram`) counts delays in units of 2^10 ps (1.024 ns) up to
/// `Stamp::SPAN` (2^48 ps ≈ 281 s, the most a stamp measures), 64 buckets per octave above
/// 64 units (65.5 ns) and one per unit below: 2,112 32-bit counts in all, of which a flow keeps
/// only the octaves its delays reached (a run of whole octaves, 256 bytes each: a flow whose
/// delays stay within a factor of two keeps 0.5 kB; all of them would be 8.4 kB). A percentile
/// is reported as the middle of its bucket, at most 1/128 (0.78 %) of the delay of that rank
/// away from it (`P99_RELATIVE_ERROR`), or 0.512 ns below 65.5 ns. Recording is a few integer
/// operations and one increment: no allocation, no division. (The `hdrhistogram` crate, which
/// the cell transfer delay uses, took 60 instructions a record and 16 kB a flow for the same
/// precision: docs/benchmarks.md.)
#[derive(Clone, Debug)]
pub struct FlowDelay {
    sum_ps: u128,
    /// Σ |D(i) − D(i−1)| over consecutive units, and the last unit's delay.
    jitter_ps: u128,
    last_ps: u64,
    n: u64,
    hist: LogHistogram,
}

/// How far `FlowDelay::p99_s` may be from the delay of its rank, relative to it (above 65.5 ns;
/// below, 0.512 ns).
pub const P99_RELATIVE_ERROR: f64 = 1.0 / 128.0;

impl Default for FlowDelay {
    fn default() -> Self {
        FlowDelay { sum_ps: 0, jitter_ps: 0, last_ps: 0, n: 0, hist: LogHistogram::default() }
    }
}

impl FlowDelay {
    /// A unit arrived after `d` in the network.
    #[inline]
    pub fn record(&mut self, d: SimDuration) {
        let d = d.as_ps();
        self.sum_ps += d as u128;
        if self.n > 0 {
            self.jitter_ps += d.abs_diff(self.last_ps) as u128;
        }
        self.last_ps = d;
        self.n += 1;
        self.hist.record(d);
    }

    /// Units recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The mean delay, seconds (none without a unit). Exact: the sum is kept in picoseconds.
    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ps as f64 / self.n as f64 / PS_PER_SEC as f64)
    }

    /// The 99th percentile, seconds: the delay of rank ⌈0.99 n⌉ (nearest rank), to the
    /// histogram's precision (`P99_RELATIVE_ERROR`; none without a unit).
    pub fn p99_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.hist.quantile_ps(99, 100) / PS_PER_SEC as f64)
    }

    /// The mean absolute difference between the delays of consecutive units, seconds: ns-3
    /// FlowMonitor's jitterSum / (rxPackets − 1), RFC 3550's |D(i−1, i)| without its 1/16
    /// smoothing (none below two units).
    pub fn jitter_s(&self) -> Option<f64> {
        (self.n > 1).then(|| self.jitter_ps as f64 / (self.n - 1) as f64 / PS_PER_SEC as f64)
    }

    /// The exact sum of the delays (picoseconds) and the units recorded: what a sampler
    /// differences for the mean delay of the units delivered between two samples.
    pub fn totals(&self) -> (u128, u64) {
        (self.sum_ps, self.n)
    }

    /// The histogram's non-empty buckets, in order: (low, high) picoseconds and the units whose
    /// delay fell in [low, high). The empirical distribution a delay CDF plot draws.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u32)> + '_ {
        self.hist.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(k, &c)| {
            let (lo, hi) = LogHistogram::range(self.hist.base + k);
            (lo, hi, c)
        })
    }

    /// Forgets every unit (the measurement window opens).
    pub fn reset(&mut self) {
        (self.sum_ps, self.jitter_ps, self.last_ps, self.n) = (0, 0, 0, 0);
        self.hist.reset();
    }
}

/// Log-linear buckets of picosecond delays, as HDR histograms lay them out with constants known
/// at compile time: a value's unit count `u = ps >> UNIT_BITS` has an exponent
/// `e = max(bit length of u, SUB_BITS) − SUB_BITS` and a mantissa `u >> e` of SUB_BITS bits (its
/// top bit set when e > 0); bucket e · 2^(SUB_BITS−1) + mantissa is then contiguous in e.
///
/// Only the buckets from `base` on are stored (`counts[k]` is bucket `base + k`): a run of whole
/// octaves (HALF buckets each) that grows to take in a delay outside it, so memory follows the
/// delays a flow saw, not the 48-bit range a delay could span.
#[derive(Clone, Debug, Default)]
struct LogHistogram {
    base: usize,
    counts: Vec<u32>,
}

const UNIT_BITS: u32 = 10;
const SUB_BITS: u32 = 7;
const HALF: usize = 1 << (SUB_BITS - 1);
/// Up to the stamps' 48 bits: exponents 0 ..= 48 − UNIT_BITS − SUB_BITS.
const BUCKETS: usize = (48 - UNIT_BITS - SUB_BITS + 1) as usize * HALF + HALF;
const _: () = assert!(1 << 48 == Stamp::SPAN.as_ps());

impl LogHistogram {
    #[inline]
    fn index(ps: u64) -> usize {
        let u = ps >> UNIT_BITS;
        let e = (64 - SUB_BITS) - (u | ((1 << SUB_BITS) - 1)).leading_zeros();
        ((((e as u64) << (SUB_BITS - 1)) + (u >> e)) as usize).min(BUCKETS - 1)
    }

    /// The picoseconds bucket `i` covers, [low, high).
    fn range(i: usize) -> (u64, u64) {
        let e = (i / HALF).max(1) - 1;
        let m = (i - e * HALF) as u64;
        (m << (e as u32 + UNIT_BITS), (m + 1) << (e as u32 + UNIT_BITS))
    }

    /// Counts `ps` (a count saturates at 2^32 − 1: 4.3 × 10^9 units of one flow in one bucket).
    #[inline]
    fn record(&mut self, ps: u64) {
        let i = Self::index(ps);
        if i.wrapping_sub(self.base) >= self.counts.len() {
            self.take_in(i);
        }
        let c = &mut self.counts[i - self.base];
        *c = c.saturating_add(1);
    }

    /// Widens the stored run of octaves to hold bucket `i`.
    #[cold]
    fn take_in(&mut self, i: usize) {
        let octave = |b: usize| b / HALF * HALF;
        let (lo, hi) = if self.counts.is_empty() {
            (octave(i), octave(i) + HALF)
        } else {
            (octave(i).min(self.base), (octave(i) + HALF).max(self.base + self.counts.len()))
        };
        let mut counts = vec![0; hi.min(BUCKETS) - lo];
        counts[self.base.saturating_sub(lo)..][..self.counts.len()].copy_from_slice(&self.counts);
        (self.base, self.counts) = (lo, counts);
    }

    /// The `num/den` quantile in picoseconds: the middle of the bucket that holds the value of
    /// rank ⌈n · num / den⌉ (at least 1). Zero when empty.
    fn quantile_ps(&self, num: u64, den: u64) -> f64 {
        let n: u64 = self.counts.iter().map(|&c| c as u64).sum();
        let rank = (n * num).div_ceil(den).max(1);
        let mut seen = 0;
        let mut last = 0;
        for (k, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            seen += c as u64;
            last = self.base + k;
            if seen >= rank {
                break;
            }
        }
        if n == 0 {
            return 0.0;
        }
        let (lo, hi) = Self::range(last);
        (lo + hi) as f64 / 2.0
    }

    fn reset(&mut self) {
        self.counts.fill(0);
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

    /// Nothing measured: no mean, no percentile, no jitter; one unit: no jitter yet. The mean is
    /// exact, the jitter the mean of |D(i) − D(i−1)|, the 99th percentile the delay of rank 99 of
    /// 100, to 1/128 of it.
    #[test]
    fn a_flows_mean_is_exact_its_jitter_consecutive_and_its_p99_within_the_bound() {
        let mut f = FlowDelay::default();
        assert_eq!((f.mean_s(), f.p99_s(), f.jitter_s()), (None, None, None));
        f.record(SimDuration::from_micros(10));
        assert_eq!((f.mean_s(), f.jitter_s()), (Some(10e-6), None));
        f.reset();
        // 1, 2, ..., 100 ms in the order 1, 3, 2, 4, 6, 5, ...: |differences| 2, 1, 2, 2, 1, ...
        let mut ks: Vec<u64> = (0..33u64).flat_map(|j| [3 * j + 1, 3 * j + 3, 3 * j + 2]).collect();
        ks.push(100);
        for &k in &ks {
            f.record(SimDuration::from_millis(k));
        }
        assert_eq!(f.count(), 100);
        let sum: u64 = ks.iter().sum();
        assert_eq!(f.mean_s(), Some(sum as f64 / 100.0 / 1e3));
        let jumps: u64 = ks.windows(2).map(|w| w[0].abs_diff(w[1])).sum();
        assert_eq!(f.jitter_s(), Some(jumps as f64 / 99.0 / 1e3));
        let mut sorted = ks.clone();
        sorted.sort();
        let rank99 = sorted[98] as f64 / 1e3;
        let p99 = f.p99_s().unwrap();
        assert!((p99 - rank99).abs() <= rank99 * P99_RELATIVE_ERROR, "{p99} vs {rank99}");
        let bucket = |ms: u64| LogHistogram::index(SimDuration::from_millis(ms).as_ps());
        assert_ne!(bucket(99), bucket(100));
        assert_eq!(bucket((p99 * 1e3) as u64), bucket(99), "rank 99 of 100, not 100");
        // A constant delay has no jitter; its percentile is the middle of its bucket.
        f.reset();
        for _ in 0..10 {
            f.record(SimDuration::from_ps(12_345_678_901));
        }
        assert_eq!(f.jitter_s(), Some(0.0));
        let p99 = f.p99_s().unwrap();
        assert!((p99 - 12_345_678_901e-12).abs() <= 12_345_678_901e-12 * P99_RELATIVE_ERROR, "{p99}");
    }

    /// Bucket by bucket: every value maps to the bucket whose range holds it, the ranges tile the
    /// line without gaps, and a bucket is at most 1/64 of its lower end wide (1/128 each side of
    /// its middle) once it holds more than one unit.
    #[test]
    fn the_log_histograms_buckets_tile_the_line_within_the_bound() {
        let mut next = 0;
        for i in 0..BUCKETS {
            let (lo, hi) = LogHistogram::range(i);
            assert_eq!(lo, next, "bucket {i} starts where {} ends", i.max(1) - 1);
            next = hi;
            assert!(hi - lo == 1 << UNIT_BITS || (hi - lo) as f64 <= lo as f64 / 64.0, "bucket {i}: [{lo}, {hi})");
            for v in [lo, lo + (hi - lo) / 2, hi - 1] {
                assert_eq!(LogHistogram::index(v), i, "{v} ps");
            }
        }
        assert_eq!(next, Stamp::SPAN.as_ps(), "the buckets end where the stamps do");
        assert_eq!(LogHistogram::index(u64::MAX), BUCKETS - 1, "longer delays count in the last bucket");
    }

    /// The histogram keeps only the octaves its values reached, growing both ways, and counts
    /// every value in the bucket `index` names: its quantiles are those of a histogram holding
    /// all 2,112 buckets.
    #[test]
    fn the_log_histogram_keeps_the_octaves_it_needs_and_the_quantiles_of_all() {
        let mut h = LogHistogram::default();
        let mut dense = vec![0u64; BUCKETS];
        let mut record = |h: &mut LogHistogram, ps: u64| {
            h.record(ps);
            dense[LogHistogram::index(ps)] += 1;
        };
        for k in 0..200 {
            record(&mut h, 5_000_000_000 + k * 10_000_000); // 5 to 7 ms: one octave
        }
        assert_eq!(h.counts.len(), HALF);
        record(&mut h, 40_000); // 40 ns, far below
        record(&mut h, 200_000_000_000_000); // 200 s, far above
        assert_eq!((h.base, (h.base + h.counts.len()) % HALF), (0, 0));
        let mut x = 12345u64;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            record(&mut h, (x >> 20) % 300_000_000_000_000);
        }
        let n: u64 = dense.iter().sum();
        for (num, den) in [(1, 100), (50, 100), (99, 100), (999, 1000)] {
            let rank = (n * num).div_ceil(den);
            let i = dense.iter().scan(0, |s, &c| {
                *s += c;
                Some(*s)
            }).position(|s| s >= rank).unwrap();
            let (lo, hi) = LogHistogram::range(i);
            assert_eq!(h.quantile_ps(num, den), (lo + hi) as f64 / 2.0, "{num}/{den}");
        }
        h.reset();
        assert_eq!(h.quantile_ps(99, 100), 0.0);
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
