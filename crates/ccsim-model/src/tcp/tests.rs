//! End-to-end tests of the TCP variants over a tiny deterministic network: a bottleneck of
//! fixed rate and unlimited buffer, fixed one-way delays, and scripted drops
//! (docs/models/tcp.md, "Validation"; issue 4's loss-recovery tests).

use super::*;
use ccsim_engine::{EventQueue, SimDuration, SimTime, TxClock};

#[derive(Copy, Clone, Debug)]
enum Ev {
    Data(Segment),
    AckArrives(Ack),
    SenderTimer,
}

struct Net {
    s: TcpSender,
    r: TcpReceiver,
    q: EventQueue<Ev>,
    now: SimTime,
    delay: SimDuration,
    clock: TxClock,
    link_free: SimTime,
    /// (seq, transmission number) pairs to drop: 0 = the first transmission.
    drops: Vec<(u64, u32)>,
    sent_count: std::collections::HashMap<u64, u32>,
    sends: Vec<(SimTime, Segment)>,
    /// When each ACK reached the sender.
    acks: Vec<SimTime>,
    scheduled: Option<SimTime>,
    out: Vec<Segment>,
    cwnd_log: Vec<(SimTime, f64)>,
}

const MSS: u32 = 1000;

impl Net {
    fn new(variant: &str, cfg: TcpConfig, rate_bps: u64, one_way: SimDuration) -> Net {
        let sack = variant.starts_with("sack");
        Net {
            r: TcpReceiver::new(cfg.max_window, sack, DelayedAck::Off, cfg.smss),
            s: TcpSender::new(cfg, super::variant(variant).unwrap()),
            q: EventQueue::new(),
            now: SimTime::ZERO,
            delay: one_way,
            clock: TxClock::new(rate_bps),
            link_free: SimTime::ZERO,
            drops: Vec::new(),
            sent_count: Default::default(),
            sends: Vec::new(),
            acks: Vec::new(),
            scheduled: None,
            out: Vec::new(),
            cwnd_log: Vec::new(),
        }
    }

    fn flush(&mut self) {
        for seg in std::mem::take(&mut self.out) {
            let n = self.sent_count.entry(seg.seq).or_insert(0);
            let nth = *n;
            *n += 1;
            self.sends.push((self.now, seg));
            let start = self.now.max(self.link_free);
            let done = start + self.clock.tx_time(seg.wire_bytes() as u64 * 8);
            self.link_free = done;
            if !self.drops.contains(&(seg.seq, nth)) {
                self.q.push(done + self.delay, Ev::Data(seg));
            }
        }
        if self.s.timer_due() != self.scheduled {
            self.scheduled = self.s.timer_due();
            if let Some(t) = self.scheduled {
                self.q.push(t, Ev::SenderTimer);
            }
        }
        self.cwnd_log.push((self.now, self.s.core.cwnd));
    }

    fn run(&mut self, until: SimDuration) {
        let end = SimTime::ZERO + until;
        if self.now == SimTime::ZERO && self.sends.is_empty() {
            self.s.start(self.now, &mut self.out);
            self.flush();
        }
        while let Some(t) = self.q.peek_time() {
            if t > end {
                break;
            }
            let (t, ev) = self.q.pop().unwrap();
            self.now = t;
            match ev {
                Ev::Data(seg) => {
                    if let Some(a) = self.r.on_segment(t, seg.seq, seg.len) {
                        self.q.push(t + self.delay, Ev::AckArrives(a));
                    }
                }
                Ev::AckArrives(a) => {
                    self.acks.push(t);
                    self.s.on_ack(t, &a, &mut self.out);
                    self.flush();
                }
                Ev::SenderTimer => {
                    if self.scheduled == Some(t) {
                        self.scheduled = None;
                        self.s.on_timer(t, &mut self.out);
                        self.flush();
                    }
                }
            }
        }
        self.now = end;
    }

    fn retransmitted(&self) -> Vec<u64> {
        self.sends.iter().filter(|(_, s)| s.retransmission).map(|(_, s)| s.seq).collect()
    }
}

fn cfg(window_segments: u64) -> TcpConfig {
    let mut c = TcpConfig::new(MSS, window_segments * MSS as u64);
    c.rtt.rto_min = SimDuration::from_millis(200);
    c
}

fn ms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}

/// Goodput in bytes/s between two instants of a run.
fn goodput(variant: &str, c: TcpConfig, rate: u64, one_way: SimDuration) -> f64 {
    let mut n = Net::new(variant, c, rate, one_way);
    n.run(SimDuration::from_secs(2));
    let a = n.r.delivered;
    n.run(SimDuration::from_secs(6));
    (n.r.delivered - a) as f64 / 4.0
}

