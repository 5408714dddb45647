//! An IP source edge router (FICCRD with FIEWA): for the flows whose route starts here (node 1
//! of the route, `Vc.edge` set) it estimates each flow's rate from its data packets, sends RD
//! packets behind them, keeps the backward RDs that come home, and writes the flow's window cap
//! into passing ACKs. For every other packet it is a plain router (`router.rs`).
//!
//! May touch the entering flow's edge state and books, and the router's own ports.

use crate::cell::{Cell, CellKind};
use crate::world::World;

impl World {
    /// A packet arrived at a source edge router.
    #[inline]
    pub(in crate::world) fn at_ip_edge(&mut self, mut cell: Cell) {
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
            }
            CellKind::BwdData => {
                self.vcs[v].edge.as_deref_mut().expect("checked").on_ack(&mut cell);
                self.pass_backward(1, cell);
            }
            _ => self.at_router(cell),
        }
    }

    /// A data packet reached its source edge router (node 1): the rate estimate, the packet on
    /// its way, and a forward RD packet right behind it when one is due.
    fn at_source_edge(&mut self, cell: Cell) {
        let vc = &mut self.vcs[cell.vc.index()];
        let rd = vc.edge.as_deref_mut().expect("checked by the caller").on_data(self.now, cell.vc, cell.bits() as f64);
        self.pass_forward(1, cell);
        if let Some(rd) = rd {
            self.vcs[cell.vc.index()].books.fwd_sent += 1;
            self.forward_rd(1, rd);
        }
    }
}
