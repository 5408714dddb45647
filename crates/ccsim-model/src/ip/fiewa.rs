//! FICCRD's source edge with FIEWA enforcement (ip-edge-control.md B.5.1), per flow: the RD
//! machinery of `rd_edge.rs`, and the window of every ACK going back to the sender capped at
//! `W = max(ER * RTT / 8, 2 MSS)` bytes, `RTT` = the RD round trip's EWMA plus twice the
//! host-edge propagation delay [RECON: FIEWA is not in the seed].

use super::rd_edge::{RdEdge, RdParams};
use crate::cell::Cell;
use ccsim_engine::SimDuration;

#[derive(Clone, Debug)]
pub struct FiewaFlow {
    pub rd: RdEdge,
    /// Twice the host-edge propagation delay, seconds.
    access_rtt: f64,
    /// The floor of the window, bytes (2 MSS).
    floor: f64,
    /// ACKs whose window the edge lowered.
    pub acks_capped: u64,
}

impl FiewaFlow {
    pub fn new(params: RdParams, out_rate_bps: f64, access_delay: SimDuration, mss_bytes: u32) -> Self {
        FiewaFlow {
            rd: RdEdge::new(params, out_rate_bps),
            access_rtt: 2.0 * access_delay.as_secs_f64(),
            floor: 2.0 * mss_bytes as f64,
            acks_capped: 0,
        }
    }

    /// The window the flow may have, bytes (none before the first ER and round trip).
    pub fn window_cap(&self) -> Option<f64> {
        let (er, rtt) = (self.rd.er?, self.rd.rd_rtt?);
        Some((er * (rtt + self.access_rtt) / 8.0).max(self.floor))
    }

    /// An ACK of the flow on its way back to the sender: its window cap (bytes, in `er`; zero
    /// means none) is lowered to this flow's cap, never raised.
    pub fn on_ack(&mut self, ack: &mut Cell) {
        let Some(w) = self.window_cap() else { return };
        let w = w as f32;
        if ack.er <= 0.0 || w < ack.er {
            ack.er = w;
            self.acks_capped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;
    use crate::ids::VcId;
    use ccsim_engine::SimTime;

    fn flow() -> FiewaFlow {
        FiewaFlow::new(RdParams::default(), 100e6, SimDuration::from_millis(2), 4096)
    }

    /// The flow's ER comes back after `rtt_ms` of RD round trip.
    fn with_er(f: &mut FiewaFlow, er: f32, rtt_ms: u64) {
        let mut back = f.rd.on_data(SimTime::ZERO, VcId(0), 8000.0).unwrap();
        back.kind = CellKind::RdBwd;
        back.er = er;
        f.rd.on_backward_rd(SimTime::ZERO + SimDuration::from_millis(rtt_ms), &back);
    }

    #[test]
    fn the_window_is_er_times_the_round_trip_above_two_segments() {
        let mut f = flow();
        with_er(&mut f, 1e6, 50);
        // W = ER * (50 + 4 ms) / 8 = 6750 B, below the 2 MSS floor.
        assert_eq!(f.window_cap(), Some(8192.0));
    }

    #[test]
    fn the_window_cap_never_enlarges_an_acks_window() {
        let mut f = flow();
        let mut ack = Cell::packet(VcId(0), CellKind::BwdData, 0, 40);
        f.on_ack(&mut ack);
        assert_eq!(ack.er, 0.0, "no cap before the first ER");
        with_er(&mut f, 10e6, 100);
        let cap = f.window_cap().unwrap();
        assert!((cap - 10e6 * 0.104 / 8.0).abs() < 1e-6);
        f.on_ack(&mut ack);
        assert_eq!(ack.er, cap as f32);
        // A smaller cap already written stays.
        let mut tight = Cell::packet(VcId(0), CellKind::BwdData, 1, 40);
        tight.er = 5000.0;
        f.on_ack(&mut tight);
        assert_eq!(tight.er, 5000.0);
        // And the host applies min(rwnd, cap): see TcpEnds::on_ack_cell.
    }
}
