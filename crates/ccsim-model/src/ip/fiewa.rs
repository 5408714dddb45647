//! FICCRD's source edge with FIEWA enforcement (docs/models/ficcrd.md, "Model"), per flow: the RD
//! machinery of `rd_edge.rs`, and the window of every ACK going back to the sender capped at
//! `W = max(ER * RTT / 8, 2 MSS)` bytes [RECON: FIEWA is not in the seed]. Two readings are
//! parameters (`FiewaParams`, docs/models/ficcrd.md): which round trip `RTT` is (the data's, as
//! the edge measures it from a data packet to the ACK that covers it, or the RD packets'), each
//! plus twice the host-edge propagation delay; and whether `W` is written as computed (a sender
//! that sends whole segments uses `floor(W / MSS)` of them) or rounded up to whole segments.

use super::rd_edge::{RdEdge, RdParams, RTT_GAIN};
use crate::cell::Cell;
use ccsim_engine::{SimDuration, SimTime};

/// Which round trip FIEWA's window covers [RECON].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FiewaRtt {
    /// The data's: from a data packet passing the edge to the first ACK covering it (one packet
    /// timed at a time, never a retransmitted one: Karn's rule), EWMA gain 1/8. A window-limited
    /// sender sends W per data round trip, so this is the one that makes its rate W / RTT = ER.
    Data,
    /// The RD packets' edge-to-edge round trip (64-byte packets, turned around at the last
    /// router: shorter than the data's by the far access legs and the serialisation of data).
    Rd,
}

/// How the window cap is written [RECON].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WindowRounding {
    /// W bytes as computed (the sender fits whole segments into it: it rounds down).
    None,
    /// W rounded up to a whole number of segments.
    Up,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FiewaParams {
    pub rtt: FiewaRtt,
    pub rounding: WindowRounding,
}

impl Default for FiewaParams {
    fn default() -> Self {
        FiewaParams { rtt: FiewaRtt::Data, rounding: WindowRounding::None }
    }
}

#[derive(Clone, Debug)]
pub struct FiewaFlow {
    pub rd: RdEdge,
    params: FiewaParams,
    /// Twice the host-edge propagation delay, seconds.
    access_rtt: f64,
    mss: f64,
    /// The data packet being timed: (its last byte + 1, when it passed the edge).
    timed: Option<(u64, SimTime)>,
    /// EWMA of the edge's data round trip, seconds.
    pub data_rtt: Option<f64>,
    /// ACKs whose window the edge lowered.
    pub acks_capped: u64,
}

impl FiewaFlow {
    pub fn new(rd: RdParams, params: FiewaParams, out_rate_bps: f64, access_delay: SimDuration, mss_bytes: u32) -> Self {
        FiewaFlow {
            rd: RdEdge::new(rd, out_rate_bps),
            params,
            access_rtt: 2.0 * access_delay.as_secs_f64(),
            mss: mss_bytes as f64,
            timed: None,
            data_rtt: None,
            acks_capped: 0,
        }
    }

    /// A data segment ending at byte `end` passed the edge (`retransmission`: sent before).
    pub fn on_segment(&mut self, now: SimTime, end: u64, retransmission: bool) {
        if retransmission {
            self.timed = None;
        } else if self.timed.is_none() {
            self.timed = Some((end, now));
        }
    }

    /// The round trip the window covers, seconds (none before its first sample).
    fn rtt(&self) -> Option<f64> {
        let edge = match self.params.rtt {
            FiewaRtt::Data => self.data_rtt,
            FiewaRtt::Rd => self.rd.rd_rtt,
        };
        Some(edge? + self.access_rtt)
    }

    /// The window the flow may have, bytes (none before the first ER and round trip).
    pub fn window_cap(&self) -> Option<f64> {
        let w = (self.rd.er? * self.rtt()? / 8.0).max(2.0 * self.mss);
        Some(match self.params.rounding {
            WindowRounding::None => w,
            WindowRounding::Up => (w / self.mss).ceil() * self.mss,
        })
    }

