//! Scenario types for IP networks: routers (`[[router]]`) and their output queues.
//!
//! A router is output-buffered like a switch, but its ports carry IP packets of their own
//! sizes and count their buffers in packets. Links join routers to routers (IP over ATM
//! gateways are not modelled yet). Routing is static: a connection's `route` lists the routers
//! it crosses, which is each router's forwarding entry for that connection's destination.

use crate::units::{Bytes, Duration, Packets};
use ccsim_engine::SimDuration;
use ccsim_model::ip::{AnyIpControl, EdgeParams, FiccrdCore, FiccrdParams, FiccrdQueue, FiewaParams, FiewaRtt, RdParams, WindowRounding};
use ccsim_engine::RngStream;
use ccsim_model::port::{Red, RedParams};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouterSpec {
    pub name: String,
    /// Buffer of every output port, packets (default `defaults.router_buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Packets>,
    /// Queue discipline of every output port (default `defaults.queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    /// Congestion control at every output port fed by resource-discovery packets (FICCRD's
    /// core-router algorithm, `ccsim docs models/ficcrd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<ControlSpec>,
    /// This router is the source edge of the connections whose route starts here: it sends
    /// their RD packets and enforces the returned rate on their TCP senders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<EdgeSpec>,
}

/// A router's port control, chosen by `type`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ControlSpec {
    /// FICCRD core router: MAPR and DPF per output queue (seed 002 Table 1). Defaults are the
    /// seed's values.
    Ficcrd {
        /// Buffer utilisation ratio: target queue Q0 = bur x buffer, in (0, 1).
        #[serde(default = "ControlSpec::bur")]
        bur: f64,
        /// Largest down-pressure factor (empty queue), >= 1.
        #[serde(default = "ControlSpec::alpha")]
        alpha: f64,
        /// Gain of MAPR's moving average, in (0, 1].
        #[serde(default = "ControlSpec::beta")]
        beta: f64,
        /// Which packets the queue length Q counts: `data` (default; the RD packets left out, the
        /// seed's "data queue length") or `packets` (every packet in the buffer).
        #[serde(default)]
        queue: ControlQueueSpec,
    },
}

/// Which packets FICCRD's Q counts [RECON] (`ccsim docs models/ficcrd`, "Parameters").
#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum ControlQueueSpec {
    #[default]
    Data,
    Packets,
}

impl ControlSpec {
    fn bur() -> f64 {
        FiccrdParams::default().bur
    }
    fn alpha() -> f64 {
        FiccrdParams::default().alpha
    }
    fn beta() -> f64 {
        FiccrdParams::default().beta
    }

    /// The control of one output port.
    pub fn build(&self, rate_bps: u64, buffer_packets: u32) -> AnyIpControl {
        match self {
            ControlSpec::Ficcrd { bur, alpha, beta, queue } => AnyIpControl::Ficcrd(FiccrdCore::new(
                FiccrdParams {
                    bur: *bur,
                    alpha: *alpha,
                    beta: *beta,
                    queue: match queue {
                        ControlQueueSpec::Data => FiccrdQueue::Data,
                        ControlQueueSpec::Packets => FiccrdQueue::Packets,
                    },
                },
                rate_bps as f64,
                buffer_packets,
            )),
        }
    }

    /// Field-path checks (the caller prefixes the path).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let ControlSpec::Ficcrd { bur, alpha, beta, .. } = self;
        if !(*bur > 0.0 && *bur < 1.0) {
            return Err(("bur", "must be in (0, 1)".into()));
        }
        if !(*alpha >= 1.0) || !alpha.is_finite() {
            return Err(("alpha", "must be >= 1".into()));
        }
        if !(*beta > 0.0 && *beta <= 1.0) {
            return Err(("beta", "must be in (0, 1]".into()));
        }
        Ok(())
    }
}

/// A source edge router's enforcement, chosen by `type`: both estimate each flow's rate and send
/// RD packets (defaults are reconstructions, `ccsim docs models/ficcrd`); they differ in how the
/// returned ER reaches the TCP sender.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum EdgeSpec {
    /// FICCRD edge with FIEWA: the ACKs' advertised window capped at ER x RTT.
    Fiewa(RdSpec),
    /// FICCRD edge with FIABC: the ACKs paced at ER by a per-flow ACK bucket.
    Fiabc(RdSpec),
}

