//! An HG-RCP intranet's shared LAN medium toward its gateway (seed 000; docs/models/hgrcp.md):
//! one transmitter, and per host on it (per VC) that host's IP output: a default queue, whose
//! packets may go at once, and a rate-managed queue for the destinations the Queue Mapping Table
//! knows, paced at the explicit rate of the gateway's last rate notification (RN).
//!
//! The pacer decides when a packet may *start on the medium*: a host whose packet is due while
//! another host transmits keeps it in its own queue, so a rate cut (ER = 0 at the worst) holds
//! every packet not yet on the wire. Had the hosts released their packets into a shared FIFO
//! instead, a burst of high rates would sit in that FIFO and reach the gateway whatever rate
//! followed: the zero-loss bound (Eq. 14) assumes the gateway receives at most the LAN's rate.
//! Among hosts with a packet ready the medium goes round robin (no collisions) [RECON], or, as
//! a half-duplex CSMA/CD segment (`csma_cd.rs`), to whichever station wins the contention; the
//! gateway is then one more station, whose frames toward the hosts share the medium.
//!
//! The pacer charges each packet the ATM cells it will take behind the gateway (its IP length
//! plus LLC/SNAP and the AAL5 trailer, in 48-byte payloads) and lets the host's next one go
//! `cells / ER` after its last release [RECON: the seed defers the pacer to another paper]. A
//! rate change re-times the next release from the last one, so a higher rate takes effect at
//! once; ER = 0 holds the managed queues until a positive RN. A held discipline: `next` says
//! when the next packet is due (`Next::At`), or that the queues wait for an RN (`Next::Idle`).

use super::csma_cd::{Arbitration, Contender, CsmaCd, CsmaStats};
use super::{HeldOrder, Next};
use crate::aal5;
use crate::cell::{Cell, CellKind, Flags};
use crate::ids::VcId;
use ccsim_engine::{SimDuration, SimTime};
use std::collections::VecDeque;

/// One host's IP output on the medium.
#[derive(Clone, Debug, Default)]
struct Station {
    /// Packets for destinations the Queue Mapping Table does not know (not rate-managed).
    default: VecDeque<Cell>,
    /// The rate-managed queue (one Qid: a host of seed 000 talks through one gateway).
    managed: VecDeque<Cell>,
    /// The Queue Mapping Table knows the destination network (preloaded, or learned from a QN).
    known: bool,
    /// The last release from the managed queue and the cells it was charged.
    last_release: Option<(SimTime, u32)>,
}

impl Station {
    /// When the head packet may start at `rate` cells/s (`None`: nothing may, whatever the time).
    fn ready(&self, rate: f64) -> Option<SimTime> {
        if !self.default.is_empty() {
            return Some(SimTime::ZERO);
        }
        if self.managed.is_empty() || rate <= 0.0 {
            return None;
        }
        Some(match self.last_release {
            None => SimTime::ZERO,
            Some((t, cells)) => t + SimDuration::from_secs_f64(cells as f64 / rate),
        })
    }
}

#[derive(Clone, Debug)]
pub struct LanMedium {
    stations: Vec<Station>,
    /// Station of each VC (by VC index; `NONE`: none yet).
    slot: Vec<u32>,
    /// The station the round robin asks first.
    turn: usize,
    /// Whether a new station's Queue Mapping Table is preloaded with the destination.
    preloaded: bool,
    /// The explicit rate of the hosts' rate-managed queues, cells/s (0: held).
    rate: f64,
    /// Bytes of link framing in a packet's `size` above its IP length (Ethernet: 38).
    framing_bytes: u16,
    /// A CSMA/CD segment's contention (`None`: round robin, no collisions).
    csma: Option<Box<Csma>>,
}

