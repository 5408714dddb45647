//! Output ports and the link pipes they feed.
//!
//! A port is one direction of one link: a finite buffer, a transmitter at the link rate and,
//! behind it, a pipe holding the cells in propagation (docs/DESIGN.md §3).
//!
//! A FIFO port is work-conserving and never reorders, so the moment a cell is accepted its
//! whole future is known: it leaves when the transmitter has finished everything ahead of it
//! (`busy_until`), and reaches the far end one propagation delay later. The cell therefore
//! goes straight into the pipe with its arrival time, and the buffer only counts it: its
//! queued cells are the pipe's newest entries, each departing one propagation delay before it
//! arrives; departures are applied lazily (`sync`) before anyone looks at the queue. This halves
//! the events per cell-hop (no departure event) and the size of the event queue, with exactly the
//! same queue lengths, drops and timings as an event per departure.
//! The only pending wake-up is the pipe's head arrival. Disciplines that reorder cannot know
//! departures in advance: they hold their cells and have one departure event pending while
//! they transmit (`discipline/`, whose module doc is the contract every discipline follows).
//!
//! Rooms: `ring.rs` (the rings pipes live in), `buffer.rs` (capacity and books),
//! `policy/` (who may enter), `discipline/` (who leaves when), `red.rs` (RED on IP ports),
//! `loss.rs` (items lost on the link).

mod buffer;
pub mod discipline;
mod loss;
pub mod policy;
mod red;
mod ring;

pub use buffer::{DropReason, PortBuffer, VcBooks};
pub use discipline::{AnyDiscipline, AnyHeldOrder, Control, ControlLine, Credit, CreditParams, CreditRx, CreditStats, CsmaCd, CsmaStats, Held, HeldFifo, LanMedium, Next, Scfq, StrictPriority, Train};
pub use loss::LinkLoss;
pub use ring::Ring;
pub use red::{Red, RedParams};
pub use policy::AnyBufferPolicy;

use crate::abr::switch::{AnyAbrSwitch, PortView};
use crate::cell::{Cell, CELL_BITS};
use crate::ids::NodeId;
use ccsim_engine::{SimDuration, SimTime, TxClock};

/// A cell in propagation and the time it reaches the far end of the link.
///
/// Aligned to 32 bytes (its size) so that no entry straddles two cache lines. The pipe's head
/// was written one propagation delay ago and is usually out of the nearer caches; reading its
/// arrival time when the pipe's next event is scheduled then brings the whole cell in, well
/// before the event runs.
#[repr(align(32))]
#[derive(Copy, Clone, Debug)]
pub struct InFlight {
    pub arrival: SimTime,
    pub cell: Cell,
}

/// Time integral and extremes of the queue length.
///
/// An event-scheduled port records every change (`record`). A FIFO port knows each cell's
/// departure when it admits it, and the integral of the queue length is the sum of the cells'
/// times in the buffer; so it adds a cell's whole stay at admission (`admit`) and, for the cells
/// still queued when someone reads the integral, the reader takes back the part still to come
/// (`Port::queue_area`). A departure then costs nothing here, and the length's maximum can only
/// rise at an admission.
///
/// `repr(C)`, the fields a FIFO admission touches first, in one cache line of the port.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct QueueStats {
    /// FIFO: the sum of (departure − admission) over every admitted cell.
    stays: u128,
    pub max: u32,
    /// Largest length since the measurement window opened.
    pub window_max: u32,
    last_len: u32,
    area: u128,
    last_change: SimTime,
}

impl QueueStats {
    #[inline]
    pub fn record(&mut self, now: SimTime, len: u32) {
        self.area += self.last_len as u128 * now.saturating_since(self.last_change).as_ps() as u128;
        self.last_change = now;
        self.last_len = len;
        self.max = self.max.max(len);
        self.window_max = self.window_max.max(len);
    }

    /// A FIFO port admitted a cell at `now` that departs at `departure`; the queue is now `len`.
    #[inline]
    pub fn admit(&mut self, now: SimTime, departure: SimTime, len: u32) {
        self.stays += (departure.as_ps() - now.as_ps()) as u128;
        self.max = self.max.max(len);
        self.window_max = self.window_max.max(len);
    }

