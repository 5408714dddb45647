//! The gateway's rate controller (seed 000 Eq. 1): every T, for its ABR buffer,
//! R = max(0, ACR + K (Q − q)) and ER = R / N, N the sources that sent a packet into the buffer
//! in the last W (at least one [RECON]); a rate notification goes out only when ER changed.
//!
//! Sans-IO: the gateway tells it about packets (`on_packet`) and asks it at each tick
//! (`on_tick`); the analysis of the loop is `python/ccsim/analysis/hgrcp.py`.

use ccsim_engine::{SimDuration, SimTime};

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct HgrcpParams {
    /// Sampling interval T.
    pub t: SimDuration,
    /// Gain K, 1/s (the seed's design rule: 1/T, a 60° phase margin).
    pub k: f64,
    /// Reference queue Q, cells.
    pub q: f64,
    /// Activity window W for counting sources.
    pub w: SimDuration,
}

impl HgrcpParams {
    /// Why these parameters cannot work, if they cannot (field name, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.t.is_zero() {
            return Err(("T", "must be > 0".into()));
        }
        if !(self.k > 0.0) {
            return Err(("K", "must be > 0".into()));
        }
        if !(self.q >= 0.0) {
            return Err(("Q", "must be >= 0".into()));
        }
        if self.w < self.t {
            return Err(("W", format!("must be at least T ({} s)", self.t.as_secs_f64())));
        }
        Ok(())
    }

    /// K·T: the loop is stable iff it is below 2 (Eq. 8).
    pub fn kt(&self) -> f64 {
        self.k * self.t.as_secs_f64()
    }
}

#[derive(Clone, Debug)]
pub struct HgrcpController {
    p: HgrcpParams,
    /// (source, last packet time), one entry per source seen.
    last_seen: Vec<(u32, SimTime)>,
    /// The rate last broadcast, cells/s.
    er: Option<f64>,
    pub rn_sent: u64,
}

impl HgrcpController {
    pub fn new(p: HgrcpParams) -> Self {
        HgrcpController { p, last_seen: Vec::new(), er: None, rn_sent: 0 }
    }

    pub fn params(&self) -> &HgrcpParams {
        &self.p
    }

    /// A packet from `source` entered the gateway's buffer at `now`.
    pub fn on_packet(&mut self, now: SimTime, source: u32) {
        match self.last_seen.iter_mut().find(|(s, _)| *s == source) {
            Some(e) => e.1 = now,
            None => self.last_seen.push((source, now)),
        }
    }

    /// Sources that sent a packet in (now − W, now], at least one.
    pub fn active_sources(&self, now: SimTime) -> u32 {
        // The window (now − W, now] reaches before time zero early in the run: everyone counts.
        let active = match now.as_ps().checked_sub(self.p.w.as_ps()) {
            Some(start) => self.last_seen.iter().filter(|&&(_, t)| t.as_ps() > start).count(),
            None => self.last_seen.len(),
        };
        (active as u32).max(1)
    }

    /// The tick at `now`, with the ABR connection's ACR (cells/s) and the buffer's `q` cells: the
    /// explicit rate to broadcast, if it changed (exact comparison [RECON]).
    pub fn on_tick(&mut self, now: SimTime, acr: f64, q: u32) -> Option<f64> {
        let r = (acr + self.p.k * (self.p.q - q as f64)).max(0.0);
        let er = r / self.active_sources(now) as f64;
        if self.er == Some(er) {
            return None;
        }
        self.er = Some(er);
        self.rn_sent += 1;
        Some(er)
    }

