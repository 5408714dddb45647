//! Controlled Transfer in the world (seed 004; docs/models/credit.md): what crosses between the
//! two ends of a credit-controlled hop. The hop's state lives at its transmitting port
//! (`port::Credit`); the receiving end reaches it here: a cell of a credit-controlled VC that
//! leaves the next port (or reaches the destination) counts as forwarded for the hop before, and
//! every N2 of them a BSU goes back; BSU and BSC cells take effect one cell time plus the link's
//! delay after they leave (`Event::Credit`), and every T_BSC each port sends its BSCs.
//!
//! Touches the credit state of the two ports of a hop at once: credit-controlled worlds run from
//! one queue (`World::can_run_in_windows` refuses them).

use super::{Event, World};
use crate::cell::Cell;
use crate::ids::{PortId, VcId};
use crate::port::{Control, Credit};

impl World {
    /// A cell left credit-controlled port `p` (its transmission ended): one cell fewer in the
    /// receive buffer of the hop before, and, for a forward cell past its first hop, forwarded
    /// for that hop.
    pub(in crate::world) fn credit_departed(&mut self, p: PortId, cell: Cell) {
        if !cell.is_forward() {
            return;
        }
        self.ports[p.index()].credit_mut().expect("a credit port").departed(cell.vc);
        if cell.hop > 0 {
            let up = self.vcs[cell.vc.index()].fwd_ports[cell.hop as usize - 1];
            self.credit_forwarded(up, cell.vc);
        } else if matches!(&self.vcs[cell.vc.index()].ends, super::Ends::Tcp(t) if !t.blocked.is_empty()) {
            // The source adapter has room again: PDUs held back may enter.
            self.adapter_refill(cell.vc);
        }
    }

    /// A forward cell of `vc` entered credit port `q` (held there) or its destination's adapter,
    /// at hop `hop` of its route: past the first hop, the receiver of the hop before took it
    /// into its buffer.
    #[inline]
    pub(in crate::world) fn credit_received(&mut self, vc: VcId, hop: usize) {
        if hop > 0 {
            let up = self.vcs[vc.index()].fwd_ports[hop - 1];
            self.ports[up.index()].credit_mut().expect("a credit port").received(vc);
        }
    }

    /// The receiver of the hop out of port `p` forwarded a cell of `vc` (to the next port, or to
    /// the destination's adapter): its BSU goes back when N2 are counted.
    pub(in crate::world) fn credit_forwarded(&mut self, p: PortId, vc: VcId) {
        if let Some(bsu) = self.ports[p.index()].credit_mut().expect("a credit port").forwarded(vc) {
            self.credit_send(p, bsu);
        }
    }

    /// A BSU or BSC of the hop out of port `p` leaves now; it takes effect one cell time and the
    /// link's propagation delay later [RECON]. A BSC thus arrives after every cell sent before it
    /// (never before: `Port::cell_time` rounds up, and arrivals run before credit events at the
    /// same picosecond), so the receiver's count of lost cells is exact.
    fn credit_send(&mut self, p: PortId, msg: Control) {
        let port = &mut self.ports[p.index()];
        let at = self.now + port.delay + port.cell_time();
        port.credit_mut().expect("a credit port").send(at, msg);
        self.credit_rearm(p);
    }

    /// Credit port `p` started a cell now. If it is the port's first, its BSC rounds start: its
    /// credit event is armed now for the first (at T_BSC, or T_BSC after now if that is later).
    /// Nothing else arms it before the port's first control cell, a BSU that leaves only when the
    /// receiver has forwarded N2 cells; with T_BSC shorter than that, the round would be past.
    #[inline]
    pub(in crate::world) fn credit_started(&mut self, p: PortId) {
        if self.ports[p.index()].credit().is_some_and(Credit::rounds_unarmed) {
            self.credit_rearm(p);
        }
    }

    /// Keeps exactly one pending `Credit` event per port, at its credit state's next due time.
    fn credit_rearm(&mut self, p: PortId) {
        // A train's starts so far are the BSC rounds' bookkeeping (`Credit::next`).
        self.train_starts(p);
        let credit = self.ports[p.index()].credit_mut().expect("a credit port");
        let due = credit.next_due();
        debug_assert!(due.is_none_or(|t| t >= self.now), "a credit event in the past");
        if due != credit.event_at {
            credit.event_at = due;
            if let Some(t) = due {
                self.schedule(t, Event::Credit(p));
            }
        }
    }

    /// Port `p`'s credit event: the BSU and BSC cells due now take effect, and the BSC round if it
    /// is due. A BSU may give an idle transmitter a credit; a BSC makes the receiver count the
    /// cells sent before it that never arrived and answer with a BSU.
    pub(in crate::world) fn on_credit(&mut self, p: PortId) {
        let now = self.now;
        let credit = self.ports[p.index()].credit_mut().expect("a credit port");
        if credit.event_at != Some(now) {
            return;
        }
        credit.event_at = None;
        self.train_starts(p);
        while let Some(msg) = self.ports[p.index()].credit_mut().expect("checked").due(now) {
            match msg {
                Control::Bsu { unit, fwd } => {
                    self.ports[p.index()].credit_mut().expect("checked").on_bsu(unit, fwd);
                    if self.ports[p.index()].is_train() {
                        self.train_sync(p);
                        self.train_fill(p);
                    } else if let Some(t) = self.ports[p.index()].kick(now) {
                        self.schedule(t, Event::PortDeparture(p));
                    }
                }
                Control::Bsc { unit, tx } => {
                    let next = self.credit_receiver_sync(p, unit);
                    let bsu = self.ports[p.index()].credit_mut().expect("checked").on_bsc(unit, tx);
                    self.credit_send(p, bsu);
                    // The receiver's N2 count restarted: a train at the next port moves its event.
                    if let Some(q) = next {
                        self.train_rearm(q);
                    }
                }
            }
        }
        for bsc in self.ports[p.index()].credit_mut().expect("checked").bsc_round(now) {
            self.credit_send(p, bsc);
        }
        self.credit_rearm(p);
    }

    /// Before a BSC of unit `unit` of the hop out of port `p` is counted: the receiver's books
    /// brought up to now. A unit of one connection may be received by a credit train (the VC's
    /// next port), whose departures so far count as forwarded; that port is the result (none at
    /// the destination, whose adapter forwards every cell at once). A VP's connections are never
    /// received by a train (`mark_credit_trains`).
    fn credit_receiver_sync(&mut self, p: PortId, unit: u32) -> Option<PortId> {
        let (vc, alone) = self.ports[p.index()].credit().expect("a credit port").unit_first(unit);
        if !alone {
            return None;
        }
        let route = &self.vcs[vc.index()].fwd_ports;
        let k = route.iter().position(|&q| q == p).expect("the port is on the VC's route");
        let &q = route.get(k + 1)?;
        self.train_sync(q);
        Some(q)
    }
}