    /// An ACK of the flow, carrying cumulative ACK `ack` (bytes), on its way back to the sender:
    /// it may end the data round trip being timed; its window cap (bytes, in `cell.er`; zero
    /// means none) is lowered to this flow's cap, never raised.
    pub fn on_ack(&mut self, now: SimTime, ack_cell: &mut Cell, ack: u64) {
        if let Some((end, sent)) = self.timed {
            if ack >= end {
                let sample = now.saturating_since(sent).as_secs_f64();
                self.data_rtt = Some(self.data_rtt.map_or(sample, |r| r + RTT_GAIN * (sample - r)));
                self.timed = None;
            }
        }
        let Some(w) = self.window_cap() else { return };
        let w = w as f32;
        if ack_cell.er <= 0.0 || w < ack_cell.er {
            ack_cell.er = w;
            self.acks_capped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;
    use crate::ids::VcId;

    fn flow(rtt: FiewaRtt, rounding: WindowRounding) -> FiewaFlow {
        FiewaFlow::new(RdParams::default(), FiewaParams { rtt, rounding }, 100e6, SimDuration::from_millis(2), 4096)
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// The flow's ER comes back after `rtt_ms` of RD round trip.
    fn with_er(f: &mut FiewaFlow, er: f32, rtt_ms: u64) {
        let mut back = f.rd.on_data(SimTime::ZERO, VcId(0), 8000.0).unwrap();
        back.kind = CellKind::RdBwd;
        back.er = er;
        f.rd.on_backward_rd(at(rtt_ms), &back);
    }

    fn ack() -> Cell {
        Cell::packet(VcId(0), CellKind::BwdData, 0, 40)
    }

    #[test]
    fn with_the_rd_round_trip_the_window_is_er_times_it_above_two_segments() {
        let mut f = flow(FiewaRtt::Rd, WindowRounding::None);
        with_er(&mut f, 1e6, 50);
        // W = ER * (50 + 4 ms) / 8 = 6750 B, below the 2 MSS floor.
        assert_eq!(f.window_cap(), Some(8192.0));
        with_er(&mut f, 2e6, 50);
        assert!((f.window_cap().unwrap() - 2e6 * 0.054 / 8.0).abs() < 1e-6);
    }

    #[test]
    fn the_data_round_trip_is_timed_from_a_segment_to_the_ack_covering_it() {
        let mut f = flow(FiewaRtt::Data, WindowRounding::None);
        with_er(&mut f, 2e6, 50);
        assert_eq!(f.window_cap(), None, "no cap before the first data round trip");
        f.on_segment(at(0), 4096, false);
        f.on_segment(at(1), 8192, false); // not timed: one at a time
        f.on_ack(at(60), &mut ack(), 0); // covers nothing
        assert_eq!(f.data_rtt, None);
        f.on_ack(at(70), &mut ack(), 4096);
        assert_eq!(f.data_rtt, Some(0.070));
        // W = ER * (70 + 4 ms) / 8.
        assert!((f.window_cap().unwrap() - 2e6 * 0.074 / 8.0).abs() < 1e-6);
        // The next sample moves the EWMA by 1/8 of the difference.
        f.on_segment(at(100), 12288, false);
        f.on_ack(at(190), &mut ack(), 12288);
        assert!((f.data_rtt.unwrap() - (0.070 + (0.090 - 0.070) / 8.0)).abs() < 1e-12);
    }

    #[test]
    fn a_retransmission_cancels_the_timing_karn() {
        let mut f = flow(FiewaRtt::Data, WindowRounding::None);
        f.on_segment(at(0), 4096, false);
        f.on_segment(at(300), 4096, true);
        f.on_ack(at(310), &mut ack(), 4096);
        assert_eq!(f.data_rtt, None);
        f.on_segment(at(320), 4096, true); // a retransmission starts no timing
        f.on_ack(at(330), &mut ack(), 8192);
        assert_eq!(f.data_rtt, None);
    }

    #[test]
    fn rounding_up_gives_whole_segments() {
        let mut f = flow(FiewaRtt::Rd, WindowRounding::Up);
        with_er(&mut f, 2e6, 50); // 13 500 B
        assert_eq!(f.window_cap(), Some(4.0 * 4096.0));
        with_er(&mut f, 1e6, 50); // the floor is already whole
        assert_eq!(f.window_cap(), Some(8192.0));
    }

    #[test]
    fn the_window_cap_never_enlarges_an_acks_window() {
        let mut f = flow(FiewaRtt::Rd, WindowRounding::None);
        let mut a = ack();
        f.on_ack(at(0), &mut a, 0);
        assert_eq!(a.er, 0.0, "no cap before the first ER");
        with_er(&mut f, 10e6, 100);
        let cap = f.window_cap().unwrap();
        assert!((cap - 10e6 * 0.104 / 8.0).abs() < 1e-6);
        f.on_ack(at(100), &mut a, 0);
        assert_eq!(a.er, cap as f32);
        // A smaller cap already written stays.
        let mut tight = ack();
        tight.er = 5000.0;
        f.on_ack(at(100), &mut tight, 0);
        assert_eq!(tight.er, 5000.0);
        // And the host applies min(rwnd, cap): see TcpEnds::on_ack_cell.
    }
}
