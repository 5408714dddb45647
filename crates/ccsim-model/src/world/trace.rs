//! The event trace's hooks (`crate::trace`): where the world's books count an item sent,
//! dropped or delivered, and where a port accepts it or its transmission ends, a row is recorded
//! with the item's own time (a lazy sink's delivery at its arrival, a lazy source's emission at its
//! emission time, a FIFO port's departure, known at admission, at its departure).
//!
//! Each hook on the per-cell path is `if self.trace.is_some() { self.trace_… }`: one test of a
//! field when the trace is off; the recording itself is out of line. Owns nothing but the
//! translation of a hook's place (a port, a node) into the trace's `place` column.

use super::World;
use crate::cell::Cell;
use crate::ids::{NodeId, PortId};
use crate::cell::CellKind;
use crate::trace::{Trace, TraceEvent, TraceReason, TraceSpec, NO_SEQ};
use ccsim_engine::SimTime;

impl World {
    /// Records the traced flows' events from the start of the run (before it only).
    pub fn set_trace(&mut self, spec: TraceSpec) {
        assert!(self.events == 0, "the trace can only be turned on before the run");
        assert!(self.threads.is_none(), "the trace is turned on before threads are (`set_threads` gives each its own)");
        assert!(spec.flows.is_empty() || spec.flows.len() == self.vcs.len(), "one flag per VC");
        // `Trace::finish` packs a place in 27 bits (VCs are below 2^24 already).
        assert!(self.ports.len() + self.nodes.len() < 1 << 27, "more than 2^27 ports and nodes to trace");
        self.trace = Some(Box::new(Trace::new(spec)));
    }

