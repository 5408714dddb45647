//! TCP hosts on an ATM VC (the sender's and receiver's AAL5 adapters, docs/models/tcp.md, "TCP
//! hosts on ATM (UBR)") or on IP links.
//!
//! A segment (payload + 40 bytes of TCP/IP header) becomes one AAL5 frame of
//! `aal5::cells(..)` cells, the last marked end-of-frame; ACKs go back the same way on the
//! reverse path. On IP links a segment is one packet of its own size, a one-item frame, so
//! the same bookkeeping serves both. The UBR adapter hands every cell of a frame to the host's port at once: the
//! port sends them at line rate and its buffer is the adapter buffer. Reassembly delivers a
//! frame only if every one of its cells arrived and nothing of another frame got mixed in
//! (what AAL5's length and CRC check would catch); otherwise the whole frame is lost.

use crate::aal5;
use crate::abr::{AbrDestination, AbrSource};
use crate::cell::{Cell, CellKind, Flags, Stamp};
use crate::ids::VcId;
use crate::delays::AckTimes;
use crate::sessions::SessionSource;
use crate::tcp::{Ack, Segment, TcpReceiver, TcpSender, HEADER_BYTES};
use crate::timeout_cause::{Reclassify, TimeoutCause, Transmissions};
use ccsim_engine::SimTime;
use std::collections::VecDeque;

/// Frames handed to the network and not yet resolved at the far end.
#[derive(Clone, Debug)]
struct Sar<T> {
    next: u16,
    /// (frame number, items, what it carries). Numbers wrap: the frames in flight at one time
    /// (at most a window of them) are far fewer than 65 536.
    in_flight: VecDeque<(u16, u32, T)>,
    /// The changes to `in_flight` since last taken, when other threads keep a copy of it
    /// (`TcpEnds::log_frames`).
    changes: Option<Vec<FrameChange<T>>>,
}

/// A change to a connection's table of frames in flight, for the copies other threads keep: the
/// trace reads what a frame carries wherever it records a row (`World::trace_seq`).
#[derive(Clone, Copy, Debug)]
pub enum FrameChange<T> {
    /// Frame (number, items, what it carries) entered the network.
    Push(u16, u32, T),
    /// Frame `number` was resolved at the far end (delivered, or known lost).
    Pop(u16),
}

/// A connection's changes to its two tables (data frames, ACK frames) over a window.
pub type FrameLog = (Vec<FrameChange<Segment>>, Vec<FrameChange<Ack>>);

impl<T: Copy> Sar<T> {
    fn new() -> Self {
        Sar { next: 0, in_flight: VecDeque::new(), changes: None }
    }

    /// Registers a frame of `n` cells; returns its number.
    fn push(&mut self, n: u32, item: T) -> u16 {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        self.in_flight.push_back((id, n, item));
        if let Some(c) = self.changes.as_mut() {
            c.push(FrameChange::Push(id, n, item));
        }
        id
    }

    /// Applies another copy's changes (this copy is kept for reading only).
    fn apply(&mut self, changes: &[FrameChange<T>]) {
        for &c in changes {
            match c {
                FrameChange::Push(id, n, item) => self.in_flight.push_back((id, n, item)),
                FrameChange::Pop(id) => {
                    if let Some(k) = self.in_flight.iter().position(|&(f, _, _)| f == id) {
                        self.in_flight.remove(k);
                    }
                }
            }
        }
    }

    /// What frame `id`, still in flight, carries.
    fn peek(&self, id: u16) -> Option<&T> {
        self.in_flight.iter().find(|(f, _, _)| *f == id).map(|(_, _, t)| t)
    }

    /// The frame `id` and its cell count; earlier frames never completed (some of their cells
    /// were lost): each is handed to `lost` and forgotten.
    fn take(&mut self, id: u16, mut lost: impl FnMut(u16, &T)) -> Option<(u32, T)> {
        while let Some(&(f, n, item)) = self.in_flight.front() {
            self.in_flight.pop_front();
            if let Some(c) = self.changes.as_mut() {
                c.push(FrameChange::Pop(f));
            }
            if f == id {
                return Some((n, item));
            }
            lost(f, &item);
        }
        None
    }
}

