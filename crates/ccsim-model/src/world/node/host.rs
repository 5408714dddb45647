//! An end-system host: a forward cell has reached its VC's destination host, a backward cell its
//! source host. The VC's `Ends` decide: TM 4.0 destination and source, TCP receiver and sender
//! behind their AAL5 adapters (over UBR or ABR), the sink of background traffic.
//!
//! May touch the arriving cell's VC (its ends and books) and send by its own access links
//! (`send_backward`, `tcp_emit`); source pacing itself lives in `emit.rs`, TCP timers in `tcp.rs`.

use crate::cell::{Cell, CellKind};
use crate::tcp_host::TcpEnd;
use crate::world::{Ends, World};
use ccsim_engine::SimTime;

impl World {
    /// A cell arrived at a host: the end of its route in its direction.
    #[inline(always)]
    pub(in crate::world) fn at_host(&mut self, cell: Cell) {
        if cell.is_forward() {
            self.at_destination(cell, self.now);
        } else {
            self.at_source(cell);
        }
    }

    /// A forward cell at its VC's destination host, arrived at `at`: now, or earlier for the data
    /// cells a lazy sink delivers in a batch (`World::drain_sink`), which only count them.
    ///
    /// Each unit the destination counts is timed from its `sent` stamp (`crate::delays::FlowDelay`):
    /// a cell source's data cell here, a TCP segment when its frame is complete.
    #[inline(always)]
    pub(in crate::world) fn at_destination(&mut self, cell: Cell, at: SimTime) {
        let vc = &self.vcs[cell.vc.index()];
        if vc.credit {
            // The destination's adapter is the last hop's receiver: it forwards every cell at once.
            let (last, hops) = (*vc.fwd_ports.last().expect("a route"), vc.fwd_ports.len());
            self.credit_received(cell.vc, hops);
            self.credit_forwarded(last, cell.vc);
        }
        let measuring = self.now >= self.measure.window_start;
        self.vcs[cell.vc.index()].count_delivered(&cell, at, measuring);
        if self.trace.is_some() {
            self.trace_deliver_fwd(&cell, at);
        }
        let vc = &mut self.vcs[cell.vc.index()];
        let brm = match &mut vc.ends {
            // The far gateway is the destination end system of its ABR connection (`Trunk`).
            Ends::Abr { dest, .. } | Ends::Trunk { dest, .. } => {
                if cell.kind == CellKind::Data {
                    vc.delay.record(cell.sent().age(at));
                }
                dest.on_cell(&cell)
            }
            // TCP over ABR: the destination end system turns the FRM around.
            Ends::Tcp(t) if cell.kind == CellKind::Frm => t.abr.as_mut().and_then(|a| a.dest.on_cell(&cell)),
            Ends::Tcp(t) => {
                if let Some(a) = t.abr.as_mut() {
                    a.dest.on_cell(&cell);
                }
                let mut bwd = std::mem::take(&mut self.scratch_bwd);
                if let Some(sent) = t.on_data_cell(self.now, &cell, &mut bwd) {
                    vc.delay.record(sent.age(self.now));
                }
                self.tcp_emit(cell.vc, &mut bwd, false);
                self.scratch_bwd = bwd;
                self.schedule_tcp(cell.vc, TcpEnd::Destination);
                None
            }
            Ends::Vbr(_) => {
                if cell.kind == CellKind::Data {
                    vc.delay.record(cell.sent().age(at));
                }
                None
            }
        };
        if let Some(brm) = brm {
            self.send_backward(cell.vc, brm);
        }
    }

    /// A backward cell at its VC's source host: a backward RM cell for the TM 4.0 source (of
    /// the VC or of a TCP connection's ABR adapter), or an ACK frame's cell for the TCP sender.
    #[inline]
    fn at_source(&mut self, cell: Cell) {
        let v = cell.vc;
        let vc = &mut self.vcs[v.index()];
        vc.books.bwd_delivered += 1;
        if self.trace.is_some() {
            self.trace_deliver_bwd(&cell, self.now);
        }
        let vc = &mut self.vcs[v.index()];
        match &mut vc.ends {
            Ends::Abr { .. } if vc.lazy_source => {
                // Arrivals run before a source's wake-up at the same time (the event order): an
                // emission due now comes after this cell.
                self.catch_up_source_before(v, self.now);
                let vc = &mut self.vcs[v.index()];
                let Ends::Abr { source, .. } = &mut vc.ends else { unreachable!() };
                if let Some(next) = source.on_brm(self.now, &cell) {
                    vc.pending_wake = Some(next);
                    self.advance_source(v);
                }
            }
            Ends::Abr { source, .. } | Ends::Trunk { source, .. } => {
                if let Some(next) = source.on_brm(self.now, &cell) {
                    self.schedule_source(v, Some(next));
                }
            }
            Ends::Tcp(t) if cell.kind == CellKind::Brm => {
                let next = t.abr.as_mut().and_then(|a| a.source.on_brm(self.now, &cell));
                if next.is_some() {
                    self.schedule_source(v, next);
                }
            }
            Ends::Tcp(t) => {
                let mut fwd = std::mem::take(&mut self.scratch_fwd);
                t.on_ack_cell(self.now, &cell, &mut fwd);
                self.tcp_emit(v, &mut fwd, true);
                self.scratch_fwd = fwd;
                self.schedule_tcp(v, TcpEnd::Source);
            }
            Ends::Vbr(_) => {}
        }
    }
}
