//! TCP NewReno (RFC 6582): Reno's fast recovery, but a partial ACK (one below `recover`)
//! retransmits the next hole at once and stays in recovery, so several losses in one window
//! are repaired without a timeout. Which partial ACKs restart the retransmission timer is
//! `TcpConfig::partial_ack_timer` (RFC 6582 §4: the first only, "Impatient", by default); the
//! full ACK sets cwnd = min(ssthresh, FlightSize + SMSS).

use super::reno::on_duplicate;
use super::segment::{Ack, Segment};
use super::sender::{AckKind, CongestionControl, Core, PartialAckTimer};
use ccsim_engine::SimTime;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// The recovery (numbered by the fast retransmit that began it) whose first partial ACK
    /// restarted the timer.
    timer_restarted_in: Option<u64>,
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, kind: AckKind, now: SimTime, out: &mut Vec<Segment>) {
        match kind {
            AckKind::New if c.in_recovery && ack.ack < c.recover => {
                let deadline = c.timer_deadline();
                let acked = c.advance(now, ack.ack);
                let recovery = c.stats.fast_retransmits;
                let first = self.timer_restarted_in != Some(recovery);
                if first || c.cfg.partial_ack_timer == PartialAckTimer::Every {
                    self.timer_restarted_in = Some(recovery);
                } else {
                    c.keep_timer(deadline);
                }
                c.retransmit_first(now, out);
                c.cwnd = (c.cwnd - acked as f64 + c.smss()).max(c.smss());
                c.send_window(now, out);
            }
            AckKind::New if c.in_recovery => {
                c.advance(now, ack.ack);
                c.leave_recovery(c.ssthresh.min(c.flight_size() as f64 + c.smss()), now, out);
            }
            AckKind::New => c.on_new_ack_open(now, ack.ack, out),
            AckKind::Duplicate => on_duplicate(c, now, out),
            AckKind::Old => c.send_window(now, out),
        }
    }
}