/// Cells since the last end-of-frame: which frame the first belonged to and when it left its
/// source (`Cell::sent`), how many, and whether any was tagged (CLP = 1).
#[derive(Clone, Debug, Default)]
struct Reassembly {
    first: Option<u16>,
    sent: Stamp,
    cells: u32,
    tagged: bool,
}

impl Reassembly {
    /// On an end-of-frame cell: the frame number, the first cell's frame and `sent` stamp, and
    /// the cells since the previous end-of-frame (a frame is whole if only its own came: the
    /// caller checks the count).
    fn on_cell(&mut self, cell: &Cell) -> Option<(u16, Option<u16>, u32, Stamp)> {
        if self.first.is_none() {
            self.first = Some(cell.frame);
            self.sent = cell.sent();
        }
        self.cells += 1;
        self.tagged |= cell.clp();
        if !cell.eom() {
            return None;
        }
        let out = (cell.frame, self.first, self.cells, self.sent);
        *self = Reassembly::default();
        Some(out)
    }
}

/// Counters of one connection's adapters.
#[derive(Clone, Debug, Default)]
pub struct HostStats {
    pub frames_sent: u64,
    pub frames_delivered: u64,
    pub frames_corrupted: u64,
    pub ack_frames_sent: u64,
    pub ack_frames_lost: u64,
    /// Bytes released in order to the receiving application by untagged (CLP = 0) frames: the
    /// CLP0 part of the goodput (a frame that fills a hole is credited with what it releases).
    pub clp0_delivered: u64,
    /// Cells of frames an ABR adapter dropped whole for want of room (they never entered the
    /// VC; CT's adapter is the access port, whose drops are the VC's).
    pub adapter_drops: u64,
    /// The sender's timeouts by cause (`crate::timeout_cause`): after a data or ACK frame was
    /// lost, or without loss (the timer shorter than the packet-to-ACK time). They add up to
    /// the sender's `timeouts`.
    pub timeouts_after_drop: u64,
    pub timeouts_without_loss: u64,
}

/// TCP over ABR: the host's cells wait in the adapter and a TM 4.0 source paces them at ACR,
/// inserting its RM cells; the destination turns the FRMs around. ACK frames return unpaced on
/// the reverse path [RECON: the reverse ABR connection is not modelled].
#[derive(Clone, Debug)]
pub struct AbrAdapter {
    pub source: AbrSource,
    pub dest: AbrDestination,
    /// Data cells waiting for the source's next in-rate opportunity.
    pub backlog: VecDeque<Cell>,
    /// When the last cell left the backlog (the head-of-queue stamps, `crate::delays`).
    pub last_pop: SimTime,
}

/// What the hosts are attached to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HostLink {
    /// An ATM VC through AAL5 adapters, with or without RFC 2684 LLC/SNAP encapsulation.
    Atm { llc_snap: bool },
    /// IP links: one packet per segment, sized by its IP length.
    Ip,
    /// IP over Ethernet (an intranet LAN, seed 000): one packet per segment, sized as its frame
    /// on the wire (`ethernet_wire_bytes`).
    Ethernet,
}

/// Bytes an IP packet takes on an Ethernet, gap included: preamble and start delimiter 8,
/// header 14, frame check 4, inter-frame gap 12; at least a minimum frame (84 byte-times).
pub const ETHERNET_OVERHEAD_BYTES: u32 = 38;
pub const ETHERNET_MIN_WIRE_BYTES: u32 = 84;

/// The byte-times an IP packet of `ip_len` bytes takes on an Ethernet.
pub fn ethernet_wire_bytes(ip_len: u32) -> u32 {
    (ip_len + ETHERNET_OVERHEAD_BYTES).max(ETHERNET_MIN_WIRE_BYTES)
}

impl HostLink {
    /// Bytes on the wire of an IP packet of `ip_len` bytes (one item on IP links).
    fn packet_bytes(self, ip_len: u32) -> u32 {
        match self {
            HostLink::Ethernet => ethernet_wire_bytes(ip_len),
            _ => ip_len,
        }
    }
}

