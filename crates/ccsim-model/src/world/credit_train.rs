//! Credit trains in the world (docs/models/credit.md, docs/DESIGN.md §2): a credit port that one
//! connection alone uses schedules its cells when they may start (`port::Train`), with no
//! departure event per cell. What a departure does is applied lazily, in time order, before
//! anything reads the port (`train_sync`): an offer into it, a BSC at the receiver of the hop
//! into it (`credit_receiver_sync`, `on_bsc`), a sample, the window opening, the end of a chunk.
//! The only departure that must happen at its own time is the one that completes the upstream
//! receiver's N2 count (its BSU joins that port's control cells, which stay in time order): the
//! port keeps one `PortDeparture` event at that departure (`train_rearm`). A first hop has no
//! upstream receiver and needs no event at all.
//!
//! "Applied up to now" follows the held discipline's event order at the picosecond: a departure
//! at `now` has happened iff its `PortDeparture` event would already have run (its intrinsic tie
//! against the current event's), so arrivals at that picosecond still see the cell, and BSUs,
//! BSCs and samples see it gone. The result of every run is that of an event per departure
//! (`credit_trains_give_the_results_of_an_event_per_departure`).

use super::vc::Ends;
use super::{Event, World};
use crate::cell::Cell;
use crate::ids::PortId;
use crate::port::Train;
use crate::trace::TraceReason;
use ccsim_engine::{IntrinsicOrder, SimTime};

impl World {
    /// At the end of the build: every credit port carried forward by exactly one connection and
    /// used by nothing else runs as a train, unless that connection's adapter blocks its sender
    /// (a departure there refills it at once). Not where any held port has no delay: a cell it
    /// sends would arrive in the picosecond it left, after events the order above puts first.
    pub(in crate::world) fn mark_credit_trains(&mut self) {
        if self.ports.iter().any(|p| p.is_event_scheduled() && p.delay.is_zero()) {
            return;
        }
        let users = self.port_users();
        for (v, vc) in self.vcs.iter().enumerate() {
            let Ends::Tcp(t) = &vc.ends else { continue };
            if !vc.credit || t.adapter_blocks || t.abr.is_some() {
                continue;
            }
            for (k, &p) in vc.fwd_ports.iter().enumerate() {
                let port = &self.ports[p.index()];
                if users[p.index()] != 1 || port.scheme.is_some() || port.red.is_some() || port.control.is_some() {
                    continue;
                }
                let up = k.checked_sub(1).map(|j| vc.fwd_ports[j]);
                // The hop before shares its credit with other connections (a VP): its N2 count
                // is theirs too, and their departures elsewhere complete it.
                let vcid = crate::ids::VcId(v as u32);
                if up.is_some_and(|u| self.ports[u.index()].credit().is_some_and(|c| c.unit_members(vcid) > 1)) {
                    continue;
                }
                if let Some(c) = self.ports[p.index()].credit_mut() {
                    c.train = Some(Train::new(vcid, up));
                }
            }
        }
        self.train_ports = (0..self.ports.len()).filter(|&i| self.ports[i].is_train()).map(|i| PortId(i as u32)).collect();
    }

    /// A departure event per cell at every credit port (for tests that compare against
    /// trains). Only before the run starts.
    pub fn disable_credit_trains(&mut self) {
        assert!(self.events == 0, "credit trains can only be turned off before the run");
        for p in &mut self.ports {
            if let Some(c) = p.credit_mut() {
                c.train = None;
            }
        }
        self.train_ports.clear();
    }

    /// Whether, at this point of the event order, train port `p`'s transmission start or end at
    /// `t` has happened: before now, or at now if its `PortDeparture` event would have run
    /// before the current event (or outside any event).
    fn train_cutoff(&self, p: PortId) -> impl Fn(SimTime) -> bool {
        let (now, current) = (self.now, self.current);
        move |t| t < now || (t == now && current.is_none_or(|ev| Event::PortDeparture(p).tie(now) <= ev.tie(now)))
    }

