//! Seed 004's bulk-data session model (docs/models/sessions.md): what an application hands a TCP
//! connection. Sessions arrive as a Poisson process; each brings a number of bursts drawn from
//! TCPLib's FTP "items per conversation" table; a burst is a Pareto-sized write, and after it is
//! fully acknowledged the session sleeps a log-normal gap before its next burst.
//!
//! Every session of a source writes into the source's one TCP connection (sessions may overlap:
//! their bursts follow one another in the byte stream) [RECON: the seed's sessions may each have
//! had a connection of their own]. Sans-IO: the world asks `on_wake` at `next_wake()` and tells
//! `on_acked` how far the connection is acknowledged; both return how many bytes the application
//! wrote, and the connection sends them as its window allows. One random stream per source.

use ccsim_engine::{RngStream, SimDuration, SimTime};

/// TCPLib's FTP "items per conversation" table: (value, cumulative probability).
pub const TCPLIB_NITEMS: [(f64, f64); 44] = [
    (1.0, 0.164), (2.0, 0.332), (3.0, 0.476), (4.0, 0.574), (5.0, 0.620), (6.0, 0.683), (7.0, 0.717),
    (8.0, 0.744), (9.0, 0.785), (10.0, 0.810), (11.0, 0.830), (12.0, 0.845), (13.0, 0.855), (14.0, 0.866),
    (15.0, 0.881), (16.0, 0.894), (17.0, 0.906), (18.0, 0.912), (19.0, 0.919), (20.0, 0.926), (21.0, 0.937),
    (22.0, 0.947), (23.0, 0.950), (24.0, 0.952), (25.0, 0.955), (26.0, 0.957), (27.0, 0.962), (28.0, 0.967),
    (29.0, 0.970), (32.0, 0.972), (33.0, 0.975), (34.0, 0.977), (35.0, 0.979), (39.0, 0.982), (41.0, 0.985),
    (44.0, 0.987), (51.0, 0.988), (53.0, 0.990), (54.0, 0.992), (57.0, 0.993), (60.0, 0.995), (71.0, 0.997),
    (139.0, 0.998), (347.0, 1.000),
];

/// How the TCPLib table is read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NitemsMode {
    /// As TCPLib samples it: below the first probability the first value, otherwise a value
    /// uniform between the two table points around u, truncated (mean about 6.71).
    Tcplib,
    /// As a discrete distribution: P(N <= v_k) = p_k (mean about 7.81).
    Discrete,
}

/// The model's parameters; every constant of the seed is one of them.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SessionParams {
    /// Session arrivals per second (per source).
    pub rate: f64,
    pub nitems: NitemsMode,
    /// Gap between bursts: the log-normal's log-mean and log-sigma (of seconds).
    pub gap_mu: f64,
    pub gap_sigma: f64,
    /// Burst size: Pareto shape and minimum (bytes); optional truncation.
    pub burst_shape: f64,
    pub burst_min_bytes: f64,
    pub burst_max_bytes: Option<f64>,
}

