//! Cells between nodes: a cell leaving a link's pipe at the far end (then `node/` decides what
//! it meets), a cell offered to a port (FIFO or held discipline, drops into the VC's books), a
//! held discipline's departure, and bringing everything applied lazily up to now.
//!
//! Owns the hop count; never decides routing or admission (the cell's hop and the port do).

use super::{Event, World};
use crate::cell::Cell;
use crate::ids::PortId;
use crate::port::{DropReason, InFlight};
use crate::trace::TraceReason;
use ccsim_engine::SimTime;

impl World {
    /// A pipe's head cell reached the far end (an event; windowed mode takes most arrivals from
    /// its tournament instead): the cell meets the node there. A lazy sink delivers everything up
    /// to its RM cell; a lazy source's access link that ran dry generates the source's emissions.
    #[inline]
    pub(in crate::world) fn on_pipe_arrival(&mut self, p: PortId) {
        if self.ports[p.index()].lazy_sink {
            return self.drain_sink(p, self.now, true);
        }
        let (cell, next) = self.take_arrival(p);
        let dry = self.ports[p.index()].lazy_source && next.is_none();
        if let Some(next) = next {
            self.schedule(next, Event::PipeArrival(p));
        }
        self.arrive(p, cell);
        if dry {
            self.advance_source(cell.vc);
        }
    }

    /// The head cell of pipe `p` reaches the far end now: it leaves the pipe and counts as a
    /// hop; the result is the cell and when the pipe's next cell arrives. (Its departure from
    /// the buffer is applied by the port's next `sync` or as it leaves the pipe: everything that
    /// reads the port syncs it first.)
    #[inline(always)]
    pub(in crate::world) fn take_arrival(&mut self, p: PortId) -> (Cell, Option<SimTime>) {
        let port = &mut self.ports[p.index()];
        let InFlight { arrival, cell } = port.pop_arrival().expect("an arrival has a cell");
        debug_assert_eq!(arrival, self.now);
        port.delivered += 1;
        let next = port.pipe.front().map(|n| n.arrival);
        self.cell_hops += 1;
        (cell, next)
    }

    /// A held port's event: the cell in service finished (it enters the pipe) or the idle
    /// transmitter's wake-up is due; the next eligible cell starts.
    #[inline]
    pub(in crate::world) fn on_port_departure(&mut self, p: PortId) {
        if self.ports[p.index()].is_train() {
            return self.on_train_departure(p);
        }
        let now = self.now;
        let (departed, next) = self.ports[p.index()].depart(now);
        if let Some((arrival, head)) = departed {
            if head {
                self.schedule(arrival, Event::PipeArrival(p));
            }
            if self.trace.is_some() {
                let from = self.ports[p.index()].pipe.len() - 1;
                self.trace_entered_pipe(p, from);
            }
            let port = &self.ports[p.index()];
            if port.credit().is_some() {
                let cell = port.pipe.get(port.pipe.len() - 1).expect("just departed").cell;
                self.credit_departed(p, cell);
            }
        }
        if let Some(t) = next {
            self.schedule_departure(p, t);
        }
        self.medium_discards(p);
    }

    /// Frames a CSMA/CD medium at port `p` discarded after their 16th collision (while choosing
    /// what starts) are dropped from their VCs' books. Nothing on any other port.
    #[inline]
    pub(in crate::world) fn medium_discards(&mut self, p: PortId) {
        let now = self.now;
        while let Some(cell) = self.ports[p.index()].take_medium_discard(now) {
            self.discarded_by_medium(p, cell, now);
        }
    }

    #[cold]
    #[inline(never)]
    fn discarded_by_medium(&mut self, p: PortId, cell: Cell, now: SimTime) {
        if self.trace.is_some() {
            self.trace_port(crate::trace::TraceEvent::Drop, &cell, now, p, TraceReason::ExcessiveCollisions);
        }
        self.count_drop(&cell, now)
    }

    /// A held port's next departure at `t` (its transmitter starts a cell): a credit port's first
    /// one also arms its BSC rounds (`credit_started`).
    #[inline]
    fn schedule_departure(&mut self, p: PortId, t: SimTime) {
        self.schedule(t, Event::PortDeparture(p));
        self.credit_started(p);
    }

