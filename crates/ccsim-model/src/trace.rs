//! The per-item event trace (issue #16): every `send`, `enqueue`, `dequeue`, `drop` and
//! `deliver` of the traced flows' cells and packets, as columns.
//!
//! The world records a row where its books count the item (`world/trace.rs` names the hooks);
//! this type only holds the rows, filters them by flow and time, and keeps the memory limit.
//! Off, a world holds no `Trace` and every hook is one test of an `Option`.
//!
//! Rows are appended in the order the engine runs them, which is not time order: a lazy sink
//! delivers its cells late in a batch (each at its own arrival time), a lazy source generates its
//! emissions late, and the windowed mode runs one node a window ahead of another. `finish`
//! sorts them once, by every column (time first), so the trace is one canonical table whatever
//! the engine's mode: simultaneous rows come in the order of their columns, not of the run.
//!
//! The memory limit: rows take `ROW_BYTES` each, and a trace keeps at most `max_rows`. Past the
//! limit it is cut at a time (`cut`): the time of the earliest row that does not fit, the
//! `max_rows + 1`-th in time order. A cut trace holds every event of its flows before `cut` and
//! nothing after, whatever order the rows came in (engine modes, threads). While recording, up to
//! an eighth more rows are held before the latest are dropped (`compact`), so that rows arriving
//! out of time order past the limit cost a constant time each. On threads each thread records its
//! own rows and thread 0's trace takes the others' (`absorb`): the rows before every thread's cut
//! are all there, and the trace is the one a single thread records.

use crate::cell::{Cell, CellKind};
use crate::port::DropReason;
use ccsim_engine::SimTime;

/// What happened to an item.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TraceEvent {
    /// It left its end host (source or, going back, destination) or an edge that creates items
    /// (an RD packet at its source edge, a gateway's cells): the books' `sent`.
    Send = 0,
    /// An output port accepted it into its buffer.
    Enqueue = 1,
    /// It left the port's buffer: its transmission on the link ended (the buffer counts an item
    /// until then) and its propagation began.
    Dequeue = 2,
    /// It was refused or discarded, with a reason (the books' `dropped`).
    Drop = 3,
    /// The end that counts it took it (the books' `delivered`).
    Deliver = 4,
}

impl TraceEvent {
    pub const NAMES: [&'static str; 5] = ["send", "enqueue", "dequeue", "drop", "deliver"];
}

/// The `seq` column of a row that has no TCP sequence number (null).
pub const NO_SEQ: u64 = u64::MAX;

/// Why a traced item was dropped: a port buffer's reasons (`DropReason`) and the others.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceReason {
    /// Not a drop.
    None,
    /// A port's reason: `DropReason as u8 + 1`.
    Port(DropReason),
    /// A lossy link lost it (`link.loss`).
    LinkLoss,
    /// An HG-RCP gateway's ABR-SAP buffer had no room for the packet.
    GatewayFull,
    /// A CSMA/CD LAN discarded the frame after its 16th collision (attemptLimit).
    ExcessiveCollisions,
}

impl TraceReason {
    /// Null, the port reasons in `DropReason::ALL` order, then the others.
    pub const NAMES: [&'static str; 10] = [
        "",
        "overflow",
        "selective",
        "frame_discard",
        "partial_discard",
        "early",
        "policed",
        "link_loss",
        "gateway_full",
        "excessive_collisions",
    ];

    #[inline]
    pub fn code(self) -> u8 {
        match self {
            TraceReason::None => 0,
            TraceReason::Port(r) => r.index() as u8 + 1,
            TraceReason::LinkLoss => DropReason::COUNT as u8 + 1,
            TraceReason::GatewayFull => DropReason::COUNT as u8 + 2,
            TraceReason::ExcessiveCollisions => DropReason::COUNT as u8 + 3,
        }
    }
}

