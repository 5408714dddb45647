//! Random Early Detection for packet ports (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993), as ns-2.35's `REDQueue`
//! (`queue/red.cc`) runs it with the queue and the drop count in packets
//! (`queue_in_bytes_ = false`, `bytes_ = false`).
//!
//! RED sees `q`, the packets *waiting*: ns-2's queue no longer holds the packet being
//! transmitted, so the port passes its buffer less the one on the wire. On every arrival the
//! average queue `avg` is updated from `q` with weight `w_q`. After an idle period (the
//! transmitter finished and found nothing to send) the average first decays as if `m` empty
//! packet slots had passed, `m = floor(idle · C / mean_packet_bits)` (the paper's §4 and ns-2's
//! estimator). `count` is the number of arrivals since the last drop, this one included. Then:
//! - `avg < min_th`, or `q <= 1`: admit. ns-2 never drops early while at most one packet waits
//!   (`qlen > 1` in `enque`; it has no switch for this), and ccsim always applies the same guard.
//! - The first arrival that passes both tests after one that did not is admitted and restarts
//!   `count` at 1 (`spare_first`, ns-2's `old` flag). ns-2.35 applies this at any `avg >= min_th`,
//!   also above `max_th`: with its default `use_mark_p_ = true` drops above `max_th` are not
//!   "forced" and take the same path.
//! - Otherwise `p_b = max_p (avg - min_th)/(max_th - min_th)` below `max_th`; above, `p_b = 1`,
//!   or with `gentle` it rises linearly from `max_p` to 1 between `max_th` and `2 max_th`. The
//!   arrival is dropped with `p_a`: with `wait`, 0 while `count·p_b < 1`, `p_b/(2 - count·p_b)`
//!   while `count·p_b < 2`, then 1, so the gaps between drops are uniform on `[1/p_b, 2/p_b]`
//!   arrivals; without, `p_a = p_b/(1 - count·p_b)` (the paper), gaps uniform on `[1, 1/p_b]`.
//!
//! After a drop `count = 0`. A full buffer still drops (drop-tail), which the buffer counts as an
//! overflow, also when RED would have dropped the packet (ns-2 makes every drop at a full queue a
//! "forced" one); with `overflow_resets_count` such a drop also sets `count = 0`, as ns-2's forced
//! drops do. RED's own drops are `DropReason::Early`.

use ccsim_engine::{RngStream, SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Packets.
    pub min_th: f64,
    /// Packets.
    pub max_th: f64,
    /// Averaging weight.
    pub w_q: f64,
    /// Drop probability at `max_th`.
    pub max_p: f64,
    /// Gentle RED above `max_th` (Floyd 2000) instead of dropping every arrival.
    pub gentle: bool,
    /// Typical packet size used to age the average over idle periods, bytes.
    pub mean_packet_bytes: u32,
    /// Wait between drops (ns-2's `wait_`): no drop while `count·p_b < 1`, then
    /// `p_a = p_b/(2 - count·p_b)`, so gaps between drops are uniform on `[1/p_b, 2/p_b]`
    /// arrivals. `false`: the paper's `p_a = p_b/(1 - count·p_b)`, gaps uniform on `[1, 1/p_b]`.
    pub wait: bool,
    /// Never drop the first arrival that finds `avg >= min_th` and more than one packet waiting
    /// after one that did not; `count` restarts at 1 there (ns-2's `old`). `false`: the paper,
    /// where `count` starts at 0 and that arrival may be dropped.
    pub spare_first: bool,
    /// A buffer overflow sets `count = 0` as a RED drop does (ns-2: forced drops, unless
    /// `ns1_compat_`). `false`: only RED's own drops reset it (ns-1, the paper).
    pub overflow_resets_count: bool,
}

