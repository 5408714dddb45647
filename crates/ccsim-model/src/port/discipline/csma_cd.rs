//! The arbitration of a half-duplex CSMA/CD Ethernet segment (IEEE 802.3 clause 4: 1-persistent
//! carrier sense, collision detection with a 32-bit jam, truncated binary exponential backoff in
//! slot times, at most 16 attempts; docs/models/hgrcp.md, "LAN medium"). It decides which of
//! the stations with a frame to send starts on the medium, or when to look again; `LanMedium`
//! owns the stations' queues and asks it whenever the medium's transmitter is free.
//!
//! Timing, in bit times of the medium (IEEE 802.3 §4.4.2; scaled with the rate, so the model
//! holds at any rate the bit times of 10 Mb/s Ethernet are taken to hold):
//! - A successful frame occupies the medium for its wire bytes (preamble and SFD, MAC frame,
//!   inter-frame gap: `ETHERNET_OVERHEAD_BYTES`), timed by the port; stations that became ready
//!   meanwhile defer and all start as it ends (1-persistent).
//! - Stations whose frames start within one propagation delay `tau` of each other collide (none
//!   senses the other's carrier yet). Each detects the collision `tau` after the start, finishes
//!   its preamble and SFD if still in it, then sends the jam: it stops at
//!   `start + max(tau, 64) + 32`. The medium is quiet everywhere `tau` later, and a station
//!   defers a further inter-frame gap (96) before it may start.
//! - After its n-th collision a frame waits r slot times (512) from the end of its jam, r uniform
//!   on [0, 2^min(n, 10) − 1] (backoffLimit 10); after the 16th (attemptLimit) it is discarded.
//! - [RECON] Stations are `tau` apart pairwise; a frame offered while another station has
//!   started less than `tau` before defers (the port does not foresee offers): only stations
//!   whose eligibility is already known (backoff ends, pacer releases) fall in that window.

use ccsim_engine::{RngStream, SimDuration, SimTime};

/// slotTime, bit times (IEEE 802.3 §4.4.2, 10 Mb/s).
pub const SLOT_BITS: u64 = 512;
/// interFrameGap, bit times.
pub const IFG_BITS: u64 = 96;
/// jamSize, bit times.
pub const JAM_BITS: u64 = 32;
/// Preamble (7 octets) and start frame delimiter (1), bit times: sent whole before a jam.
pub const PREAMBLE_BITS: u64 = 64;
/// attemptLimit: transmissions of one frame before it is discarded.
pub const ATTEMPT_LIMIT: u8 = 16;
/// backoffLimit: the exponent of the backoff range stops growing here.
pub const BACKOFF_LIMIT: u8 = 10;

/// One station's contention state for its head frame.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Contender {
    /// Collisions of the head frame so far (0: it has not collided).
    pub attempts: u8,
    /// It may not start before this time (its backoff).
    pub backoff_until: SimTime,
}

/// What the medium does at a free moment.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Arbitration {
    /// This station's head frame starts now, alone (a success).
    Send(usize),
    /// Nothing starts before this time (a collision happened, or nobody is eligible yet).
    At(SimTime),
    /// No station has a frame ready.
    Idle,
}

/// What the medium has seen, over the whole run.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct CsmaStats {
    /// Frames started alone.
    pub successes: u64,
    /// Collision events, and the transmissions they involved.
    pub collisions: u64,
    pub collided_frames: u64,
    /// Frames discarded after `ATTEMPT_LIMIT` collisions (excessive collisions).
    pub discards: u64,
}

#[derive(Clone, Debug)]
pub struct CsmaCd {
    /// One bit time, picoseconds (the medium's rate).
    bit_ps: u64,
    /// Propagation delay between any two stations.
    tau: SimDuration,
    /// After a collision the medium is sensed busy, and stations defer, until this time.
    quiet: SimTime,
    rng: RngStream,
    pub stats: CsmaStats,
}

impl CsmaCd {
    /// A medium of `rate_bps` whose stations are `tau` apart, drawing its backoffs from `rng`.
    pub fn new(rate_bps: u64, tau: SimDuration, rng: RngStream) -> Self {
        let bit_ps = ccsim_engine::PS_PER_SEC / rate_bps.max(1);
        CsmaCd { bit_ps, tau, quiet: SimTime::ZERO, rng, stats: CsmaStats::default() }
    }

