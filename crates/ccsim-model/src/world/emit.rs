//! Sources: a connection starting, its pacing wake-ups, and the cells that leave its hosts
//! (counted in the VC's books). TM 4.0 sources, background ON-OFF sources and the ABR adapters
//! of TCP connections; in windowed mode a source host runs its emissions for a window in one loop.
//!
//! Owns a VC's wake-up generation; the lazy variant of these sources is `lazy.rs`'s.

use super::vc::Ends;
use super::{Event, World};
use crate::cell::{Cell, CellKind, Stamp};
use crate::ids::VcId;
use ccsim_engine::SimTime;

impl World {
    /// A source connects: its first emission is scheduled (a lazy source's is generated).
    pub(in crate::world) fn start_source(&mut self, v: VcId) {
        if self.vcs[v.index()].lazy_source {
            let vc = &mut self.vcs[v.index()];
            let Ends::Abr { source, .. } = &mut vc.ends else { unreachable!("lazy sources are TM 4.0 sources") };
            vc.pending_wake = source.start(self.now);
            return self.advance_source(v);
        }
        let next = match &mut self.vcs[v.index()].ends {
            Ends::Abr { source, .. } | Ends::Trunk { source, .. } => source.start(self.now),
            Ends::Vbr(s) => s.start(self.now),
            Ends::Tcp(t) => t.abr.as_mut().and_then(|a| a.source.start(self.now)),
        };
        self.schedule_source(v, next);
    }

    /// A source's wake-up, unless a later one superseded it.
    #[inline]
    pub(in crate::world) fn on_source_wake(&mut self, v: VcId, gen: u32) {
        if gen == self.vcs[v.index()].wake_gen {
            if self.vcs[v.index()].lazy_source {
                self.advance_source(v);
            } else {
                self.pace_source(v, gen);
            }
        }
    }

    /// Supersedes the source's pending wake-up with one at `next`, if any.
    #[inline]
    pub(in crate::world) fn schedule_source(&mut self, v: VcId, next: Option<SimTime>) {
        let vc = &mut self.vcs[v.index()];
        vc.wake_gen = vc.wake_gen.wrapping_add(1);
        let gen = vc.wake_gen;
        if let Some(t) = next {
            self.schedule(t, Event::SourceWake(v, gen));
        }
    }

    /// A cell leaves the VC's source host now, counted in its books.
    #[inline]
    pub(in crate::world) fn send_forward(&mut self, v: VcId, c: Cell) {
        self.send_forward_at(v, c, self.now);
    }

    /// A cell leaves the VC's source host at `t` (a lazy source's emission may be generated
    /// after its time; its access port has seen nothing later). A data cell is stamped with the
    /// moment it leaves its source, its transmission's start on the access link (`Cell::sent`):
    /// known now at a FIFO port; a held port stamps it again when it starts (`Port::start_next`).
    #[inline]
    pub(in crate::world) fn send_forward_at(&mut self, v: VcId, mut c: Cell, t: SimTime) {
        let vc = &mut self.vcs[v.index()];
        vc.books.fwd_sent += 1;
        c.hop = 0;
        let p = vc.fwd_ports[0];
        let port = &mut self.ports[p.index()];
        port.sync(t);
        if c.kind == CellKind::Data {
            vc.books.data_sent += 1;
            c.set_sent(Stamp::of(port.tx_start(t)));
        }
        // The trace's `send` is recorded where the access port takes or refuses it (`trace.rs`).
        self.enqueue_at(p, c, t);
    }

    /// A cell leaves the VC's destination host towards the source, counted in its books.
    #[inline]
    pub(in crate::world) fn send_backward(&mut self, v: VcId, mut c: Cell) {
        let vc = &mut self.vcs[v.index()];
        vc.books.bwd_sent += 1;
        let last = vc.rev_ports.len() - 1;
        c.hop = last as u16;
        let port = vc.rev_ports[last];
        self.enqueue(port, c);
    }

