//! Where a TCP connection's timeouts come from (seed 004; docs/models/tcp.md, "Where timeouts
//! come from"): each retransmission timeout is classed as following a drop or as one without loss.
//!
//! The rule. When the retransmission timer expires at `t` the sender goes back to its oldest
//! unacknowledged byte, `snd_una`. The timeout is **after a drop** if, at or before `t`,
//! - the latest transmission of the segment that carries `snd_una` lost a cell (or, on IP links, its
//!   packet) anywhere after it was sent: a whole PDU dropped by a full source adapter, a cell
//!   refused by a switch or router buffer, lost on a lossy link, dropped by a policer or a gateway;
//!   or its frame was discarded at reassembly because a neighbouring frame's end-of-frame cell was
//!   lost and the two ran together; or
//! - an ACK frame whose cumulative ACK covers that segment was lost (dropped, or discarded at
//!   reassembly) after that transmission was sent;
//!
//! and **without loss** otherwise: nothing of that transmission or of an ACK for it had been lost
//! when the timer expired; it, or its ACK, was still on its way (queued or propagating), or the
//! receiver held its ACK back (delayed ACKs). The retransmission timeout was shorter than that
//! segment's packet-to-ACK time — seed 004's timeouts from cell transfer delay. A loss after `t`
//! does not count for that timeout. Every timeout is one or the other, so the two counts add up to
//! `timeouts`.
//!
//! Earlier transmissions of the same segment do not count: a segment dropped once and then resent
//! by fast retransmit, whose retransmission is still queued when the timer expires, times out
//! without loss (the timer restarted with the retransmission, which then took longer than the RTO).
//!
//! Losses are compared with the timeout by simulated time, not by the order they are handled in:
//! in the windowed mode a switch may handle a drop after the source host has handled a later
//! timeout (each node runs its window on its own, docs/DESIGN.md §2). A loss that comes in late,
//! at or before the time of a timeout already counted without loss on that transmission, moves
//! that timeout to after a drop (`Reclassify`), so both modes count alike.
//!
//! Cost: one 40-byte record per data frame sent and not yet acknowledged, kept in sending order
//! (frame numbers are consecutive, so a dropped cell finds its record by arithmetic); the search
//! for the segment at `snd_una` runs only when a timer expires, and a lost ACK looks at every record.

use ccsim_engine::SimTime;
use std::collections::VecDeque;

/// Why a retransmission timeout happened (the module's rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeoutCause {
    AfterDrop,
    WithoutLoss,
}

/// How many timeouts already counted without loss a loss that came in late turns into timeouts
/// after a drop (0 in the single queue, where losses come in time order).
pub type Reclassify = u64;

/// One data frame sent: the bytes it carried, when, and what was lost.
#[derive(Copy, Clone, Debug)]
struct Tx {
    seq: u64,
    end: u64,
    sent: SimTime,
    /// The earliest loss of a cell of it, or of an ACK covering it after it was sent (`MAX`: none).
    lost: SimTime,
    /// When a timeout on it was counted without loss (`MAX`: none is).
    without_loss: SimTime,
}

/// The data frames of one connection not yet acknowledged, in sending order, with what was lost.
#[derive(Clone, Debug, Default)]
pub struct Transmissions {
    /// Frames sent whose data is not all acknowledged; the last is frame number `count - 1`
    /// (mod 2^16). A frame acknowledged behind an older unacknowledged one waits for it.
    sent: VecDeque<Tx>,
    /// Data frames sent so far: the index of the next (its frame number is `count as u16`).
    count: u64,
    /// Frames acknowledged after a timeout on them was counted without loss, with their index:
    /// a loss before that timeout may still come in (windowed mode: the ACK that covered the
    /// frame came from an earlier transmission, in the same window). The last `SETTLED` only.
    settled: VecDeque<(u64, Tx)>,
    /// ACK frames lost (cumulative ACK, when) at or after the latest send: a frame sent before one
    /// of them but handled after it (windowed mode: a switch may run its window first) is marked
    /// when it is sent.
    ack_losses: VecDeque<(u64, SimTime)>,
}

/// Acknowledged frames kept for losses that come in late: far more than one window holds.
const SETTLED: usize = 64;

/// Records kept at most (a window of 2^15 frames, far beyond any connection's): older ones are
/// forgotten, and a timeout on their data counts as without loss. Half the frame numbers' range,
/// so that a frame number always names one record.
const MAX_RECORDS: usize = 1 << 15;

impl Tx {
    /// A loss at `at` concerns this transmission: true if it turns a timeout counted without loss
    /// (at `at` or later) into one after a drop.
    fn lose(&mut self, at: SimTime) -> bool {
        self.lost = self.lost.min(at);
        if self.without_loss != SimTime::MAX && at <= self.without_loss {
            self.without_loss = SimTime::MAX;
            return true;
        }
        false
    }
}