/// The `uid` of an item of flow `vc`, kind `kind` and (unwrapped) frame number `frame`: the flow
/// in the top 24 bits, the kind in the next 3, the frame in the low 37.
pub fn uid(vc: u32, kind: u8, frame: u64) -> u64 {
    (vc as u64) << 40 | (kind as u64 & 7) << 37 | (frame & ((1 << 37) - 1))
}

/// The names of the `kind` column's codes (`CellKind as u8`).
pub const KIND_NAMES: [&str; 7] = ["rd_fwd", "data", "frm", "brm", "ack", "rd_bwd", "icmp"];

/// Bytes a row takes in the columns (the memory limit's unit).
pub const ROW_BYTES: u64 = 8 + 1 + 4 + 4 + 1 + 8 + 2 + 1 + 8;

/// Which rows to keep.
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// Per VC, whether its rows are kept (empty: every VC).
    pub flows: Vec<bool>,
    /// Rows at `from <= time < to`.
    pub from: SimTime,
    pub to: SimTime,
    /// The most rows held (`max_mb` / `ROW_BYTES`).
    pub max_rows: u64,
}

/// The trace's columns. `place` is a port index for rows at a port (enqueue, drops at a port or
/// its link), else `ports + node index` (send and deliver at a host, an edge, a gateway).
#[derive(Clone, Debug)]
pub struct Trace {
    spec: TraceSpec,
    pub time_ps: Vec<u64>,
    pub event: Vec<u8>,
    pub vc: Vec<u32>,
    pub place: Vec<u32>,
    pub kind: Vec<u8>,
    /// The item's frame (packet) number within its flow and kind, counted without wrapping
    /// (`unwrap_frame`).
    pub frame: Vec<u64>,
    pub size: Vec<u16>,
    pub reason: Vec<u8>,
    /// A TCP data item's segment sequence number (bytes), an ACK item's cumulative ACK; `NO_SEQ`
    /// otherwise.
    pub seq: Vec<u64>,
    /// Per (VC, kind), the frame number last unwrapped (`unwrap_frame`).
    last_frame: Vec<u64>,
    /// The earliest time of a row refused for the memory limit: the trace is complete before it.
    pub cut: Option<SimTime>,
    /// The rows are in time order (as recorded), and in `finish`'s order (after it).
    sorted: bool,
    canonical: bool,
}

impl Trace {
    pub fn new(spec: TraceSpec) -> Trace {
        Trace {
            spec,
            time_ps: Vec::new(),
            event: Vec::new(),
            vc: Vec::new(),
            place: Vec::new(),
            kind: Vec::new(),
            frame: Vec::new(),
            size: Vec::new(),
            reason: Vec::new(),
            seq: Vec::new(),
            last_frame: Vec::new(),
            cut: None,
            sorted: true,
            canonical: true,
        }
    }

    pub fn spec(&self) -> &TraceSpec {
        &self.spec
    }

    pub fn len(&self) -> usize {
        self.time_ps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ps.is_empty()
    }

    /// Row `i`'s unit: its flow, kind and frame number in one integer (`uid`), unique per unit
    /// within the run: a cell of an ABR or background source, an RM cell, an ICMP message (each
    /// numbered in its flow), an IP packet, or an AAL5 frame (whose cells share it, as a packet
    /// and the cells an HG-RCP gateway carries it in do).
    pub fn uid(&self, i: usize) -> u64 {
        uid(self.vc[i], self.kind[i], self.frame[i])
    }

    /// Whether the rows are sorted (`finish` ran after the last row).
    pub fn is_finished(&self) -> bool {
        self.canonical
    }