    fn bits(&self, n: u64) -> SimDuration {
        SimDuration::from_ps(n * self.bit_ps)
    }

    /// The slot time.
    pub fn slot(&self) -> SimDuration {
        self.bits(SLOT_BITS)
    }

    /// When a station whose head frame is ready at `ready` (None: no frame) may start.
    fn eligible(&self, ready: Option<SimTime>, c: &Contender) -> Option<SimTime> {
        ready.map(|r| r.max(c.backoff_until).max(self.quiet))
    }

    /// The medium is free at `now` (no successful frame in progress): `ready[i]` is when station
    /// `i`'s head frame may contend (its pacer's release; `None`: it has none), `who[i]` its
    /// contention state. A collision updates `who` and pushes onto `discarded` the stations whose
    /// head frame reached the attempt limit (the caller drops those frames).
    pub fn arbitrate(&mut self, now: SimTime, ready: &[Option<SimTime>], who: &mut [Contender], discarded: &mut Vec<usize>) -> Arbitration {
        debug_assert_eq!(ready.len(), who.len());
        let mut earliest: Option<SimTime> = None;
        for (r, c) in ready.iter().zip(who.iter()) {
            if let Some(e) = self.eligible(*r, c) {
                earliest = Some(earliest.map_or(e, |m| m.min(e)));
            }
        }
        let Some(first) = earliest else { return Arbitration::Idle };
        if first > now {
            return Arbitration::At(first);
        }
        // Everyone eligible now, or within one propagation delay (not yet sensing the carrier).
        let window = now + self.tau;
        let starts = |e: SimTime| e <= now || e < window;
        let mut n = 0;
        let mut only = 0;
        for (i, (r, c)) in ready.iter().zip(who.iter()).enumerate() {
            if self.eligible(*r, c).is_some_and(starts) {
                n += 1;
                only = i;
            }
        }
        if n == 1 {
            self.stats.successes += 1;
            who[only] = Contender::default();
            return Arbitration::Send(only);
        }
        self.stats.collisions += 1;
        self.stats.collided_frames += n;
        let stop = now + self.bits(PREAMBLE_BITS).max(self.tau) + self.bits(JAM_BITS);
        let quiet = stop + self.tau + self.bits(IFG_BITS);
        for i in 0..who.len() {
            if !self.eligible(ready[i], &who[i]).is_some_and(starts) {
                continue;
            }
            let c = &mut who[i];
            c.attempts += 1;
            if c.attempts >= ATTEMPT_LIMIT {
                self.stats.discards += 1;
                *c = Contender::default();
                discarded.push(i);
            } else {
                let k = c.attempts.min(BACKOFF_LIMIT) as u32;
                let r = self.rng.next_u64() >> (64 - k);
                c.backoff_until = stop + SimDuration::from_ps(r * SLOT_BITS * self.bit_ps);
            }
        }
        self.quiet = quiet;
        Arbitration::At(quiet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::StreamKey;

    fn medium(tau_ns: u64) -> CsmaCd {
        CsmaCd::new(10_000_000, SimDuration::from_nanos(tau_ns), RngStream::new(StreamKey { seed: 1, replication: 0, component: 0, purpose: 8 }))
    }

    fn bit_times(d: SimDuration) -> u64 {
        d.as_ps() / 100_000
    }

    #[test]
    fn a_lone_station_starts_at_once_and_nobody_means_idle() {
        let mut m = medium(0);
        let mut who = [Contender::default(); 2];
        let mut gone = Vec::new();
        assert_eq!(m.arbitrate(SimTime::ZERO, &[None, None], &mut who, &mut gone), Arbitration::Idle);
        let t = SimTime::from_ps(5_000_000);
        assert_eq!(m.arbitrate(SimTime::ZERO, &[Some(t), None], &mut who, &mut gone), Arbitration::At(t));
        assert_eq!(m.arbitrate(t, &[Some(t), None], &mut who, &mut gone), Arbitration::Send(0));
        assert_eq!(m.stats, CsmaStats { successes: 1, ..CsmaStats::default() });
    }

    /// Two frames ready at once collide: preamble (64) and jam (32), then a gap (96) before the
    /// medium is usable; each backs off 0 or 1 slot after its first collision.
    #[test]
    fn simultaneous_starts_collide_and_back_off_in_whole_slots() {
        let mut m = medium(0);
        let mut who = [Contender::default(); 2];
        let mut gone = Vec::new();
        let now = SimTime::from_ps(1_000_000_000);
        let a = m.arbitrate(now, &[Some(now), Some(now)], &mut who, &mut gone);
        assert_eq!(a, Arbitration::At(now + SimDuration::from_ps(192 * 100_000)));
        let stop = now + SimDuration::from_ps(96 * 100_000);
        for c in who {
            assert_eq!(c.attempts, 1);
            let wait = bit_times(c.backoff_until.saturating_since(stop));
            assert!(wait == 0 || wait == 512, "{wait}");
        }
        assert_eq!((m.stats.collisions, m.stats.collided_frames), (1, 2));
    }

    /// A station within one propagation delay of another's start collides with it; one a
    /// propagation delay later senses the carrier.
    #[test]
    fn the_collision_window_is_one_propagation_delay() {
        let tau = SimDuration::from_micros(2);
        let now = SimTime::from_ps(1_000_000_000);
        let mut m = medium(2000);
        let mut who = [Contender::default(); 2];
        let mut gone = Vec::new();
        let soon = now + SimDuration::from_micros(1);
        assert!(matches!(m.arbitrate(now, &[Some(now), Some(soon)], &mut who, &mut gone), Arbitration::At(_)));
        assert_eq!(m.stats.collisions, 1);
        let mut m = medium(2000);
        let mut who = [Contender::default(); 2];
        assert_eq!(m.arbitrate(now, &[Some(now), Some(now + tau)], &mut who, &mut gone), Arbitration::Send(0));
    }

    /// Frames that keep colliding draw backoffs in [0, 2^min(n,10) − 1] slots after their n-th
    /// collision and are discarded at the 16th, after which the station starts afresh.
    #[test]
    fn backoff_ranges_grow_to_the_limit_and_the_sixteenth_collision_discards() {
        let mut m = medium(0);
        let mut who = [Contender::default(); 3];
        let mut gone = Vec::new();
        let mut now = SimTime::from_ps(1_000_000_000);
        let mut widest = [0u64; 16];
        for n in 1..=16u8 {
            // Everyone is made ready again at the latest backoff end: they collide each time.
            let at = who.iter().map(|c| c.backoff_until).max().unwrap().max(now).max(m.quiet);
            now = at;
            let stop = now + SimDuration::from_ps(96 * 100_000);
            let before = gone.len();
            assert!(matches!(m.arbitrate(now, &[Some(now); 3], &mut who, &mut gone), Arbitration::At(_)));
            if n < ATTEMPT_LIMIT {
                assert_eq!(gone.len(), before, "nothing discarded at collision {n}");
                for c in &who {
                    assert_eq!(c.attempts, n);
                    let slots = bit_times(c.backoff_until.saturating_since(stop));
                    assert_eq!(slots % 512, 0);
                    let r = slots / 512;
                    assert!(r < 1 << n.min(BACKOFF_LIMIT), "collision {n}: r = {r}");
                    widest[n as usize] = widest[n as usize].max(r);
                }
            } else {
                assert_eq!(gone, vec![0, 1, 2], "all three discarded at the 16th");
                assert!(who.iter().all(|c| *c == Contender::default()));
            }
        }
        assert_eq!(m.stats.discards, 3);
        assert_eq!(m.stats.collisions, 16);
        // The range is used: by the 10th collision some draw exceeds what 2^5 slots allow.
        assert!(widest[10..16].iter().any(|&r| r >= 32), "{widest:?}");
    }

    #[test]
    fn the_same_stream_gives_the_same_draws() {
        let run = || {
            let mut m = medium(0);
            let mut who = [Contender::default(); 4];
            let mut gone = Vec::new();
            let now = SimTime::from_ps(1_000_000_000);
            m.arbitrate(now, &[Some(now); 4], &mut who, &mut gone);
            who
        };
        assert_eq!(run(), run());
    }
}
