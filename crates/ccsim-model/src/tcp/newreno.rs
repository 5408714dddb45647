//! TCP NewReno (RFC 6582): Reno's fast recovery, but a partial ACK (one below `recover`)
//! retransmits the next hole at once and stays in recovery, so several losses in one window
//! are repaired without a timeout. The timer restarts on every partial ACK ("slow but
//! steady", RFC 6582 §4) [RECON]; the full ACK sets cwnd = min(ssthresh, FlightSize + SMSS).

use super::reno::on_duplicate;
use super::segment::{Ack, Segment};
use super::sender::{AckKind, CongestionControl, Core};
use ccsim_engine::SimTime;

#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, kind: AckKind, now: SimTime, out: &mut Vec<Segment>) {
        match kind {
            AckKind::New if c.in_recovery && ack.ack < c.recover => {
                let acked = c.advance(now, ack.ack);
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