    /// A rate notification reaches the paced host output at port `p` (HG-RCP's RN): the pacer
    /// takes the new explicit rate (cells/s) and the idle transmitter looks again, so a higher
    /// rate takes effect at once (the wake-up it had planned goes stale).
    pub fn notify_rate(&mut self, p: PortId, rate: f64) {
        let port = &mut self.ports[p.index()];
        let Some(medium) = port.lan_medium_mut() else { return };
        medium.set_rate(rate);
        if let Some(t) = port.kick(self.now) {
            self.schedule(t, Event::PortDeparture(p));
        }
        self.medium_discards(p);
    }

    /// Offers a cell to port `p`.
    #[inline]
    pub(in crate::world) fn enqueue(&mut self, p: PortId, cell: Cell) {
        self.ports[p.index()].sync(self.now);
        self.enqueue_synced(p, cell);
    }

    /// As `enqueue`, for a port already brought up to now (`Port::sync` or `Port::view`).
    #[inline]
    pub(in crate::world) fn enqueue_synced(&mut self, p: PortId, cell: Cell) {
        self.enqueue_at(p, cell, self.now);
    }

    /// Offers a cell to port `p`, brought up to `now` already, at time `now`.
    #[inline]
    pub(in crate::world) fn enqueue_at(&mut self, p: PortId, cell: Cell, now: SimTime) {
        let port = &mut self.ports[p.index()];
        if port.is_event_scheduled() {
            return self.enqueue_held(p, cell, now);
        }
        match port.offer(now, cell) {
            Ok((arrival, head)) => {
                if cell.is_rd() {
                    if let Some(c) = port.control.as_mut() {
                        // FICCRD tells RD packets from data in the queue (`ip/rd_queue.rs`).
                        c.on_rd_admitted(now, SimTime::from_ps(arrival.as_ps() - port.delay.as_ps()));
                    }
                }
                if port.lazy_sink {
                    // Only RM cells get an event (the first one in the pipe).
                    if cell.is_rm() {
                        port.sink_rm += 1;
                        if !port.sink_event {
                            port.sink_event = true;
                            self.schedule(arrival, Event::PipeArrival(p));
                        }
                    }
                } else if head {
                    self.schedule(arrival, Event::PipeArrival(p));
                }
                if self.trace.is_some() {
                    self.trace_enqueued(p, now);
                }
            }
            Err(reason) => self.refused(p, cell, now, reason),
        }
    }

    /// Offers a cell to held port `p` (`enqueue_at`): out of line, so that the FIFO path inlined
    /// at its callers stays small; a held port's cell costs a departure event anyway.
    #[inline(never)]
    fn enqueue_held(&mut self, p: PortId, mut cell: Cell, now: SimTime) {
        if self.trace.is_some() {
            self.trace_number(p, &mut cell);
        }
        if self.ports[p.index()].is_train() {
            return self.train_offer(p, cell, now);
        }
        match self.ports[p.index()].offer_held(now, cell) {
            Ok(next) => {
                if cell.is_forward() && self.ports[p.index()].credit().is_some() {
                    self.credit_received(cell.vc, cell.hop as usize);
                }
                if self.trace.is_some() {
                    self.trace_offered(p, &cell, now, TraceReason::None);
                }
                if let Some(t) = next {
                    self.schedule_departure(p, t);
                }
                self.medium_discards(p);
            }
            Err(reason) => self.refused(p, cell, now, reason),
        }
    }

    /// Port `p` refused a cell at `now`: the VC's books count it dropped (and the trace, if on).
    /// Out of line: drops are rare, and the per-cell path stays small.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn refused(&mut self, p: PortId, cell: Cell, now: SimTime, reason: DropReason) {
        if self.trace.is_some() {
            let mut c = cell;
            self.trace_number(p, &mut c);
            self.trace_offered(p, &c, now, TraceReason::Port(reason));
        }
        self.count_drop(&cell, now)
    }

    /// Brings everything that is applied lazily up to `now` before anything reads the counters
    /// (sampling, the window opening, the end of a chunk): lazy sources' emissions, lazy sinks'
    /// deliveries, ports' departures (credit trains' too).
    pub(in crate::world) fn settle(&mut self) {
        let now = self.now;
        self.catch_up_sources(now);
        self.drain_sinks(now);
        for p in &mut self.ports {
            p.sync(now);
        }
        self.train_sync_all();
    }
}