/// A CSMA/CD medium's state beside the hosts' stations: the gateway's station and everyone's
/// contention (index `stations.len()` is the gateway's).
#[derive(Clone, Debug)]
struct Csma {
    cd: CsmaCd,
    /// Frames from the gateway toward the hosts (ACKs on the sources' LAN, data on the
    /// destinations', notifications): one FIFO, never paced.
    gateway: VecDeque<Cell>,
    who: Vec<Contender>,
    /// Scratch: when each station's head frame may contend (kept to avoid allocating).
    ready: Vec<Option<SimTime>>,
    discarded: Vec<usize>,
    /// Frames discarded after the attempt limit, for the port to drop (`take_discard`).
    dropped: VecDeque<Cell>,
}

/// Whether a frame on a CSMA/CD medium comes from a host (else from the gateway). The builder
/// puts the medium at hop 1 of a connection whose sources are on this LAN and at another hop
/// of one whose destinations are: there a host sends forward frames, here backward ones.
fn from_host(cell: &Cell) -> bool {
    cell.kind != CellKind::Icmp && (cell.hop == 1) == cell.is_forward()
}

const NONE: u32 = u32::MAX;

impl LanMedium {
    /// `preloaded`: the hosts' Queue Mapping Tables know the destination; `rate`: the initial
    /// explicit rate (cells/s); `framing_bytes`: link framing counted in each packet's size.
    pub fn new(preloaded: bool, rate: f64, framing_bytes: u16) -> Self {
        LanMedium { stations: Vec::new(), slot: Vec::new(), turn: 0, preloaded, rate, framing_bytes, csma: None }
    }

    /// As `new`, on a half-duplex CSMA/CD segment shared with the gateway (`csma_cd.rs`).
    pub fn csma_cd(preloaded: bool, rate: f64, framing_bytes: u16, cd: CsmaCd) -> Self {
        let csma = Csma { cd, gateway: VecDeque::new(), who: vec![Contender::default()], ready: Vec::new(), discarded: Vec::new(), dropped: VecDeque::new() };
        LanMedium { csma: Some(Box::new(csma)), ..Self::new(preloaded, rate, framing_bytes) }
    }

    /// What the CSMA/CD medium has seen (`None`: round robin).
    pub fn csma_stats(&self) -> Option<CsmaStats> {
        self.csma.as_ref().map(|c| c.cd.stats)
    }

    /// A frame discarded after the attempt limit, not yet dropped by the port.
    pub fn take_discard(&mut self) -> Option<Cell> {
        self.csma.as_mut().and_then(|c| c.dropped.pop_front())
    }

    /// Station `i`'s head frame leaves its queues (default first, then the paced managed one).
    fn pop(&mut self, i: usize, now: SimTime) -> Cell {
        let s = &mut self.stations[i];
        if let Some(p) = s.default.pop_front() {
            return p;
        }
        let p = s.managed.pop_front().expect("a ready station has a frame");
        let cells = self.charge(&p);
        self.stations[i].last_release = Some((now, cells));
        p
    }

    /// The free medium under CSMA/CD: the stations with a frame ready contend.
    fn next_csma(&mut self, now: SimTime) -> Next {
        let n = self.stations.len();
        let rate = self.rate;
        let mut c = self.csma.take().expect("a CSMA/CD medium");
        // New hosts' stations take their places before the gateway's, which stays last.
        while c.who.len() < n + 1 {
            c.who.insert(c.who.len() - 1, Contender::default());
        }
        c.ready.clear();
        for (s, w) in self.stations.iter().zip(&c.who) {
            // A frame that has collided contends until it goes, whatever its pacer says now.
            let committed = w.attempts > 0 && !(s.default.is_empty() && s.managed.is_empty());
            c.ready.push(if committed { Some(SimTime::ZERO) } else { s.ready(rate) });
        }
        c.ready.push((!c.gateway.is_empty()).then_some(SimTime::ZERO));
        c.discarded.clear();
        let out = c.cd.arbitrate(now, &c.ready, &mut c.who, &mut c.discarded);
        let next = match out {
            Arbitration::Send(i) if i == n => Next::Cell(c.gateway.pop_front().expect("ready")),
            Arbitration::Send(i) => Next::Cell(self.pop(i, now)),
            Arbitration::At(t) => {
                for k in 0..c.discarded.len() {
                    let i = c.discarded[k];
                    let frame = if i == n { c.gateway.pop_front().expect("contended") } else { self.pop(i, now) };
                    c.dropped.push_back(frame);
                }
                Next::At(t)
            }
            Arbitration::Idle => Next::Idle,
        };
        self.csma = Some(c);
        next
    }