    /// The integral of the queue length up to `now`, in cell·picoseconds, given what is still
    /// to come of the stays added at admission (the sum of `departure − now` over the cells a
    /// FIFO port still holds).
    pub fn area_at(&self, now: SimTime, to_come: u128) -> u128 {
        self.area + self.last_len as u128 * now.saturating_since(self.last_change).as_ps() as u128 + self.stays - to_come
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Port::cell_time` bounds every cell's transmission time from above, also when the rate makes
    /// it a fraction of a picosecond (CT's control cells rely on it to arrive after the data sent
    /// before them).
    #[test]
    fn cell_time_is_never_shorter_than_a_transmission() {
        for rate in [10_000_000u64, 40_704_000, 149_760_000, 25_000_000] {
            let port = Port::new("p".into(), "l".into(), NodeId(0), NodeId(1), rate, SimDuration::ZERO, 10, None, true);
            let mut clock = TxClock::new(rate);
            let longest = (0..10_000).map(|_| clock.tx_time(CELL_BITS)).max().unwrap();
            assert!(port.cell_time() >= longest, "{rate} b/s: {:?} < {:?}", port.cell_time(), longest);
            assert!(port.cell_time().as_ps() - longest.as_ps() <= 1);
        }
    }

    /// The FIFO bookkeeping (a cell's whole stay at admission, the rest taken back while it is
    /// queued) integrates the same queue length as recording every change.
    #[test]
    fn fifo_stays_integrate_the_queue_length() {
        let t = SimTime::from_ps;
        // (admission, departure) of four cells through one FIFO port, departures in order.
        let cells = [(0, 10), (2, 20), (3, 25), (30, 41)];
        let mut fifo = QueueStats::default();
        let mut events = Vec::new();
        for &(a, d) in &cells {
            events.push((a, 1i32, d));
            events.push((d, -1, 0));
        }
        events.sort_by_key(|e| (e.0, e.1));
        let mut reference = QueueStats::default();
        let mut len = 0u32;
        let mut queued = std::collections::VecDeque::new();
        for (time, step, dep) in events {
            // Departures first at a tie, as a port syncs before it admits.
            if step < 0 {
                len -= 1;
                queued.pop_front();
            } else {
                len += 1;
                fifo.admit(t(time), t(dep), len);
                queued.push_back(dep);
            }
            reference.record(t(time), len);
            for probe in [time, time + 1] {
                // Between changes (with the cells still queued departing later than `probe`).
                if queued.front().is_none_or(|&d| d > probe) {
                    let to_come = queued.iter().map(|&d| (d - probe) as u128).sum();
                    assert_eq!(fifo.area_at(t(probe), to_come), reference.area_at(t(probe), 0), "at {probe}");
                }
            }
        }
        assert_eq!(fifo.area_at(t(50), 0), (10 + 18 + 22 + 11) as u128);
        assert_eq!((fifo.max, reference.max), (3, 3));
    }
}

/// `repr(C)` with the fields every cell touches first, and aligned to a cache line: a port is
/// 576 bytes (its scheme, RED and IP control boxed), and ~100 ports do not fit in L1, so every
/// line a cell touches is likely a miss. The first line holds the pipe and the transmitter's
/// times; the second the clock and the scheme's and RED's pointers; the third the counters, the
/// flags and the buffer's counts. A cell leaving the pipe touches the first and the third, a
/// cell offered those, the second and the queue statistics' (docs/benchmarks.md); with rustc's
/// ordering they spread over twice as many.
#[repr(C, align(64))]
pub struct Port {
    /// Cells in propagation with their arrival times, oldest first.
    pub pipe: Ring<InFlight>,
    /// FIFO (departures known at admission) or a held discipline (departures as events).
    pub discipline: AnyDiscipline,
    pub delay: SimDuration,
    /// When the transmitter finishes the last accepted cell.
    busy_until: SimTime,
    clock: TxClock,
    /// The ABR rate-allocation scheme; only switch ports have one (boxed: ~300 bytes that host
    /// ports, most ports of a large run, would carry empty).
    pub scheme: Option<Box<AnyAbrSwitch>>,
    /// Random Early Detection on a packet port (boxed, as the rare parts below: most ports have
    /// none, and large runs have hundreds of thousands of ports).
    pub red: Option<Box<Red>>,
    /// Link capacity in cells per second (computed once: every switch hook's view has it).
    cell_rate: f64,
    /// Cells that finished transmission (and entered the pipe).
    pub departed: u64,
    /// Their bits on the wire (utilisation of packet links, where sizes differ).
    pub departed_bits: u64,
    /// Cells that finished crossing the link.
    pub delivered: u64,
    /// An IP link: the items are packets of their own sizes and the buffer counts packets.
    pub packets: bool,
    /// The link to an ABR destination host, which only counts data cells: they are delivered
    /// in batches (before the next RM cell, a sample, the window opening, the end of a chunk)
    /// rather than by an event each (`World::drain_sink`).
    pub lazy_sink: bool,
    /// The access link of a lazy ABR source (`World::catch_up_source`): when its pipe runs dry
    /// the source's pending emissions are generated.
    pub lazy_source: bool,
    /// Whether the arrival of the first RM cell in a lazy sink's pipe is scheduled.
    pub sink_event: bool,
    /// RM cells in the pipe of a lazy sink.
    pub sink_rm: u32,
    pub buffer: PortBuffer,
    pub queue: QueueStats,
    /// Loss on the link (faults); `None`: every item arrives.
    pub loss: Option<Box<LinkLoss>>,
    /// IP congestion control of a router port (FICCRD's MAPR/DPF), fed by RD packets.
    pub control: Option<Box<crate::ip::AnyIpControl>>,
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub link_name: String,
    /// Whether this port belongs to a switch (host ports are left out of queue plots).
    pub at_switch: bool,
}

impl Port {
    pub fn new(
        name: String,
        link_name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimDuration,
        buffer_cells: u32,
        scheme: Option<AnyAbrSwitch>,
        at_switch: bool,
    ) -> Self {
        Port {
            name,
            from,
            to,
            link_name,
            buffer: PortBuffer::new(buffer_cells),
            clock: TxClock::new(rate_bps),
            cell_rate: rate_bps as f64 / CELL_BITS as f64,
            delay,
            pipe: Ring::default(),
            scheme: scheme.map(Box::new),
            busy_until: SimTime::ZERO,
            discipline: AnyDiscipline::Fifo,
            queue: QueueStats::default(),
            departed: 0,
            departed_bits: 0,
            packets: false,
            red: None,
            loss: None,
            control: None,
            lazy_sink: false,
            sink_rm: 0,
            sink_event: false,
            lazy_source: false,
            delivered: 0,
            at_switch,
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.clock.bits_per_sec()
    }

    /// The time one cell takes on the link, rounded up to the picosecond: never shorter than a
    /// transmission (the transmitter's clock spreads the fraction, taking one picosecond more now
    /// and then).
    pub fn cell_time(&self) -> SimDuration {
        let ps = CELL_BITS as u128 * ccsim_engine::PS_PER_SEC as u128;
        SimDuration::from_ps(ps.div_ceil(self.rate_bps() as u128) as u64)
    }

    /// When a FIFO port brought up to `now` would start transmitting a cell offered now: once
    /// it has finished everything it accepted before.
    #[inline]
    pub fn tx_start(&self, now: SimTime) -> SimTime {
        now.max(self.busy_until)
    }

    /// Link capacity in cells per second.
    #[inline]
    pub fn cell_rate(&self) -> f64 {
        self.cell_rate
    }

    /// The integral of the queue length up to `now` (after `sync(now)`), in cell·picoseconds.
    pub fn queue_area(&self, now: SimTime) -> u128 {
        let to_come = self.queued_entries().map(|f| self.departure_of(f).saturating_since(now).as_ps() as u128).sum();
        self.queue.area_at(now, to_come)
    }

    /// Applies departures up to `now` and returns what a switch scheme may see of the port.
    #[inline]
    pub fn view(&mut self, now: SimTime) -> PortView {
        self.sync(now);
        PortView { now, queue_len: self.buffer.len(), link_rate: self.cell_rate }
    }
}
