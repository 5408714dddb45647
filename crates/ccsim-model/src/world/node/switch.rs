//! An ATM switch: a cell meets the ABR scheme of the output port it is routed to (docs/models/abr/'s
//! switch hooks), then that port's buffer. Also the scheme timers and, at build, the removal of
//! schemes nobody consults.
//!
//! May touch the switch's ports and schemes and the arriving cell's VC (books, policer). A VC's
//! ingress policer (GFR's F-GCRA) runs at its first switch, before the scheme hooks and the buffer.

use crate::cell::{Cell, CellKind, Flags};
use crate::ids::PortId;
use crate::policer::Verdict;
use crate::port::DropReason;
use crate::trace::{TraceEvent, TraceReason};
use crate::world::{Event, World};
use ccsim_engine::SimDuration;

impl World {
    /// A cell arrived at a switch. Forward cells of ABR VCs meet the scheme of their output port
    /// (counting, FRM hooks, a scheme's discard); background cells its background hook; UBR
    /// cells only the buffer. A backward RM cell meets the scheme of its VC's forward port here
    /// (where the switch measures that VC's load) and leaves by the reverse port.
    #[inline(always)]
    pub(in crate::world) fn at_switch(&mut self, mut cell: Cell) {
        let v = cell.vc.index();
        if cell.is_forward() {
            let node = cell.hop as usize + 1;
            let route = self.routes.of_vc(v);
            cell.hop = node as u16;
            let out = self.routes.fwd(route, node);
            let abr = route.abr;
            // The VC enters the network here: its policer (GFR's F-GCRA) sees its data cells.
            if node == 1 && route.policed && !self.police(&mut cell, out) {
                return;
            }
            let port = &mut self.ports[out.index()];
            let view = port.view(self.now);
            if cell.high_priority() {
                if let Some(scheme) = port.scheme.as_mut() {
                    scheme.on_background_cell(&view);
                }
            } else if let (true, Some(scheme)) = (abr, port.scheme.as_mut()) {
                scheme.on_cell_arrival(&mut cell, &view);
                if cell.kind == CellKind::Frm {
                    scheme.on_frm(cell.vc, &cell, &view);
                } else if cell.kind == CellKind::Data && !scheme.admit(&cell, &view) {
                    return self.refuse_selective(out, cell);
                }
            }
            // `view` above brought the port up to now.
            self.enqueue_synced(out, cell);
        } else {
            let node = cell.hop as usize;
            if cell.kind == CellKind::Brm {
                let fwd = self.routes.fwd(self.routes.of_vc(v), node);
                let port = &mut self.ports[fwd.index()];
                let view = port.view(self.now);
                if let Some(scheme) = port.scheme.as_mut() {
                    scheme.on_brm(cell.vc, &mut cell, &view);
                }
            }
            self.pass_backward(node, cell);
        }
    }

    /// The scheme of port `out` refused a data cell (DEBRA's selective discard): the port and the
    /// VC's books count the drop. Out of line: drops are rare.
    #[cold]
    #[inline(never)]
    fn refuse_selective(&mut self, out: PortId, cell: Cell) {
        self.ports[out.index()].buffer.reject(cell.vc, DropReason::Selective);
        self.count_drop(&cell, self.now);
        if self.trace.is_some() {
            self.trace_port(TraceEvent::Drop, &cell, self.now, out, TraceReason::Port(DropReason::Selective));
        }
    }

    /// A data cell of a policed VC at its ingress switch, for output port `out`: the policer's
    /// verdict applied (tagged, or dropped and counted at `out`). False if the cell is gone.
    /// Out of line: only GFR VCs with a policer come here.
    #[inline(never)]
    fn police(&mut self, cell: &mut Cell, out: PortId) -> bool {
        if cell.kind != CellKind::Data {
            return true;
        }
        let vc = &mut self.vcs[cell.vc.index()];
        let policer = vc.policer.as_deref_mut().expect("checked by the caller");
        match policer.on_cell(self.now, cell) {
            Verdict::Pass => true,
            Verdict::Tag => {
                cell.flags.set(Flags::CLP, true);
                true
            }
            Verdict::Drop => {
                self.ports[out.index()].buffer.reject(cell.vc, DropReason::Policed);
                self.count_drop(cell, self.now);
                if self.trace.is_some() {
                    self.trace_port(TraceEvent::Drop, cell, self.now, out, TraceReason::Port(DropReason::Policed));
                }
                false
            }
        }
    }

    /// A port's scheme timer: the scheme's interval ends if it is due (it may have moved), and
    /// the one pending timer of the port is re-armed at the scheme's next deadline.
    pub(in crate::world) fn on_scheme_timer(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.ports[p.index()];
        let view = port.view(now);
        let Some(scheme) = port.scheme.as_mut() else { return };
        if let Some(due) = scheme.timer_due() {
            if now >= due {
                scheme.on_timer(&view);
            }
        }
        if let Some(due) = scheme.timer_due() {
            let due = due.max(now + SimDuration::from_ps(1));
            self.schedule(due, Event::SchemeTimer(p));
        }
    }

    /// A switch scheme is consulted only by the cells of VCs that cross its port forward (a
    /// backward RM cell consults the scheme of its VC's forward port at that switch). A port that
    /// no ABR or background VC crosses forward (the reverse half of an access link, say) gives
    /// its scheme nothing to measure and nobody to tell: the scheme is removed, and with it a
    /// timer event per averaging interval (half of GFC1's 54).
    pub(in crate::world) fn drop_idle_schemes(&mut self) {
        let used = self.crossed_forward(|vc| vc.abr || vc.background().is_some());
        for (port, used) in self.ports.iter_mut().zip(used) {
            if !used {
                port.scheme = None;
            }
        }
    }
}
