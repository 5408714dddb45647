//! Output ports and the link pipes they feed.
//!
//! A port is one direction of one link: a finite buffer, a transmitter at the link rate and,
//! behind it, a pipe holding the cells in propagation (STYLE §3).
//!
//! A FIFO port is work-conserving and never reorders, so the moment a cell is accepted its
//! whole future is known: it leaves when the transmitter has finished everything ahead of it
//! (`busy_until`), and reaches the far end one propagation delay later. The cell therefore
//! goes straight into the pipe with its arrival time, and the buffer keeps only a token with
//! the departure time; departures are applied lazily (`sync`) before anyone looks at the
//! queue. This halves the events per cell-hop (no departure event) and the size of the event
//! queue, with exactly the same queue lengths, drops and timings as an event per departure.
//! The only pending wake-up is the pipe's head arrival. Schedulers that reorder cannot know
//! departures in advance: a strict-priority port holds its cells and has one departure event
//! pending while it transmits (`Scheduling::StrictPriority`).

mod buffer;
mod fifo;
pub mod policy;
mod red;

pub use buffer::{DropReason, PortBuffer, Token, VcBooks};
pub use fifo::Fifo;
pub use red::{Red, RedParams};
pub use policy::AnyBufferPolicy;

use crate::abr::switch::{AnyAbrSwitch, PortView};
use crate::cell::{Cell, CELL_BITS};
use crate::ids::NodeId;
use ccsim_engine::{SimDuration, SimTime, TxClock};
use std::collections::VecDeque;

/// How a port orders its cells (the `AnyScheduler` family).
#[derive(Clone, Debug, Default)]
pub enum Scheduling {
    /// First in, first out; a cell's departure is computed when it is admitted (fast path).
    #[default]
    Fifo,
    /// CBR/VBR cells before ABR/UBR cells, non-preemptive. A later high-priority arrival can
    /// delay queued cells, so departures are events (`World`'s `PortDeparture`). High-priority
    /// cells have their own unbounded queue and are never dropped [RECON]; the finite buffer and
    /// its policy apply to the low-priority class.
    /// Boxed: only VBR routes have such ports, and inline the queues would push the port's
    /// per-cell fields apart (see `Port`).
    StrictPriority(Box<PriorityQueues>),
}

#[derive(Clone, Debug, Default)]
pub struct PriorityQueues {
    high: VecDeque<Cell>,
    low: VecDeque<Cell>,
    /// The cell being transmitted, chosen when its transmission began.
    in_service: Option<Cell>,
}

impl PriorityQueues {
    fn pick(&mut self) -> Option<Cell> {
        self.high.pop_front().or_else(|| self.low.pop_front())
    }