impl SessionParams {
    /// Why these parameters cannot work, if they cannot (field name, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.rate > 0.0 && self.rate.is_finite()) {
            return Err(("rate", "must be > 0 sessions per second".into()));
        }
        if !(self.gap_sigma >= 0.0 && self.gap_mu.is_finite() && self.gap_sigma.is_finite()) {
            return Err(("gap", "needs a finite mu and a sigma >= 0".into()));
        }
        if !(self.burst_min_bytes >= 1.0) {
            return Err(("burst.min", "must be at least one byte".into()));
        }
        if self.burst_max_bytes.is_none() && !(self.burst_shape > 1.0) {
            return Err(("burst.shape", format!("{} gives bursts of infinite mean (the offered load): use a shape above 1 or a burst.max", self.burst_shape)));
        }
        if !(self.burst_shape > 0.0) {
            return Err(("burst.shape", "must be > 0".into()));
        }
        if self.burst_max_bytes.is_some_and(|m| m < self.burst_min_bytes) {
            return Err(("burst.max", "must be at least burst.min".into()));
        }
        Ok(())
    }

    /// Bursts per session on average.
    pub fn mean_bursts(&self) -> f64 {
        match self.nitems {
            NitemsMode::Discrete => {
                let mut prev = 0.0;
                TCPLIB_NITEMS.iter().map(|&(v, p)| {
                    let m = v * (p - prev);
                    prev = p;
                    m
                }).sum()
            }
            // Below p_1: v_1; between p_{k-1} and p_k: the mean of floor(uniform on [v_{k-1}, v_k]).
            NitemsMode::Tcplib => {
                let (v1, p1) = TCPLIB_NITEMS[0];
                let mut sum = v1 * p1;
                for w in TCPLIB_NITEMS.windows(2) {
                    let ((a, pa), (b, pb)) = (w[0], w[1]);
                    // floor(U[a, b]) for integers a < b: a..b-1 equally likely, b with probability 0.
                    sum += (pb - pa) * (a + b - 1.0) / 2.0;
                }
                sum
            }
        }
    }

    /// Burst size on average, bytes.
    pub fn mean_burst_bytes(&self) -> f64 {
        let (a, m) = (self.burst_shape, self.burst_min_bytes);
        match self.burst_max_bytes {
            // E[min(X, M)] = m a/(a-1) - m^a M^(1-a)/(a-1) (a != 1).
            Some(max) if (a - 1.0).abs() > 1e-12 => m * a / (a - 1.0) - m.powf(a) * max.powf(1.0 - a) / (a - 1.0),
            Some(max) => m * (1.0 + (max / m).ln()),
            None => m * a / (a - 1.0),
        }
    }

    /// The load a source offers on average, bits per second.
    pub fn offered_bps(&self) -> f64 {
        self.rate * self.mean_bursts() * self.mean_burst_bytes() * 8.0
    }
}

/// Draws bursts per session.
pub fn sample_nitems(mode: NitemsMode, rng: &mut RngStream) -> u32 {
    let u = rng.uniform();
    let k = TCPLIB_NITEMS.iter().position(|&(_, p)| u < p).unwrap_or(TCPLIB_NITEMS.len() - 1);
    match mode {
        NitemsMode::Discrete => TCPLIB_NITEMS[k].0 as u32,
        NitemsMode::Tcplib if k == 0 => TCPLIB_NITEMS[0].0 as u32,
        NitemsMode::Tcplib => {
            let (a, b) = (TCPLIB_NITEMS[k - 1].0, TCPLIB_NITEMS[k].0);
            (a + rng.uniform() * (b - a)).floor() as u32
        }
    }
}

/// One session in progress.
#[derive(Copy, Clone, Debug)]
struct Session {
    bursts_left: u32,
    /// Its burst in transfer ends at this byte of the stream; `None` while it sleeps.
    burst_end: Option<u64>,
    /// Sleeping until then.
    wake: SimTime,
}

#[derive(Clone, Debug)]
pub struct SessionSource {
    p: SessionParams,
    rng: RngStream,
    next_session: SimTime,
    sessions: Vec<Session>,
    /// Bytes written into the connection so far (the end of the stream).
    pub written: u64,
    pub sessions_started: u64,
    pub bursts_written: u64,
}

impl SessionSource {
    /// A source whose first session arrives an exponential time after `start`.
    pub fn new(p: SessionParams, mut rng: RngStream, start: SimTime) -> Self {
        let next_session = start + SimDuration::from_secs_f64(rng.exponential(1.0 / p.rate));
        SessionSource { p, rng, next_session, sessions: Vec::new(), written: 0, sessions_started: 0, bursts_written: 0 }
    }

    pub fn params(&self) -> &SessionParams {
        &self.p
    }

    /// The next time something happens without an acknowledgement: a session arrives or a gap ends.
    pub fn next_wake(&self) -> SimTime {
        self.sessions.iter().filter(|s| s.burst_end.is_none()).map(|s| s.wake).fold(self.next_session, SimTime::min)
    }

    fn burst_bytes(&mut self) -> u64 {
        let u = 1.0 - self.rng.uniform();
        let x = self.p.burst_min_bytes * u.powf(-1.0 / self.p.burst_shape);
        self.p.burst_max_bytes.map_or(x, |m| x.min(m)).round().max(1.0) as u64
    }

