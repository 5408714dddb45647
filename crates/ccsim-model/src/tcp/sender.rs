//! The TCP sender engine shared by every variant (docs/models/tcp.md, "Model"): sequence state,
//! the send loop, the RTT estimator and retransmission timer, slow start and congestion
//! avoidance.
//! What differs between Tahoe, Reno, NewReno and SACK — how duplicate and partial ACKs are
//! answered — lives in one file per variant behind `AnyTcp` (an enum, not a trait object per call).
//!
//! Sans-IO: the caller feeds ACKs and timer expiries with `now` and collects the segments
//! to send in a vector it owns (reused, so the steady state allocates nothing).

use super::newreno::NewReno;
use super::reno::Reno;
use super::rtt::{RttConfig, RttEstimator};
use super::sack::Sack;
use super::segment::{Ack, Segment};
use super::tahoe::Tahoe;
use ccsim_engine::{RngStream, SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Sender maximum segment size, payload bytes.
    pub smss: u32,
    /// Initial window in segments (1 in the 1990s studies).
    pub initial_window: u32,
    /// Largest congestion window (the connection's maximum window), bytes.
    pub max_window: u64,
    /// Initial ssthresh, bytes [RECON: the maximum window].
    pub initial_ssthresh: u64,
    pub dupthresh: u32,
    /// RTO expirations for the same data before the connection is aborted.
    pub max_retries: u32,
    /// Suppress a fast retransmit until the cumulative ACK passes the last recovery point
    /// (ns-2's bugfix, RFC 6582 §3.2 step 2; docs/validation/ns2.md, "What differs").
    pub reno_bugfix: bool,
    /// When a partial ACK restarts the retransmission timer (NewReno, RFC 6582 §4).
    pub partial_ack_timer: PartialAckTimer,
    /// A fast retransmit restarts the retransmission timer (ns-2: `reset_rtx_timer` in every
    /// variant's dupack action); otherwise the running timer keeps its deadline (RFC 6298 §5.1
    /// starts the timer on a send only when it is not running).
    pub fast_retransmit_restarts_timer: bool,
    /// ns-2's `overhead_`: when the window opens, new data waits a random time uniform on
    /// [0, overhead) and then goes out as one burst (retransmissions by fast retransmit do not
    /// wait). Zero (the default, as ns-2's) sends at once. A random delay breaks the phase effects
    /// of drop-tail queues (Floyd & Jacobson 1992); it needs `TcpSender::with_send_jitter`.
    pub overhead: SimDuration,
    pub rtt: RttConfig,
    /// Bytes the application has to send; `None` = a greedy bulk transfer.
    pub app_bytes: Option<u64>,
}

impl TcpConfig {
    pub fn new(smss: u32, max_window: u64) -> Self {
        TcpConfig {
            smss,
            initial_window: 1,
            max_window,
            initial_ssthresh: max_window,
            dupthresh: 3,
            max_retries: 12,
            reno_bugfix: true,
            partial_ack_timer: PartialAckTimer::First,
            fast_retransmit_restarts_timer: true,
            overhead: SimDuration::ZERO,
            rtt: RttConfig::default(),
            app_bytes: None,
        }
    }
}

/// Which partial ACKs of a NewReno recovery restart the retransmission timer (RFC 6582 §4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// The first only ("Impatient", RFC 6582's recommendation; ns-2.35's default,
    /// `newreno_changes1_ 1`): with many losses in a window the timer fires and slow start
    /// repairs the rest, instead of one retransmission per round trip.
    First,
    /// Every one ("Slow-but-Steady"): one hole repaired per round trip, however many.
    Every,
}

/// How an ACK relates to what was sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// Acknowledges new data.
    New,
    /// Same cumulative ACK with data outstanding (RFC 5681 duplicate ACK).
    Duplicate,
    /// Old or otherwise uninformative.
    Old,
}

/// Counters of one connection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub rtt_samples: u64,
    pub aborted: bool,
}