/// The RD settings both edge schemes share.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RdSpec {
    /// Data packets per forward RD packet.
    #[serde(default = "RdSpec::n_rd")]
    pub n_rd: u32,
    /// Averaging constant of the per-flow rate estimator.
    #[serde(default = "RdSpec::k_e")]
    pub k_e: Duration,
    /// Size of an RD packet on the wire.
    #[serde(default = "RdSpec::rd_size")]
    pub rd_size: Bytes,
    /// The longest a flow that has started goes without a forward RD: when this long has passed
    /// since its last one, the edge sends one on its own (ABR's Trm and out-of-rate RM cells), so
    /// a flow given ER = 0, which sends no data and so no RD behind data, still learns its ER.
    #[serde(default = "RdSpec::rd_interval")]
    pub rd_interval: Duration,
    /// FIEWA only: the round trip the window covers, `data` (measured at the edge from a data
    /// packet to the ACK covering it; default) or `rd` (the RD packets' round trip), each plus
    /// twice the host-edge delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<FiewaRttSpec>,
    /// FIEWA only: `none` writes the window as computed (default; a sender of whole segments
    /// rounds it down), `up` rounds it up to whole segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_rounding: Option<WindowRoundingSpec>,
}

#[derive(Copy, Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum FiewaRttSpec {
    Data,
    Rd,
}

#[derive(Copy, Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum WindowRoundingSpec {
    None,
    Up,
}

impl RdSpec {
    fn n_rd() -> u32 {
        RdParams::default().n_rd
    }
    fn k_e() -> Duration {
        Duration(RdParams::default().k_e)
    }
    fn rd_size() -> Bytes {
        Bytes(RdParams::default().rd_bytes as u64)
    }
    fn rd_interval() -> Duration {
        Duration(RdParams::default().rd_interval)
    }
}

impl EdgeSpec {
    /// The RD settings both schemes share.
    fn rd(&self) -> &RdSpec {
        match self {
            EdgeSpec::Fiewa(rd) | EdgeSpec::Fiabc(rd) => rd,
        }
    }

    pub fn params(&self) -> EdgeParams {
        let RdSpec { n_rd, k_e, rd_size, rd_interval, rtt, window_rounding } = self.rd();
        let rd = RdParams { n_rd: *n_rd, k_e: k_e.0, rd_bytes: rd_size.0.min(u16::MAX as u64) as u16, rd_interval: rd_interval.0 };
        match self {
            EdgeSpec::Fiewa(_) => {
                let d = FiewaParams::default();
                EdgeParams::Fiewa(rd, FiewaParams {
                    rtt: rtt.map_or(d.rtt, |r| match r {
                        FiewaRttSpec::Data => FiewaRtt::Data,
                        FiewaRttSpec::Rd => FiewaRtt::Rd,
                    }),
                    rounding: window_rounding.map_or(d.rounding, |r| match r {
                        WindowRoundingSpec::None => WindowRounding::None,
                        WindowRoundingSpec::Up => WindowRounding::Up,
                    }),
                })
            }
            EdgeSpec::Fiabc(_) => EdgeParams::Fiabc(rd),
        }
    }

    /// Field-path checks (the caller prefixes the path).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let RdSpec { n_rd, k_e, rd_size, rd_interval, rtt, window_rounding } = self.rd();
        if let EdgeSpec::Fiabc(_) = self {
            if rtt.is_some() {
                return Err(("rtt", "only FIEWA (type = \"fiewa\") has a window round trip".into()));
            }
            if window_rounding.is_some() {
                return Err(("window_rounding", "only FIEWA (type = \"fiewa\") writes a window".into()));
            }
        }
        if *n_rd == 0 {
            return Err(("n_rd", "must be >= 1".into()));
        }
        if k_e.0 == SimDuration::ZERO {
            return Err(("k_e", "must be > 0".into()));
        }
        if rd_size.0 == 0 || rd_size.0 > u16::MAX as u64 {
            return Err(("rd_size", "must be between 1 and 65535 bytes".into()));
        }
        if rd_interval.0 == SimDuration::ZERO {
            return Err(("rd_interval", "must be > 0 (a time longer than the run sends no RD on its own)".into()));
        }
        Ok(())
    }
}

