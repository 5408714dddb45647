//! TCP Reno (RFC 2581 / RFC 5681): fast retransmit and fast recovery with window inflation.
//! A second loss in the same window usually ends in a timeout — the known weakness kept on
//! purpose (docs/models/tcp.md, "Validation").

use super::segment::{Ack, Segment};
use super::sender::{AckKind, CongestionControl, Core};
use ccsim_engine::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Reno;

/// Fast retransmit on the third duplicate ACK, shared with NewReno: halve, retransmit the
/// first segment, inflate by the three segments that left the network.
pub(super) fn enter_fast_recovery(c: &mut Core, now: SimTime, out: &mut Vec<Segment>) {
    c.ssthresh = c.halved();
    c.fast_retransmit(now, out);
    c.cwnd = c.ssthresh + 3.0 * c.smss();
    c.in_recovery = true;
    c.recover = c.snd_max;
}

/// A duplicate ACK: count it, or inflate the window during recovery (shared with NewReno).
pub(super) fn on_duplicate(c: &mut Core, now: SimTime, out: &mut Vec<Segment>) {
    if c.in_recovery {
        c.cwnd += c.smss();
        c.send_window(now, out);
        return;
    }
    c.dupacks += 1;
    if c.dupacks == c.cfg.dupthresh && c.fast_retransmit_allowed() {
        enter_fast_recovery(c, now, out);
        c.send_window(now, out);
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, kind: AckKind, now: SimTime, out: &mut Vec<Segment>) {
        match kind {
            AckKind::New if c.in_recovery => {
                c.advance(now, ack.ack);
                // Deflate; no further growth on the ACK that ends recovery (as ns-2 Reno).
                c.leave_recovery(c.ssthresh, now, out);
            }
            AckKind::New => c.on_new_ack_open(now, ack.ack, out),
            AckKind::Duplicate => on_duplicate(c, now, out),
            AckKind::Old => c.send_window(now, out),
        }
    }
}