    fn gap(&mut self) -> SimDuration {
        SimDuration::from_secs_f64((self.p.gap_mu + self.p.gap_sigma * self.rng.normal()).exp())
    }

    /// Session `k` writes its next burst.
    fn write(&mut self, k: usize) {
        let size = self.burst_bytes();
        self.written += size;
        self.bursts_written += 1;
        let s = &mut self.sessions[k];
        s.bursts_left -= 1;
        s.burst_end = Some(self.written);
    }

    /// Whatever is due at `now`: new sessions start with their first burst, sleeping ones write
    /// their next. Returns the bytes written.
    pub fn on_wake(&mut self, now: SimTime) -> u64 {
        let before = self.written;
        while self.next_session <= now {
            let bursts = sample_nitems(self.p.nitems, &mut self.rng).max(1);
            self.sessions.push(Session { bursts_left: bursts, burst_end: None, wake: self.next_session });
            self.sessions_started += 1;
            self.next_session = self.next_session + SimDuration::from_secs_f64(self.rng.exponential(1.0 / self.p.rate));
        }
        for k in 0..self.sessions.len() {
            if self.sessions[k].burst_end.is_none() && self.sessions[k].wake <= now {
                self.write(k);
            }
        }
        self.written - before
    }

    /// The connection is acknowledged up to byte `acked`: every burst that ended there is done, and
    /// its session sleeps a gap before its next burst, or ends.
    pub fn on_acked(&mut self, now: SimTime, acked: u64) {
        let mut k = 0;
        while k < self.sessions.len() {
            let s = self.sessions[k];
            match s.burst_end {
                Some(end) if end <= acked && s.bursts_left == 0 => {
                    self.sessions.swap_remove(k);
                    continue;
                }
                Some(end) if end <= acked => {
                    let wake = now + self.gap();
                    let s = &mut self.sessions[k];
                    s.burst_end = None;
                    s.wake = wake;
                }
                _ => {}
            }
            k += 1;
        }
    }