#[derive(Clone, Debug)]
pub struct TcpEnds {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub start: SimTime,
    pub link: HostLink,
    data: Sar<Segment>,
    data_rx: Reassembly,
    acks: Sar<Ack>,
    ack_rx: Reassembly,
    segs: Vec<Segment>,
    /// The data frames not yet acknowledged and what of them was lost: the cause of a timeout.
    txs: Transmissions,
    /// Each end's timer event (`TcpEnd` indexes it): each end's events belong to its own host
    /// (the windowed mode).
    timers: [TimerSlot; 2],
    pub stats: HostStats,
    /// Present when the connection runs over ABR rather than UBR.
    pub abr: Option<AbrAdapter>,
    /// The application when it is seed 004's session model (otherwise a greedy or fixed
    /// transfer, `TcpConfig::app_bytes`).
    pub sessions: Option<Box<SessionSource>>,
    /// Each segment's time from its first transmission to the ACK that covers it.
    pub ack_times: AckTimes,
    /// A source adapter with a buffer of its own holds back PDUs that do not fit (instead of
    /// dropping them): they wait here, in order, until it has room.
    pub adapter_blocks: bool,
    pub blocked: VecDeque<Cell>,
}

impl TcpEnds {
    pub fn new(sender: TcpSender, receiver: TcpReceiver, start: SimTime, link: HostLink) -> Self {
        TcpEnds {
            sender,
            receiver,
            start,
            link,
            data: Sar::new(),
            data_rx: Reassembly::default(),
            acks: Sar::new(),
            ack_rx: Reassembly::default(),
            segs: Vec::new(),
            txs: Transmissions::default(),
            timers: [TimerSlot::default(); 2],
            stats: HostStats::default(),
            abr: None,
            sessions: None,
            ack_times: AckTimes::default(),
            adapter_blocks: false,
            blocked: VecDeque::new(),
        }
    }

    /// Items on the wire per full-size data segment: cells, or one packet.
    pub fn cells_per_segment(&self) -> u32 {
        self.items(self.sender.core.cfg.smss + HEADER_BYTES)
    }

    /// Bits on the wire per full-size data segment.
    pub fn wire_bits_per_segment(&self) -> u64 {
        match self.link {
            HostLink::Atm { .. } => self.cells_per_segment() as u64 * crate::cell::CELL_BITS,
            HostLink::Ip | HostLink::Ethernet => self.link.packet_bytes(self.sender.core.cfg.smss + HEADER_BYTES) as u64 * 8,
        }
    }

    /// Items a frame of `bytes` (IP length) takes on the wire.
    fn items(&self, bytes: u32) -> u32 {
        match self.link {
            HostLink::Atm { llc_snap } => aal5::cells(bytes, llc_snap),
            HostLink::Ip | HostLink::Ethernet => 1,
        }
    }

    /// When an end needs its timer event: at the source, the sender's retransmission timer (or
    /// its delayed send) or the application's next write; at the destination, the receiver's
    /// delayed ACK.
    pub fn due(&self, end: TcpEnd) -> Option<SimTime> {
        match end {
            TcpEnd::Source => {
                let due = self.sender.timer_due();
                match (&self.sessions, due) {
                    (Some(s), Some(d)) => Some(d.min(s.next_wake())),
                    (Some(s), None) => Some(s.next_wake()),
                    (None, due) => due,
                }
            }
            TcpEnd::Destination => self.receiver.timer_due(),
        }
    }

    /// An end's timer event.
    pub fn timer(&mut self, end: TcpEnd) -> &mut TimerSlot {
        &mut self.timers[end as usize]
    }

    /// The items of frame `frame`: `n` cells, or on IP links one packet of `bytes`.
    fn frame_items(&self, vc: VcId, kind: CellKind, frame: u16, n: u32, bytes: u32, out: &mut Vec<Cell>) {
        if !matches!(self.link, HostLink::Atm { .. }) {
            out.push(Cell::packet(vc, kind, frame, self.link.packet_bytes(bytes).min(u16::MAX as u32) as u16));
            return;
        }
        Self::frame_cells(vc, kind, frame, n, out);
    }