// --- throughput limits ---------------------------------------------------------------------

#[test]
fn window_limited_throughput_is_window_over_rtt() {
    // 10 × 1000 B per RTT; RTT = 2 × 10 ms + one 1040 B serialisation at 100 Mb/s.
    let rtt = 0.020 + 1040.0 * 8.0 / 100e6;
    let want = 10_000.0 / rtt;
    for v in ["tahoe", "reno", "newreno", "sack"] {
        let got = goodput(v, cfg(10), 100_000_000, ms(10));
        assert!((got - want).abs() / want < 0.02, "{v}: {got:.0} B/s vs {want:.0}");
    }
}

#[test]
fn link_limited_throughput_is_the_payload_share_of_the_rate() {
    // A 200-segment window on 10 Mb/s × 20 ms (25 segments): the link binds; payload share
    // 1000/1040 of the bit rate.
    let want = 10e6 / 8.0 * 1000.0 / 1040.0;
    for v in ["tahoe", "reno", "newreno", "sack"] {
        let got = goodput(v, cfg(200), 10_000_000, ms(10));
        assert!((got - want).abs() / want < 0.02, "{v}: {got:.0} B/s vs {want:.0}");
    }
}

#[test]
fn slow_start_doubles_per_rtt() {
    let mut n = Net::new("reno", cfg(1000), 1_000_000_000, ms(50));
    // Sends per 100 ms round: 1, 2, 4, 8, 16.
    n.run(ms(510));
    let per_round: Vec<usize> =
        (0..5).map(|k| n.sends.iter().filter(|(t, _)| t.as_secs_f64() >= k as f64 * 0.1 && t.as_secs_f64() < (k + 1) as f64 * 0.1).count()).collect();
    assert_eq!(per_round, [1, 2, 4, 8, 16]);
}

// --- loss recovery -------------------------------------------------------------------------

fn lossy(variant: &str, drops: &[(u64, u32)]) -> Net {
    let mut n = Net::new(variant, cfg(64), 10_000_000, ms(10));
    n.drops = drops.to_vec();
    n.run(SimDuration::from_secs(3));
    n
}

/// The segment 40 losses: one, with slow start long over (the window is 64 segments).
const LOST: u64 = 40 * MSS as u64;

#[test]
fn reno_repairs_a_single_loss_by_fast_retransmit() {
    let n = lossy("reno", &[(LOST, 0)]);
    let st = n.s.stats();
    assert_eq!((st.fast_retransmits, st.timeouts, st.retransmissions), (1, 0, 1));
    assert_eq!(n.retransmitted(), [LOST]);
}

#[test]
fn tahoe_slow_starts_from_one_segment_after_a_loss() {
    let n = lossy("tahoe", &[(LOST, 0)]);
    let st = n.s.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0));
    let fr = n.sends.iter().find(|(_, s)| s.retransmission).unwrap().0;
    let cwnd_after = n.cwnd_log.iter().find(|(t, _)| *t == fr).unwrap().1;
    assert_eq!(cwnd_after, MSS as f64);
}

#[test]
fn jacobson88_waits_for_the_timeout() {
    let n = lossy("jacobson88", &[(LOST, 0)]);
    let st = n.s.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (0, 1));
}

const THREE: [(u64, u32); 3] = [(LOST, 0), (LOST + 3 * MSS as u64, 0), (LOST + 6 * MSS as u64, 0)];

#[test]
fn newreno_recovers_three_losses_in_a_window_without_a_timeout() {
    let n = lossy("newreno", &THREE);
    let st = n.s.stats();
    assert_eq!(st.timeouts, 0);
    assert_eq!(n.retransmitted(), [LOST, LOST + 3000, LOST + 6000]);
}

#[test]
fn sack_retransmits_exactly_the_lost_segments() {
    let n = lossy("sack", &THREE);
    let st = n.s.stats();
    assert_eq!(st.timeouts, 0);
    let mut r = n.retransmitted();
    r.sort();
    assert_eq!(r, [LOST, LOST + 3000, LOST + 6000]);
}

#[test]
fn fall_floyd_sack1_also_retransmits_exactly_the_lost_segments() {
    let n = lossy("sack1", &THREE);
    assert_eq!(n.s.stats().timeouts, 0);
    let mut r = n.retransmitted();
    r.sort();
    assert_eq!(r, [LOST, LOST + 3000, LOST + 6000]);
    assert_eq!(n.s.variant(), "sack1");
}

