//! TCP Tahoe (4.3BSD-Tahoe; Fall & Floyd 1996), and Jacobson's 1988 algorithm as Tahoe
//! without fast retransmit (docs/models/tcp.md, "Model"): loss is answered by slow start from one
//! segment.

use super::segment::{Ack, Segment};
use super::sender::{AckKind, CongestionControl, Core};
use ccsim_engine::SimTime;

#[derive(Clone, Debug)]
pub struct Tahoe {
    /// Retransmit on the third duplicate ACK; off = Jacobson '88 (timeouts only).
    pub fast_retransmit: bool,
}

impl CongestionControl for Tahoe {
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, kind: AckKind, now: SimTime, out: &mut Vec<Segment>) {
        match kind {
            AckKind::New => c.on_new_ack_open(now, ack.ack, out),
            AckKind::Duplicate => {
                c.dupacks += 1;
                if self.fast_retransmit && c.dupacks == c.cfg.dupthresh && c.fast_retransmit_allowed() {
                    c.stats.fast_retransmits += 1;
                    c.ssthresh = c.halved();
                    c.cwnd = c.smss();
                    c.recover = c.snd_max;
                    c.go_back(now, out);
                }
            }
            AckKind::Old => c.send_window(now, out),
        }
    }
}
