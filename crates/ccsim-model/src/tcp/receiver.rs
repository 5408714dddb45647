//! The TCP receiver (docs/models/tcp.md, "Model"): cumulative ACKs, an out-of-order store, SACK
//! blocks (RFC 2018) and optional delayed ACKs. Goodput counts bytes delivered in order to the
//! application, each byte once, however often it arrived.

use super::segment::{Ack, Block, MAX_SACK_BLOCKS};
use ccsim_engine::{SimDuration, SimTime};

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum DelayedAck {
    /// ACK every segment at once (all four seeds).
    Off,
    /// ACK every second full-sized segment, or after this delay at the latest.
    After(SimDuration),
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    rcv_nxt: u64,
    /// Disjoint, sorted ranges held above `rcv_nxt`.
    ooo: Vec<Block>,
    /// Ranges in the order they were last reported (most recent first), for SACK.
    recent: Vec<Block>,
    rwnd: u64,
    sack: bool,
    delayed: DelayedAck,
    smss: u32,
    pending: u32,
    timer: Option<SimTime>,
    /// Bytes delivered in order to the application (goodput).
    pub delivered: u64,
    /// Payload bytes that arrived more than once.
    pub duplicate_bytes: u64,
    pub segments_received: u64,
}

impl TcpReceiver {
    pub fn new(rwnd: u64, sack: bool, delayed: DelayedAck, smss: u32) -> Self {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: Vec::new(),
            rwnd,
            sack,
            delayed,
            smss,
            pending: 0,
            timer: None,
            delivered: 0,
            duplicate_bytes: 0,
            segments_received: 0,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// When the delayed-ACK timer wants to fire.
    pub fn timer_due(&self) -> Option<SimTime> {
        self.timer
    }

    /// A data segment [seq, seq+len) arrived. Returns the ACK to send now, if any.
    pub fn on_segment(&mut self, now: SimTime, seq: u64, len: u32) -> Option<Ack> {
        self.segments_received += 1;
        let (s, e) = (seq, seq + len as u64);
        if e <= self.rcv_nxt {
            self.duplicate_bytes += len as u64;
            return Some(self.ack_now());
        }
        let out_of_order = s > self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        self.duplicate_bytes += self.overlap(s.max(self.rcv_nxt), e);
        self.insert(s.max(self.rcv_nxt), e);
        // Deliver what became contiguous.
        let before = self.rcv_nxt;
        while let Some(&(l, r)) = self.ooo.first() {
            if l > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(r);
            self.ooo.remove(0);
        }
        self.delivered += self.rcv_nxt - before;
        if self.sack && out_of_order {
            self.note_recent(s, e);
        }
        self.recent.retain(|&(_, r)| r > self.rcv_nxt);
        if out_of_order || had_holes {
            return Some(self.ack_now());
        }
        match self.delayed {
            DelayedAck::Off => Some(self.ack_now()),
            DelayedAck::After(d) => {
                self.pending += 1;
                if self.pending >= 2 || len < self.smss {
                    Some(self.ack_now())
                } else {
                    self.timer.get_or_insert(now + d);
                    None
                }
            }
        }
    }

    /// The delayed-ACK timer fired.
    pub fn on_timer(&mut self, now: SimTime) -> Option<Ack> {
        match self.timer {
            Some(t) if now >= t => {
                if self.pending > 0 {
                    Some(self.ack_now())
                } else {
                    self.timer = None;
                    None
                }
            }
            _ => None,
        }
    }

    fn overlap(&self, s: u64, e: u64) -> u64 {
        self.ooo.iter().map(|&(l, r)| r.min(e).saturating_sub(l.max(s))).sum()
    }

    fn insert(&mut self, mut s: u64, mut e: u64) {
        // Merge with every overlapping or adjacent range.
        let mut i = 0;
        while i < self.ooo.len() {
            let (l, r) = self.ooo[i];
            if r < s || l > e {
                i += 1;
                continue;
            }
            s = s.min(l);
            e = e.max(r);
            self.ooo.remove(i);
        }
        let at = self.ooo.partition_point(|&(l, _)| l < s);
        self.ooo.insert(at, (s, e));
    }

    /// The block containing the latest arrival goes first (RFC 2018).
    fn note_recent(&mut self, s: u64, e: u64) {
        let block = *self.ooo.iter().find(|&&(l, r)| l <= s && e <= r).expect("just inserted");
        self.recent.retain(|&(l, r)| r < block.0 || l > block.1);
        self.recent.insert(0, block);
    }

    fn ack_now(&mut self) -> Ack {
        self.pending = 0;
        self.timer = None;
        let mut ack = Ack::new(self.rcv_nxt, self.rwnd);
        if self.sack {
            // Report current ranges, most recently touched first; refresh each from the store
            // because ranges may have grown or merged since they were noted.
            for &(l, _) in &self.recent {
                if ack.n_sack as usize == MAX_SACK_BLOCKS {
                    break;
                }
                if let Some(&b) = self.ooo.iter().find(|&&(a, z)| a <= l && l < z) {
                    if !ack.blocks().contains(&b) {
                        ack.sack[ack.n_sack as usize] = b;
                        ack.n_sack += 1;
                    }
                }
            }
        }
        ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn rx(sack: bool) -> TcpReceiver {
        TcpReceiver::new(64_000, sack, DelayedAck::Off, MSS)
    }

    fn t() -> SimTime {
        SimTime::ZERO
    }

    #[test]
    fn in_order_data_is_acked_and_delivered() {
        let mut r = rx(false);
        assert_eq!(r.on_segment(t(), 0, MSS).unwrap().ack, 1000);
        assert_eq!(r.on_segment(t(), 1000, MSS).unwrap().ack, 2000);
        assert_eq!(r.delivered, 2000);
    }

    #[test]
    fn a_hole_gives_duplicate_acks_then_a_jump() {
        let mut r = rx(false);
        r.on_segment(t(), 0, MSS);
        assert_eq!(r.on_segment(t(), 2000, MSS).unwrap().ack, 1000);
        assert_eq!(r.on_segment(t(), 3000, MSS).unwrap().ack, 1000);
        assert_eq!(r.delivered, 1000);
        assert_eq!(r.on_segment(t(), 1000, MSS).unwrap().ack, 4000);
        assert_eq!(r.delivered, 4000);
    }

    #[test]
    fn duplicates_never_count_twice() {
        let mut r = rx(false);
        r.on_segment(t(), 0, MSS);
        r.on_segment(t(), 0, MSS);
        r.on_segment(t(), 2000, MSS);
        r.on_segment(t(), 2000, MSS);
        r.on_segment(t(), 1000, MSS);
        assert_eq!(r.delivered, 3000);
        assert_eq!(r.duplicate_bytes, 2000);
    }

    #[test]
    fn sack_blocks_latest_first_and_merged() {
        let mut r = rx(true);
        r.on_segment(t(), 0, MSS);
        let a = r.on_segment(t(), 2000, MSS).unwrap();
        assert_eq!(a.blocks(), &[(2000, 3000)]);
        let a = r.on_segment(t(), 5000, MSS).unwrap();
        assert_eq!(a.blocks(), &[(5000, 6000), (2000, 3000)]);
        let a = r.on_segment(t(), 3000, MSS).unwrap();
        assert_eq!(a.blocks(), &[(2000, 4000), (5000, 6000)]);
        let a = r.on_segment(t(), 1000, MSS).unwrap();
        assert_eq!(a.ack, 4000);
        assert_eq!(a.blocks(), &[(5000, 6000)]);
    }

    #[test]
    fn at_most_three_sack_blocks() {
        let mut r = rx(true);
        for k in [2u64, 4, 6, 8, 10] {
            r.on_segment(t(), k * 1000, MSS);
        }
        let a = r.on_segment(t(), 12_000, MSS).unwrap();
        assert_eq!(a.blocks(), &[(12_000, 13_000), (10_000, 11_000), (8000, 9000)]);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_the_timer() {
        let mut r = TcpReceiver::new(64_000, false, DelayedAck::After(SimDuration::from_millis(200)), MSS);
        assert!(r.on_segment(t(), 0, MSS).is_none());
        assert_eq!(r.timer_due(), Some(SimTime::ZERO + SimDuration::from_millis(200)));
        assert_eq!(r.on_segment(t(), 1000, MSS).unwrap().ack, 2000);
        assert_eq!(r.timer_due(), None);
        assert!(r.on_segment(t(), 2000, MSS).is_none());
        let due = r.timer_due().unwrap();
        assert_eq!(r.on_timer(due).unwrap().ack, 3000);
        // Out-of-order data is acknowledged at once.
        assert!(r.on_segment(t(), 5000, MSS).is_some());
    }
}