impl Transmissions {
    /// Data frame `frame`, carrying [seq, end), left the sender at `now`.
    pub fn sent(&mut self, frame: u16, seq: u64, end: u64, now: SimTime) {
        debug_assert_eq!(frame, self.count as u16, "data frames are registered in their numbering order");
        if self.sent.len() == MAX_RECORDS {
            self.sent.pop_front();
        }
        let mut tx = Tx { seq, end, sent: now, lost: SimTime::MAX, without_loss: SimTime::MAX };
        // The sender's clock only moves forward: ACK losses before now concern no later frame.
        while self.ack_losses.front().is_some_and(|&(_, at)| at < now) {
            self.ack_losses.pop_front();
        }
        for &(ack, at) in &self.ack_losses {
            if seq < ack {
                tx.lose(at);
            }
        }
        self.sent.push_back(tx);
        self.count += 1;
    }

    /// The cumulative ACK reached `una`: frames at the front whose data it covers are forgotten
    /// (kept in `settled` if a timeout on them was counted without loss).
    pub fn acked(&mut self, una: u64) {
        while self.sent.front().is_some_and(|t| t.end <= una) {
            let index = self.count - self.sent.len() as u64;
            let tx = self.sent.pop_front().expect("a front");
            if tx.without_loss != SimTime::MAX {
                if self.settled.len() == SETTLED {
                    self.settled.pop_front();
                }
                self.settled.push_back((index, tx));
            }
        }
    }

    /// A cell (or the packet) of data frame `frame` was lost at `at`: in the network, in the
    /// adapter, or at reassembly. Frames already forgotten are ignored.
    pub fn data_lost(&mut self, frame: u16, at: SimTime) -> Reclassify {
        let first = self.count - self.sent.len() as u64;
        let back = (self.count as u16).wrapping_sub(frame) as u64; // 1 for the latest frame
        if let Some(t) = self.sent.get_mut(frame.wrapping_sub(first as u16) as usize) {
            return t.lose(at) as Reclassify;
        }
        let index = self.count.wrapping_sub(back);
        match self.settled.iter_mut().find(|(i, _)| *i == index) {
            Some((_, t)) => t.lose(at) as Reclassify,
            None => 0,
        }
    }

    /// An ACK frame carrying cumulative ACK `ack` was lost at `at`: it covered every segment below
    /// `ack` sent by then.
    pub fn ack_lost(&mut self, ack: u64, at: SimTime) -> Reclassify {
        let pos = self.ack_losses.iter().position(|&(_, t)| t > at).unwrap_or(self.ack_losses.len());
        self.ack_losses.insert(pos, (ack, at));
        let records = self.sent.iter_mut().chain(self.settled.iter_mut().map(|(_, t)| t));
        records.filter(|t| t.seq < ack && t.sent <= at).map(|t| t.lose(at) as Reclassify).sum()
    }

