//! Jacobson's RTT estimator and retransmission timeout (docs/models/tcp.md, "Model"; RFC 6298),
//! with the three clock granularities the seeds need: exact time (seed 000), BSD ticks with a
//! phase (4.4BSD's 500 ms slow timer, seed 004 [RECON]) and ns-2's quantised timer (seed 002).

use ccsim_engine::{SimDuration, SimTime};

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ClockMode {
    /// Samples and timers in exact simulated time (G = 0).
    Continuous,
    /// 4.4BSD: RTT counted in tick boundaries crossed, RTO in whole ticks (at least 2), and
    /// the timer fires on a tick boundary, so a wait of n ticks lasts (n−1)·G to n·G.
    BsdTicks { tick: SimDuration, phase: SimDuration },
    /// ns-2: samples rounded to whole ticks (at least 1), RTO = G·⌈srtt + 4·rttvar⌉, timers
    /// fire exactly RTO after they are set.
    Quantized { tick: SimDuration },
}

#[derive(Clone, Debug, PartialEq)]
pub struct RttConfig {
    /// Gain of srtt (g).
    pub g: f64,
    /// Gain of rttvar (h).
    pub h: f64,
    /// Deviation multiplier (k).
    pub k: f64,
    pub rto_initial: SimDuration,
    pub rto_min: SimDuration,
    pub rto_max: SimDuration,
    /// Largest backoff exponent (BSD caps the factor at 64 = 2^6).
    pub max_backoff: u32,
    pub mode: ClockMode,
}

impl Default for RttConfig {
    /// Seed 000's Table 1 gains; a 3 s initial RTO (1990s fidelity; docs/models/tcp.md, "Scenario
    /// keys").
    fn default() -> Self {
        RttConfig {
            g: 0.125,
            h: 0.25,
            k: 4.0,
            rto_initial: SimDuration::from_secs(3),
            rto_min: SimDuration::from_millis(300),
            rto_max: SimDuration::from_secs(64),
            max_backoff: 6,
            mode: ClockMode::Continuous,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RttConfig,
    /// Smoothed RTT and its mean deviation, in seconds (or ticks in the tick modes).
    srtt: Option<f64>,
    rttvar: f64,
    backoff: u32,
    /// The last sample's true round trip, seconds (whatever the clock's resolution).
    last_sample_s: Option<f64>,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> Self {
        RttEstimator { cfg, srtt: None, rttvar: 0.0, backoff: 0, last_sample_s: None }
    }

    /// The last valid sample's true round-trip time in seconds (the estimator itself may only
    /// see it in whole ticks).
    pub fn last_sample_s(&self) -> Option<f64> {
        self.last_sample_s
    }

    /// The smoothed RTT in seconds, as the estimator sees it (ticks × tick in tick modes).
    pub fn srtt_s(&self) -> Option<f64> {
        self.srtt.map(|s| s * self.tick().map_or(1.0, |t| t.as_secs_f64()))
    }

    pub fn config(&self) -> &RttConfig {
        &self.cfg
    }

    fn tick(&self) -> Option<SimDuration> {
        match self.cfg.mode {
            ClockMode::Continuous => None,
            ClockMode::BsdTicks { tick, .. } | ClockMode::Quantized { tick } => Some(tick),
        }
    }

    /// One valid sample: a segment sent at `sent` (never retransmitted) acknowledged at `now`.
    pub fn sample(&mut self, sent: SimTime, now: SimTime) {
        self.last_sample_s = Some(now.saturating_since(sent).as_secs_f64());
        let r = match self.cfg.mode {
            ClockMode::Continuous => now.saturating_since(sent).as_secs_f64(),
            ClockMode::BsdTicks { tick, phase } => {
                // Tick boundaries crossed between the send and the ACK.
                let t = |x: SimTime| (x.as_ps() + tick.as_ps() - phase.as_ps() % tick.as_ps()) / tick.as_ps();
                (t(now) - t(sent)) as f64
            }
            ClockMode::Quantized { tick } => {
                (now.saturating_since(sent).as_secs_f64() / tick.as_secs_f64()).round().max(1.0)
            }
        };
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = (1.0 - self.cfg.h) * self.rttvar + self.cfg.h * (s - r).abs();
                self.srtt = Some((1.0 - self.cfg.g) * s + self.cfg.g * r);
            }
        }
        self.backoff = 0;
    }

    /// The current RTO (with backoff), clamped to [rto_min, rto_max].
    pub fn rto(&self) -> SimDuration {
        let base = match (self.srtt, self.tick()) {
            (None, _) => self.cfg.rto_initial.as_secs_f64(),
            (Some(s), None) => s + self.cfg.k * self.rttvar,
            (Some(s), Some(tick)) => {
                // RFC 6298 §2.3: RTO = SRTT + max(G, K·RTTVAR), G the clock granularity (one
                // tick). Without G, a steady round trip drove RTTVAR to zero and the RTO to SRTT
                // itself, and only when 4·RTTVAR fell below the last bit of SRTT (float rounding).
                let ticks = (s + (self.cfg.k * self.rttvar).max(1.0)).ceil();
                let floor = if matches!(self.cfg.mode, ClockMode::BsdTicks { .. }) { 2.0 } else { 1.0 };
                ticks.max(floor) * tick.as_secs_f64()
            }
        };
        let backed = base * f64::from(1u32 << self.backoff.min(30));
        let rto = SimDuration::from_secs_f64(backed);
        rto.max(self.cfg.rto_min).min(self.cfg.rto_max)
    }