    /// Every cell held, for conservation counts.
    pub fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.in_service.iter().chain(self.high.iter()).chain(self.low.iter())
    }
}

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
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    area: u128,
    last_change: SimTime,
    last_len: u32,
    /// FIFO: the sum of (departure − admission) over every admitted cell.
    stays: u128,
    pub max: u32,
    /// Largest length since the measurement window opened.
    pub window_max: u32,
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
/// ~850 bytes, mostly the switch scheme's state, and ~100 ports do not fit in L1, so every line
/// a cell touches is likely a miss. The per-cell fields (up to the buffer's books) span five
/// lines; with rustc's ordering they spread over twice as many.
#[repr(C, align(64))]
pub struct Port {
    /// Cells in propagation with their arrival times, oldest first.
    pub pipe: Fifo<InFlight>,
    clock: TxClock,
    /// FIFO (departures known at admission) or strict priority (departures as events).
    pub scheduling: Scheduling,
    /// Link capacity in cells per second (computed once: every switch hook's view has it).
    cell_rate: f64,
    pub delay: SimDuration,
    /// When the transmitter finishes the last accepted cell.
    busy_until: SimTime,
    /// Cells that finished transmission (and entered the pipe).
    pub departed: u64,
    /// Their bits on the wire (utilisation of packet links, where sizes differ).
    pub departed_bits: u64,
    /// An IP link: the items are packets of their own sizes and the buffer counts packets.
    pub packets: bool,
    /// The link to an ABR destination host, which only counts data cells: they are delivered
    /// in batches (before the next RM cell, a sample, the window opening, the end of a chunk)
    /// rather than by an event each (`World::drain_sink`).
    pub lazy_sink: bool,
    /// RM cells in the pipe of a lazy sink, and whether the first one's arrival is scheduled.
    pub sink_rm: u32,
    pub sink_event: bool,
    /// The access link of a lazy ABR source (`World::catch_up_source`): when its pipe runs dry
    /// the source's pending emissions are generated.
    pub lazy_source: bool,
    /// Cells that finished crossing the link.
    pub delivered: u64,
    pub queue: QueueStats,
    pub buffer: PortBuffer,
    /// The ABR rate-allocation scheme; only switch ports have one.
    pub scheme: Option<AnyAbrSwitch>,
    /// Random Early Detection on a packet port.
    pub red: Option<Red>,
    /// IP congestion control of a router port (FICCRD's MAPR/DPF), fed by RD packets.
    pub control: Option<crate::ip::AnyIpControl>,
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
        n_vcs: usize,
        scheme: Option<AnyAbrSwitch>,
        at_switch: bool,
    ) -> Self {
        Port {
            name,
            from,
            to,
            link_name,
            buffer: PortBuffer::new(buffer_cells, n_vcs),
            clock: TxClock::new(rate_bps),
            cell_rate: rate_bps as f64 / CELL_BITS as f64,
            delay,
            pipe: Fifo::default(),
            scheme,
            busy_until: SimTime::ZERO,
            scheduling: Scheduling::Fifo,
            queue: QueueStats::default(),
            departed: 0,
            departed_bits: 0,
            packets: false,
            red: None,
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

    /// Link capacity in cells per second.
    #[inline]
    pub fn cell_rate(&self) -> f64 {
        self.cell_rate
    }

    /// Applies every departure up to `now`: the queue length and its statistics then hold
    /// for `now`.
    #[inline]
    pub fn sync(&mut self, now: SimTime) {
        while let Some(token) = self.buffer.pop_departed(now) {
            self.departed += 1;
            self.departed_bits += token.size as u64 * 8;
        }
    }

    /// The integral of the queue length up to `now` (after `sync(now)`), in cell·picoseconds.
    pub fn queue_area(&self, now: SimTime) -> u128 {
        let to_come = self.buffer.tokens().map(|t| t.departure.saturating_since(now).as_ps() as u128).sum();
        self.queue.area_at(now, to_come)
    }

    /// Applies departures up to `now` and returns what a switch scheme may see of the port.
    #[inline]
    pub fn view(&mut self, now: SimTime) -> PortView {
        self.sync(now);
        PortView { now, queue_len: self.buffer.len(), link_rate: self.cell_rate }
    }

    pub fn is_event_scheduled(&self) -> bool {
        matches!(self.scheduling, Scheduling::StrictPriority(_))
    }

    /// Offers a cell to an event-scheduled port. If the transmitter was idle the cell starts
    /// now and the result is when its transmission ends (the caller schedules the departure).
    pub fn offer_scheduled(&mut self, now: SimTime, cell: Cell) -> Result<Option<SimTime>, DropReason> {
        let Scheduling::StrictPriority(q) = &mut self.scheduling else { unreachable!("FIFO ports use offer") };
        if cell.high_priority() {
            q.high.push_back(cell);
        } else {
            self.buffer.admit(&cell)?;
            q.low.push_back(cell);
            self.queue.record(now, self.buffer.len());
        }
        if q.in_service.is_some() {
            return Ok(None);
        }
        q.in_service = q.pick();
        let bits = q.in_service.as_ref().map_or(CELL_BITS, Cell::bits);
        Ok(Some(now + self.clock.tx_time(bits)))
    }

    /// The cell in service finished transmission at `now`: it enters the pipe (the result says
    /// when it arrives and whether it is the pipe's new head) and the next cell starts (with
    /// the time its transmission ends).
    pub fn depart(&mut self, now: SimTime) -> ((SimTime, bool), Option<SimTime>) {
        let Scheduling::StrictPriority(q) = &mut self.scheduling else { unreachable!("FIFO ports do not depart") };
        let cell = q.in_service.take().expect("a departure has a cell in service");
        if !cell.high_priority() {
            self.buffer.release(cell.vc);
            self.queue.record(now, self.buffer.len());
        }
        self.departed += 1;
        self.departed_bits += cell.bits();
        let arrival = now + self.delay;
        let head = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrival, cell });
        q.in_service = q.pick();
        let clock = &mut self.clock;
        let next = q.in_service.as_ref().map(|c| now + clock.tx_time(c.bits()));
        ((arrival, head), next)
    }

    /// Offers a cell at `now` (after `sync(now)`). If it fits, it enters the pipe and the
    /// result says when it reaches the far end and whether it is the pipe's new head (the
    /// caller then schedules the arrival).
    #[inline]
    pub fn offer(&mut self, now: SimTime, cell: Cell) -> Result<(SimTime, bool), DropReason> {
        debug_assert!(self.buffer.head_departure().is_none_or(|d| d > now), "sync before offer");
        if let Some(red) = self.red.as_mut() {
            let idle_since = self.buffer.is_empty().then_some(self.busy_until);
            if red.on_arrival(now, self.buffer.len(), idle_since) {
                self.buffer.reject(cell.vc, DropReason::Early);
                return Err(DropReason::Early);
            }
        }
        let clock = &mut self.clock;
        let busy_until = &mut self.busy_until;
        let dep = self.buffer.offer(&cell, || {
            let t = now.max(*busy_until) + clock.tx_time(cell.bits());
            *busy_until = t;
            t
        })?;
        self.queue.admit(now, dep, self.buffer.len());
        let arrival = dep + self.delay;
        let head = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrival, cell });
        Ok((arrival, head))
    }
}
