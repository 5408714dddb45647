//! FICCRD core router, per output queue (seed 002 Table 1; docs/models/ficcrd.md, "Model").
//!
//! State: MAPR (mean allowed packet rate, bits/s) and DPF (down-pressure factor). A forward RD
//! packet updates MAPR from the APR it carries; a backward RD packet of a flow whose forward
//! data leaves by this queue gets `ER = min(ER, DPF * MAPR)`, DPF piecewise linear in the queue:
//! `alpha` at Q = 0, 1 at Q = Q0 = BUR * BufferSize, 0 at Q = BufferSize. Which packets Q
//! counts is `FiccrdQueue` [RECON]: the data packets alone (the seed's "data queue length", the
//! default) or every packet in the buffer, RD packets included; `rd_queue.rs` tells them apart.

use super::rd_queue::RdQueue;
use ccsim_engine::SimTime;

/// Which queue the control reads as Q [RECON] (docs/models/ficcrd.md, "Parameters").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FiccrdQueue {
    /// The data packets in the buffer (RD packets left out): seed 002 §3.2 says "the data queue
    /// length at bottleneck router will still fluctuate at our target queue length".
    Data,
    /// Every packet in the buffer, RD packets included (its "packet queue length").
    Packets,
}

/// The seed's constants (docs/models/ficcrd.md, "Parameters": BUR 0.5, alpha 1.15, beta 0.0625).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FiccrdParams {
    /// Buffer utilisation ratio: the target queue Q0 = BUR * BufferSize, in (0, 1).
    pub bur: f64,
    /// Largest DPF (at an empty queue), >= 1.
    pub alpha: f64,
    /// Gain of MAPR's moving average, in (0, 1].
    pub beta: f64,
    /// Which packets Q counts [RECON: the data packets].
    pub queue: FiccrdQueue,
}

impl Default for FiccrdParams {
    fn default() -> Self {
        FiccrdParams { bur: 0.5, alpha: 1.15, beta: 0.0625, queue: FiccrdQueue::Data }
    }
}

#[derive(Clone, Debug)]
pub struct FiccrdCore {
    pub params: FiccrdParams,
    /// Bits/s; starts at the output link rate [RECON].
    pub mapr: f64,
    /// The DPF of the last backward RD (1 before any).
    pub dpf: f64,
    /// Packets the port holds.
    buffer_size: f64,
    /// Target queue, packets.
    q0: f64,
    pub forward_rds: u64,
    pub backward_rds: u64,
    /// The RD packets among the port's queued packets.
    pub rds: RdQueue,
}

impl FiccrdCore {
    pub fn new(params: FiccrdParams, link_rate_bps: f64, buffer_packets: u32) -> Self {
        let buffer_size = buffer_packets as f64;
        FiccrdCore { params, mapr: link_rate_bps, dpf: 1.0, buffer_size, q0: params.bur * buffer_size, forward_rds: 0, backward_rds: 0, rds: RdQueue::new(buffer_packets) }
    }

    /// Q at `now`, packets, from the `packets` the port's buffer holds (after its `sync`): the
    /// data packets alone or all of them (`FiccrdParams::queue`).
    #[inline]
    pub fn queue(&self, now: SimTime, packets: u32) -> u32 {
        match self.params.queue {
            FiccrdQueue::Data => packets - self.rds.len_at(now),
            FiccrdQueue::Packets => packets,
        }
    }

    /// Q0 = BUR * BufferSize, packets.
    pub fn q0(&self) -> f64 {
        self.q0
    }

    /// The down-pressure factor at a queue of `q` packets.
    pub fn dpf_at(&self, q: f64) -> f64 {
        if q > self.q0 {
            ((self.buffer_size - q) / (self.buffer_size - self.q0)).max(0.0)
        } else {
            (self.params.alpha - 1.0) * (self.q0 - q) / self.q0 + 1.0
        }
    }

