//! An IP router: data packets and ACKs pass to the next hop's port (whose drop-tail or RED
//! queue decides); FICCRD's RD packets meet the IP control of the flow's forward port here
//! (docs/models/ficcrd.md: MAPR from forward RDs, the ER of backward RDs lowered by the DPF),
//! and the last router of a route turns them around.
//!
//! May touch the router's ports (their controls and buffers) and the arriving packet's VC books.

use crate::cell::{Cell, CellKind};
use crate::world::World;

impl World {
    /// A packet arrived at a router.
    #[inline]
    pub(in crate::world) fn at_router(&mut self, cell: Cell) {
        match cell.kind {
            CellKind::RdFwd => self.forward_rd(cell.hop as usize + 1, cell),
            CellKind::RdBwd => {
                let node = cell.hop as usize;
                let rd = self.rd_meets_control(node, cell);
                self.pass_backward(node, rd);
            }
            _ if cell.is_forward() => self.pass_forward(cell.hop as usize + 1, cell),
            _ => self.pass_backward(cell.hop as usize, cell),
        }
    }

    /// A forward RD packet at router `node` of its route: the output port's control sees it;
    /// the last router of the route (the destination edge) turns it around.
    pub(in crate::world) fn forward_rd(&mut self, node: usize, mut rd: Cell) {
        let vc = &mut self.vcs[rd.vc.index()];
        let out = vc.fwd_ports[node];
        let last = node + 1 == vc.fwd_ports.len();
        let port = &mut self.ports[out.index()];
        port.sync(self.now);
        let packets = port.buffer.len();
        if let Some(c) = port.control.as_mut() {
            let q = c.queue(self.now, packets);
            c.on_forward_rd(rd.ccr as f64, q);
        }
        if last {
            vc.books.fwd_delivered += 1;
            vc.books.bwd_sent += 1;
            if self.trace.is_some() {
                self.trace_turnaround(out, &rd);
            }
            let vc = &mut self.vcs[rd.vc.index()];
            // It arrives back at this router as if from the next hop: the node's own kind
            // handles it (an edge that is also the last router keeps it).
            rd.kind = CellKind::RdBwd;
            rd.hop = node as u16;
            let back = vc.rev_ports[node];
            return self.arrive(back, rd);
        }
        rd.hop = node as u16;
        self.enqueue_synced(out, rd);
    }

    /// A backward RD packet at router `node`: the control of the flow's forward port there may
    /// lower its ER.
    pub(in crate::world) fn rd_meets_control(&mut self, node: usize, mut rd: Cell) -> Cell {
        let fwd = self.vcs[rd.vc.index()].fwd_ports[node];
        let port = &mut self.ports[fwd.index()];
        if port.control.is_some() {
            port.sync(self.now);
            let packets = port.buffer.len();
            let c = port.control.as_mut().expect("checked");
            let q = c.queue(self.now, packets);
            rd.er = c.on_backward_rd(rd.er as f64, q) as f32;
        }
        rd
    }
}
