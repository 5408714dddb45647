//! FICCRD's source edge router with FIEWA enforcement (ip-edge-control.md B.1-B.3, B.5.1),
//! per flow (one connection).
//!
//! The edge estimates the flow's arrival rate APR (CSFQ, `csfq.rs`), sends one forward RD
//! packet per `n_rd` data packets right behind the data packet, keeps the ER the backward RD
//! brings back and the RD round trip, and caps the window of every ACK going back to the
//! sender at `W = max(ER * RTT / 8, 2 MSS)` bytes, `RTT` = the RD round trip's EWMA plus twice
//! the host-edge propagation delay [RECON: FIEWA is not in the seed].

use super::csfq::RateEstimator;
use crate::cell::{Cell, CellKind};
use crate::ids::VcId;
use ccsim_engine::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Gain of the RD round-trip EWMA [RECON].
pub const RTT_GAIN: f64 = 1.0 / 8.0;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FiewaParams {
    /// Data packets per forward RD packet [RECON: 1].
    pub n_rd: u32,
    /// Averaging constant of the rate estimator [RECON: 100 ms, CSFQ's].
    pub k_e: SimDuration,
    /// Bytes of an RD packet on the wire [RECON: 64].
    pub rd_bytes: u16,
}

impl Default for FiewaParams {
    fn default() -> Self {
        FiewaParams { n_rd: 1, k_e: SimDuration::from_millis(100), rd_bytes: 64 }
    }
}

#[derive(Clone, Debug)]
pub struct FiewaFlow {
    pub params: FiewaParams,
    pub estimator: RateEstimator,
    /// Data packets since the last forward RD.
    count: u32,
    next_seq: u16,
    /// (RD sequence number, send time) of the forward RDs not back yet, oldest first.
    outstanding: VecDeque<(u16, SimTime)>,
    /// ER of the last backward RD, bits/s.
    pub er: Option<f64>,
    /// EWMA of the edge-to-edge RD round trip, seconds.
    pub rd_rtt: Option<f64>,
    /// Twice the host-edge propagation delay, seconds.
    access_rtt: f64,
    /// The floor of the window, bytes (2 MSS).
    floor: f64,
    /// ER written into a new forward RD: the edge's output link rate, bits/s.
    initial_er: f64,
    pub rds_sent: u64,
    pub rds_returned: u64,
    /// ACKs whose window the edge lowered.
    pub acks_capped: u64,
}

impl FiewaFlow {
    pub fn new(params: FiewaParams, out_rate_bps: f64, access_delay: SimDuration, mss_bytes: u32) -> Self {
        assert!(params.n_rd >= 1);
        FiewaFlow {
            params,
            estimator: RateEstimator::new(params.k_e.as_secs_f64()),
            count: 0,
            next_seq: 0,
            outstanding: VecDeque::new(),
            er: None,
            rd_rtt: None,
            access_rtt: 2.0 * access_delay.as_secs_f64(),
            floor: 2.0 * mss_bytes as f64,
            initial_er: out_rate_bps,
            rds_sent: 0,
            rds_returned: 0,
            acks_capped: 0,
        }
    }

    /// A data packet of `bits` of the flow arrived from the host; the forward RD to send right
    /// behind it, if one is due.
    pub fn on_data(&mut self, now: SimTime, vc: VcId, bits: f64) -> Option<Cell> {
        self.estimator.on_packet(now, bits);
        self.count += 1;
        if self.count < self.params.n_rd {
            return None;
        }
        self.count = 0;
        let seq = self.next_seq;
        self.next_seq = seq.wrapping_add(1);
        self.outstanding.push_back((seq, now));
        self.rds_sent += 1;
        let mut rd = Cell::packet(vc, CellKind::RdFwd, seq, self.params.rd_bytes);
        rd.er = self.initial_er as f32;
        rd.ccr = self.estimator.apr() as f32;
        Some(rd)
    }

    /// A backward RD of the flow came back to the edge.
    pub fn on_backward_rd(&mut self, now: SimTime, rd: &Cell) {
        self.rds_returned += 1;
        self.er = Some(rd.er as f64);
        // Earlier RDs never came back (dropped): forget them.
        while let Some((seq, sent)) = self.outstanding.pop_front() {
            if seq == rd.frame {
                let sample = now.saturating_since(sent).as_secs_f64();
                self.rd_rtt = Some(match self.rd_rtt {
                    None => sample,
                    Some(r) => r + RTT_GAIN * (sample - r),
                });
                break;
            }
        }
    }

    /// The window the flow may have, bytes (none before the first ER and round trip).
    pub fn window_cap(&self) -> Option<f64> {
        let (er, rtt) = (self.er?, self.rd_rtt?);
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

    fn flow() -> FiewaFlow {
        FiewaFlow::new(FiewaParams::default(), 100e6, SimDuration::from_millis(2), 4096)
    }

    #[test]
    fn one_rd_per_n_rd_data_packets_carrying_apr_and_the_link_rate() {
        let mut f = FiewaFlow::new(FiewaParams { n_rd: 3, ..Default::default() }, 100e6, SimDuration::from_millis(2), 4096);
        let mut t = SimTime::ZERO;
        let mut rds = Vec::new();
        for _ in 0..9 {
            t += SimDuration::from_millis(1);
            if let Some(rd) = f.on_data(t, VcId(0), 8000.0) {
                rds.push(rd);
            }
        }
        assert_eq!(rds.len(), 3);
        assert_eq!(rds.iter().map(|r| r.frame).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert!(rds.iter().all(|r| r.kind == CellKind::RdFwd && r.size == 64 && r.er == 100e6));
        assert!(rds[2].ccr > 0.0);
    }

    #[test]
    fn rd_round_trip_is_matched_by_sequence_number() {
        let mut f = flow();
        let t0 = SimTime::ZERO;
        // The first RD is lost; only the second returns.
        let _lost = f.on_data(t0, VcId(0), 8000.0).unwrap();
        let b = f.on_data(t0 + SimDuration::from_millis(10), VcId(0), 8000.0).unwrap();
        let mut back = b;
        back.kind = CellKind::RdBwd;
        back.er = 1e6;
        f.on_backward_rd(t0 + SimDuration::from_millis(60), &back);
        assert!((f.rd_rtt.unwrap() - 0.050).abs() < 1e-12);
        assert_eq!(f.er, Some(1e6));
        // W = ER * (50 + 4 ms) / 8 = 6750 B, below the 2 MSS floor.
        assert_eq!(f.window_cap(), Some(8192.0));
    }

    #[test]
    fn the_window_cap_never_enlarges_an_acks_window() {
        let mut f = flow();
        let mut ack = Cell::packet(VcId(0), CellKind::BwdData, 0, 40);
        f.on_ack(&mut ack);
        assert_eq!(ack.er, 0.0, "no cap before the first ER");
        let rd = f.on_data(SimTime::ZERO, VcId(0), 8000.0).unwrap();
        let mut back = rd;
        back.kind = CellKind::RdBwd;
        back.er = 10e6;
        f.on_backward_rd(SimTime::ZERO + SimDuration::from_millis(100), &back);
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
