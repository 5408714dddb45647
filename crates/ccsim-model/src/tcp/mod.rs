//! TCP (docs/models/tcp.md): a sans-IO sender engine with the `AnyTcp` family of variants
//! (Tahoe and Jacobson '88, Reno, NewReno, SACK), Jacobson's RTT estimator with the seeds' clock
//! granularities, and a receiver with SACK blocks and optional delayed ACKs. The network
//! (AAL5 adapters, IP routers) carries their segments; this module never sees it.

mod newreno;
mod receiver;
mod reno;
mod rtt;
mod sack;
mod segment;
mod sender;
mod tahoe;
#[cfg(test)]
mod tests;

pub use newreno::NewReno;
pub use receiver::{DelayedAck, TcpReceiver};
pub use reno::Reno;
pub use rtt::{ClockMode, RttConfig, RttEstimator};
pub use sack::Sack;
pub use segment::{Ack, Block, Segment, HEADER_BYTES, MAX_SACK_BLOCKS};
pub use sender::{AckKind, AnyTcp, CongestionControl, Core, PartialAckTimer, SenderStats, TcpConfig, TcpSender};
pub use tahoe::Tahoe;

/// Variant by name: `jacobson88`, `tahoe`, `reno`, `newreno`, `sack` (RFC 6675) or `sack1`
/// (SACK with Fall & Floyd's recovery).
pub fn variant(name: &str) -> Option<AnyTcp> {
    Some(match name {
        "jacobson88" => AnyTcp::Tahoe(Tahoe { fast_retransmit: false }),
        "tahoe" => AnyTcp::Tahoe(Tahoe { fast_retransmit: true }),
        "reno" => AnyTcp::Reno(Reno),
        "newreno" => AnyTcp::NewReno(NewReno::default()),
        "sack" => AnyTcp::Sack(Sack::default()),
        "sack1" => AnyTcp::Sack(Sack::fall_floyd()),
        _ => return None,
    })
}