    fn frame_cells(vc: VcId, kind: CellKind, frame: u16, n: u32, out: &mut Vec<Cell>) {
        for k in 0..n {
            let mut c = Cell::data(vc);
            c.kind = kind;
            c.frame = frame;
            c.flags.set(Flags::EOM, k + 1 == n);
            out.push(c);
        }
    }

    fn send_segments(&mut self, now: SimTime, vc: VcId, fwd: &mut Vec<Cell>) {
        let mut segs = std::mem::take(&mut self.segs);
        for seg in segs.drain(..) {
            self.ack_times.sent(seg.seq + seg.len as u64, now);
            let n = self.items(seg.wire_bytes());
            let id = self.data.push(n, seg);
            self.txs.sent(id, seg.seq, seg.end(), now);
            self.stats.frames_sent += 1;
            self.frame_items(vc, CellKind::Data, id, n, seg.wire_bytes(), fwd);
        }
        self.segs = segs;
    }

    /// Threads with a trace: from now on the changes to the tables of frames in flight are kept
    /// for the other threads' copies (`take_frame_log`, `apply_frame_log`).
    pub fn log_frames(&mut self) {
        self.data.changes.get_or_insert_with(Vec::new);
        self.acks.changes.get_or_insert_with(Vec::new);
    }

    /// The changes since last taken (none unless `log_frames`).
    pub fn take_frame_log(&mut self) -> Option<FrameLog> {
        let data = std::mem::take(self.data.changes.as_mut()?);
        let acks = std::mem::take(self.acks.changes.as_mut()?);
        (!data.is_empty() || !acks.is_empty()).then_some((data, acks))
    }

    /// Another thread's changes, into this copy of the tables (read only by the trace here).
    pub fn apply_frame_log(&mut self, log: &FrameLog) {
        self.data.apply(&log.0);
        self.acks.apply(&log.1);
    }

    /// The segment data frame `frame` in flight carries: what a router reading the packet's TCP
    /// header sees (FIEWA's data round trip).
    pub fn segment(&self, frame: u16) -> Option<Segment> {
        self.data.peek(frame).copied()
    }

    /// The cumulative ACK (bytes) of ACK frame `frame` in flight: what a router reading the
    /// packet's TCP header sees (FIABC's ACK bucket).
    pub fn ack_number(&self, frame: u16) -> Option<u64> {
        self.acks.peek(frame).map(|a| a.ack)
    }

    fn send_ack(&mut self, vc: VcId, ack: Ack, bwd: &mut Vec<Cell>) {
        let n = self.items(ack.wire_bytes());
        let id = self.acks.push(n, ack);
        self.stats.ack_frames_sent += 1;
        self.frame_items(vc, CellKind::BwdData, id, n, ack.wire_bytes(), bwd);
    }

    /// The connection opens: the sender's first window.
    pub fn start(&mut self, now: SimTime, vc: VcId, fwd: &mut Vec<Cell>) {
        self.sender.start(now, &mut self.segs);
        self.send_segments(now, vc, fwd);
    }

    /// A data cell reached the destination host. The result: when the segment it completed left
    /// its source, the `sent` stamp of its frame's first cell (a frame is a segment's unit of
    /// delay: from its first cell's departure to its last cell's arrival).
    pub fn on_data_cell(&mut self, now: SimTime, cell: &Cell, bwd: &mut Vec<Cell>) -> Option<Stamp> {
        let tagged = self.data_rx.tagged || cell.clp();
        let (frame, first, got, sent) = self.data_rx.on_cell(cell)?;
        // Frames skipped here lost cells on the way (noted where they were dropped already).
        let (txs, mut moved) = (&mut self.txs, 0);
        let taken = self.data.take(frame, |f, _| moved += txs.data_lost(f, now));
        self.reclassify(moved);
        match taken {
            Some((n, seg)) if first == Some(frame) && got == n => {
                self.stats.frames_delivered += 1;
                let before = self.receiver.delivered;
                let ack = self.receiver.on_segment(now, seg.seq, seg.len);
                if !tagged {
                    self.stats.clp0_delivered += self.receiver.delivered - before;
                }
                if let Some(ack) = ack {
                    self.send_ack(cell.vc, ack, bwd);
                }
                Some(sent)
            }
            taken => {
                // Cells of another frame ran into this one, or some of its own were lost.
                if taken.is_some() {
                    let moved = self.txs.data_lost(frame, now);
                    self.reclassify(moved);
                }
                self.stats.frames_corrupted += 1;
                None
            }
        }
    }