    /// The trace, if one is recorded: sorted once the run is complete (`Trace::finish`), as
    /// recorded before.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_deref()
    }

    /// Sorts the trace (the run is complete). Out of line: `run_until` inlines the engine.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn finish_trace(&mut self) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.finish();
        }
    }

    /// The name of a trace `place`: a port's name, or a node's.
    pub fn trace_place_name(&self, place: u32) -> &str {
        let p = place as usize;
        match self.ports.get(p) {
            Some(port) => &port.name,
            None => &self.nodes[p - self.ports.len()].name,
        }
    }

    /// Numbers an item that carries no frame number of its own (a cell source's data cell, an RM
    /// cell, an ICMP message) as it is offered to port `p`, if it is leaving its end host there
    /// (just counted sent in its VC's books in its direction): its place among them. With its flow
    /// and kind, its frame number is then the trace's `uid`. Only while tracing, from the hooks
    /// where the port takes the item (nothing is added to a host's send); nothing but the trace
    /// reads these numbers (such items' `frame` is otherwise 0).
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_number(&self, p: PortId, c: &mut Cell) {
        let vc = &self.vcs[c.vc.index()];
        let from_host = if c.is_forward() { vc.fwd_ports[0] == p } else { vc.rev_ports.last() == Some(&p) };
        if from_host || c.kind == CellKind::Icmp {
            self.trace_number_sent(c);
        }
    }

    /// `trace_number` for an item its end just counted sent (`send_icmp` numbers its messages).
    pub(in crate::world) fn trace_number_sent(&self, c: &mut Cell) {
        let vc = &self.vcs[c.vc.index()];
        let own = match c.kind {
            CellKind::Frm | CellKind::Brm | CellKind::Icmp => true,
            CellKind::Data => matches!(vc.ends, super::Ends::Abr { .. } | super::Ends::Vbr(_)),
            _ => false,
        };
        if own {
            let sent = if c.is_forward() { vc.books.fwd_sent } else { vc.books.bwd_sent };
            c.frame = (sent - 1) as u16;
        }
    }

    /// The TCP sequence number a TCP item carries, as a router reading its header would see it:
    /// a data segment's first byte, an ACK's cumulative acknowledgement (`NO_SEQ` for other items,
    /// and for a frame its connection no longer holds in flight).
    fn trace_seq(&self, cell: &Cell) -> u64 {
        let Some(t) = self.vcs[cell.vc.index()].tcp() else { return NO_SEQ };
        match cell.kind {
            CellKind::Data => t.segment(cell.frame).map_or(NO_SEQ, |s| s.seq),
            CellKind::BwdData => t.ack_number(cell.frame).unwrap_or(NO_SEQ),
            _ => NO_SEQ,
        }
    }

    /// A row at port `p` (an enqueue, a dequeue, or a drop at its buffer or its link).
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_port(&mut self, ev: TraceEvent, cell: &Cell, t: SimTime, p: PortId, reason: TraceReason) {
        let seq = self.trace_seq(cell);
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.record(ev, cell, t, p.0, reason, seq);
        }
    }

    /// FIFO port `p` accepted a cell at `now`: it is the last in the port's pipe. Its departure
    /// is known already (one propagation delay before its arrival): its `dequeue` is recorded now,
    /// with its own time, unless that is past the end of the run.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_enqueued(&mut self, p: PortId, now: SimTime) {
        let port = &self.ports[p.index()];
        let mut last = *port.pipe.get(port.pipe.len() - 1).expect("just accepted");
        let numbered = {
            let mut c = last.cell;
            self.trace_number(p, &mut c);
            c
        };
        if numbered.frame != last.cell.frame {
            last.cell = numbered;
            let port = &mut self.ports[p.index()];
            let i = port.pipe.len() - 1;
            port.pipe.get_mut(i).expect("just accepted").cell = numbered;
        }
        let port = &self.ports[p.index()];
        let departure = port.departure_of(&last);
        self.trace_offered(p, &last.cell, now, TraceReason::None);
        self.trace_departed(p, last.cell, departure);
    }

    /// Port `p`'s transmission of `cell` ends at `t` (now, or later for a FIFO port or a credit
    /// train, whose departures are known when the cell enters the pipe): its `dequeue`.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_departed(&mut self, p: PortId, cell: Cell, t: SimTime) {
        if t <= self.measure.end {
            self.trace_port(TraceEvent::Dequeue, &cell, t, p, TraceReason::None);
        }
    }

    /// The pipe entries of port `p` from `from` on entered it now, their departures known (a
    /// held port's cell that just finished, a credit train's scheduled cells): their `dequeue`s.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_entered_pipe(&mut self, p: PortId, from: usize) {
        let port = &self.ports[p.index()];
        let entries: Vec<_> = (from..port.pipe.len()).filter_map(|i| port.pipe.get(i)).map(|f| (f.cell, port.departure_of(f))).collect();
        for (cell, t) in entries {
            self.trace_departed(p, cell, t);
        }
    }

    /// Port `p` took (`reason` none) or refused a cell at `now`. A cell offered to its VC's
    /// first forward port, or going back to its last reverse port, is leaving its end host:
    /// its `send` comes first. (The books count it sent just before; recording it here keeps
    /// the send hook off the per-cell path: one test per offer covers both.)
    pub(in crate::world) fn trace_offered(&mut self, p: PortId, cell: &Cell, now: SimTime, reason: TraceReason) {
        let vc = &self.vcs[cell.vc.index()];
        let from_host = if cell.is_forward() { vc.fwd_ports[0] == p } else { vc.rev_ports.last() == Some(&p) };
        if from_host {
            self.trace_send_by(cell, now, p);
        }
        let ev = if reason == TraceReason::None { TraceEvent::Enqueue } else { TraceEvent::Drop };
        self.trace_port(ev, cell, now, p, reason);
    }

    /// A row at node `n` (a send or a deliver at an end, a drop at a gateway).
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_node(&mut self, ev: TraceEvent, cell: &Cell, t: SimTime, n: NodeId, reason: TraceReason) {
        let place = (self.ports.len() + n.index()) as u32;
        let seq = self.trace_seq(cell);
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.record(ev, cell, t, place, reason, seq);
        }
    }

    /// A forward item leaves its source host by its access port `p` (at the port's near end).
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_send_by(&mut self, cell: &Cell, t: SimTime, p: PortId) {
        let n = self.ports[p.index()].from;
        self.trace_node(TraceEvent::Send, cell, t, n, TraceReason::None);
    }

    /// An item reached the end host at the far end of port `p`.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_deliver_by(&mut self, cell: &Cell, t: SimTime, p: PortId) {
        let n = self.ports[p.index()].to;
        self.trace_node(TraceEvent::Deliver, cell, t, n, TraceReason::None);
    }

    /// A forward item reached its VC's destination (the far end of its last forward port).
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_deliver_fwd(&mut self, cell: &Cell, t: SimTime) {
        let p = *self.vcs[cell.vc.index()].fwd_ports.last().expect("a route");
        self.trace_deliver_by(cell, t, p);
    }

    /// A backward item reached its VC's source (the far end of its first backward port), or,
    /// for a backward RD packet, its source edge (node 1).
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_deliver_bwd(&mut self, cell: &Cell, t: SimTime) {
        let vc = &self.vcs[cell.vc.index()];
        let p = if cell.kind == crate::cell::CellKind::RdBwd { vc.rev_ports[1] } else { vc.rev_ports[0] };
        self.trace_deliver_by(cell, t, p);
    }

    /// A forward RD packet turned around at the last router of its route (the near end of
    /// its forward port `out` there): delivered forward, sent back.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_turnaround(&mut self, out: PortId, rd: &Cell) {
        let n = self.ports[out.index()].from;
        let mut back = *rd;
        back.kind = crate::cell::CellKind::RdBwd;
        self.trace_node(TraceEvent::Deliver, rd, self.now, n, TraceReason::None);
        self.trace_node(TraceEvent::Send, &back, self.now, n, TraceReason::None);
    }

    /// A packet at the gateway at node `node` of its route: dropped (no room, `n == 0`), or
    /// delivered there and sent on as `n` cells of its ABR connection.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_gateway_entry(&mut self, node: usize, packet: &Cell, n: u32) {
        let at = self.ports[self.vcs[packet.vc.index()].fwd_ports[node - 1].index()].to;
        if n == 0 {
            return self.trace_node(TraceEvent::Drop, packet, self.now, at, TraceReason::GatewayFull);
        }
        self.trace_node(TraceEvent::Deliver, packet, self.now, at, TraceReason::None);
        let mut c = Cell::data(packet.vc);
        c.frame = packet.frame;
        for _ in 0..n {
            self.trace_node(TraceEvent::Send, &c, self.now, at, TraceReason::None);
        }
    }

    /// A connection's cell at the far gateway at node `node`: delivered there, and its packet
    /// sent on when this cell completed it.
    #[cold]
    #[inline(never)]
    pub(in crate::world) fn trace_gateway_exit(&mut self, node: usize, cell: &Cell, packet: Option<&Cell>) {
        let at = self.ports[self.vcs[cell.vc.index()].fwd_ports[node - 1].index()].to;
        self.trace_node(TraceEvent::Deliver, cell, self.now, at, TraceReason::None);
        if let Some(packet) = packet {
            self.trace_node(TraceEvent::Send, packet, self.now, at, TraceReason::None);
        }
    }
}