impl Default for RedParams {
    /// ns-2's classic explicit settings: thresholds 5 and 15 packets, w_q 0.002, not gentle
    /// (ns-2.35 itself defaults to automatic thresholds and weight and to gentle RED), with
    /// ns-2.35's max_p 0.1 (`linterm_` 10), 500-byte mean packets, `wait_` true, the `old` rule
    /// and forced drops resetting `count` (`ns1_compat_` false).
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            w_q: 0.002,
            max_p: 0.1,
            gentle: false,
            mean_packet_bytes: 500,
            wait: true,
            spare_first: true,
            overflow_resets_count: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Red {
    pub p: RedParams,
    /// Time to send one typical packet at the port's rate: one idle "slot".
    slot: SimDuration,
    avg: f64,
    /// Arrivals since the last drop, this one included; -1 while RED is not dropping (the
    /// paper's initial value, which matters only without `spare_first`).
    count: i64,
    /// The previous arrival found `avg >= min_th` and more than one packet waiting (ns-2's `old`).
    old: bool,
    rng: RngStream,
    /// Arrivals RED chose to drop (the port records those that also found the buffer full as
    /// overflows).
    pub early_drops: u64,
}

impl Red {
    pub fn new(p: RedParams, rate_bps: u64, rng: RngStream) -> Self {
        let slot_ps = (p.mean_packet_bytes as u128 * 8 * ccsim_engine::PS_PER_SEC as u128 / rate_bps.max(1) as u128) as u64;
        Red { p, slot: SimDuration::from_ps(slot_ps.max(1)), avg: 0.0, count: -1, old: false, rng, early_drops: 0 }
    }

    /// The current average queue, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Arrivals since the last drop (ns-2's `count`).
    pub fn count(&self) -> i64 {
        self.count
    }

    /// Updates the average for an arrival that finds `q` packets waiting behind the one being
    /// transmitted (`idle_since`: when the transmitter went idle, if it is idle now) and says
    /// whether RED drops it.
    pub fn on_arrival(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>) -> bool {
        let keep = 1.0 - self.p.w_q;
        if let Some(t) = idle_since {
            let m = now.saturating_since(t).as_ps() / self.slot.as_ps();
            self.avg *= keep.powf(m as f64);
        }
        self.avg = keep * self.avg + self.p.w_q * q as f64;
        let p_b = match self.base_probability() {
            Some(p_b) if q > 1 => p_b,
            _ => {
                self.old = false;
                self.count = -1;
                return false;
            }
        };
        self.count += 1;
        if !std::mem::replace(&mut self.old, true) && self.p.spare_first {
            self.count = 1;
            return false;
        }
        let p_a = if p_b >= 1.0 { 1.0 } else { self.drop_probability(p_b) };
        let drop = p_a >= 1.0 || (p_a > 0.0 && self.rng.uniform() < p_a);
        if drop {
            self.count = 0;
            self.early_drops += 1;
        }
        drop
    }

    /// The buffer refused an arrival (ns-2's forced drop).
    pub fn on_overflow(&mut self) {
        if self.p.overflow_resets_count {
            self.count = 0;
        }
    }

    /// `p_b` for the current average; `None` below `min_th`.
    fn base_probability(&self) -> Option<f64> {
        let RedParams { min_th, max_th, max_p, gentle, .. } = self.p;
        let a = self.avg;
        if a < min_th {
            None
        } else if a < max_th {
            Some(max_p * (a - min_th) / (max_th - min_th))
        } else if gentle && a < 2.0 * max_th {
            Some(max_p + (1.0 - max_p) * (a - max_th) / max_th)
        } else {
            Some(1.0)
        }
    }

