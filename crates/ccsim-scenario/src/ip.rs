//! Scenario types for IP networks: routers (`[[router]]`) and their output queues.
//!
//! A router is output-buffered like a switch, but its ports carry IP packets of their own
//! sizes and count their buffers in packets. Links join routers to routers (IP over ATM
//! gateways are not modelled yet). Routing is static: a connection's `route` lists the routers
//! it crosses, which is each router's forwarding entry for that connection's destination.

use crate::units::{Bytes, Packets};
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
}

/// How a router's output queue decides whom to drop, chosen by `type`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// Drop the arriving packet when the buffer is full.
    #[default]
    DropTail,
    /// Random Early Detection (Floyd & Jacobson 1993); defaults are ns-2's.
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
        #[serde(default = "QueueSpec::max_p")]
        max_p: f64,
        /// Gentle RED: above `max_th` the probability rises to 1 at `2 max_th`.
        #[serde(default)]
        gentle: bool,
        /// Typical packet size, to age the average over idle periods.
        #[serde(default = "QueueSpec::mean_packet_size")]
        mean_packet_size: Bytes,
    },
}

impl QueueSpec {
    fn min_th() -> f64 {
        5.0
    }
    fn max_th() -> f64 {
        15.0
    }
    fn w_q() -> f64 {
        0.002
    }
    fn max_p() -> f64 {
        0.1
    }
    fn mean_packet_size() -> Bytes {
        Bytes(500)
    }

    /// The port's active queue manager, if any.
    pub fn build(&self, rate_bps: u64, rng: RngStream) -> Option<Red> {
        match self {
            QueueSpec::DropTail => None,
            QueueSpec::Red { min_th, max_th, w_q, max_p, gentle, mean_packet_size } => Some(Red::new(
                RedParams {
                    min_th: *min_th,
                    max_th: *max_th,
                    w_q: *w_q,
                    max_p: *max_p,
                    gentle: *gentle,
                    mean_packet_bytes: mean_packet_size.0.min(u32::MAX as u64) as u32,
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