/// How a router's output queue decides whom to drop, chosen by `type`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// Drop the arriving packet when the buffer is full.
    #[default]
    DropTail,
    /// Random Early Detection (Floyd & Jacobson 1993) as ns-2.35's `Queue/RED` in packet mode
    /// (`ccsim docs models/ip`). `min_th`, `max_th`, `w_q` and `gentle` default to ns-2's classic
    /// settings (ns-2.35 itself configures them automatically and runs gentle RED); the rest
    /// default to ns-2.35's values.
    Red {
        /// Average queue below which nothing is dropped, packets.
        #[serde(default = "QueueSpec::min_th")]
        min_th: f64,
        /// Average queue at which the drop probability reaches `max_p`, packets.
        #[serde(default = "QueueSpec::max_th")]
        max_th: f64,
        /// Weight of the average queue's moving average.
        #[serde(default = "QueueSpec::w_q")]
        w_q: f64,
        /// Drop probability at `max_th` (ns-2: `1 / linterm_`).
        #[serde(default = "QueueSpec::max_p")]
        max_p: f64,
        /// Gentle RED: above `max_th` the probability rises to 1 at `2 max_th`.
        #[serde(default)]
        gentle: bool,
        /// Typical packet size, to age the average over idle periods.
        #[serde(default = "QueueSpec::mean_packet_size")]
        mean_packet_size: Bytes,
        /// Wait between drops (ns-2's `wait_`): gaps between early drops uniform on
        /// `[1/p_b, 2/p_b]` arrivals; `false`: the paper's `[1, 1/p_b]`.
        #[serde(default = "QueueSpec::wait")]
        wait: bool,
        /// Never drop the first arrival that finds the average at or above `min_th` (with more
        /// than one packet waiting) after one that did not (ns-2's `old`); `false`: the paper.
        #[serde(default = "QueueSpec::spare_first")]
        spare_first: bool,
        /// A buffer overflow restarts the count of arrivals since the last drop, as ns-2's forced
        /// drops do (`ns1_compat_ = false`); `false`: only RED's own drops restart it.
        #[serde(default = "QueueSpec::overflow_resets_count")]
        overflow_resets_count: bool,
    },
}

impl QueueSpec {
    fn min_th() -> f64 {
        RedParams::default().min_th
    }
    fn max_th() -> f64 {
        RedParams::default().max_th
    }
    fn w_q() -> f64 {
        RedParams::default().w_q
    }
    fn max_p() -> f64 {
        RedParams::default().max_p
    }
    fn mean_packet_size() -> Bytes {
        Bytes(RedParams::default().mean_packet_bytes as u64)
    }
    fn wait() -> bool {
        RedParams::default().wait
    }
    fn spare_first() -> bool {
        RedParams::default().spare_first
    }
    fn overflow_resets_count() -> bool {
        RedParams::default().overflow_resets_count
    }

    /// The port's active queue manager, if any.
    pub fn build(&self, rate_bps: u64, rng: RngStream) -> Option<Red> {
        match self {
            QueueSpec::DropTail => None,
            QueueSpec::Red { min_th, max_th, w_q, max_p, gentle, mean_packet_size, wait, spare_first, overflow_resets_count } => Some(Red::new(
                RedParams {
                    min_th: *min_th,
                    max_th: *max_th,
                    w_q: *w_q,
                    max_p: *max_p,
                    gentle: *gentle,
                    mean_packet_bytes: mean_packet_size.0.min(u32::MAX as u64) as u32,
                    wait: *wait,
                    spare_first: *spare_first,
                    overflow_resets_count: *overflow_resets_count,
                },
                rate_bps,
                rng,
            )),
        }
    }

    /// Field-path checks (the caller prefixes the path).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let QueueSpec::Red { min_th, max_th, w_q, max_p, mean_packet_size, .. } = self else { return Ok(()) };
        if !(*min_th >= 0.0) {
            return Err(("min_th", "must be >= 0".into()));
        }
        if !(max_th > min_th) {
            return Err(("max_th", format!("must be greater than min_th ({min_th})")));
        }
        if !(*w_q > 0.0 && *w_q <= 1.0) {
            return Err(("w_q", "must be in (0, 1]".into()));
        }
        if !(*max_p > 0.0 && *max_p <= 1.0) {
            return Err(("max_p", "must be in (0, 1]".into()));
        }
        if mean_packet_size.0 == 0 {
            return Err(("mean_packet_size", "must be > 0".into()));
        }
        Ok(())
    }
}