/// State every variant shares (docs/models/tcp.md, "Model").
#[derive(Clone, Debug)]
pub struct Core {
    pub cfg: TcpConfig,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Congestion window, bytes (fractional growth in congestion avoidance).
    pub cwnd: f64,
    pub ssthresh: f64,
    pub rwnd: u64,
    pub dupacks: u32,
    pub recover: u64,
    pub in_recovery: bool,
    pub rtt: RttEstimator,
    /// The segment being timed: (its end, when it was sent). One sample per RTT (Karn).
    timing: Option<(u64, SimTime)>,
    rto_deadline: Option<SimTime>,
    retries: u32,
    /// `overhead`: when the delayed burst goes out, and the draws for it.
    delayed_send: Option<SimTime>,
    jitter: Option<RngStream>,
    /// The delayed burst is going out now (`send_window` sends instead of waiting).
    sending_delayed: bool,
    pub stats: SenderStats,
}

impl Core {
    fn new(cfg: TcpConfig) -> Self {
        Core {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: (cfg.initial_window as u64 * cfg.smss as u64) as f64,
            ssthresh: cfg.initial_ssthresh as f64,
            rwnd: cfg.max_window,
            dupacks: 0,
            recover: 0,
            in_recovery: false,
            rtt: RttEstimator::new(cfg.rtt.clone()),
            timing: None,
            rto_deadline: None,
            retries: 0,
            delayed_send: None,
            jitter: None,
            sending_delayed: false,
            stats: SenderStats::default(),
            cfg,
        }
    }

    pub fn smss(&self) -> f64 {
        self.cfg.smss as f64
    }

    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// ssthresh after a loss: half the flight, at least two segments.
    pub fn halved(&self) -> f64 {
        (self.flight_size() as f64 / 2.0).max(2.0 * self.smss())
    }

    fn window(&self) -> f64 {
        self.cwnd.min(self.rwnd as f64)
    }

    /// Bytes the application still has beyond `seq` (`u64::MAX` for a greedy source).
    pub fn app_left(&self, seq: u64) -> u64 {
        self.cfg.app_bytes.map_or(u64::MAX, |n| n.saturating_sub(seq))
    }

