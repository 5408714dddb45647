//! Where a TCP connection's timeouts come from (seed 004; docs/models/tcp.md, "Where timeouts
//! come from"): each retransmission timeout is classed as following a drop or as one without loss.
//!
//! The rule. When the retransmission timer expires the sender goes back to its oldest
//! unacknowledged byte, `snd_una`. The timeout is **after a drop** if
//! - the latest transmission of the segment that carries `snd_una` lost a cell (or, on IP links, its
//!   packet) anywhere between its sending and the timeout: a whole PDU dropped by a full source
//!   adapter, a cell refused by a switch or router buffer, lost on a lossy link, dropped by a
//!   policer or a gateway; or its frame was discarded at reassembly because a neighbouring frame's
//!   end-of-frame cell was lost and the two ran together; or
//! - an ACK frame whose cumulative ACK covers `snd_una` was lost (dropped, or discarded at
//!   reassembly) after that transmission was sent;
//!
//! and **without loss** otherwise: nothing of that transmission or of an ACK for it had been lost
//! when the timer expired; it, or its ACK, was still on its way (queued or propagating), or the
//! receiver held its ACK back (delayed ACKs). The retransmission timeout was shorter than that
//! segment's packet-to-ACK time — seed 004's timeouts from cell transfer delay. A drop that happens
//! after the timer expired does not count for that timeout. Every timeout is one or the other, so
//! the two counts add up to `timeouts`.
//!
//! Earlier transmissions of the same segment do not count: a segment dropped once and then resent
//! by fast retransmit, whose retransmission is still queued when the timer expires, times out
//! without loss (the timer restarted with the retransmission, which then took longer than the RTO).
//!
//! Cost: one 24-byte record per data frame sent and not yet acknowledged, kept in sending order
//! (frame numbers are consecutive, so a dropped cell finds its record by arithmetic); the search
//! for the segment at `snd_una` runs only when a timer expires.

use std::collections::VecDeque;

/// Why a retransmission timeout happened (the module's rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeoutCause {
    AfterDrop,
    WithoutLoss,
}

/// One data frame sent: the bytes it carried and whether any of it was lost.
#[derive(Copy, Clone, Debug)]
struct Tx {
    seq: u64,
    end: u64,
    lost: bool,
}

/// The data frames of one connection not yet acknowledged, in sending order, with what was lost.
#[derive(Clone, Debug, Default)]
pub struct Transmissions {
    /// Frames sent whose data is not all acknowledged; the last is frame number `count - 1`
    /// (mod 2^16). A frame acknowledged behind an older unacknowledged one waits for it.
    sent: VecDeque<Tx>,
    /// Data frames sent so far: the index of the next (its frame number is `count as u16`).
    count: u64,
    /// The latest ACK frame lost: its cumulative ACK, and `count` when it was lost.
    ack_lost: Option<(u64, u64)>,
}

/// Records kept at most (a window of 2^15 frames, far beyond any connection's): older ones are
/// forgotten, and a timeout on their data counts as without loss. Half the frame numbers' range,
/// so that a frame number always names one record.
const MAX_RECORDS: usize = 1 << 15;

impl Transmissions {
    /// Data frame `frame`, carrying [seq, end), left the sender.
    pub fn sent(&mut self, frame: u16, seq: u64, end: u64) {
        debug_assert_eq!(frame, self.count as u16, "data frames are registered in their numbering order");
        if self.sent.len() == MAX_RECORDS {
            self.sent.pop_front();
        }
        self.sent.push_back(Tx { seq, end, lost: false });
        self.count += 1;
    }

    /// The cumulative ACK reached `una`: frames at the front whose data it covers are forgotten.
    pub fn acked(&mut self, una: u64) {
        while self.sent.front().is_some_and(|t| t.end <= una) {
            self.sent.pop_front();
        }
    }