#[test]
fn reno_needs_a_timeout_for_three_losses_in_a_window() {
    let n = lossy("reno", &THREE);
    assert!(n.s.stats().timeouts >= 1);
}

#[test]
fn a_lost_retransmission_ends_in_a_timeout_with_backoff() {
    // The fast retransmission of the lost segment is lost too.
    let n = lossy("newreno", &[(LOST, 0), (LOST, 1)]);
    let st = n.s.stats();
    assert_eq!(st.timeouts, 1);
    // The timeout's retransmission waited at least one RTO after the fast retransmit.
    let sends: Vec<SimTime> = n.sends.iter().filter(|(_, s)| s.seq == LOST).map(|(t, _)| *t).collect();
    assert_eq!(sends.len(), 3);
    assert!(sends[2].saturating_since(sends[1]) >= SimDuration::from_millis(200));
}

#[test]
fn goodput_never_counts_a_byte_twice() {
    for v in ["tahoe", "reno", "newreno", "sack"] {
        let n = lossy(v, &THREE);
        // Each in-order byte counted once: goodput is exactly the in-order prefix, which lies
        // between what the sender knows is acknowledged and what it has sent, although
        // retransmissions put more bytes on the wire.
        assert_eq!(n.r.delivered, n.r.rcv_nxt(), "{v}");
        assert!(n.s.core.snd_una <= n.r.delivered && n.r.delivered <= n.s.core.snd_max, "{v}");
        assert!(n.r.duplicate_bytes > 0 || n.s.stats().retransmissions == 3, "{v}");
        assert!(n.s.stats().bytes_sent > n.r.delivered, "{v}");
    }
}

#[test]
fn bsd_ticks_timeout_never_fires_before_tick_rounding_allows() {
    // The very first segment is lost: no sample yet, RTO = 3 s = 6 ticks of 500 ms, so the
    // retransmission leaves between 2.5 s and 3.0 s after it, depending on the tick phase.
    for phase_ms in [0, 123, 499] {
        let mut c = cfg(64);
        c.rtt.mode = ClockMode::BsdTicks { tick: ms(500), phase: ms(phase_ms) };
        let mut n = Net::new("reno", c, 10_000_000, ms(10));
        n.drops = vec![(0, 0)];
        n.run(SimDuration::from_secs(4));
        let sends: Vec<SimTime> = n.sends.iter().filter(|(_, s)| s.seq == 0).map(|(t, _)| *t).collect();
        let wait = sends[1].saturating_since(sends[0]);
        assert!(wait > SimDuration::from_millis(2500) && wait <= SimDuration::from_secs(3), "phase {phase_ms}: {wait}");
    }
}

#[test]
fn finite_transfers_finish() {
    let mut c = cfg(20);
    c.app_bytes = Some(123_456);
    let mut n = Net::new("sack", c, 10_000_000, ms(5));
    n.drops = vec![(50_000, 0)];
    n.run(SimDuration::from_secs(5));
    assert!(n.s.finished());
    assert_eq!(n.r.delivered, 123_456);
}

// --- the retransmission timer during loss recovery ----------------------------------------

/// A window of 16 segments (no queue at the bottleneck: every round trip ~20.9 ms), an RTO floor
/// of `rto_min_ms`, and a timer policy.
fn timed(variant: &str, drops: &[(u64, u32)], rto_min_ms: u64, policy: impl Fn(&mut TcpConfig)) -> Net {
    let mut c = cfg(16);
    c.rtt.rto_min = ms(rto_min_ms);
    policy(&mut c);
    let mut n = Net::new(variant, c, 10_000_000, ms(10));
    n.drops = drops.to_vec();
    n.run(SimDuration::from_secs(3));
    n
}

/// Four losses in one window: NewReno repairs one hole per round trip. Restarted on every
/// partial ACK ("Slow-but-Steady"), the 50 ms timer never fires; restarted on the first only
/// (RFC 6582's "Impatient", the default), it fires before the last hole is reached and slow
/// start retransmits the rest.
#[test]
fn newreno_impatient_times_out_where_slow_but_steady_does_not() {
    let four: Vec<(u64, u32)> = (0..4).map(|k| (LOST + 2 * k * MSS as u64, 0)).collect();
    let steady = timed("newreno", &four, 50, |c| c.partial_ack_timer = PartialAckTimer::Every);
    assert_eq!((steady.s.stats().fast_retransmits, steady.s.stats().timeouts), (1, 0));
    assert_eq!(steady.retransmitted(), four.iter().map(|d| d.0).collect::<Vec<_>>(), "one retransmission per hole");
    let impatient = timed("newreno", &four, 50, |_| {});
    assert_eq!(TcpConfig::new(MSS, 1).partial_ack_timer, PartialAckTimer::First, "the default");
    assert_eq!(impatient.s.stats().timeouts, 1);
}