    /// Sends [seq, seq+len) (new data or a retransmission) and does the bookkeeping.
    pub fn emit(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) -> bool {
        let len = (self.cfg.smss as u64).min(self.app_left(seq)) as u32;
        if len == 0 {
            return false;
        }
        let retransmission = seq < self.snd_max;
        if retransmission {
            self.stats.retransmissions += 1;
            // Karn: a retransmission invalidates the sample in progress if it covers it.
            if self.timing.is_some_and(|(end, _)| end > seq) {
                self.timing = None;
            }
        } else if self.timing.is_none() {
            self.timing = Some((seq + len as u64, now));
        }
        out.push(Segment { seq, len, retransmission });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        self.snd_max = self.snd_max.max(seq + len as u64);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rtt.deadline(now));
        }
        true
    }

    /// The ordinary send loop: full segments from snd_nxt while the window allows (after a
    /// random wait, with `overhead`).
    pub fn send_window(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.cfg.overhead.is_zero() && !self.sending_delayed {
            if self.delayed_send.is_none() && self.window_allows_one() {
                let u = self.jitter.as_mut().expect("a sender with overhead has its jitter stream").uniform();
                self.delayed_send = Some(now + SimDuration::from_ps((self.cfg.overhead.as_ps() as f64 * u) as u64));
            }
            return;
        }
        while self.window_allows_one() {
            let len = self.next_len();
            if !self.emit(now, self.snd_nxt, out) {
                return;
            }
            self.snd_nxt += len;
        }
    }

    /// The length of the segment at snd_nxt (0: the application has nothing more).
    fn next_len(&self) -> u64 {
        (self.cfg.smss as u64).min(self.app_left(self.snd_nxt))
    }

    /// Whether the window and the application allow the segment at snd_nxt.
    fn window_allows_one(&self) -> bool {
        let len = self.next_len();
        len > 0 && (self.snd_nxt - self.snd_una + len) as f64 <= self.window() + 1e-9
    }

    /// Retransmits the first unacknowledged segment (snd_nxt stays); the timer is the caller's.
    pub fn retransmit_first(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.emit(now, self.snd_una, out);
    }

    /// The fast retransmit of every variant: the first unacknowledged segment again, and the
    /// timer restarted if the policy says so (`fast_retransmit_restarts_timer`).
    pub fn fast_retransmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.fast_retransmits += 1;
        self.retransmit_first(now, out);
        if self.cfg.fast_retransmit_restarts_timer || self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
    }

    /// When the retransmission timer fires, if it runs (to keep a deadline across `advance`).
    pub fn timer_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    /// Puts back a deadline saved with `timer_deadline` (a partial ACK that must not restart it).
    pub fn keep_timer(&mut self, deadline: Option<SimTime>) {
        if self.rto_deadline.is_some() {
            self.rto_deadline = deadline.or(self.rto_deadline);
        }
    }

    /// Go-back-N from snd_una under the current window (after a timeout or Tahoe's fast
    /// retransmit), restarting the timer.
    pub fn go_back(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.snd_nxt = self.snd_una;
        self.send_window(now, out);
        self.restart_timer(now);
    }

    /// May a loss be answered by a fast retransmit? With the bugfix on, only once the cumulative
    /// ACK has passed (not merely reached) the point recorded at the last timeout or recovery
    /// (RFC 6582 §3.2 step 2; ns-2's `highest_ack_ > recover_`; docs/validation/ns2.md, "What
    /// differs"): duplicate ACKs carrying exactly that point come from go-back-N resending data
    /// the receiver holds.
    /// `recover` starts at 0, standing for the ISN below byte 0, which every ACK passes.
    pub fn fast_retransmit_allowed(&self) -> bool {
        !self.cfg.reno_bugfix || self.recover == 0 || self.snd_una > self.recover
    }

    pub fn restart_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(self.rtt.deadline(now));
    }

    /// Slow start or congestion avoidance growth for `acked` new bytes (docs/models/tcp.md, "Model").
    pub fn grow(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            self.cwnd += (acked as f64).min(self.smss());
        } else {
            self.cwnd += self.smss() * self.smss() / self.cwnd;
        }
        self.cwnd = self.cwnd.min(self.cfg.max_window as f64);
    }

    /// A new ACK outside loss recovery: advance, grow the window, send (docs/models/tcp.md, "Model").
    pub fn on_new_ack_open(&mut self, now: SimTime, ack: u64, out: &mut Vec<Segment>) {
        let acked = self.advance(now, ack);
        self.dupacks = 0;
        self.grow(acked);
        self.send_window(now, out);
    }

    /// Loss recovery ends with the window `cwnd` (after `advance`): resume normal sending.
    pub fn leave_recovery(&mut self, cwnd: f64, now: SimTime, out: &mut Vec<Segment>) {
        self.cwnd = cwnd;
        self.in_recovery = false;
        self.dupacks = 0;
        self.send_window(now, out);
    }

    /// Common part of every new ACK: RTT sample, snd_una, timer.
    pub fn advance(&mut self, now: SimTime, ack: u64) -> u64 {
        let acked = ack - self.snd_una;
        if let Some((end, sent)) = self.timing {
            if ack >= end {
                self.rtt.sample(sent, now);
                self.stats.rtt_samples += 1;
                self.timing = None;
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.retries = 0;
        if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else {
            self.restart_timer(now);
        }
        acked
    }
}

/// What a variant decides. Default hooks give Tahoe-style behaviour.
pub trait CongestionControl {
    fn on_ack(&mut self, core: &mut Core, ack: &Ack, kind: AckKind, now: SimTime, out: &mut Vec<Segment>);
    /// After the common RTO handling (docs/models/tcp.md, "Model"), before the retransmission.
    fn on_timeout(&mut self, _core: &mut Core) {}
}

/// Every TCP variant, stored inline.
#[derive(Clone, Debug)]
pub enum AnyTcp {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
}

macro_rules! dispatch {
    ($self:expr, $v:ident => $body:expr) => {
        match $self {
            AnyTcp::Tahoe($v) => $body,
            AnyTcp::Reno($v) => $body,
            AnyTcp::NewReno($v) => $body,
            AnyTcp::Sack($v) => $body,
        }
    };
}

impl AnyTcp {
    pub fn name(&self) -> &'static str {
        match self {
            AnyTcp::Tahoe(t) if !t.fast_retransmit => "jacobson88",
            AnyTcp::Tahoe(_) => "tahoe",
            AnyTcp::Reno(_) => "reno",
            AnyTcp::NewReno(_) => "newreno",
            AnyTcp::Sack(s) if s.fall_floyd => "sack1",
            AnyTcp::Sack(_) => "sack",
        }
    }
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    pub core: Core,
    cc: AnyTcp,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, cc: AnyTcp) -> Self {
        TcpSender { core: Core::new(cfg), cc }
    }

    pub fn variant(&self) -> &'static str {
        self.cc.name()
    }

    /// Opens the connection (already ESTABLISHED: no handshake, docs/models/tcp.md) and sends the
    /// initial window.
    /// Draws for `TcpConfig::overhead` (one stream per connection).
    pub fn with_send_jitter(mut self, rng: RngStream) -> Self {
        self.core.jitter = Some(rng);
        self
    }

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.core.send_window(now, out);
    }

    /// When the retransmission timer fires, if it is running.
    pub fn timer_due(&self) -> Option<SimTime> {
        match (self.core.rto_deadline, self.core.delayed_send) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn on_ack(&mut self, now: SimTime, ack: &Ack, out: &mut Vec<Segment>) {
        if self.core.stats.aborted {
            return;
        }
        let c = &mut self.core;
        c.rwnd = ack.rwnd;
        let kind = if ack.ack > c.snd_una && ack.ack <= c.snd_max {
            AckKind::New
        } else if ack.ack == c.snd_una && c.snd_max > c.snd_una {
            AckKind::Duplicate
        } else {
            AckKind::Old
        };
        dispatch!(&mut self.cc, v => v.on_ack(&mut self.core, ack, kind, now, out));
    }

    /// The retransmission timer fired (docs/models/tcp.md, "Model").
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let c = &mut self.core;
        if c.delayed_send.is_some_and(|t| now >= t) && !c.stats.aborted {
            c.delayed_send = None;
            c.sending_delayed = true;
            c.send_window(now, out);
            c.sending_delayed = false;
        }
        match c.rto_deadline {
            Some(t) if now >= t => {}
            _ => return,
        }
        c.retries += 1;
        if c.retries > c.cfg.max_retries {
            c.stats.aborted = true;
            c.rto_deadline = None;
            return;
        }
        c.stats.timeouts += 1;
        c.rtt.back_off();
        c.ssthresh = c.halved();
        c.cwnd = c.smss();
        c.snd_nxt = c.snd_una;
        c.dupacks = 0;
        c.in_recovery = false;
        c.recover = c.snd_max;
        c.timing = None;
        dispatch!(&mut self.cc, v => v.on_timeout(&mut self.core));
        // Go back to the first hole; with cwnd = 1 SMSS the loop sends exactly that segment.
        self.core.go_back(now, out);
    }

    pub fn stats(&self) -> &SenderStats {
        &self.core.stats
    }

    /// The application writes `bytes` more (a finite transfer grows): sent as the window allows.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        let c = &mut self.core;
        c.cfg.app_bytes = Some(c.cfg.app_bytes.unwrap_or(0) + bytes);
        if !c.stats.aborted && !c.in_recovery {
            c.send_window(now, out);
        }
    }

    /// All data sent and acknowledged (finite transfers).
    pub fn finished(&self) -> bool {
        self.core.cfg.app_bytes.is_some_and(|n| self.core.snd_una >= n)
    }
}