    fn station(&mut self, vc: VcId) -> &mut Station {
        let i = vc.index();
        if i >= self.slot.len() {
            self.slot.resize(i + 1, NONE);
        }
        if self.slot[i] == NONE {
            self.slot[i] = self.stations.len() as u32;
            self.stations.push(Station { known: self.preloaded, ..Station::default() });
        }
        &mut self.stations[self.slot[i] as usize]
    }

    /// The cells a packet will take in the ABR connection: its IP length with LLC/SNAP in AAL5.
    fn charge(&self, packet: &Cell) -> u32 {
        aal5::cells((packet.size.saturating_sub(self.framing_bytes)) as u32, true)
    }

    /// A rate notification: the new explicit rate (cells/s) of every host's managed queue.
    pub fn set_rate(&mut self, rate: f64) {
        self.rate = rate.max(0.0);
    }

    /// A queue notification to the host of `vc`: its destination is rate-managed from now on,
    /// and its packets waiting in the default queue move to the managed queue, in order.
    pub fn learn(&mut self, vc: VcId) {
        let s = self.station(vc);
        s.known = true;
        for mut p in s.default.drain(..) {
            p.flags.set(Flags::QBIT, true);
            s.managed.push_back(p);
        }
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Whether the host of `vc` rate-manages its destination.
    pub fn is_managed(&self, vc: VcId) -> bool {
        match self.slot.get(vc.index()) {
            Some(&s) if s != NONE => self.stations[s as usize].known,
            _ => self.preloaded,
        }
    }
}

impl HeldOrder for LanMedium {
    fn buffered(&self, _cell: &Cell) -> bool {
        true
    }

    fn hold(&mut self, mut cell: Cell) {
        if let Some(c) = self.csma.as_mut() {
            if !from_host(&cell) {
                return c.gateway.push_back(cell);
            }
        }
        let s = self.station(cell.vc);
        if s.known && cell.is_forward() {
            cell.flags.set(Flags::QBIT, true);
            s.managed.push_back(cell);
        } else {
            s.default.push_back(cell);
        }
    }