    /// The cause of a timeout at `now` that goes back to `una` (the module's rule).
    pub fn cause(&mut self, una: u64, now: SimTime) -> TimeoutCause {
        let Some(tx) = self.sent.iter_mut().rev().find(|t| t.seq <= una && una < t.end) else {
            return TimeoutCause::WithoutLoss;
        };
        if tx.lost <= now {
            TimeoutCause::AfterDrop
        } else {
            tx.without_loss = now;
            TimeoutCause::WithoutLoss
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TimeoutCause::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_ps(ms * 1_000_000_000)
    }

    /// Three 100-byte segments in frames 0, 1, 2, sent at 0 ms.
    fn three() -> Transmissions {
        let mut s = Transmissions::default();
        for k in 0..3u16 {
            s.sent(k, 100 * k as u64, 100 * (k as u64 + 1), t(0));
        }
        s
    }

    #[test]
    fn a_timeout_on_a_segment_still_under_way_is_without_loss() {
        let mut s = three();
        assert_eq!(s.cause(0, t(10)), WithoutLoss);
        s.data_lost(1, t(5));
        s.acked(100);
        assert_eq!(s.cause(100, t(20)), AfterDrop, "the second segment's loss");
        let mut s = three();
        s.data_lost(1, t(5));
        assert_eq!(s.cause(0, t(10)), WithoutLoss, "a later segment's loss is not the first one's");
    }

    #[test]
    fn only_the_latest_transmission_counts() {
        let mut s = three();
        s.data_lost(0, t(1));
        assert_eq!(s.cause(0, t(10)), AfterDrop);
        s.sent(3, 0, 100, t(10)); // the retransmission, frame 3
        assert_eq!(s.cause(0, t(20)), WithoutLoss, "its retransmission is still on its way");
        s.data_lost(3, t(25));
        assert_eq!(s.cause(0, t(30)), AfterDrop);
    }

    #[test]
    fn a_lost_ack_counts_for_the_segments_it_covers_sent_before_it_was_lost() {
        let mut s = three();
        s.ack_lost(200, t(5));
        assert_eq!(s.cause(0, t(10)), AfterDrop);
        assert_eq!(s.cause(200, t(10)), WithoutLoss, "the lost ACK did not cover byte 200");
        s.sent(3, 0, 100, t(10)); // resent after the ACK was lost
        assert_eq!(s.cause(0, t(20)), WithoutLoss, "the resent segment's ACK was not the one lost");
        s.ack_lost(100, t(25));
        assert_eq!(s.cause(0, t(30)), AfterDrop);
    }

    #[test]
    fn a_loss_after_the_timeout_does_not_count_and_a_late_one_reclassifies() {
        // Windowed mode: the switch handles a drop at 15 ms after the host handled its timeout at
        // 10 ms (no effect), or a drop at 5 ms after a timeout at 10 ms (which it moves).
        let mut s = three();
        assert_eq!(s.data_lost(0, t(15)), 0);
        assert_eq!(s.cause(0, t(10)), WithoutLoss, "lost at 15 ms, after the timer expired");
        let mut s = three();
        assert_eq!(s.cause(0, t(10)), WithoutLoss);
        assert_eq!(s.data_lost(0, t(15)), 0, "after the timeout");
        assert_eq!(s.data_lost(0, t(5)), 1, "before it: the timeout was after a drop");
        assert_eq!(s.data_lost(0, t(6)), 0, "moved once");
        let mut s = three();
        assert_eq!(s.cause(0, t(10)), WithoutLoss);
        assert_eq!(s.ack_lost(100, t(10)), 1, "a lost ACK at the timeout's time");
    }

    #[test]
    fn a_late_loss_finds_a_frame_acknowledged_in_between() {
        // Windowed mode: the timeout at 10 ms on the retransmission (frame 3) counts without loss;
        // the first transmission's ACK covers it at 12 ms; then the switch reports frame 3's drop at
        // 8 ms, and an ACK lost at 9 ms.
        for late in ["data", "ack"] {
            let mut s = three();
            s.sent(3, 0, 100, t(1));
            assert_eq!(s.cause(0, t(10)), WithoutLoss);
            s.acked(100);
            let moved = if late == "data" { s.data_lost(3, t(8)) } else { s.ack_lost(100, t(9)) };
            assert_eq!(moved, 1, "{late}");
            assert_eq!(s.data_lost(3, t(8)), 0, "moved once");
        }
        // An ACK lost at 5 ms, handled before the host sent a frame at 4 ms (windowed mode), still
        // covers it; a frame sent at 6 ms it does not.
        let mut s = Transmissions::default();
        s.ack_lost(100, t(5));
        s.sent(0, 0, 100, t(4));
        s.sent(1, 0, 100, t(6));
        s.acked(0);
        assert_eq!(s.sent[0].lost, t(5));
        assert_eq!(s.sent[1].lost, SimTime::MAX);
        // Frames acknowledged without such a timeout are not kept.
        let mut s = three();
        s.acked(300);
        assert!(s.sent.is_empty() && s.settled.is_empty());
        assert_eq!(s.data_lost(0, t(1)), 0);
    }

    #[test]
    fn a_segment_resent_longer_is_found_by_the_byte_it_carries() {
        // A short segment [0, 50) at the end of the application's data, then more written: the
        // retransmission from byte 0 carries [0, 100), and an ACK to 50 leaves byte 50 in both.
        let mut s = Transmissions::default();
        s.sent(0, 0, 50, t(0));
        s.sent(1, 50, 100, t(0));
        s.data_lost(1, t(1));
        s.sent(2, 0, 100, t(2));
        s.acked(50);
        assert_eq!(s.cause(50, t(10)), WithoutLoss, "the latest transmission covering byte 50 is frame 2");
        s.data_lost(2, t(11));
        assert_eq!(s.cause(50, t(20)), AfterDrop);
    }

    #[test]
    fn frame_numbers_wrap_and_forgotten_frames_are_ignored() {
        let mut s = Transmissions::default();
        for k in 0..70_000u64 {
            s.sent(k as u16, 10 * k, 10 * (k + 1), t(k));
            s.acked(10 * k);
        }
        // Frame 69 999 is number 69 999 mod 2^16 = 4463; frame 69 998 was acknowledged.
        s.data_lost(4463, t(70_000));
        s.data_lost(4462, t(70_000));
        assert_eq!(s.cause(10 * 69_999, t(70_001)), AfterDrop);
        assert_eq!(s.sent.len(), 1);
    }
}
