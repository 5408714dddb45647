//! Lazy ends: a TM 4.0 source whose emissions are generated in batches when its access link
//! runs dry, and an egress link to an ABR destination whose data cells are delivered in batches
//! (one event per RM cell). Both give the results of an event per cell
//! (`lazy_ends_give_the_results_of_an_event_per_cell`); in windowed mode, sources only where the
//! host shares its switch's logical process.
//!
//! Owns the lazy flags of VCs and ports and the catching up before anyone reads them.

use super::vc::Ends;
use super::{Event, World};
use crate::cell::CellKind;
use crate::ids::{PortId, VcId};
use crate::port::InFlight;
use ccsim_engine::SimTime;

impl World {
    /// Lazy sources. A TM 4.0 source's emissions depend only on its own clock and on the
    /// backward RM cells that reach it, and its access link is its own FIFO: so instead of an
    /// event per cell, its emissions are generated in a batch whenever that link's pipe runs dry,
    /// each at its own time, and before anything reads or changes the source (a backward RM
    /// cell, a sample, the window opening, the end of a chunk). A cell generated late still
    /// leaves the host at its emission time and reaches the switch after everything already on
    /// the link, so the switches see exactly the arrivals of an event per emission. When the
    /// pipe is dry and stays dry, the next emission gets an ordinary wake-up event.
    ///
    /// In windowed mode, only sources whose access link lies inside a logical process (a host with
    /// its switch over a short link, `groups.rs`): everything a batch touches (the source, its
    /// access port and pipe, the arrivals it schedules at the switch) is then that process's, as in
    /// the single queue. A host in a process of its own emits by its own wake-ups (`run_source`).
    pub(in crate::world) fn mark_lazy_sources(&mut self, users: &[u32]) {
        let windowed = self.is_windowed();
        for vc in &mut self.vcs {
            let access = vc.fwd_ports[0];
            let port = &mut self.ports[access.index()];
            let inside = !windowed || self.node_lp[port.from.index()] == self.node_lp[port.to.index()];
            if matches!(vc.ends, Ends::Abr { .. }) && users[access.index()] == 1 && !port.is_event_scheduled() && inside {
                vc.lazy_source = true;
                port.lazy_source = true;
            }
        }
    }

    /// Generates the emissions of lazy source `v` up to and including `t`.
    #[inline]
    pub(in crate::world) fn catch_up_source(&mut self, v: VcId, t: SimTime) {
        self.catch_up_source_while(v, |e| e <= t);
    }

    /// Generates the emissions of lazy source `v` due before `t` (not those at `t`).
    #[inline]
    pub(in crate::world) fn catch_up_source_before(&mut self, v: VcId, t: SimTime) {
        self.catch_up_source_while(v, |e| e < t);
    }

    #[inline]
    fn catch_up_source_while(&mut self, v: VcId, due: impl Fn(SimTime) -> bool) {
        loop {
            let vc = &mut self.vcs[v.index()];
            let Some(e) = vc.pending_wake.filter(|&e| due(e)) else { return };
            let Ends::Abr { source, .. } = &mut vc.ends else { unreachable!("lazy sources are TM 4.0 sources") };
            let (cell, next) = source.on_wake(e);
            vc.pending_wake = next;
            if let Some(c) = cell {
                self.send_forward_at(v, c, e);
            }
        }
    }

    /// A lazy source's emissions up to now, then its wake-up re-armed (`rearm_source`).
    #[inline]
    pub(in crate::world) fn advance_source(&mut self, v: VcId) {
        self.catch_up_source(v, self.now);
        self.rearm_source(v);
    }

    /// After a lazy source changed: a wake-up event for its next emission if its access link is
    /// dry (otherwise the link's next arrival catches it up), and none left over from before.
    #[inline]
    pub(in crate::world) fn rearm_source(&mut self, v: VcId) {
        let vc = &self.vcs[v.index()];
        let dry = self.ports[vc.fwd_ports[0].index()].pipe.is_empty();
        let next = if dry { vc.pending_wake } else { None };
        self.schedule_source(v, next);
    }

    /// Brings every lazy source up to `t` (before anything reads the sources or their books).
    pub(in crate::world) fn catch_up_sources(&mut self, t: SimTime) {
        for i in 0..self.vcs.len() {
            if self.vcs[i].lazy_source {
                self.catch_up_source(VcId(i as u32), t);
            }
        }
    }