    /// An ACK cell reached the source host.
    pub fn on_ack_cell(&mut self, now: SimTime, cell: &Cell, fwd: &mut Vec<Cell>) {
        let Some((frame, first, got, _)) = self.ack_rx.on_cell(cell) else { return };
        // ACK frames skipped here lost cells on the way, each already noted where it was dropped
        // (`on_cell_dropped`), when it was dropped.
        match self.acks.take(frame, |_, _| {}) {
            Some((n, mut ack)) if first == Some(frame) && got == n => {
                // A window cap written by an edge router (FIEWA, bytes in `er`): min(rwnd, cap).
                if cell.er > 0.0 {
                    ack.rwnd = ack.rwnd.min(cell.er as u64);
                }
                self.sender.on_ack(now, &ack, &mut self.segs);
                self.ack_times.acked(self.sender.core.snd_una, now);
                self.txs.acked(self.sender.core.snd_una);
                if let Some(s) = self.sessions.as_mut() {
                    s.on_acked(now, self.sender.core.snd_una);
                }
                self.send_segments(now, cell.vc, fwd);
            }
            taken => {
                if let Some((_, ack)) = taken {
                    let moved = self.txs.ack_lost(ack.ack, now);
                    self.reclassify(moved);
                }
                self.stats.ack_frames_lost += 1;
            }
        }
    }

    /// A cell (or packet) of this connection was dropped at `now` before reaching its end: in
    /// the network, at a gateway or in the source adapter. Data and ACK frames are marked lost for
    /// the cause of a timeout (`crate::timeout_cause`); other cells do not matter here.
    pub fn on_cell_dropped(&mut self, cell: &Cell, now: SimTime) {
        let moved = match cell.kind {
            CellKind::Data => self.txs.data_lost(cell.frame, now),
            CellKind::BwdData => match self.acks.peek(cell.frame) {
                Some(ack) => self.txs.ack_lost(ack.ack, now),
                None => 0,
            },
            _ => 0,
        };
        self.reclassify(moved);
    }

    /// Timeouts counted without loss that a loss coming in late (windowed mode) shows to have
    /// followed a drop.
    fn reclassify(&mut self, moved: Reclassify) {
        self.stats.timeouts_without_loss -= moved;
        self.stats.timeouts_after_drop += moved;
    }

    /// An end's timer is due: at the source, the sender's retransmission timer and the
    /// application's write (data cells into `out`); at the destination, the receiver's delayed
    /// ACK (ACK cells into `out`).
    pub fn on_timer(&mut self, end: TcpEnd, now: SimTime, vc: VcId, out: &mut Vec<Cell>) {
        match end {
            TcpEnd::Source => {
                let (una, timeouts) = (self.sender.core.snd_una, self.sender.stats().timeouts);
                self.sender.on_timer(now, &mut self.segs);
                if self.sender.stats().timeouts > timeouts {
                    // Classed before the retransmission is registered (`send_segments` below).
                    match self.txs.cause(una, now) {
                        TimeoutCause::AfterDrop => self.stats.timeouts_after_drop += 1,
                        TimeoutCause::WithoutLoss => self.stats.timeouts_without_loss += 1,
                    }
                    debug_assert_eq!(
                        self.stats.timeouts_after_drop + self.stats.timeouts_without_loss,
                        self.sender.stats().timeouts
                    );
                }
                if let Some(s) = self.sessions.as_mut().filter(|s| s.next_wake() <= now) {
                    let bytes = s.on_wake(now);
                    self.sender.write(now, bytes, &mut self.segs);
                }
                self.send_segments(now, vc, out);
            }
            TcpEnd::Destination => {
                if let Some(ack) = self.receiver.on_timer(now) {
                    self.send_ack(vc, ack, out);
                }
            }
        }
    }
}