    /// The rate last broadcast.
    pub fn er(&self) -> Option<f64> {
        self.er
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(t_ms: u64, k: f64) -> HgrcpParams {
        HgrcpParams { t: SimDuration::from_millis(t_ms), k, q: 100.0, w: SimDuration::from_millis(150) }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn er_is_the_aggregate_rate_shared_by_the_active_sources() {
        let mut c = HgrcpController::new(params(10, 100.0));
        for s in 0..4 {
            c.on_packet(at(0), s);
        }
        // R = 10 000 + 100 × (100 − 60) = 14 000 cells/s, over 4 sources.
        assert_eq!(c.on_tick(at(10), 10_000.0, 60), Some(3_500.0));
        // A queue far above Q: R clamps at zero.
        assert_eq!(c.on_tick(at(20), 10_000.0, 1_000), Some(0.0));
    }

    #[test]
    fn a_notification_goes_out_only_when_the_rate_changes() {
        let mut c = HgrcpController::new(params(10, 100.0));
        c.on_packet(at(0), 7);
        assert!(c.on_tick(at(10), 5_000.0, 100).is_some());
        assert_eq!(c.on_tick(at(20), 5_000.0, 100), None);
        assert_eq!(c.on_tick(at(30), 5_000.0, 100), None);
        assert!(c.on_tick(at(40), 5_000.0, 99).is_some());
        assert_eq!(c.rn_sent, 2);
    }

    #[test]
    fn sources_count_over_the_window_and_never_below_one() {
        let mut c = HgrcpController::new(params(10, 100.0));
        assert_eq!(c.active_sources(at(0)), 1);
        c.on_packet(at(0), 1);
        c.on_packet(at(100), 2);
        assert_eq!(c.active_sources(at(140)), 2);
        assert_eq!(c.active_sources(at(160)), 1, "source 1 fell out of the 150 ms window");
        c.on_packet(at(200), 1);
        assert_eq!(c.active_sources(at(200)), 2);
        assert_eq!(c.active_sources(at(400)), 1);
    }

    /// The loop of the seed's analysis, closed around the controller: N sources each sending
    /// at the last ER into the buffer (from `q0` cells), drained at a constant ABR rate C = ACR.
    fn closed_loop(kt: f64, q0: f64, steps: usize) -> Vec<f64> {
        let t = 0.010;
        let mut c = HgrcpController::new(HgrcpParams { k: kt / t, ..params(10, 1.0) });
        let (cap, n) = (100_000.0, 5u32);
        let mut q = q0;
        let mut er = 0.0;
        let mut trace = Vec::new();
        for step in 1..=steps as u64 {
            let now = at(10 * step);
            for s in 0..n {
                c.on_packet(now, s);
            }
            if let Some(e) = c.on_tick(now, cap, q.round().max(0.0) as u32) {
                er = e;
            }
            q = (q + t * (er * n as f64 - cap)).max(0.0);
            trace.push(q);
        }
        trace
    }

    /// With a constant available rate the queue settles at Q, the controller's fixed point:
    /// in one interval at the design rule KT = 1, geometrically (factor 1 − KT) below it.
    #[test]
    fn with_a_constant_available_rate_the_queue_settles_at_q() {
        let one = closed_loop(1.0, 0.0, 5);
        assert!(one.iter().all(|&q| (q - 100.0).abs() <= 1.0), "{one:?}");
        let half = closed_loop(0.5, 0.0, 12);
        assert!((half[11] - 100.0).abs() < 1.0, "{half:?}");
        assert!(half[0] < half[3] && half[3] < half[11], "approaches from below");
    }

    /// Eq. 8's boundary: the error is multiplied by 1 − KT each interval, so above KT = 2 a small
    /// disturbance grows into an oscillation, and below it dies out (slowly near 2).
    #[test]
    fn above_kt_2_the_loop_is_unstable() {
        let q = closed_loop(2.5, 110.0, 6);
        let errors: Vec<f64> = q.iter().map(|&x| (x - 100.0).abs()).collect();
        assert!(errors.windows(2).all(|w| w[1] > w[0]) && errors[5] > 100.0, "{q:?}");
        let stable = closed_loop(1.9, 110.0, 200);
        assert!((stable[199] - 100.0).abs() <= 1.0, "KT = 1.9 still settles: {:?}", &stable[190..]);
    }

    #[test]
    fn parameters_are_checked_by_field() {
        assert!(params(10, 100.0).check().is_ok());
        assert_eq!(HgrcpParams { t: SimDuration::ZERO, ..params(10, 100.0) }.check().unwrap_err().0, "T");
        assert_eq!(HgrcpParams { q: -1.0, ..params(10, 100.0) }.check().unwrap_err().0, "Q");
        assert_eq!(HgrcpParams { w: SimDuration::from_millis(5), ..params(10, 100.0) }.check().unwrap_err().0, "W");
        assert!((params(10, 100.0).kt() - 1.0).abs() < 1e-12);
    }
}