    /// Egress links whose far end only counts data cells (a TM 4.0 destination, the only user of
    /// the port, behind a FIFO) deliver their data cells lazily: one event per RM cell instead of
    /// one per cell. Nothing observes a data cell's delivery but counters, and every reader of
    /// those drains the sinks first, so results are those of an event per cell.
    pub(in crate::world) fn mark_lazy_ends(&mut self) {
        let users = self.port_users();
        self.mark_lazy_sources(&users);
        for vc in &self.vcs {
            let last = *vc.fwd_ports.last().expect("routes are non-empty");
            let port = &mut self.ports[last.index()];
            if matches!(vc.ends, Ends::Abr { .. }) && users[last.index()] == 1 && !port.is_event_scheduled() && port.loss.is_none() {
                port.lazy_sink = true;
            }
        }
    }

    /// Delivers every cell by its own event (for tests that compare against lazy sinks). Only
    /// before the run starts.
    pub fn disable_lazy_sinks(&mut self) {
        assert!(self.events == 0, "lazy sinks can only be turned off before the run");
        for p in &mut self.ports {
            p.lazy_sink = false;
        }
        self.index_inputs();
    }

    /// An event per source emission (for tests that compare against lazy sources). Only before
    /// the run starts.
    pub fn disable_lazy_sources(&mut self) {
        assert!(self.events == 0, "lazy sources can only be turned off before the run");
        for vc in &mut self.vcs {
            vc.lazy_source = false;
        }
        for p in &mut self.ports {
            p.lazy_source = false;
        }
    }

    /// Delivers what reached the far end of lazy sink `p` by `until`: its data cells, and its RM
    /// cells only with `with_rm` (an RM cell is delivered by its own event, in event order). Then
    /// schedules the next RM cell's arrival.
    #[inline]
    pub(in crate::world) fn drain_sink(&mut self, p: PortId, until: SimTime, with_rm: bool) {
        loop {
            if self.trace.is_none() {
                self.drain_sink_data(p, until);
            }
            let port = &mut self.ports[p.index()];
            let Some(&InFlight { arrival: t, cell }) = port.pipe.front() else { break };
            if t > until || (cell.is_rm() && !with_rm) {
                break;
            }
            port.pop_arrival();
            port.delivered += 1;
            if cell.is_rm() {
                port.sink_rm -= 1;
                port.sink_event = false;
            }
            self.cell_hops += 1;
            // The far end is the destination host (`mark_lazy_ends`); a data cell arrived at `t`.
            debug_assert_eq!(self.arrive_kind[p.index()], super::NodeKind::Host);
            self.at_destination(cell, t);
        }
        let port = &mut self.ports[p.index()];
        if !port.sink_event && port.sink_rm > 0 {
            let t = port.pipe.iter().find(|f| f.cell.is_rm()).expect("counted RM cells are in the pipe").arrival;
            port.sink_event = true;
            self.schedule(t, Event::PipeArrival(p));
        }
    }

    /// The data cells at the head of lazy sink `p` that reached the far end by `until`, up to its
    /// next RM cell, delivered with the port and the VC looked up once: exactly the counts
    /// `at_destination` keeps for a TM 4.0 destination's data cell (the trace, when on, takes
    /// every cell through `at_destination`).
    #[inline]
    fn drain_sink_data(&mut self, p: PortId, until: SimTime) {
        let World { ports, vcs, measure, now, cell_hops, .. } = self;
        let port = &mut ports[p.index()];
        let Some(v) = port.pipe.front().map(|f| f.cell.vc) else { return };
        let vc = &mut vcs[v.index()];
        if vc.credit || !matches!(vc.ends, Ends::Abr { .. }) {
            return;
        }
        let measuring = *now >= measure.window_start;
        while let Some(&InFlight { arrival: t, cell }) = port.pipe.front() {
            if t > until || cell.kind != CellKind::Data {
                break;
            }
            debug_assert_eq!(cell.vc, v, "a lazy sink carries one VC");
            port.pop_arrival();
            port.delivered += 1;
            *cell_hops += 1;
            vc.count_delivered(&cell, t, measuring);
            vc.delay.record(cell.sent().age(t));
            if let Ends::Abr { dest, .. } = &mut vc.ends {
                dest.on_cell(&cell);
            }
        }
    }

    /// Brings every lazy sink's deliveries up to `now` (before anything reads the counters).
    pub(in crate::world) fn drain_sinks(&mut self, until: SimTime) {
        for i in 0..self.ports.len() {
            if self.ports[i].lazy_sink {
                self.drain_sink(PortId(i as u32), until, false);
            }
        }
    }
}
