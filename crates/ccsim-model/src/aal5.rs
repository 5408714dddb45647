//! AAL5 segmentation arithmetic (docs/models/tcp.md, "TCP hosts on ATM (UBR)"): an IP packet,
//! optionally behind an 8-byte LLC/SNAP header (RFC 2684), plus the 8-byte AAL5 trailer, padded
//! to a multiple of 48 bytes, travels as that many 53-byte cells; the last one carries the
//! end-of-frame mark.

/// LLC/SNAP encapsulation header for routed IP (RFC 1483/2684).
pub const LLC_SNAP_BYTES: u32 = 8;
/// AAL5 CPCS trailer: UU, CPI, length, CRC-32.
pub const TRAILER_BYTES: u32 = 8;
pub const CELL_PAYLOAD_BYTES: u32 = 48;
pub const CELL_BYTES: u32 = 53;

/// Cells needed for an IP packet of `ip_len` bytes.
pub fn cells(ip_len: u32, llc_snap: bool) -> u32 {
    (ip_len + if llc_snap { LLC_SNAP_BYTES } else { 0 } + TRAILER_BYTES).div_ceil(CELL_PAYLOAD_BYTES)
}

/// Padding bytes in the last cell.
pub fn pad(ip_len: u32, llc_snap: bool) -> u32 {
    cells(ip_len, llc_snap) * CELL_PAYLOAD_BYTES - ip_len - if llc_snap { LLC_SNAP_BYTES } else { 0 } - TRAILER_BYTES
}

/// Bytes on the wire (whole cells) for one packet.
pub fn wire_bytes(ip_len: u32, llc_snap: bool) -> u32 {
    cells(ip_len, llc_snap) * CELL_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked examples with LLC/SNAP and TCP and IP headers of 20 bytes each: a 1024-byte segment is
    /// 1024 + 40 + 8 + 8 trailer = 1080 bytes, padded by 24 to 23 cells, 1219 bytes on the wire.
    #[test]
    fn worked_examples() {
        for (mss, n, p, wire) in [(512, 12, 8, 636), (1024, 23, 24, 1219), (1460, 32, 20, 1696), (1536, 34, 40, 1802), (4096, 87, 24, 4611)] {
            let ip = mss + 40;
            assert_eq!((cells(ip, true), pad(ip, true), wire_bytes(ip, true)), (n, p, wire), "MSS {mss}");
        }
        // A 1536-byte AAL5 SDU with no LLC/SNAP: 33 cells.
        assert_eq!(cells(1536, false), 33);
        assert_eq!(pad(1536, false), 40);
    }

    /// Seed 004's PDU "fixed to 1536 bytes" is the whole CPCS-PDU (docs/reproductions/ut-ct.md): a
    /// 1488-byte segment, 40 header bytes and the 8-byte trailer, no LLC/SNAP, fill the 32 cells its
    /// Eq. 6 counts (ceil(1536/48)) with no padding; a bare ACK fits one cell.
    #[test]
    fn seed_004_pdu_fills_32_cells() {
        let ip = 1488 + crate::tcp::HEADER_BYTES;
        assert_eq!((cells(ip, false), pad(ip, false), wire_bytes(ip, false)), (32, 0, 32 * 53));
        assert_eq!(cells(crate::tcp::HEADER_BYTES, false), 1);
    }

    #[test]
    fn efficiency_of_a_1024_byte_mss_is_84_percent() {
        let e = 1024.0 / wire_bytes(1064, true) as f64;
        assert!((e - 0.840).abs() < 1e-3);
    }
}