/// A TCP connection's end: its source host (the sender and the application) or its destination
/// host (the receiver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpEnd {
    Source = 0,
    Destination = 1,
}

/// One end's timer event (`World::schedule_tcp`): at most one live event, at or before the time
/// the timer is due. A due time that moves later (the retransmission timer restarts at every new
/// ACK) keeps the pending event, which re-arms itself at the due time when it runs: one event per
/// timeout instead of one per ACK, and a heap with a few live events instead of thousands of
/// superseded ones. Only a due time that moves earlier takes a new event, superseding the
/// pending one by its generation.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    gen: u32,
    /// When the timer is due (as last told).
    due: Option<SimTime>,
    /// When the live event runs (at or before `due`).
    event: Option<SimTime>,
}

/// What a timer event finds (`TimerSlot::fire`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fire {
    /// Superseded, or the timer stopped: nothing to do.
    Nothing,
    /// Early: the due time moved later; the event runs again then (same generation).
    Rearm(SimTime, u32),
    /// The timer is due now.
    Due,
}

impl TimerSlot {
    /// The timer is now due at `due`: the event to schedule (time, generation), if one is needed.
    pub fn arm(&mut self, due: Option<SimTime>) -> Option<(SimTime, u32)> {
        self.due = due;
        let at = due?;
        if self.event.is_some_and(|e| e <= at) {
            return None;
        }
        self.gen = self.gen.wrapping_add(1);
        self.event = Some(at);
        Some((at, self.gen))
    }