    /// Records a row if its flow and time are traced and the limit allows; `seq` is the TCP
    /// sequence number the item carries (`NO_SEQ`: none).
    pub fn record(&mut self, ev: TraceEvent, cell: &Cell, t: SimTime, place: u32, reason: TraceReason, seq: u64) {
        let s = &self.spec;
        if !s.flows.is_empty() && !s.flows[cell.vc.index()] {
            return;
        }
        // Every row of a traced flow moves its frame counter on, inside the time span or not.
        let frame = self.unwrap_frame(cell);
        let s = &self.spec;
        if t < s.from || t >= s.to || self.cut.is_some_and(|c| t >= c) {
            return;
        }
        if self.time_ps.len() >= self.held_at_most() {
            self.compact();
            if self.cut.is_some_and(|c| t >= c) {
                return;
            }
        }
        if self.time_ps.len() == self.time_ps.capacity() {
            self.grow();
        }
        self.sorted &= self.time_ps.last().is_none_or(|&l| l <= t.as_ps());
        self.canonical = false;
        self.time_ps.push(t.as_ps());
        self.event.push(ev as u8);
        self.vc.push(cell.vc.0);
        self.place.push(place);
        self.kind.push(cell.kind as u8);
        self.frame.push(frame);
        self.size.push(cell.size);
        self.reason.push(reason.code());
        self.seq.push(seq);
    }

    /// The item's frame number without wrapping. Cells carry 16 bits of it (only frames in
    /// flight at once must differ); per flow and kind the trace takes the number nearest to the
    /// one it last saw (its rows come nearly in order: a flow's frames in flight, and the rows a
    /// lazy end or the windowed engine records late, span far fewer than 2^15 frames).
    fn unwrap_frame(&mut self, cell: &Cell) -> u64 {
        const KINDS: usize = 8;
        let slot = cell.vc.index() * KINDS + cell.kind as usize;
        if slot >= self.last_frame.len() {
            self.last_frame.resize((slot / KINDS + 1) * KINDS, 0);
        }
        let last = self.last_frame[slot];
        let step = cell.frame.wrapping_sub(last as u16) as i16 as i64;
        let frame = (last as i64 + step).max(0) as u64;
        self.last_frame[slot] = frame;
        frame
    }

    /// Rows held at most while recording: `max_rows` and an eighth more (`compact`).
    fn held_at_most(&self) -> usize {
        let max = self.spec.max_rows as usize;
        max.saturating_add((max / 8).max(1))
    }

