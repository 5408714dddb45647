//! ATM cells: data cells and resource-management (RM) cells (the RM fields' use:
//! docs/models/abr/source.md, "Model").
//!
//! A cell is small and `Copy`: it lives inside port FIFOs and link pipes, never on the heap
//! by itself. RM-cell rate fields are `f32` cells/s: the wire format is a 16-bit float, so
//! `f32` is already far finer than any real switch could see, and it keeps a cell at 24 bytes.

use ccsim_engine::{SimDuration, SimTime};
use crate::ids::VcId;

/// Bits in one cell (5-byte header + 48-byte payload).
pub const CELL_BITS: u64 = 424;
/// Bytes in one cell.
pub const CELL_BYTES: u16 = 53;

/// Converts a line rate in Mb/s into cells per second (1 cell/s = 424 b/s, docs/scenarios.md, "Units").
#[inline]
pub fn mbps_to_cells(mbps: f64) -> f64 {
    mbps * 1e6 / CELL_BITS as f64
}

/// Converts cells per second into line-rate Mb/s.
#[inline]
pub fn cells_to_mbps(cells_per_s: f64) -> f64 {
    cells_per_s * CELL_BITS as f64 / 1e6
}

/// What an item is. The discriminants are chosen for the per-cell tests: forward kinds are
/// 0..=2 and RM cells 2..=3, so `is_forward` and `is_rm` are one comparison each.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum CellKind {
    /// A FICCRD resource-discovery packet from the source edge towards the destination edge
    /// (docs/models/ficcrd.md): the flow's rate in `ccr`, the explicit rate in `er`.
    RdFwd = 0,
    Data = 1,
    /// Forward RM cell (DIR = 0), source to destination.
    Frm = 2,
    /// Backward RM cell (DIR = 1), destination to source.
    Brm = 3,
    /// A data cell travelling from the destination back to the source (TCP ACK frames).
    BwdData = 4,
    /// A resource-discovery packet on its way back to the source edge.
    RdBwd = 5,
    /// An HG-RCP ICMP message on an intranet LAN: a rate notification (the rate in `er`) or, with
    /// the CI flag, a queue notification for the host of its VC.
    Icmp = 6,
}

/// Header and RM flag bits, packed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    pub const EFCI: u8 = 1 << 0;
    pub const CLP: u8 = 1 << 1;
    pub const BN: u8 = 1 << 2;
    pub const CI: u8 = 1 << 3;
    pub const NI: u8 = 1 << 4;
    /// Last cell of an AAL5 frame (the PTI "end of SDU" bit).
    pub const EOM: u8 = 1 << 5;
    /// A CBR/VBR cell, served before ABR and UBR at strict-priority ports.
    pub const PRIORITY: u8 = 1 << 6;
    /// HG-RCP's Q-bit: an IP packet a host sent from a rate-managed queue (a previously unused
    /// IP header bit; the gateway clears it before the packet enters the ATM network).
    pub const QBIT: u8 = 1 << 7;

    #[inline]
    pub fn get(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
    #[inline]
    pub fn set(&mut self, bit: u8, on: bool) {
        if on {
            self.0 |= bit
        } else {
            self.0 &= !bit
        }
    }
}

/// A time carried in 48 bits: its picoseconds modulo 2^48 (`SPAN`, about 281 s). A data cell
/// carries two in its unused RM fields (`Cell::sent`, `Cell::queued`); read back at any time less
/// than `SPAN` after the stamped one, a stamp gives that time exactly. (A cell held 281 s or more
/// would read a multiple of `SPAN` short: far beyond any delay a network here imposes.)
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stamp(u64);

impl Stamp {
    const MASK: u64 = (1 << 48) - 1;
    /// The longest time a stamp can measure.
    pub const SPAN: SimDuration = SimDuration::from_ps(1 << 48);

    #[inline]
    pub fn of(t: SimTime) -> Stamp {
        Stamp(t.as_ps() & Self::MASK)
    }

    /// The time from the stamped instant to `now` (at or after it, less than `SPAN` later).
    #[inline]
    pub fn age(self, now: SimTime) -> SimDuration {
        SimDuration::from_ps(now.as_ps().wrapping_sub(self.0) & Self::MASK)
    }

