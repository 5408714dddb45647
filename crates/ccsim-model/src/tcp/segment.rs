//! What TCP puts on the wire, in bytes (docs/models/ip.md, "Model": hosts): data segments and
//! ACKs with SACK blocks.

/// Bytes of TCP + IP header on every segment: 20 + 20, no options (docs/models/tcp.md,
/// "Deviations and choices").
pub const HEADER_BYTES: u32 = 40;

/// Most SACK blocks an ACK carries (docs/models/tcp.md, "Model": 3, as with timestamps) [RECON].
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First payload byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Sent before (a retransmission): never used for an RTT sample (Karn).
    pub retransmission: bool,
}

impl Segment {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    /// Bytes on the network (payload + headers), before link-layer framing.
    pub fn wire_bytes(&self) -> u32 {
        self.len + HEADER_BYTES
    }
}

/// A byte range [left, right).
pub type Block = (u64, u64);

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ack {
    /// Cumulative acknowledgement: every byte below it has arrived.
    pub ack: u64,
    /// Advertised receive window, bytes.
    pub rwnd: u64,
    pub sack: [Block; MAX_SACK_BLOCKS],
    pub n_sack: u8,
}

impl Ack {
    pub fn new(ack: u64, rwnd: u64) -> Self {
        Ack { ack, rwnd, sack: [(0, 0); MAX_SACK_BLOCKS], n_sack: 0 }
    }
    pub fn blocks(&self) -> &[Block] {
        &self.sack[..self.n_sack as usize]
    }
    /// A pure ACK on the wire.
    pub fn wire_bytes(&self) -> u32 {
        HEADER_BYTES
    }
}