    /// Past `max_rows` rows, keeps those before the `max_rows + 1`-th earliest's time, the new
    /// `cut`. Every row before the old cut is held (later ones were refused), so every row
    /// before the new one is too.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        let max = self.spec.max_rows as usize;
        if self.len() <= max {
            return;
        }
        let mut times = self.time_ps.clone();
        let cut = *times.select_nth_unstable(max).1;
        drop(times);
        let keep: Vec<usize> = (0..self.len()).filter(|&i| self.time_ps[i] < cut).collect();
        self.permute(&keep);
        self.cut = Some(SimTime::from_ps(cut));
    }

    /// Threads (`world/gather.rs`): takes `other`'s rows, another thread's trace of the same
    /// spec, leaving it empty (it goes on recording, with its cut). Rows at or after either cut
    /// are left out: before both, each thread's rows are all held.
    pub fn absorb(&mut self, other: &mut Trace) {
        if let Some(c) = other.cut {
            self.cut = Some(self.cut.map_or(c, |m| m.min(c)));
        }
        let cut = self.cut.map_or(u64::MAX, |c| c.as_ps());
        if self.time_ps.iter().any(|&t| t >= cut) {
            let keep: Vec<usize> = (0..self.len()).filter(|&i| self.time_ps[i] < cut).collect();
            self.permute(&keep);
        }
        for i in (0..other.len()).filter(|&i| other.time_ps[i] < cut) {
            self.time_ps.push(other.time_ps[i]);
            self.event.push(other.event[i]);
            self.vc.push(other.vc[i]);
            self.place.push(other.place[i]);
            self.kind.push(other.kind[i]);
            self.frame.push(other.frame[i]);
            self.size.push(other.size[i]);
            self.reason.push(other.reason[i]);
            self.seq.push(other.seq[i]);
        }
        if !other.is_empty() {
            self.sorted = false;
            self.canonical = false;
        }
        other.permute(&[]);
        if self.len() > self.held_at_most() {
            self.compact();
        }
    }

    /// Room for more rows: doubling, but never past what is held at most (`held_at_most`).
    #[cold]
    fn grow(&mut self) {
        let len = self.time_ps.len();
        let more = len.max(4096).min(self.held_at_most().saturating_sub(len)).max(1);
        self.time_ps.reserve_exact(more);
        self.event.reserve_exact(more);
        self.vc.reserve_exact(more);
        self.place.reserve_exact(more);
        self.kind.reserve_exact(more);
        self.frame.reserve_exact(more);
        self.size.reserve_exact(more);
        self.reason.reserve_exact(more);
        self.seq.reserve_exact(more);
    }

    /// Keeps at most `max_rows` rows (`compact`) and sorts them by (time, flow, event, place,
    /// kind, reason, frame, size, seq). Idempotent.
    pub fn finish(&mut self) {
        if self.canonical {
            return;
        }
        self.canonical = true;
        self.compact();
        // The order: (time, flow, event, place, kind, reason) packed into one u128, then (frame,
        // size, seq); rows equal in all of them are equal. Sorting packed keys in one array is
        // several times faster than comparing columns through an index.
        let packed = |i: usize| -> u128 {
            (self.time_ps[i] as u128) << 64
                | (self.vc[i] as u128 & 0xff_ffff) << 40
                | (self.event[i] as u128 & 7) << 37
                | (self.place[i] as u128 & 0x7ff_ffff) << 10
                | (self.kind[i] as u128 & 7) << 7
                | (self.reason[i] as u128 & 0x7f)
        };
        let rest = |i: usize| (self.frame[i], self.size[i], self.seq[i]);
        let mut keys: Vec<(u128, u32)> = (0..self.len()).map(|i| (packed(i), i as u32)).collect();
        let in_order = keys.windows(2).all(|w| (w[0].0, rest(w[0].1 as usize)) <= (w[1].0, rest(w[1].1 as usize)));
        if !in_order {
            keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| rest(a.1 as usize).cmp(&rest(b.1 as usize))));
            let order: Vec<usize> = keys.iter().map(|&(_, i)| i as usize).collect();
            drop(keys);
            self.permute(&order);
        }
        self.sorted = true;
    }

    /// Keeps the rows `order` names, in that order.
    fn permute(&mut self, order: &[usize]) {
        fn take<T: Copy>(v: &mut Vec<T>, order: &[usize]) {
            *v = order.iter().map(|&i| v[i]).collect();
        }
        take(&mut self.time_ps, order);
        take(&mut self.event, order);
        take(&mut self.vc, order);
        take(&mut self.place, order);
        take(&mut self.kind, order);
        take(&mut self.frame, order);
        take(&mut self.size, order);
        take(&mut self.reason, order);
        take(&mut self.seq, order);
    }
}