/// One loss late in the run (the RTT estimate has settled: the RTO is the 22 ms floor, just above
/// the 20.9 ms round trip). The fast retransmit comes three packet times after the last new ACK
/// restarted the timer, and its ACK a round trip later. Left running (RFC 6298 §5.1), the timer
/// fires first; restarted at the fast retransmit (ns-2), it does not. Reno and NewReno alike.
#[test]
fn a_fast_retransmit_that_leaves_the_timer_running_can_time_out() {
    let late = [(1500 * MSS as u64, 0)];
    for v in ["reno", "newreno"] {
        let restarted = timed(v, &late, 22, |_| {});
        assert!(TcpConfig::new(MSS, 1).fast_retransmit_restarts_timer, "the default");
        assert_eq!((restarted.s.stats().fast_retransmits, restarted.s.stats().timeouts), (1, 0), "{v}");
        let running = timed(v, &late, 22, |c| c.fast_retransmit_restarts_timer = false);
        assert_eq!((running.s.stats().fast_retransmits, running.s.stats().timeouts), (1, 1), "{v}");
    }
}

// --- ns-2's send overhead ----------------------------------------------------------------

/// With `overhead`, new data leaves a random time in [0, overhead) after the ACK that opened
/// the window, as one burst; a fast retransmit does not wait. Without, it leaves at once.
#[test]
fn overhead_delays_new_data_by_a_random_wait_below_it() {
    let run = |overhead: SimDuration| {
        let mut c = cfg(16);
        c.overhead = overhead;
        let jitter = ccsim_engine::RngStream::new(ccsim_engine::StreamKey { seed: 1, replication: 0, component: 0, purpose: 7 });
        let mut n = Net::new("reno", c, 10_000_000, ms(10));
        n.s = TcpSender::new(n.s.core.cfg.clone(), super::variant("reno").unwrap()).with_send_jitter(jitter);
        n.drops = vec![(LOST, 0)];
        n.run(SimDuration::from_secs(2));
        n
    };
    let plain = run(SimDuration::ZERO);
    let waiting = run(ms(5));
    // Every send in the plain run happens at an ACK's arrival; with overhead the first segments
    // of bursts do not, and the spread of their offsets covers most of [0, 5 ms).
    let ack_times: std::collections::BTreeSet<SimTime> = plain.acks.iter().copied().collect();
    assert!(plain.sends.iter().skip(1).all(|(t, _)| ack_times.contains(t)));
    let late: Vec<f64> = waiting
        .sends
        .iter()
        .filter(|(_, s)| !s.retransmission)
        .filter_map(|(t, _)| waiting.acks.iter().rev().find(|a| *a <= t).map(|a| t.saturating_since(*a).as_secs_f64() * 1e3))
        .collect();
    assert!(late.iter().all(|&d| d < 5.0), "a send waited 5 ms or more");
    assert!(late.iter().any(|&d| d > 4.0) && late.iter().any(|&d| d > 0.0 && d < 1.0), "offsets cover [0, 5 ms)");
    // The fast retransmit left at the third duplicate ACK's arrival.
    let (t, _) = waiting.sends.iter().find(|(_, s)| s.retransmission).unwrap();
    assert!(waiting.acks.contains(t));
    assert_eq!(waiting.s.stats().timeouts, 0);
    assert!(waiting.r.delivered > 1_000_000);
}

#[test]
fn no_false_fast_retransmit_when_the_ack_reaches_the_timeouts_recovery_point() {
    // Four holes and a lost fast retransmission: a timeout, then go-back-N resends segments
    // the receiver already holds. Their duplicate ACKs carry exactly the point recorded at the
    // timeout; RFC 6582 §3.2 step 2 (and ns-2's `highest_ack_ > recover_`) forbid a fast
    // retransmit until the cumulative ACK passes that point, so the only fast retransmit is
    // the first one. With `>=` instead of `>` each variant retransmitted again needlessly.
    let m = MSS as u64;
    let holes = [(LOST, 0), (LOST + 2 * m, 0), (LOST + 5 * m, 0), (LOST + 9 * m, 0), (LOST, 1)];
    for v in ["tahoe", "reno", "newreno"] {
        let st = lossy(v, &holes).s.stats().clone();
        assert_eq!((st.fast_retransmits, st.timeouts), (1, 1), "{v}");
    }
}
