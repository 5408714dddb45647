//! What every FICCRD source edge does for a flow, whatever it enforces (docs/models/ficcrd.md,
//! "Model"): it estimates the flow's arrival rate APR (CSFQ, `csfq.rs`), sends one forward RD
//! packet per `n_rd` data packets right behind the data packet, and keeps the ER the backward
//! RD brings back and the edge-to-edge RD round trip. A flow that has gone `rd_interval` without
//! a forward RD gets one on its own (`on_timer`: ABR's Trm and out-of-rate RM cells), so that a
//! flow whose ER fell to zero, which sends no data and so no RD behind data, learns when it may
//! send again. FIEWA (`fiewa.rs`) and FIABC (`fiabc.rs`) enforce that ER on the TCP sender, each
//! in its own way.

use super::csfq::RateEstimator;
use crate::cell::{Cell, CellKind};
use crate::ids::VcId;
use ccsim_engine::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Gain of the RD round-trip EWMA [RECON].
pub const RTT_GAIN: f64 = 1.0 / 8.0;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RdParams {
    /// Data packets per forward RD packet [RECON: 1].
    pub n_rd: u32,
    /// Averaging constant of the rate estimator [RECON: 100 ms, CSFQ's].
    pub k_e: SimDuration,
    /// Bytes of an RD packet on the wire [RECON: 64].
    pub rd_bytes: u16,
    /// The longest a started flow goes without a forward RD [RECON: 1 s, RFC 6298's minimum
    /// RTO; docs/models/ficcrd.md, "Parameters"].
    pub rd_interval: SimDuration,
}

impl Default for RdParams {
    fn default() -> Self {
        RdParams { n_rd: 1, k_e: SimDuration::from_millis(100), rd_bytes: 64, rd_interval: SimDuration::from_secs(1) }
    }
}

#[derive(Clone, Debug)]
pub struct RdEdge {
    pub params: RdParams,
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
    /// ER written into a new forward RD: the edge's output link rate, bits/s.
    initial_er: f64,
    /// When the last forward RD left (the flow's first data packet before any): the RD timer
    /// runs from it.
    last_rd: Option<SimTime>,
    /// Whether the world holds a pending RD timer for the flow (one at most).
    timer_armed: bool,
    pub rds_sent: u64,
    /// Of `rds_sent`, those sent on the timer.
    pub rds_on_timer: u64,
    pub rds_returned: u64,
}

impl RdEdge {
    pub fn new(params: RdParams, out_rate_bps: f64) -> Self {
        assert!(params.n_rd >= 1);
        RdEdge {
            params,
            estimator: RateEstimator::new(params.k_e.as_secs_f64()),
            count: 0,
            next_seq: 0,
            outstanding: VecDeque::new(),
            er: None,
            rd_rtt: None,
            initial_er: out_rate_bps,
            last_rd: None,
            timer_armed: false,
            rds_sent: 0,
            rds_on_timer: 0,
            rds_returned: 0,
        }
    }

    /// A data packet of `bits` of the flow arrived from the host; the forward RD to send right
    /// behind it, if one is due.
    pub fn on_data(&mut self, now: SimTime, vc: VcId, bits: f64) -> Option<Cell> {
        self.estimator.on_packet(now, bits);
        self.last_rd.get_or_insert(now);
        self.count += 1;
        if self.count < self.params.n_rd {
            return None;
        }
        let apr = self.estimator.apr();
        Some(self.send(now, vc, apr))
    }

    /// A new forward RD carrying `apr`; the count of data packets and the timer start afresh.
    fn send(&mut self, now: SimTime, vc: VcId, apr: f64) -> Cell {
        self.count = 0;
        self.last_rd = Some(now);
        let seq = self.next_seq;
        self.next_seq = seq.wrapping_add(1);
        self.outstanding.push_back((seq, now));
        self.rds_sent += 1;
        let mut rd = Cell::packet(vc, CellKind::RdFwd, seq, self.params.rd_bytes);
        rd.er = self.initial_er as f32;
        rd.ccr = apr as f32;
        rd
    }

    /// When the flow's RD timer should first fire, once: after its first data packet, and only
    /// if no timer is pending yet (the world schedules it).
    pub fn arm_timer(&mut self) -> Option<SimTime> {
        if self.timer_armed {
            return None;
        }
        let last = self.last_rd?;
        self.timer_armed = true;
        Some(last + self.params.rd_interval)
    }

    /// The flow's RD timer fired: if `rd_interval` has passed since its last forward RD, a new
    /// one, carrying APR as the estimator last left it (Eq. 1 updates it on packets only; an
    /// estimate decayed over the silence would report a flow the edge holds back at ER = 0 as
    /// wanting nothing, and pull MAPR, the mean of the APRs, towards zero); and when the timer
    /// fires next (it stays armed).
    pub fn on_timer(&mut self, now: SimTime, vc: VcId) -> (Option<Cell>, SimTime) {
        let due = self.last_rd.map_or(now, |t| t + self.params.rd_interval);
        if now < due {
            return (None, due);
        }
        let apr = self.estimator.apr();
        let rd = self.send(now, vc, apr);
        self.rds_on_timer += 1;
        (Some(rd), now + self.params.rd_interval)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rd_per_n_rd_data_packets_carrying_apr_and_the_link_rate() {
        let mut f = RdEdge::new(RdParams { n_rd: 3, ..Default::default() }, 100e6);
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
    fn a_flow_without_an_rd_for_rd_interval_gets_one_on_the_timer() {
        let ms = |x: u64| SimTime::ZERO + SimDuration::from_millis(x);
        let params = RdParams { n_rd: 32, rd_interval: SimDuration::from_millis(100), ..Default::default() };
        let mut f = RdEdge::new(params, 100e6);
        assert_eq!(f.arm_timer(), None, "not before the flow's first packet");
        assert!(f.on_data(ms(10), VcId(0), 8000.0).is_none());
        assert_eq!(f.arm_timer(), Some(ms(110)));
        assert_eq!(f.arm_timer(), None, "one pending timer at most");
        // Data keeps coming but 32 packets take longer than 100 ms: the timer sends one.
        for k in 1..10 {
            assert!(f.on_data(ms(10 + 10 * k), VcId(0), 8000.0).is_none());
        }
        let apr = f.estimator.apr();
        let (rd, next) = f.on_timer(ms(110), VcId(0));
        let rd = rd.expect("100 ms without an RD");
        assert_eq!((rd.kind, next, f.rds_on_timer, f.rds_sent), (CellKind::RdFwd, ms(210), 1, 1));
        // It carries the estimate as the last packet left it.
        assert!(apr > 0.0 && rd.ccr == apr as f32);
        // An RD behind data restarts the timer: firing early sends nothing.
        for k in 0..32 {
            f.on_data(ms(120 + k), VcId(0), 8000.0);
        }
        assert_eq!(f.rds_sent, 2);
        assert_eq!(f.on_timer(ms(210), VcId(0)).0.map(|c| c.frame), None);
        assert_eq!(f.on_timer(ms(210), VcId(0)).1, ms(251));
        // A flow that stopped sending gets one every rd_interval.
        let (a, n) = f.on_timer(ms(251), VcId(0));
        let (b, _) = f.on_timer(n, VcId(0));
        assert!(a.is_some() && b.is_some() && n == ms(351));
    }

    #[test]
    fn rd_round_trip_is_matched_by_sequence_number() {
        let mut f = RdEdge::new(RdParams::default(), 100e6);
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
    }
}