    /// A cell (or the packet) of data frame `frame` was lost: in the network, in the adapter, or
    /// at reassembly. Frames already forgotten are ignored.
    pub fn data_lost(&mut self, frame: u16) {
        let front = (self.count - self.sent.len() as u64) as u16;
        if let Some(t) = self.sent.get_mut(frame.wrapping_sub(front) as usize) {
            t.lost = true;
        }
    }

    /// An ACK frame carrying cumulative ACK `ack` was lost.
    pub fn ack_lost(&mut self, ack: u64) {
        self.ack_lost = Some((ack, self.count));
    }

    /// The cause of a timeout that goes back to `una` (the module's rule).
    pub fn cause(&self, una: u64) -> TimeoutCause {
        let front = self.count - self.sent.len() as u64;
        let latest = self.sent.iter().enumerate().rev().find(|(_, t)| t.seq <= una && una < t.end);
        let Some((i, tx)) = latest else { return TimeoutCause::WithoutLoss };
        let ack_lost_since = self.ack_lost.is_some_and(|(ack, at)| ack > una && at > front + i as u64);
        if tx.lost || ack_lost_since {
            TimeoutCause::AfterDrop
        } else {
            TimeoutCause::WithoutLoss
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TimeoutCause::*;

    /// Three 100-byte segments in frames 0, 1, 2.
    fn three() -> Transmissions {
        let mut t = Transmissions::default();
        for k in 0..3u16 {
            t.sent(k, 100 * k as u64, 100 * (k as u64 + 1));
        }
        t
    }

    #[test]
    fn a_timeout_on_a_segment_still_under_way_is_without_loss() {
        let mut t = three();
        assert_eq!(t.cause(0), WithoutLoss);
        t.data_lost(1);
        assert_eq!(t.cause(0), WithoutLoss, "a later segment's loss is not the first one's");
        t.acked(100);
        assert_eq!(t.cause(100), AfterDrop);
    }

    #[test]
    fn only_the_latest_transmission_counts() {
        let mut t = three();
        t.data_lost(0);
        assert_eq!(t.cause(0), AfterDrop);
        t.sent(3, 0, 100); // the retransmission, frame 3
        assert_eq!(t.cause(0), WithoutLoss, "its retransmission is still on its way");
        t.data_lost(3);
        assert_eq!(t.cause(0), AfterDrop);
    }

    #[test]
    fn a_lost_ack_counts_for_the_segments_it_covers_sent_before_it_was_lost() {
        let mut t = three();
        t.ack_lost(200);
        assert_eq!(t.cause(0), AfterDrop);
        assert_eq!(t.cause(200), WithoutLoss, "the lost ACK did not cover byte 200");
        t.sent(3, 0, 100); // resent after the ACK was lost
        assert_eq!(t.cause(0), WithoutLoss, "the resent segment's ACK was not the one lost");
        t.ack_lost(100);
        assert_eq!(t.cause(0), AfterDrop);
    }

    #[test]
    fn a_segment_resent_longer_is_found_by_the_byte_it_carries() {
        // A short segment [0, 50) at the end of the application's data, then more written: the
        // retransmission from byte 0 carries [0, 100), and an ACK to 50 leaves byte 50 in both.
        let mut t = Transmissions::default();
        t.sent(0, 0, 50);
        t.sent(1, 50, 100);
        t.data_lost(1);
        t.sent(2, 0, 100);
        t.acked(50);
        assert_eq!(t.cause(50), WithoutLoss, "the latest transmission covering byte 50 is frame 2");
        t.data_lost(2);
        assert_eq!(t.cause(50), AfterDrop);
    }

    #[test]
    fn frame_numbers_wrap_and_forgotten_frames_are_ignored() {
        let mut t = Transmissions::default();
        for k in 0..70_000u64 {
            t.sent(k as u16, 10 * k, 10 * (k + 1));
            t.acked(10 * k);
        }
        // Frame 69 999 is number 69 999 mod 2^16 = 4463; frame 69 998 was acknowledged.
        t.data_lost(4463);
        t.data_lost(4462);
        assert_eq!(t.cause(10 * 69_999), AfterDrop);
        assert_eq!(t.sent.len(), 1);
    }
}