    /// A source's pacing timer (non-lazy sources): its next cell leaves, its next wake-up is
    /// scheduled.
    #[inline]
    fn pace_source(&mut self, v: VcId, gen: u32) {
        if matches!(self.vcs[v.index()].ends, Ends::Trunk { .. }) {
            return self.pace_trunk(v, gen);
        }
        if !self.lps.is_empty() {
            return self.run_source(v, gen);
        }
        let (cell, next) = self.wake_source(v);
        if let Some(t) = next {
            self.schedule(t, Event::SourceWake(v, gen));
        }
        if let Some(cell) = cell {
            self.send_forward(v, cell);
        }
        self.refill_adapter(v);
    }

    /// One wake-up of VC `v`'s source (TM 4.0, background, or a TCP connection's ABR adapter):
    /// the cell it sends now, if any, and when it wakes next.
    #[inline(always)]
    fn wake_source(&mut self, v: VcId) -> (Option<Cell>, Option<SimTime>) {
        let now = self.now;
        match &mut self.vcs[v.index()].ends {
            Ends::Abr { source, .. } => source.on_wake(now),
            Ends::Vbr(s) => s.on_wake(now),
            Ends::Tcp(t) => {
                let Some(a) = t.abr.as_mut() else { return (None, None) };
                let (cell, next) = a.source.on_wake(now);
                // A data opportunity carries the adapter's next cell (its frame and EOM mark),
                // stamped with when it became the head of the queue.
                let cell = match cell {
                    Some(c) if c.kind == CellKind::Data => a.backlog.pop_front().map(|mut d| {
                        d.set_queued(Stamp::of(d.queued().at(now).max(a.last_pop)));
                        a.last_pop = now;
                        d
                    }),
                    other => other,
                };
                (cell, next)
            }
            Ends::Trunk { .. } => unreachable!("a gateway's trunk is paced by `pace_trunk`"),
        }
    }

    /// A blocking ABR adapter that may just have given up a cell has room for PDUs held back.
    #[inline]
    fn refill_adapter(&mut self, v: VcId) {
        if matches!(&self.vcs[v.index()].ends, Ends::Tcp(t) if !t.blocked.is_empty()) {
            self.adapter_refill(v);
        }
    }

    /// Windowed mode: a source wake-up, and the ones after it for as long as each is its host's
    /// next event in the window. A source host's other events are its backward
    /// RM cells, so a source emits its cells for a window in one loop, as a lazy source does in
    /// the single queue, while each emission still counts as an event.
    fn run_source(&mut self, v: VcId, gen: u32) {
        let lp = self.vc_lp[v.index()] as usize;
        let ev = Event::SourceWake(v, gen);
        // What the host must run before this source's next emission: its next queued event, the
        // end of the window or the node's next arrival (`bound`). Looked up again only when the
        // host's queue changed (a strict-priority access port schedules its departures there).
        let limit_of = |w: &World| w.lps[lp].peek_key().map_or(w.bound, |k| k.min(w.bound));
        let mut limit = limit_of(self);
        let mut pushes = self.lps[lp].pushes();
        let adapter = matches!(self.vcs[v.index()].ends, Ends::Tcp(_));
        loop {
            let (cell, next) = self.wake_source(v);
            if let Some(cell) = cell {
                self.send_forward(v, cell);
            }
            if adapter {
                self.refill_adapter(v);
            }
            let Some(t) = next else { return };
            if adapter && self.vcs[v.index()].wake_gen != gen {
                // PDUs that moved into the adapter woke the source: that wake-up is scheduled,
                // and this one, superseded, still runs (and does nothing), as from one queue.
                return self.schedule(t, ev);
            }
            if self.lps[lp].pushes() != pushes {
                limit = limit_of(self);
                pushes = self.lps[lp].pushes();
            }
            let first = t < limit.0 || (t == limit.0 && self.lps[lp].key_of(t, &ev) < limit);
            if !first {
                return self.schedule(t, ev);
            }
            self.enter(t, ev);
        }
    }
}
