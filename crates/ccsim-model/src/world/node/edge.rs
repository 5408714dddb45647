//! An IP source edge router (FICCRD): for the flows whose route starts here (node 1 of the
//! route, `Vc.edge` set) it estimates each flow's rate from its data packets, sends RD packets
//! behind them, keeps the backward RDs that come home, and enforces the flow's ER on its ACKs:
//! FIEWA writes a window cap into them, FIABC paces them from an ACK bucket (the
//! `EdgeRelease` event); a flow that went `rd_interval` without a forward RD gets one on its own
//! (the `EdgeRdTimer` event). For every other packet it is a plain router (`router.rs`).
//!
//! May touch the entering flow's edge state and books, and the router's own ports.

use crate::cell::{Cell, CellKind};
use crate::ids::VcId;
use crate::ip::AckAtEdge;
use crate::world::{Event, World};

impl World {
    /// A packet arrived at a source edge router.
    #[inline]
    pub(in crate::world) fn at_ip_edge(&mut self, cell: Cell) {
        let v = cell.vc.index();
        let node = if cell.is_forward() { cell.hop as usize + 1 } else { cell.hop as usize };
        if node != 1 || self.vcs[v].edge.is_none() {
            return self.at_router(cell);
        }
        match cell.kind {
            CellKind::Data => self.at_source_edge(cell),
            CellKind::RdBwd => {
                let rd = self.rd_meets_control(1, cell);
                let vc = &mut self.vcs[v];
                vc.edge.as_deref_mut().expect("checked").on_backward_rd(self.now, &rd);
                vc.books.bwd_delivered += 1;
                if self.trace.is_some() {
                    self.trace_deliver_bwd(&rd, self.now);
                }
                // A new ER may release ACKs or move the next release.
                self.on_edge_release(cell.vc);
            }
            CellKind::BwdData => {
                let vc = &mut self.vcs[v];
                let ack = vc.tcp().and_then(|t| t.ack_number(cell.frame)).unwrap_or(0);
                match vc.edge.as_deref_mut().expect("checked").on_ack(self.now, cell, ack) {
                    AckAtEdge::Pass(cell) => self.pass_backward(1, cell),
                    AckAtEdge::Held => self.on_edge_release(cell.vc),
                }
            }
            _ => self.at_router(cell),
        }
    }

    /// A data packet reached its source edge router (node 1): the rate estimate, the packet on
    /// its way, and a forward RD packet right behind it when one is due.
    fn at_source_edge(&mut self, cell: Cell) {
        let vc = &mut self.vcs[cell.vc.index()];
        let segment = vc.tcp().and_then(|t| t.segment(cell.frame)).map(|s| (s.end(), s.retransmission));
        let edge = vc.edge.as_deref_mut().expect("checked by the caller");
        let rd = edge.on_data(self.now, cell.vc, cell.bits() as f64, segment);
        let timer = edge.rd_mut().arm_timer();
        self.pass_forward(1, cell);
        if let Some(t) = timer {
            self.schedule(t, Event::EdgeRdTimer(cell.vc));
        }
        if let Some(rd) = rd {
            self.send_forward_rd(rd);
        }
    }

    /// A forward RD packet leaves the source edge (node 1).
    fn send_forward_rd(&mut self, rd: Cell) {
        self.vcs[rd.vc.index()].books.fwd_sent += 1;
        if self.trace.is_some() {
            let out = self.vcs[rd.vc.index()].fwd_ports[1];
            self.trace_send_by(&rd, self.now, out);
        }
        self.forward_rd(1, rd);
    }

    /// Flow `v`'s RD timer: an RD if the flow went `rd_interval` without one; the timer's next
    /// wake-up (`RdEdge::on_timer`).
    pub(in crate::world) fn on_edge_rd_timer(&mut self, v: VcId) {
        let edge = self.vcs[v.index()].edge.as_deref_mut().expect("a flow with an edge");
        let (rd, next) = edge.rd_mut().on_timer(self.now, v);
        self.schedule(next, Event::EdgeRdTimer(v));
        if let Some(rd) = rd {
            self.send_forward_rd(rd);
        }
    }

    /// Flow `v`'s ACK bucket releases what it has paid for by now, and an `EdgeRelease` event
    /// is scheduled for the next one unless one is pending before it (`AnyEdge::release`).
    pub(in crate::world) fn on_edge_release(&mut self, v: VcId) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.edge_out);
        let edge = self.vcs[v.index()].edge.as_deref_mut().expect("a flow with an edge");
        let due = edge.release(now, &mut out);
        for cell in out.drain(..) {
            self.pass_backward(1, cell);
        }
        self.edge_out = out;
        if let Some(t) = due {
            self.schedule(t, Event::EdgeRelease(v));
        }
    }
}