    /// The event of generation `gen` runs at `now`.
    pub fn fire(&mut self, gen: u32, now: SimTime) -> Fire {
        if gen != self.gen {
            return Fire::Nothing;
        }
        self.event = None;
        match self.due {
            None => Fire::Nothing,
            Some(at) if at > now => {
                self.event = Some(at);
                Fire::Rearm(at, gen)
            }
            Some(_) => {
                self.due = None;
                Fire::Due
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{variant, DelayedAck, TcpConfig};

    /// A timer restarted later keeps its event, which re-arms when it runs early; moved earlier,
    /// it takes a new event and the old one does nothing; stopped, the pending event does nothing.
    #[test]
    fn a_timer_slot_keeps_one_live_event() {
        let t = |ps| SimTime::from_ps(ps);
        let mut slot = TimerSlot::default();
        let (at, first) = slot.arm(Some(t(100))).expect("a first event");
        assert_eq!(at, t(100));
        assert_eq!(slot.arm(Some(t(150))), None, "later: the pending event stays");
        assert_eq!(slot.fire(first, t(100)), Fire::Rearm(t(150), first));
        assert_eq!(slot.fire(first, t(150)), Fire::Due);
        let (_, old) = slot.arm(Some(t(300))).unwrap();
        let (at, new) = slot.arm(Some(t(200))).expect("earlier: a new event");
        assert_eq!((at, new == old), (t(200), false));
        assert_eq!(slot.fire(old, t(300)), Fire::Nothing, "superseded");
        assert_eq!(slot.arm(None), None);
        assert_eq!(slot.fire(new, t(200)), Fire::Nothing, "stopped");
        assert_eq!(slot.arm(Some(t(400))).map(|(at, _)| at), Some(t(400)), "no event pending: a new one");
    }

    fn ends() -> TcpEnds {
        let cfg = TcpConfig::new(1024, 600_000);
        TcpEnds::new(
            TcpSender::new(cfg, variant("reno").unwrap()),
            TcpReceiver::new(600_000, false, DelayedAck::Off, 1024),
            SimTime::ZERO,
            HostLink::Atm { llc_snap: true },
        )
    }

    #[test]
    fn a_segment_is_23_cells_and_an_intact_frame_is_acked() {
        let mut e = ends();
        let mut fwd = Vec::new();
        e.start(SimTime::ZERO, VcId(0), &mut fwd);
        assert_eq!(fwd.len(), 23);
        assert!(fwd[22].eom() && !fwd[21].eom());
        let mut bwd = Vec::new();
        for c in &fwd {
            e.on_data_cell(SimTime::ZERO, c, &mut bwd);
        }
        assert_eq!(bwd.len(), 2, "a 40-byte ACK with LLC/SNAP and trailer is 2 cells");
        assert_eq!(e.receiver.delivered, 1024);
    }

    /// Reno hosts on IP links with 4096-byte segments (seed 002's).
    fn ip_ends() -> TcpEnds {
        let cfg = TcpConfig::new(4096, 131_072);
        TcpEnds::new(
            TcpSender::new(cfg, variant("reno").unwrap()),
            TcpReceiver::new(131_072, false, DelayedAck::Off, 4096),
            SimTime::ZERO,
            HostLink::Ip,
        )
    }

    #[test]
    fn on_ip_links_a_segment_is_one_packet_of_its_ip_length() {
        let mut e = ip_ends();
        let mut fwd = Vec::new();
        e.start(SimTime::ZERO, VcId(0), &mut fwd);
        assert_eq!((fwd.len(), fwd[0].size), (1, 4136));
        assert_eq!(e.wire_bits_per_segment(), 4136 * 8);
        let mut bwd = Vec::new();
        e.on_data_cell(SimTime::ZERO, &fwd[0], &mut bwd);
        assert_eq!((bwd.len(), bwd[0].size), (1, 40), "a pure ACK is one 40-byte packet");
        assert_eq!(e.receiver.delivered, 4096);
    }

    #[test]
    fn an_edge_routers_window_cap_lowers_the_window_and_never_raises_it() {
        let mut e = ip_ends();
        let mut fwd = Vec::new();
        e.start(SimTime::ZERO, VcId(0), &mut fwd);
        let mut bwd = Vec::new();
        e.on_data_cell(SimTime::ZERO, &fwd[0], &mut bwd);
        let mut ack = bwd[0];
        ack.er = 9000.0;
        let mut out = Vec::new();
        e.on_ack_cell(SimTime::ZERO, &ack, &mut out);
        assert_eq!(e.sender.core.rwnd, 9000);
        // A cap above the receiver's window leaves the receiver's window.
        for c in &out {
            e.on_data_cell(SimTime::ZERO, c, &mut bwd);
        }
        let mut ack = *bwd.last().unwrap();
        ack.er = 1e9;
        e.on_ack_cell(SimTime::ZERO, &ack, &mut out);
        assert_eq!(e.sender.core.rwnd, 131_072);
    }

    #[test]
    fn a_frame_missing_a_cell_is_lost_whole() {
        let mut e = ends();
        let mut fwd = Vec::new();
        e.start(SimTime::ZERO, VcId(0), &mut fwd);
        let mut bwd = Vec::new();
        for (i, c) in fwd.iter().enumerate() {
            if i != 5 {
                e.on_data_cell(SimTime::ZERO, c, &mut bwd);
            }
        }
        assert!(bwd.is_empty());
        assert_eq!(e.stats.frames_corrupted, 1);
        assert_eq!(e.receiver.delivered, 0);
    }

    #[test]
    fn losing_an_end_of_frame_corrupts_the_next_frame_too() {
        let mut e = ends();
        let mut cells = Vec::new();
        TcpEnds::frame_cells(VcId(0), CellKind::Data, e.data.push(3, Segment { seq: 0, len: 100, retransmission: false }), 3, &mut cells);
        TcpEnds::frame_cells(VcId(0), CellKind::Data, e.data.push(3, Segment { seq: 100, len: 100, retransmission: false }), 3, &mut cells);
        let mut bwd = Vec::new();
        for (i, c) in cells.iter().enumerate() {
            if i != 2 {
                e.on_data_cell(SimTime::ZERO, c, &mut bwd);
            }
        }
        assert_eq!(e.stats.frames_corrupted, 1);
        assert_eq!(e.stats.frames_delivered, 0);
    }
}