    /// The stamped instant, read at `now` (as for `age`).
    #[inline]
    pub fn at(self, now: SimTime) -> SimTime {
        SimTime::from_ps(now.as_ps() - self.age(now).as_ps())
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Cell {
    pub vc: VcId,
    /// Index of the route hop the cell is on (see `World`'s routing).
    pub hop: u16,
    pub kind: CellKind,
    pub flags: Flags,
    /// AAL5 frame (or IP packet) number within the VC and direction, wrapping: only frames
    /// in flight at the same time must differ.
    pub frame: u16,
    /// Bytes on the wire: 53 for an ATM cell, the IP packet's length on an IP link.
    pub size: u16,
    /// Explicit rate, cells/s (RM cells only; switches may only lower it).
    pub er: f32,
    /// Current cell rate written by the source, cells/s (RM cells only).
    pub ccr: f32,
    /// Minimum cell rate of the connection, cells/s (RM cells only).
    pub mcr: f32,
}

impl Cell {
    pub fn data(vc: VcId) -> Cell {
        Cell { vc, hop: 0, kind: CellKind::Data, flags: Flags::default(), frame: 0, size: CELL_BYTES, er: 0.0, ccr: 0.0, mcr: 0.0 }
    }

    pub fn frm(vc: VcId, er: f64, ccr: f64, mcr: f64) -> Cell {
        Cell {
            vc,
            hop: 0,
            kind: CellKind::Frm,
            flags: Flags::default(),
            frame: 0,
            size: CELL_BYTES,
            er: er as f32,
            ccr: ccr as f32,
            mcr: mcr as f32,
        }
    }

    /// An IP packet of `bytes` on the wire (one item on an IP link), with the end-of-frame
    /// mark so that hosts treat it as a one-item frame.
    pub fn packet(vc: VcId, kind: CellKind, number: u16, bytes: u16) -> Cell {
        let mut c = Cell::data(vc);
        c.kind = kind;
        c.frame = number;
        c.size = bytes;
        c.flags.set(Flags::EOM, true);
        c
    }

    /// When this forward data item left its source: the moment its transmission on the source's
    /// access link began, the end-to-end delay's start (`crate::delays::FlowDelay`). A data item
    /// has no use for the RM fields, which carry its stamps (see `Stamp`): this one in `mcr` (its
    /// low 32 bits) and the upper half of `ccr`.
    #[inline]
    pub fn sent(&self) -> Stamp {
        Stamp(self.mcr.to_bits() as u64 | ((self.ccr.to_bits() >> 16) as u64) << 32)
    }

    #[inline]
    pub fn set_sent(&mut self, s: Stamp) {
        self.mcr = f32::from_bits(s.0 as u32);
        let queued = self.ccr.to_bits() & 0xffff;
        self.ccr = f32::from_bits(queued | ((s.0 >> 32) as u32) << 16);
    }

    /// When a data cell reached the head of its source adapter's queue (CT, TCP over ABR): the
    /// cell transfer delay's start (`crate::delays::DelayStats`). In `er` (its low 32 bits) and
    /// the lower half of `ccr`.
    #[inline]
    pub fn queued(&self) -> Stamp {
        Stamp(self.er.to_bits() as u64 | ((self.ccr.to_bits() & 0xffff) as u64) << 32)
    }

    #[inline]
    pub fn set_queued(&mut self, s: Stamp) {
        self.er = f32::from_bits(s.0 as u32);
        let sent = self.ccr.to_bits() & 0xffff_0000;
        self.ccr = f32::from_bits(sent | (s.0 >> 32) as u32);
    }

    /// A gateway's cell (HG-RCP): the length of the IP packet it carries a part of, for the far
    /// gateway to rebuild it. In `er`, where `queued` would be: such a cell never waits in a
    /// source adapter.
    #[inline]
    pub fn ip_length(&self) -> u32 {
        self.er.to_bits()
    }

    #[inline]
    pub fn set_ip_length(&mut self, bytes: u32) {
        self.er = f32::from_bits(bytes);
    }

    /// Bits this item takes on the wire.
    #[inline]
    pub fn bits(&self) -> u64 {
        self.size as u64 * 8
    }

    #[inline]
    pub fn is_rm(&self) -> bool {
        (self.kind as u8).wrapping_sub(CellKind::Frm as u8) < 2
    }
    /// RM cells and RD packets: control items, which buffer policies never treat as frames.
    #[inline]
    pub fn is_control(&self) -> bool {
        matches!(self.kind, CellKind::Frm | CellKind::Brm | CellKind::RdFwd | CellKind::RdBwd | CellKind::Icmp)
    }
    /// A FICCRD resource-discovery packet, forward or backward.
    #[inline]
    pub fn is_rd(&self) -> bool {
        matches!(self.kind, CellKind::RdFwd | CellKind::RdBwd)
    }
    #[inline]
    pub fn is_forward(&self) -> bool {
        self.kind as u8 <= CellKind::Frm as u8
    }
    /// A data cell in either direction.
    #[inline]
    pub fn is_data(&self) -> bool {
        matches!(self.kind, CellKind::Data | CellKind::BwdData)
    }
    #[inline]
    pub fn efci(&self) -> bool {
        self.flags.get(Flags::EFCI)
    }
    #[inline]
    pub fn ci(&self) -> bool {
        self.flags.get(Flags::CI)
    }
    #[inline]
    pub fn ni(&self) -> bool {
        self.flags.get(Flags::NI)
    }
    #[inline]
    pub fn clp(&self) -> bool {
        self.flags.get(Flags::CLP)
    }
    #[inline]
    pub fn high_priority(&self) -> bool {
        self.flags.get(Flags::PRIORITY)
    }
    #[inline]
    pub fn eom(&self) -> bool {
        self.flags.get(Flags::EOM)
    }
    #[inline]
    pub fn bn(&self) -> bool {
        self.flags.get(Flags::BN)
    }

    /// Lowers the ER field to at most `er` (TM 4.0: a switch may lower ER, never raise it).
    #[inline]
    pub fn lower_er(&mut self, er: f64) {
        let er = er.max(0.0) as f32;
        if er < self.er {
            self.er = er;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_conversions_match_the_seeds() {
        // seed 003: ICR 4.24 Mb/s = 10 000 cells/s; seed 000: 23 585 cells/s = 10 Mb/s.
        assert!((mbps_to_cells(4.24) - 10_000.0).abs() < 1e-9);
        assert!((cells_to_mbps(23_585.0) - 10.0).abs() < 1e-3);
    }

    #[test]
    fn er_is_only_ever_lowered() {
        let mut c = Cell::frm(VcId(0), 100.0, 50.0, 0.0);
        c.lower_er(200.0);
        assert_eq!(c.er, 100.0);
        c.lower_er(80.0);
        assert_eq!(c.er, 80.0);
    }

    #[test]
    fn kind_tests_match_their_definitions() {
        use CellKind::*;
        for k in [RdFwd, Data, Frm, Brm, BwdData, RdBwd, Icmp] {
            let mut c = Cell::data(VcId(0));
            c.kind = k;
            assert_eq!(c.is_forward(), matches!(k, Data | Frm | RdFwd), "{k:?}");
            assert_eq!(c.is_rm(), matches!(k, Frm | Brm), "{k:?}");
        }
    }

    /// A data cell's two stamps share `ccr` and must not disturb each other; both are exact up
    /// to `Stamp::SPAN` after the stamped time, also across a wrap of their 48 bits.
    #[test]
    fn stamps_are_independent_and_exact_within_their_span() {
        let t = SimTime::from_ps;
        let mut c = Cell::data(VcId(0));
        let (queued, sent) = (t((1 << 48) - 5), t((1 << 48) + 123_456_789));
        c.set_queued(Stamp::of(queued));
        c.set_sent(Stamp::of(sent));
        // Read more than a span later, a stamp gives the latest instant with its 48 bits.
        assert_eq!(c.sent().at(t(3 << 48)), t((2 << 48) + 123_456_789));
        let later = sent + SimDuration::from_millis(10);
        assert_eq!((c.sent().at(later), c.sent().age(later)), (sent, SimDuration::from_millis(10)));
        assert_eq!(c.queued().at(later), queued);
        c.set_queued(Stamp::of(t(u64::MAX)));
        assert_eq!(c.sent().at(later), sent, "setting one stamp keeps the other");
        c.set_sent(Stamp::of(t(0)));
        assert_eq!(c.queued().age(t(u64::MAX)), SimDuration::ZERO);
        assert_eq!(Stamp::of(t(7)).age(t(7) + (Stamp::SPAN - SimDuration::from_ps(1))), Stamp::SPAN - SimDuration::from_ps(1));
        c.set_ip_length(1500);
        assert_eq!((c.ip_length(), c.sent().at(t(5)), c.size), (1500, t(0), CELL_BYTES));
    }

    #[test]
    fn cell_stays_small() {
        assert!(std::mem::size_of::<Cell>() <= 24, "{}", std::mem::size_of::<Cell>());
    }
}