    /// Sessions in progress.
    pub fn active(&self) -> usize {
        self.sessions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::StreamKey;

    fn rng(c: u64) -> RngStream {
        RngStream::new(StreamKey { seed: 7, replication: 0, component: c, purpose: 0 })
    }

    /// Seed 004's parameters with the burst minimum read as bits (250 000 bytes).
    fn seed004_bits() -> SessionParams {
        SessionParams {
            rate: 0.014,
            nitems: NitemsMode::Tcplib,
            gap_mu: 4f64.ln(),
            gap_sigma: 1.8,
            burst_shape: 1.2,
            burst_min_bytes: 250_000.0,
            burst_max_bytes: None,
        }
    }

    /// The reference values: 6.71 bursts per session with TCPLib's sampling, 7.81 read as a
    /// discrete distribution; a million samples agree within their sampling error.
    #[test]
    fn the_tcplib_table_is_reproduced_in_both_readings() {
        let p = seed004_bits();
        assert!((p.mean_bursts() - 6.71).abs() < 0.01, "{}", p.mean_bursts());
        let d = SessionParams { nitems: NitemsMode::Discrete, ..p };
        assert!((d.mean_bursts() - 7.81).abs() < 0.01, "{}", d.mean_bursts());
        for (mode, want) in [(NitemsMode::Tcplib, p.mean_bursts()), (NitemsMode::Discrete, d.mean_bursts())] {
            let mut r = rng(1);
            let n = 1_000_000;
            let xs: Vec<u32> = (0..n).map(|_| sample_nitems(mode, &mut r)).collect();
            let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
            let sd = (xs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
            assert!((mean - want).abs() < 5.0 * sd / (n as f64).sqrt(), "{mode:?}: {mean} vs {want}");
            // The empirical CDF at the table's first points (1, 2, ..., 10: consecutive integers).
            for (k, &(v, p)) in TCPLIB_NITEMS[..10].iter().enumerate() {
                let below = xs.iter().filter(|&&x| (x as f64) <= v).count() as f64 / n as f64;
                let want = match mode {
                    NitemsMode::Discrete => p,
                    // u in (p_k, p_k+1] gives floor(U[v, v + 1]) = v: P(N <= v_k) = p_k+1.
                    NitemsMode::Tcplib => TCPLIB_NITEMS[k + 1].1,
                };
                assert!((below - want).abs() < 0.003, "{mode:?} P(N <= {v}) = {below}, want {want}");
            }
        }
    }

    /// Sample means of the gaps and (truncated) burst sizes against their distributions' means.
    #[test]
    fn gaps_and_bursts_have_their_distributions_means() {
        let n = 400_000;
        let mut s = SessionSource::new(SessionParams { gap_sigma: 1.0, ..seed004_bits() }, rng(3), SimTime::ZERO);
        let gaps: Vec<f64> = (0..n).map(|_| s.gap().as_secs_f64()).collect();
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let want = (4f64.ln() + 0.5).exp();
        let sd = ((1f64.exp() - 1.0) * (2.0 * 4f64.ln() + 1.0).exp()).sqrt();
        assert!((mean - want).abs() < 5.0 * sd / (n as f64).sqrt(), "gap {mean} vs {want}");
        // Pareto 1.2 has no variance: truncate at 100 x_m to test the mean of what is drawn.
        let p = SessionParams { burst_max_bytes: Some(25_000_000.0), ..seed004_bits() };
        let mut s = SessionSource::new(p, rng(4), SimTime::ZERO);
        let sizes: Vec<f64> = (0..n).map(|_| s.burst_bytes() as f64).collect();
        let mean = sizes.iter().sum::<f64>() / n as f64;
        let sd = (sizes.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((mean - p.mean_burst_bytes()).abs() < 5.0 * sd / (n as f64).sqrt(), "{mean} vs {}", p.mean_burst_bytes());
        assert!(sizes.iter().all(|&x| (250_000.0..=25_000_000.0).contains(&x)));
    }

    /// A session writes its bursts one after the other, each after the previous is acknowledged
    /// and a gap; it ends after its last.
    #[test]
    fn a_session_writes_a_burst_per_acknowledged_burst_and_gap() {
        let p = SessionParams { rate: 1.0, ..seed004_bits() };
        let mut s = SessionSource::new(p, rng(5), SimTime::ZERO);
        let t0 = s.next_wake();
        let first = s.on_wake(t0);
        assert!(first >= 250_000 && s.active() == 1);
        let bursts = s.sessions[0].bursts_left + 1;
        // Nothing new until the burst is acknowledged (the next session aside).
        assert_eq!(s.sessions.iter().filter(|x| x.burst_end.is_none()).count(), 0);
        let mut acked = 0;
        let mut t = t0;
        for _ in 1..bursts {
            acked = s.written;
            s.on_acked(t, acked);
            let wake = s.sessions[0].wake;
            assert!(wake > t, "a gap before the next burst");
            t = wake;
            s.next_session = SimTime::MAX;
            assert!(s.on_wake(t) >= 250_000);
        }
        s.on_acked(t, s.written);
        assert_eq!(s.active(), 0, "the session ended after its {bursts} bursts");
        assert!(s.written > acked);
        // Offered load per source with the minimum read as bits (250 kB): about 1.13 Mb/s.
        assert!((seed004_bits().offered_bps() / 1e6 - 1.127).abs() < 0.01, "{}", seed004_bits().offered_bps());
    }

    #[test]
    fn infinite_means_and_bad_parameters_are_refused_by_field() {
        assert_eq!(SessionParams { burst_shape: 1.0, ..seed004_bits() }.check().unwrap_err().0, "burst.shape");
        assert!(SessionParams { burst_shape: 1.0, burst_max_bytes: Some(1e7), ..seed004_bits() }.check().is_ok());
        assert_eq!(SessionParams { rate: 0.0, ..seed004_bits() }.check().unwrap_err().0, "rate");
        assert_eq!(SessionParams { gap_sigma: -1.0, ..seed004_bits() }.check().unwrap_err().0, "gap");
        assert!(seed004_bits().check().is_ok());
    }
}