    fn next(&mut self, now: SimTime) -> Next {
        if self.csma.is_some() {
            return self.next_csma(now);
        }
        let n = self.stations.len();
        let mut earliest: Option<SimTime> = None;
        for k in 0..n {
            let i = (self.turn + k) % n;
            match self.stations[i].ready(self.rate) {
                Some(t) if t <= now => {
                    self.turn = (i + 1) % n;
                    let s = &mut self.stations[i];
                    if let Some(p) = s.default.pop_front() {
                        return Next::Cell(p);
                    }
                    let p = s.managed.pop_front().expect("ready");
                    let cells = self.charge(&p);
                    self.stations[i].last_release = Some((now, cells));
                    return Next::Cell(p);
                }
                Some(t) => earliest = Some(earliest.map_or(t, |e| e.min(t))),
                None => {}
            }
        }
        earliest.map_or(Next::Idle, Next::At)
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        let gateway = self.csma.iter().flat_map(|c| c.gateway.iter().chain(c.dropped.iter()));
        self.stations.iter().flat_map(|s| s.default.iter().chain(s.managed.iter())).chain(gateway)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;

    /// A 1500-byte IP packet of `vc` with Ethernet framing on the wire: 32 cells behind the gateway.
    fn packet(vc: u32, n: u16) -> Cell {
        Cell::packet(VcId(vc), CellKind::Data, n, 1500 + 38)
    }

    fn t(s: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(s)
    }

    #[test]
    fn unmanaged_packets_leave_at_once_without_the_q_bit() {
        let mut m = LanMedium::new(false, 0.0, 38);
        m.hold(packet(0, 0));
        m.hold(packet(0, 1));
        for n in 0..2 {
            let c = m.next(t(0.0)).cell().expect("unpaced");
            assert_eq!(c.frame, n);
            assert!(!c.flags.get(Flags::QBIT));
        }
        assert_eq!(m.next(t(0.0)), Next::Idle);
    }

    #[test]
    fn managed_packets_are_spaced_by_their_cells_at_the_explicit_rate() {
        let mut m = LanMedium::new(true, 3200.0, 38);
        for n in 0..3 {
            m.hold(packet(0, n));
        }
        let first = m.next(t(0.0)).cell().unwrap();
        assert!(first.flags.get(Flags::QBIT), "sent from a rate-managed queue");
        // 32 cells at 3200 cells/s: the next one 10 ms later.
        assert_eq!(m.next(t(0.001)), Next::At(t(0.010)));
        assert!(m.next(t(0.010)).cell().is_some());
        assert_eq!(m.next(t(0.010)), Next::At(t(0.020)));
    }

    #[test]
    fn a_zero_rate_holds_the_queue_and_a_higher_rate_takes_effect_at_once() {
        let mut m = LanMedium::new(true, 0.0, 38);
        m.hold(packet(0, 0));
        m.hold(packet(0, 1));
        assert_eq!(m.next(t(0.0)), Next::Idle);
        m.set_rate(320.0);
        assert!(m.next(t(0.005)).cell().is_some(), "released at once once the rate is positive");
        assert_eq!(m.next(t(0.006)), Next::At(t(0.105)));
        m.set_rate(3200.0);
        assert_eq!(m.next(t(0.006)), Next::At(t(0.015)), "re-timed from the last release");
    }

    #[test]
    fn a_queue_notification_moves_waiting_packets_to_the_managed_queue_in_order() {
        let mut m = LanMedium::new(false, 3200.0, 38);
        for n in 0..3 {
            m.hold(packet(0, n));
        }
        assert!(!m.is_managed(VcId(0)));
        m.learn(VcId(0));
        assert!(m.is_managed(VcId(0)));
        m.hold(packet(0, 3));
        let mut got = vec![m.next(t(0.0)).cell().unwrap()];
        for k in 1..4 {
            got.push(m.next(t(0.010 * k as f64)).cell().unwrap());
        }
        assert_eq!(got.iter().map(|c| c.frame).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(got.iter().all(|c| c.flags.get(Flags::QBIT)));
    }

    /// Hosts with packets ready take turns; each host is paced on its own.
    #[test]
    fn ready_hosts_take_turns_and_each_is_paced_alone() {
        let mut m = LanMedium::new(true, 3200.0, 38);
        for n in 0..2 {
            for vc in 0..3 {
                m.hold(packet(vc, n));
            }
        }
        let order: Vec<u32> = (0..3).map(|_| m.next(t(0.0)).cell().unwrap().vc.0).collect();
        assert_eq!(order, [0, 1, 2]);
        assert_eq!(m.next(t(0.001)), Next::At(t(0.010)), "every host waits for its own next release");
        let order: Vec<u32> = (0..3).map(|_| m.next(t(0.010)).cell().unwrap().vc.0).collect();
        assert_eq!(order, [0, 1, 2]);
    }

    /// A packet due while the medium was busy stays with its host: a rate cut to zero before the
    /// medium frees holds it.
    #[test]
    fn a_rate_cut_holds_packets_not_yet_on_the_medium() {
        let mut m = LanMedium::new(true, 32_000.0, 38);
        for vc in 0..4 {
            m.hold(packet(vc, 0));
        }
        assert!(m.next(t(0.0)).cell().is_some(), "one host starts");
        m.set_rate(0.0);
        assert_eq!(m.next(t(0.0013)), Next::Idle, "the other three are held");
        assert_eq!(m.cells().count(), 3);
    }

    /// CSMA/CD (`csma_cd.rs`): saturated hosts on a 10 Mb/s segment, driven as the port drives
    /// the discipline (a frame that starts holds the medium for its wire time, 1538 byte times
    /// for a 1500-byte IP packet: preamble and SFD 8, MAC frame 1518, gap 12).
    mod csma {
        use super::*;
        use crate::port::discipline::csma_cd::{CsmaCd, CsmaStats};
        use ccsim_engine::{RngStream, StreamKey};

        const WIRE_BYTES: u64 = 1538;
        /// A frame's time on the medium: 1538 × 8 bits at 10 Mb/s = 1.2304 ms.
        const FRAME_PS: u64 = WIRE_BYTES * 8 * 100_000;
        const BIT_PS: u64 = 100_000;

        fn host_frame(vc: u32, n: u16) -> Cell {
            let mut c = Cell::packet(VcId(vc), CellKind::Data, n, WIRE_BYTES as u16);
            c.hop = 1;
            c
        }

        struct Run {
            /// Successful frames per station, and the order they went in.
            frames: Vec<u64>,
            order: Vec<u32>,
            /// Per success: the wait after the previous frame ended, and the collisions in it.
            waits: Vec<(u64, u64)>,
            stats: CsmaStats,
            end_ps: u64,
        }

        /// `n` hosts, each always with a frame to send, for `frames` successful frames.
        fn saturate(n: u32, frames: usize, seed: u64) -> Run {
            let rng = RngStream::new(StreamKey { seed, replication: 0, component: 0, purpose: 8 });
            let mut m = LanMedium::csma_cd(false, 0.0, 38, CsmaCd::new(10_000_000, SimDuration::ZERO, rng));
            for vc in 0..n {
                m.hold(host_frame(vc, 0));
            }
            let mut run = Run { frames: vec![0; n as usize], order: Vec::new(), waits: Vec::new(), stats: CsmaStats::default(), end_ps: 0 };
            let (mut now, mut free_since, mut collisions) = (0u64, 0u64, 0u64);
            while run.order.len() < frames {
                match m.next(SimTime::from_ps(now)) {
                    Next::Cell(c) => {
                        let stats = m.csma_stats().unwrap();
                        run.waits.push((now - free_since, stats.collisions - collisions));
                        collisions = stats.collisions;
                        run.frames[c.vc.0 as usize] += 1;
                        run.order.push(c.vc.0);
                        m.hold(host_frame(c.vc.0, c.frame.wrapping_add(1)));
                        now += FRAME_PS;
                        free_since = now;
                    }
                    Next::At(t) => {
                        assert!(t.as_ps() > now, "time moves on");
                        now = t.as_ps();
                    }
                    Next::Idle => panic!("saturated hosts always have a frame"),
                }
                while let Some(lost) = m.take_discard() {
                    m.hold(host_frame(lost.vc.0, lost.frame.wrapping_add(1)));
                }
            }
            run.stats = m.csma_stats().unwrap();
            run.end_ps = now;
            run
        }

        /// One station never collides: back-to-back frames, so its IP throughput is
        /// 10 Mb/s × 1500/1538 = 9.7529 Mb/s (MAC frames: 10 × 1518/1538 = 9.8700 Mb/s).
        #[test]
        fn a_single_station_gets_the_medium_minus_framing() {
            let run = saturate(1, 8128, 1);
            assert_eq!(run.stats.collisions, 0);
            assert!(run.waits.iter().all(|&w| w == (0, 0)), "no gap between frames");
            let ip_bps = 8128.0 * 1500.0 * 8.0 / (run.end_ps as f64 * 1e-12);
            assert!((ip_bps - 10e6 * 1500.0 / 1538.0).abs() < 1e-6 * 10e6, "{ip_bps}");
        }

        /// Two saturated stations: every wait between frames is made of collisions (preamble
        /// and jam, 96 bit times each) and the gaps after them (an inter-frame gap of 96, or
        /// a whole number of 512-bit slots); after a success the two always collide again unless
        /// the loser is still backing off. Ties in the first backoff have probability 1/2 and
        /// later ones at most that, so a contention takes at most 2 collisions on average and the
        /// throughput is at least 1230.4/(1230.4 + 2 × (9.6 + 51.2)) of the single station's.
        /// The shares are equal in expectation (symmetric stations) but one station keeps the
        /// medium for runs of frames (capture: the winner restarts its backoff at 0 while the
        /// loser's range keeps doubling), longer on average than the 2 of a fair coin.
        #[test]
        fn two_saturated_stations_share_with_collisions_backoff_and_capture() {
            let run = saturate(2, 40_000, 7);
            let single = 10e6 * 1500.0 / 1538.0;
            let thr = 40_000.0 * 1500.0 * 8.0 / (run.end_ps as f64 * 1e-12);
            assert!(run.stats.collisions > 1000, "{:?}", run.stats);
            let per_success = run.stats.collisions as f64 / 40_000.0;
            assert!(per_success > 0.0 && per_success <= 2.0, "{per_success}");
            assert!(thr < single, "{thr}");
            assert!(thr >= single * 1230.4 / (1230.4 + 2.0 * (9.6 + 51.2)), "{thr}");
            for &(wait, c) in &run.waits {
                if c == 0 {
                    assert_eq!(wait, 0, "1-persistent: the next frame starts as the medium frees");
                    continue;
                }
                let bits = wait / BIT_PS;
                assert_eq!(wait % BIT_PS, 0);
                // c collisions of 96 bit times, then gaps of 96 (r = 0) or 512·r (r ≥ 1).
                let rest = bits - 96 * c;
                assert!((0..=c).any(|m| rest >= 96 * m && (rest - 96 * m) % 512 == 0 && (rest - 96 * m) / 512 + m >= c), "wait {bits} after {c}");
            }
            let share = run.frames[0] as f64 / 40_000.0;
            assert!((0.3..=0.7).contains(&share), "{share}");
            let runs = 1 + run.order.windows(2).filter(|w| w[0] != w[1]).count();
            let mean_run = 40_000.0 / runs as f64;
            assert!(mean_run > 3.0, "capture: mean run of {mean_run} frames");
        }

        /// Eight saturated stations with backoffs growing under capture: some frame meets its
        /// 16th collision and is discarded, counted.
        #[test]
        fn excessive_collisions_discard_frames_and_count_them() {
            let run = saturate(8, 40_000, 3);
            assert!(run.stats.discards > 0, "{:?}", run.stats);
        }

        #[test]
        fn the_same_seed_gives_the_same_run() {
            let (a, b) = (saturate(3, 5000, 11), saturate(3, 5000, 11));
            assert_eq!((a.order, a.stats, a.end_ps), (b.order, b.stats, b.end_ps));
            assert_ne!(saturate(3, 5000, 12).order, saturate(3, 5000, 11).order);
        }

        /// The gateway's frames toward the hosts (here ACKs) contend as one more station.
        #[test]
        fn the_gateways_frames_contend_as_one_station() {
            let rng = RngStream::new(StreamKey { seed: 1, replication: 0, component: 0, purpose: 8 });
            let mut m = LanMedium::csma_cd(false, 0.0, 38, CsmaCd::new(10_000_000, SimDuration::ZERO, rng));
            m.hold(host_frame(0, 0));
            for vc in 0..2 {
                let mut ack = Cell::packet(VcId(vc), CellKind::BwdData, 0, 84);
                ack.hop = 1;
                m.hold(ack);
            }
            assert!(matches!(m.next(SimTime::ZERO), Next::At(_)), "host and gateway collide");
            assert_eq!(m.csma_stats().unwrap().collided_frames, 2, "two stations, not three");
        }
    }
}