    /// Applies train port `p`'s starts and departures up to now (module doc). A departure past
    /// the first hop counts as forwarded by the upstream receiver, whose BSU may leave: only
    /// ever at the port's own departure event, so at the departure's time.
    pub(in crate::world) fn train_sync(&mut self, p: PortId) {
        if !self.ports[p.index()].is_train() {
            return;
        }
        let due = self.train_cutoff(p);
        let up = self.ports[p.index()].train().and_then(|t| t.up);
        // The departure event's target (`train_rearm`) stays the same cell: only that event
        // applies the departure that sends a BSU (and rearms).
        while let Some(vc) = self.ports[p.index()].train_depart(&due) {
            if let Some(up) = up {
                self.credit_forwarded(up, vc);
            }
        }
    }

    /// Applies every train's starts and departures up to now (`settle`).
    pub(in crate::world) fn train_sync_all(&mut self) {
        for i in 0..self.train_ports.len() {
            self.train_sync(self.train_ports[i]);
        }
    }

    /// Applies train port `p`'s starts up to now (before its BSC rounds' bookkeeping is read).
    pub(in crate::world) fn train_starts(&mut self, p: PortId) {
        if self.ports[p.index()].is_train() {
            let due = self.train_cutoff(p);
            self.ports[p.index()].train_starts(due);
        }
    }

    /// Offers a cell to train port `p` at `now` (`enqueue_held`'s books): admitted, held, and
    /// scheduled if its connection has a credit.
    pub(in crate::world) fn train_offer(&mut self, p: PortId, cell: Cell, now: SimTime) {
        debug_assert_eq!(now, self.now);
        self.train_sync(p);
        let port = &mut self.ports[p.index()];
        if let Err(reason) = port.buffer.admit(&cell) {
            return self.refused(p, cell, now, reason);
        }
        port.credit_mut().expect("a credit train").train_hold(cell);
        port.queue.record(now, port.buffer.len());
        self.credit_received(cell.vc, cell.hop as usize);
        if self.trace.is_some() {
            self.trace_offered(p, &cell, now, TraceReason::None);
        }
        self.train_fill(p);
        self.credit_started(p);
    }

    /// Train port `p` (brought up to now) schedules what its credit allows.
    pub(in crate::world) fn train_fill(&mut self, p: PortId) {
        let before = self.ports[p.index()].pipe.len();
        let (any, head) = self.ports[p.index()].train_fill(self.now);
        if any && self.trace.is_some() {
            // Its cells' transmissions are scheduled: their departures are known now.
            self.trace_entered_pipe(p, before);
        }
        if let Some(arrival) = head {
            self.schedule(arrival, Event::PipeArrival(p));
        }
        // Once a target is set, more cells behind it do not move it.
        if any && self.ports[p.index()].train().is_some_and(|t| t.event_at.is_none()) {
            self.train_rearm(p);
        }
    }

    /// Keeps train port `p`'s one departure event at the departure that completes its upstream
    /// receiver's next N2 count, if that many are scheduled (none at a first hop).
    pub(in crate::world) fn train_rearm(&mut self, p: PortId) {
        let Some(t) = self.ports[p.index()].train() else { return };
        let Some(up) = t.up else { return };
        let rx = self.credit_rx(up);
        let need = rx.n2() - rx.n2_of(t.vc);
        let due = t.pending_end(need as usize - 1);
        let t = self.ports[p.index()].train_mut().expect("checked");
        if due != t.event_at {
            t.event_at = due;
            if let Some(at) = due {
                self.schedule(at, Event::PortDeparture(p));
            }
        }
    }

    /// Train port `p`'s departure event: the departures up to now are applied, a BSU among them.
    /// A superseded one does nothing.
    pub(in crate::world) fn on_train_departure(&mut self, p: PortId) {
        let t = self.ports[p.index()].train_mut().expect("a credit train");
        if t.event_at != Some(self.now) {
            return;
        }
        t.event_at = None;
        self.train_sync(p);
        self.train_rearm(p);
    }
}