    /// `p_a` from `p_b < 1` and `count` (ns-2's `modify_p` in packet mode; with `p_b = 1` ns-2's
    /// `count >= 1` always gives 1, which the caller applies directly).
    fn drop_probability(&self, p_b: f64) -> f64 {
        let c = self.count as f64 * p_b;
        let p_a = match (self.p.wait, c) {
            (true, c) if c < 1.0 => 0.0,
            (true, c) if c < 2.0 => p_b / (2.0 - c),
            (false, c) if c < 1.0 => p_b / (1.0 - c),
            _ => 1.0,
        };
        p_a.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::StreamKey;

    fn params(min_th: f64, max_th: f64, w_q: f64, gentle: bool) -> RedParams {
        RedParams { min_th, max_th, w_q, max_p: 0.1, gentle, ..RedParams::default() }
    }

    fn red_with(p: RedParams) -> Red {
        Red::new(p, 10_000_000, RngStream::new(StreamKey { seed: 7, replication: 0, component: 0, purpose: 0 }))
    }

    fn red(min_th: f64, max_th: f64, w_q: f64, gentle: bool) -> Red {
        red_with(params(min_th, max_th, w_q, gentle))
    }

    const T0: SimTime = SimTime::ZERO;

    #[test]
    fn the_average_is_an_ewma_of_the_queue_seen_by_arrivals() {
        let mut r = red(1000.0, 2000.0, 0.5, false);
        r.on_arrival(T0, 10, None);
        assert_eq!(r.avg(), 5.0);
        r.on_arrival(T0, 10, None);
        assert_eq!(r.avg(), 7.5);
    }

    #[test]
    fn an_idle_period_ages_the_average_by_the_slots_that_passed() {
        let mut r = red(1000.0, 2000.0, 0.5, false);
        r.on_arrival(T0, 8, None);
        assert_eq!(r.avg(), 4.0);
        // 500 B at 10 Mb/s = 400 µs per slot: 1 ms idle is 2 whole slots, then one update with q = 0.
        let now = SimTime::from_ps(1_000_000_000);
        r.on_arrival(now, 0, Some(T0));
        assert_eq!(r.avg(), 4.0 * 0.25 * 0.5);
    }

    /// Above `max_th` every arrival is dropped, except the first one there (`spare_first`).
    #[test]
    fn no_drop_below_min_th_and_every_arrival_dropped_above_max_th() {
        let mut r = red(5.0, 15.0, 1.0, false);
        assert!((0..100).all(|_| !r.on_arrival(T0, 4, None)));
        assert!(!r.on_arrival(T0, 15, None), "the first arrival above min_th is spared");
        assert!((0..100).all(|_| r.on_arrival(T0, 15, None)));
        assert_eq!(r.early_drops, 100);
    }

    #[test]
    fn gentle_red_ramps_to_certain_drop_at_twice_max_th() {
        let mut r = red(5.0, 15.0, 1.0, true);
        r.on_arrival(T0, 15, None);
        assert!((r.base_probability().unwrap() - 0.1).abs() < 1e-12);
        r.on_arrival(T0, 30, None);
        assert_eq!(r.base_probability(), Some(1.0));
        // p_b = 0.1 + 0.9 · 5/15 = 0.4: with `wait` the gaps are 3 or 4 arrivals.
        let drops = (0..1000).filter(|_| r.on_arrival(T0, 20, None)).count();
        assert!((250..=334).contains(&drops), "{drops}");
    }

    /// Arrivals between consecutive drops (the dropped one included) with `avg` held at 10 and
    /// thresholds 0 and 20, so `p_b = 0.05`.
    fn gaps(wait: bool) -> Vec<u32> {
        let mut r = red_with(RedParams { wait, ..params(0.0, 20.0, 1.0, false) });
        let (mut gaps, mut since) = (Vec::new(), None);
        for _ in 0..400_000 {
            since = since.map(|n: u32| n + 1);
            if r.on_arrival(T0, 10, None) {
                // The first drop ends a gap that began at the crossing, not at a drop.
                if let Some(n) = since {
                    gaps.push(n);
                }
                since = Some(0);
            }
        }
        gaps
    }

    fn mean(gaps: &[u32]) -> f64 {
        gaps.iter().map(|&g| g as f64).sum::<f64>() / gaps.len() as f64
    }

    /// With `wait` (ns-2's default) `p_a = 0` until `count·p_b = 1`, then `p_b/(2 - count·p_b)`:
    /// P(gap = k) = p_b for k = 1/p_b .. 2/p_b - 1, uniform with mean 1.5/p_b - 0.5.
    #[test]
    fn with_wait_drops_are_spaced_uniformly_between_one_and_two_over_p_b() {
        let gaps = gaps(true);
        assert!(gaps.iter().all(|&g| (20..=40).contains(&g)), "a gap outside 20..=40");
        let m = mean(&gaps);
        assert!((m - 29.5).abs() < 0.3, "mean gap {m}");
        // Every gap from 20 to 39 occurs about 1/20 of the time.
        for k in 20..40 {
            let share = gaps.iter().filter(|&&g| g == k).count() as f64 / gaps.len() as f64;
            assert!((share - 0.05).abs() < 0.015, "gap {k}: {share}");
        }
    }

    /// Without `wait`, `p_a = p_b / (1 - count p_b)` (Floyd & Jacobson §7): P(gap = k) =
    /// p_b / (1 - p_b) for k = 1 .. 1/p_b - 1, mean 1/(2 p_b), where independent drops would
    /// give a geometric gap of mean 1/p_b.
    #[test]
    fn without_wait_drops_are_spaced_uniformly_between_one_and_one_over_p_b() {
        let gaps = gaps(false);
        assert!(gaps.iter().all(|&g| (1..=20).contains(&g)), "a gap outside 1..=20");
        let m = mean(&gaps);
        assert!((m - 10.0).abs() < 0.15, "mean gap {m}");
    }

    /// ns-2's `qlen > 1`: with the average far above `max_th`, arrivals that find at most one
    /// packet waiting are never dropped; the next one that finds two is the first again.
    #[test]
    fn no_early_drop_while_at_most_one_packet_waits() {
        let mut r = red(5.0, 15.0, 0.001, false);
        for _ in 0..5000 {
            r.on_arrival(T0, 40, None);
        }
        assert!(r.avg() > 35.0);
        let drops_before = r.early_drops;
        for q in [1, 0, 1, 1, 0].into_iter().cycle().take(100) {
            assert!(!r.on_arrival(T0, q, None), "dropped with {q} waiting");
        }
        assert!(r.avg() > 2.0 * r.p.max_th, "avg {}", r.avg());
        assert_eq!(r.early_drops, drops_before);
        assert!(!r.on_arrival(T0, 2, None), "the first arrival after the guard is spared");
        assert!(r.on_arrival(T0, 2, None));
    }

    /// ns-2's `old`: the first arrival after the average crosses `min_th` is admitted and
    /// `count` restarts at 1; once the average falls below `min_th`, the rule applies again.
    #[test]
    fn the_first_arrival_after_the_average_crosses_min_th_is_spared() {
        let mut r = red(5.0, 15.0, 1.0, false);
        r.on_arrival(T0, 3, None);
        assert!(!r.on_arrival(T0, 10, None));
        assert_eq!(r.count(), 1);
        r.on_arrival(T0, 10, None);
        assert_eq!(r.count(), 2, "no drop: count·p_b = 0.1 < 1");
        // Below min_th and back, straight above max_th: spared, then dropped.
        r.on_arrival(T0, 3, None);
        assert!(!r.on_arrival(T0, 20, None));
        assert!(r.on_arrival(T0, 20, None));
        // Without the rule (the paper) the same arrival above max_th is dropped.
        let mut paper = red_with(RedParams { spare_first: false, ..params(5.0, 15.0, 1.0, false) });
        paper.on_arrival(T0, 3, None);
        assert!(paper.on_arrival(T0, 20, None));
    }

    /// A buffer overflow resets `count` like a drop (ns-2's forced drops, `ns1_compat_` false),
    /// so the next early drop is again at least `1/p_b` arrivals away.
    #[test]
    fn an_overflow_resets_count() {
        for resets in [true, false] {
            let mut r = red_with(RedParams { overflow_resets_count: resets, ..params(0.0, 20.0, 1.0, false) });
            // p_b = 0.05: with `wait` nothing is dropped before count = 20.
            for _ in 0..10 {
                assert!(!r.on_arrival(T0, 10, None));
            }
            assert_eq!(r.count(), 10);
            r.on_overflow();
            assert_eq!(r.count(), if resets { 0 } else { 10 });
            if resets {
                assert!((0..19).all(|_| !r.on_arrival(T0, 10, None)));
            }
        }
    }
}