/// Whether a kind travels forward (source to destination): the trace's direction, for the
/// books' forward and backward counts.
pub fn is_forward_kind(kind: u8) -> bool {
    kind <= CellKind::Frm as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;

    fn spec(max_rows: u64) -> TraceSpec {
        TraceSpec { flows: vec![true, false], from: SimTime::from_ps(10), to: SimTime::from_ps(100), max_rows }
    }

    #[test]
    fn rows_outside_the_flows_or_the_times_are_not_kept() {
        let mut t = Trace::new(spec(100));
        let (a, b) = (Cell::data(VcId(0)), Cell::data(VcId(1)));
        for ps in [5, 10, 50, 99, 100] {
            t.record(TraceEvent::Send, &a, SimTime::from_ps(ps), 0, TraceReason::None, NO_SEQ);
            t.record(TraceEvent::Send, &b, SimTime::from_ps(ps), 0, TraceReason::None, NO_SEQ);
        }
        assert_eq!(t.time_ps, vec![10, 50, 99]);
        assert!(t.vc.iter().all(|&v| v == 0));
    }

    /// Rows recorded out of order come out sorted; past the limit the trace keeps exactly the
    /// rows before the time of the first that does not fit, in time order, whatever order they
    /// came in, and whether one trace or two (threads) recorded them.
    #[test]
    fn finish_sorts_and_a_cut_keeps_everything_before_the_first_row_that_does_not_fit() {
        let a = Cell::data(VcId(0));
        let rec = |t: &mut Trace, ps: u64| t.record(TraceEvent::Deliver, &a, SimTime::from_ps(ps), 0, TraceReason::None, NO_SEQ);
        let times = [50, 20, 60, 40, 30, 40, 90, 25, 70];
        for order in [times.to_vec(), times.iter().rev().copied().collect()] {
            let mut t = Trace::new(spec(3));
            order.iter().for_each(|&ps| rec(&mut t, ps));
            t.finish();
            assert_eq!((t.time_ps.clone(), t.cut), (vec![20, 25, 30], Some(SimTime::from_ps(40))), "{order:?}");
            let mut t = Trace::new(spec(4));
            order.iter().for_each(|&ps| rec(&mut t, ps));
            t.finish();
            assert_eq!((t.time_ps.clone(), t.cut), (vec![20, 25, 30], Some(SimTime::from_ps(40))), "a tie at the cut: both out");
            let (mut one, mut two) = (Trace::new(spec(3)), Trace::new(spec(3)));
            for (k, &ps) in order.iter().enumerate() {
                rec(if k % 2 == 0 { &mut one } else { &mut two }, ps);
                if k == 4 {
                    one.absorb(&mut two);
                }
            }
            one.absorb(&mut two);
            one.finish();
            assert_eq!((one.time_ps.clone(), one.cut), (vec![20, 25, 30], Some(SimTime::from_ps(40))), "two threads");
        }
        let mut t = Trace::new(spec(3));
        for ps in [50, 20, 60] {
            rec(&mut t, ps);
        }
        t.finish();
        assert_eq!((t.time_ps.clone(), t.cut), (vec![20, 50, 60], None), "at the limit: whole");
        let mut t = Trace::new(spec(10));
        for ps in [50, 20, 60, 40, 30] {
            t.record(TraceEvent::Drop, &a, SimTime::from_ps(ps), 3, TraceReason::Port(DropReason::Overflow), NO_SEQ);
        }
        t.finish();
        assert_eq!(t.time_ps, vec![20, 30, 40, 50, 60]);
        assert!(t.reason.iter().all(|&r| TraceReason::NAMES[r as usize] == "overflow"));
    }

    /// Frame numbers count on past the 16 bits a cell carries: 70,000 frames of one flow, their
    /// numbers wrapping twice in the cells, come out as 0..70,000; a row recorded a little late
    /// (an older frame after a newer one) keeps its own number.
    #[test]
    fn frame_numbers_do_not_wrap() {
        let mut t = Trace::new(TraceSpec { flows: vec![], from: SimTime::ZERO, to: SimTime::MAX, max_rows: 1 << 20 });
        let mut c = Cell::data(VcId(0));
        for n in 0..70_000u64 {
            c.frame = n as u16;
            t.record(TraceEvent::Send, &c, SimTime::from_ps(n), 0, TraceReason::None, NO_SEQ);
        }
        assert!(t.frame.iter().enumerate().all(|(i, &f)| f == i as u64));
        c.frame = 69_990u64 as u16;
        t.record(TraceEvent::Deliver, &c, SimTime::from_ps(80_000), 0, TraceReason::None, NO_SEQ);
        assert_eq!(*t.frame.last().unwrap(), 69_990);
        // Another kind of the same flow has its own numbers.
        let mut ack = Cell::data(VcId(0));
        ack.kind = crate::cell::CellKind::BwdData;
        ack.frame = 3;
        t.record(TraceEvent::Send, &ack, SimTime::from_ps(80_001), 0, TraceReason::None, NO_SEQ);
        assert_eq!(*t.frame.last().unwrap(), 3);
    }
}