    /// When a timer set at `now` for the current RTO fires.
    pub fn deadline(&self, now: SimTime) -> SimTime {
        let rto = self.rto();
        match self.cfg.mode {
            ClockMode::BsdTicks { tick, phase } => {
                // The first tick boundary after now, then whole ticks.
                let g = tick.as_ps();
                let n = rto.as_ps().div_ceil(g).max(1);
                let p = phase.as_ps() % g;
                let since = (now.as_ps() + g - p) % g; // time since the last boundary
                let next = now.as_ps() + (g - since);
                SimTime::from_ps(next + (n - 1) * g)
            }
            _ => now + rto,
        }
    }

    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(self.cfg.max_backoff);
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Smoothed RTT in seconds (continuous mode) or ticks.
    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    fn est(mode: ClockMode) -> RttEstimator {
        RttEstimator::new(RttConfig { rto_min: SimDuration::ZERO, mode, ..RttConfig::default() })
    }

    #[test]
    fn first_sample_gives_three_times_r() {
        let mut e = est(ClockMode::Continuous);
        assert_eq!(e.rto(), SimDuration::from_secs(3));
        e.sample(ms(0), ms(100));
        assert_eq!(e.rto(), SimDuration::from_millis(300)); // R + 4·R/2 = 3R (docs/models/tcp.md)
    }

    #[test]
    fn constant_rtt_converges_to_r_and_the_floor_holds() {
        let mut e = RttEstimator::new(RttConfig::default()); // rto_min 300 ms
        for i in 0..200 {
            e.sample(ms(i * 1000), ms(i * 1000 + 50));
        }
        assert!((e.srtt().unwrap() - 0.05).abs() < 1e-9);
        assert_eq!(e.rto(), SimDuration::from_millis(300));
        let mut e = est(ClockMode::Continuous);
        for i in 0..200 {
            e.sample(ms(i * 1000), ms(i * 1000 + 50));
        }
        assert!((e.rto().as_secs_f64() - 0.05).abs() < 1e-3);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_a_sample_clears_it() {
        let mut e = est(ClockMode::Continuous);
        e.sample(ms(0), ms(100));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_millis(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.backoff(), 6);
        e.sample(ms(0), ms(100));
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn bsd_ticks_count_boundaries_and_fire_on_them() {
        let tick = SimDuration::from_millis(500);
        let mut e = est(ClockMode::BsdTicks { tick, phase: SimDuration::from_millis(100) });
        // Boundaries at 100, 600, 1100 ms: a 20 ms RTT crossing one counts 1 tick.
        e.sample(ms(590), ms(610));
        assert_eq!(e.srtt(), Some(1.0));
        // srtt 1 + 4·0.5 = 3 ticks = 1.5 s; set at 700 ms it fires at 1100 + 2·500 = 2100 ms.
        assert_eq!(e.rto(), SimDuration::from_millis(1500));
        assert_eq!(e.deadline(ms(700)), ms(2100));
        // The wait is between (n−1)·G and n·G whatever the phase.
        for now in (0..3000).step_by(37) {
            let wait = e.deadline(ms(now)).saturating_since(ms(now));
            assert!(wait > SimDuration::from_millis(1000) && wait <= SimDuration::from_millis(1500), "{now}: {wait}");
        }
    }

    #[test]
    fn bsd_ticks_floor_is_two_ticks() {
        let tick = SimDuration::from_millis(500);
        let mut e = est(ClockMode::BsdTicks { tick, phase: SimDuration::ZERO });
        e.sample(ms(10), ms(20)); // no boundary crossed: 0 ticks
        assert_eq!(e.srtt(), Some(0.0));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        // An isolated loss therefore times out after 0.5-1.0 s... plus phase; never earlier.
        let wait = e.deadline(ms(499)).saturating_since(ms(499));
        assert!(wait >= SimDuration::from_millis(500), "{wait}");
    }

    #[test]
    fn quantized_rounds_samples_and_fires_exactly() {
        let tick = SimDuration::from_millis(300);
        let mut e = est(ClockMode::Quantized { tick });
        e.sample(ms(0), ms(100)); // rounds to at least 1 tick
        assert_eq!(e.srtt(), Some(1.0));
        assert_eq!(e.rto(), SimDuration::from_millis(900)); // ⌈1 + 4·0.5⌉ = 3 ticks
        assert_eq!(e.deadline(ms(1234)), ms(2134));
    }

    /// RFC 6298's RTO = SRTT + max(G, 4·RTTVAR) with G one tick: a steady round trip of one tick
    /// keeps the RTO at two ticks however many samples come (without G it fell to one tick once
    /// 4·RTTVAR vanished below the rounding of SRTT, after ~130 samples).
    #[test]
    fn quantized_rto_keeps_one_tick_of_granularity_above_srtt() {
        let tick = SimDuration::from_millis(300);
        let mut e = est(ClockMode::Quantized { tick });
        let mut last = e.rto();
        for i in 0..1000 {
            e.sample(ms(i * 1000), ms(i * 1000 + 100));
            let rto = e.rto();
            assert!(rto <= last && rto >= SimDuration::from_millis(600), "sample {i}: {rto:?}");
            last = rto;
        }
        assert_eq!(last, SimDuration::from_millis(600));
    }
}
