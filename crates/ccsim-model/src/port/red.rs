//! Random Early Detection for packet ports (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993; ns-2's `REDQueue`).
//!
//! On every arrival the average queue `avg` is updated from the instantaneous queue `q`
//! (packets) with weight `w_q`. After an idle period the average decays as if `m` empty
//! packet slots had passed, `m = floor(idle · C / mean_packet_bits)` (the paper's §4 and
//! ns-2's estimator). Then:
//! - `avg < min_th`: admit, `count = -1`;
//! - `min_th <= avg < max_th`: `count += 1`, `p_b = max_p (avg - min_th)/(max_th - min_th)`,
//!   drop with `p_a = p_b / (1 - count · p_b)` (gaps between drops uniform, not geometric);
//! - `avg >= max_th`: drop (with `gentle`, `p_b` rises linearly from `max_p` to 1 between
//!   `max_th` and `2 max_th` and the same count rule applies).
//!
//! After a drop `count = 0`. A full buffer still drops (drop-tail), which the buffer counts as
//! an overflow; RED's own drops are `DropReason::Early`.

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
}

impl Default for RedParams {
    /// ns-2's `REDQueue` defaults: thresholds 5 and 15 packets, w_q 0.002, max_p 0.1
    /// (`linterm_` 10), not gentle, 500-byte mean packets.
    fn default() -> Self {
        RedParams { min_th: 5.0, max_th: 15.0, w_q: 0.002, max_p: 0.1, gentle: false, mean_packet_bytes: 500 }
    }
}

#[derive(Clone, Debug)]
pub struct Red {
    pub p: RedParams,
    /// Time to send one typical packet at the port's rate: one idle "slot".
    slot: SimDuration,
    avg: f64,
    count: i64,
    rng: RngStream,
    /// Early drops so far.
    pub early_drops: u64,
}

impl Red {
    pub fn new(p: RedParams, rate_bps: u64, rng: RngStream) -> Self {
        let slot_ps = (p.mean_packet_bytes as u128 * 8 * ccsim_engine::PS_PER_SEC as u128 / rate_bps.max(1) as u128) as u64;
        Red { p, slot: SimDuration::from_ps(slot_ps.max(1)), avg: 0.0, count: -1, rng, early_drops: 0 }
    }

    /// The current average queue, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Updates the average for an arrival that finds `q` packets queued (`idle_since`: when
    /// the queue last became empty, if it is empty now) and says whether RED drops it.
    pub fn on_arrival(&mut self, now: SimTime, q: u32, idle_since: Option<SimTime>) -> bool {
        let keep = 1.0 - self.p.w_q;
        if let Some(t) = idle_since {
            let m = now.saturating_since(t).as_ps() / self.slot.as_ps();
            self.avg *= keep.powf(m as f64);
        }
        self.avg = keep * self.avg + self.p.w_q * q as f64;
        let p_b = self.base_probability();
        let drop = match p_b {
            None => {
                self.count = -1;
                false
            }
            Some(p_b) if p_b >= 1.0 => true,
            Some(p_b) => {
                self.count += 1;
                let denom = 1.0 - self.count as f64 * p_b;
                let p_a = if denom <= 0.0 { 1.0 } else { p_b / denom };
                self.rng.uniform() < p_a
            }
        };
        if drop {
            self.count = 0;
            self.early_drops += 1;
        }
        drop
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::StreamKey;

    fn red(min_th: f64, max_th: f64, w_q: f64, gentle: bool) -> Red {
        let p = RedParams { min_th, max_th, w_q, max_p: 0.1, gentle, mean_packet_bytes: 500 };
        Red::new(p, 10_000_000, RngStream::new(StreamKey { seed: 7, replication: 0, component: 0, purpose: 0 }))
    }

    #[test]
    fn the_average_is_an_ewma_of_the_queue_seen_by_arrivals() {
        let mut r = red(1000.0, 2000.0, 0.5, false);
        let t = SimTime::ZERO;
        r.on_arrival(t, 10, None);
        assert_eq!(r.avg(), 5.0);
        r.on_arrival(t, 10, None);
        assert_eq!(r.avg(), 7.5);
    }

    #[test]
    fn an_idle_period_ages_the_average_by_the_slots_that_passed() {
        let mut r = red(1000.0, 2000.0, 0.5, false);
        r.on_arrival(SimTime::ZERO, 8, None);
        assert_eq!(r.avg(), 4.0);
        // 500 B at 10 Mb/s = 400 µs per slot: 1 ms idle is 2 whole slots, then one update with q = 0.
        let now = SimTime::from_ps(1_000_000_000);
        r.on_arrival(now, 0, Some(SimTime::ZERO));
        assert_eq!(r.avg(), 4.0 * 0.25 * 0.5);
    }

    #[test]
    fn no_drop_below_min_th_and_every_arrival_dropped_above_max_th() {
        let mut r = red(5.0, 15.0, 1.0, false);
        assert!((0..100).all(|_| !r.on_arrival(SimTime::ZERO, 4, None)));
        assert!((0..100).all(|_| r.on_arrival(SimTime::ZERO, 15, None)));
        assert_eq!(r.early_drops, 100);
    }

    #[test]
    fn gentle_red_ramps_to_certain_drop_at_twice_max_th() {
        let mut r = red(5.0, 15.0, 1.0, true);
        r.on_arrival(SimTime::ZERO, 15, None);
        assert!((r.base_probability().unwrap() - 0.1).abs() < 1e-12);
        r.on_arrival(SimTime::ZERO, 30, None);
        assert_eq!(r.base_probability(), Some(1.0));
        let drops = (0..1000).filter(|_| r.on_arrival(SimTime::ZERO, 20, None)).count();
        assert!(drops > 300 && drops < 1000, "{drops}");
    }

    /// With `p_a = p_b / (1 - count p_b)` the number of arrivals between drops is uniform
    /// (Floyd & Jacobson §7): P(gap = k) = p_b / (1 - p_b) for k = 1 .. 1/p_b - 1, mean 1/(2 p_b),
    /// where independent drops would give a geometric gap of mean 1/p_b.
    #[test]
    fn drops_are_spaced_uniformly_between_one_and_one_over_p_b() {
        let mut r = red(0.0, 20.0, 1.0, false);
        // avg = 10 → p_b = 0.05 → gaps uniform on 1..=19, mean 10.
        let (mut gaps, mut since) = (Vec::new(), 0u32);
        for _ in 0..200_000 {
            since += 1;
            if r.on_arrival(SimTime::ZERO, 10, None) {
                gaps.push(since);
                since = 0;
            }
        }
        let mean = gaps.iter().map(|&g| g as f64).sum::<f64>() / gaps.len() as f64;
        assert!(gaps.iter().all(|&g| (1..=20).contains(&g)), "a gap outside 1..=20");
        assert!((mean - 10.0).abs() < 0.15, "mean gap {mean}");
    }
}