    /// A forward RD packet about to enter the queue, Q (`queue`, packets) as `queue()` gives it.
    pub fn on_forward_rd(&mut self, apr: f64, queue: u32) {
        self.forward_rds += 1;
        let congested = queue as f64 > self.q0;
        // Congested: MAPR may only fall; otherwise it tracks the mean APR.
        if !congested || apr < self.mapr {
            self.mapr += self.params.beta * (apr - self.mapr);
        }
    }

    /// A backward RD packet of a flow whose data leaves by this queue: the ER it carries on.
    pub fn on_backward_rd(&mut self, er: f64, queue: u32) -> f64 {
        self.backward_rds += 1;
        self.dpf = self.dpf_at(queue as f64);
        er.min(self.dpf * self.mapr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core() -> FiccrdCore {
        FiccrdCore::new(FiccrdParams::default(), 10e6, 200)
    }

    #[test]
    fn dpf_is_alpha_empty_one_at_target_zero_full_and_linear_between() {
        let c = core();
        assert_eq!(c.q0(), 100.0);
        assert!((c.dpf_at(0.0) - 1.15).abs() < 1e-12);
        assert!((c.dpf_at(100.0) - 1.0).abs() < 1e-12);
        assert!(c.dpf_at(200.0).abs() < 1e-12);
        assert!((c.dpf_at(50.0) - 1.075).abs() < 1e-12);
        assert!((c.dpf_at(150.0) - 0.5).abs() < 1e-12);
        // Monotone non-increasing over the whole buffer, within [0, alpha].
        let mut prev = f64::INFINITY;
        for q in 0..=200 {
            let d = c.dpf_at(q as f64);
            assert!(d <= prev + 1e-12 && (0.0..=1.15 + 1e-12).contains(&d));
            prev = d;
        }
    }

    #[test]
    fn mapr_only_falls_while_congested_and_tracks_apr_otherwise() {
        let mut c = core();
        c.mapr = 1e6;
        // Congested (Q > Q0): a higher APR leaves MAPR alone, a lower one pulls it down.
        c.on_forward_rd(5e6, 150);
        assert_eq!(c.mapr, 1e6);
        c.on_forward_rd(0.0, 150);
        assert!((c.mapr - 1e6 * (1.0 - 0.0625)).abs() < 1e-6);
        // Uncongested: an EWMA of gain beta towards the APR, up or down.
        let m = c.mapr;
        c.on_forward_rd(5e6, 100);
        assert!((c.mapr - (m + 0.0625 * (5e6 - m))).abs() < 1e-6);
        for _ in 0..2000 {
            c.on_forward_rd(2e6, 10);
        }
        assert!((c.mapr - 2e6).abs() < 1.0, "{}", c.mapr);
    }

    #[test]
    fn q_is_the_data_packets_or_every_packet() {
        let mut c = core();
        let t = SimTime::from_ps;
        // Two RDs queued among 10 packets, leaving at 5 and 8.
        c.rds.admit(t(0), t(5));
        c.rds.admit(t(1), t(8));
        assert_eq!((c.queue(t(2), 10), c.queue(t(5), 9), c.queue(t(8), 8)), (8, 8, 8));
        c.params.queue = FiccrdQueue::Packets;
        assert_eq!(c.queue(t(2), 10), 10);
    }

    #[test]
    fn a_core_router_never_raises_er() {
        let mut c = core();
        for q in [0u32, 50, 100, 150, 200] {
            for er in [0.0, 1e5, 1e6, 1e7, 1e8] {
                let out = c.on_backward_rd(er, q);
                assert!(out <= er, "q {q}: {er} -> {out}");
                assert!(out <= c.dpf_at(q as f64) * c.mapr + 1e-9);
            }
        }
        // At an empty queue DPF * MAPR = 1.15 * 10 Mb/s.
        assert!((c.on_backward_rd(1e9, 0) - 11.5e6).abs() < 1e-3);
    }
}
