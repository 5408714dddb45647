//! HG-RCP (seed 000; docs/models/hgrcp.md): explicit-rate control from an intranet gateway to its
//! hosts. `controller.rs` is the gateway's Eq. 1, sans-IO (it never sees the event queue: the
//! gateway calls it with `now`, its ABR connection's ACR and its buffer); `gateway.rs` the
//! gateway's buffer and reassembly; the hosts' paced output is a port discipline
//! (`port/discipline/paced.rs`); what cells meet at a gateway node is `world/node/gateway.rs`.

mod controller;
mod gateway;

pub use controller::{HgrcpController, HgrcpParams};
pub use gateway::{ip_length, Gateway, GatewayStats, ICMP_IP_BYTES};
