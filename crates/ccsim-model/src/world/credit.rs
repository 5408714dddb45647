//! Controlled Transfer in the world (seed 004; docs/models/credit.md): the two ends of each
//! credit-controlled hop and what crosses between them. The transmitter's state is its port's
//! held order (`port::Credit`), at the node the hop leaves; the receiver's (`port::CreditRx`,
//! `World::credit_rx`) is at the node it leads to, where a cell of a credit-controlled VC that
//! leaves the next port (or reaches the destination) counts as forwarded for the hop. They share
//! only the BSU and BSC cells between them, which take effect one cell time plus the link's delay
//! after they leave, each direction on its own `ControlLine`: a BSU reaches the transmitter as an
//! `Event::Bsu`, a BSC the receiver as an `Event::Bsc`, and every T_BSC the transmitter's
//! `Event::Credit` sends its BSCs. So the two ends may run in different logical processes, and
//! on different threads (`threads.rs` carries the lines' cells as it carries a link's).
//!
//! A line is kept as a pipe is: the end that appends to an empty line schedules the event for
//! its first cell, the end it goes to the next one's after each event.

use super::{Event, World};
use crate::cell::Cell;
use crate::ids::{PortId, VcId};
use crate::port::{Control, Credit, CreditRx};
use ccsim_engine::SimTime;

impl World {
    /// The receiving end of port `p`'s credit-controlled hop.
    #[inline]
    pub(in crate::world) fn credit_rx(&self, p: PortId) -> &CreditRx {
        self.credit_rx[p.index()].as_ref().expect("a credit hop")
    }

    #[inline]
    fn credit_rx_mut(&mut self, p: PortId) -> &mut CreditRx {
        self.credit_rx[p.index()].as_mut().expect("a credit hop")
    }

    /// The receiving end of port `p`'s hop, if it is credit-controlled (results).
    pub fn credit_receiver(&self, p: PortId) -> Option<&CreditRx> {
        self.credit_rx.get(p.index()).and_then(Option::as_ref)
    }

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
            self.credit_rx_mut(up).received(vc);
        }
    }

    /// The receiver of the hop out of port `p` forwarded a cell of `vc` (to the next port, or to
    /// the destination's adapter): its BSU goes back when N2 are counted.
    pub(in crate::world) fn credit_forwarded(&mut self, p: PortId, vc: VcId) {
        if let Some(bsu) = self.credit_rx_mut(p).forwarded(vc) {
            self.credit_send(p, bsu);
        }
    }

    /// A BSU or BSC of the hop out of port `p` leaves now, on its line to the other end; it takes
    /// effect one cell time and the link's propagation delay later [RECON]. A BSC thus arrives
    /// after every cell sent before it (never before: `Port::cell_time` rounds up, and arrivals
    /// run before credit events at the same picosecond), so the receiver's count of lost cells is
    /// exact; and it takes effect after the window it leaves in (a window is at most the delay
    /// of any link between two logical processes).
    fn credit_send(&mut self, p: PortId, msg: Control) {
        let port = &self.ports[p.index()];
        let at = self.now + port.delay + port.cell_time();
        self.credit_arrived(p, at, msg);
    }

    /// A BSU or BSC of the hop out of port `p`, taking effect at `at`, joins its line (as it
    /// leaves, or, on threads, as it reaches the copy of the line that its end's thread holds).
    pub(in crate::world) fn credit_arrived(&mut self, p: PortId, at: SimTime, msg: Control) {
        let (first, ev) = match msg {
            Control::Bsu { .. } => (self.ports[p.index()].credit_mut().expect("a credit port").bsus.push(at, msg), Event::Bsu(p)),
            Control::Bsc { .. } => (self.credit_rx_mut(p).bscs.push(at, msg), Event::Bsc(p)),
        };
        if first {
            self.schedule(at, ev);
        }
    }

    /// Credit port `p` started a cell now. If it is the port's first, its BSC rounds start: its
    /// credit event is armed now for the first (at T_BSC, or T_BSC after now if that is later).
    #[inline]
    pub(in crate::world) fn credit_started(&mut self, p: PortId) {
        if self.ports[p.index()].credit().is_some_and(Credit::rounds_unarmed) {
            self.credit_rearm(p);
        }
    }

    /// Keeps exactly one pending `Credit` event per port, at its next BSC round.
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

    /// Port `p`'s credit event: its BSC round, if due, sends a BSC for every unit that has sent.
    pub(in crate::world) fn on_credit(&mut self, p: PortId) {
        let now = self.now;
        let credit = self.ports[p.index()].credit_mut().expect("a credit port");
        if credit.event_at != Some(now) {
            return;
        }
        credit.event_at = None;
        self.train_starts(p);
        for bsc in self.ports[p.index()].credit_mut().expect("checked").bsc_round(now) {
            self.credit_send(p, bsc);
        }
        self.credit_rearm(p);
    }

    /// BSUs reach port `p`'s transmitter: each may give an idle transmitter a credit.
    pub(in crate::world) fn on_bsu(&mut self, p: PortId) {
        let now = self.now;
        while let Some(msg) = self.ports[p.index()].credit_mut().expect("a credit port").bsus.due(now) {
            let Control::Bsu { unit, fwd } = msg else { unreachable!("a BSU line") };
            self.ports[p.index()].credit_mut().expect("checked").on_bsu(unit, fwd);
            if self.ports[p.index()].is_train() {
                self.train_sync(p);
                self.train_fill(p);
            } else if let Some(t) = self.ports[p.index()].kick(now) {
                self.schedule(t, Event::PortDeparture(p));
            }
        }
        if let Some(t) = self.ports[p.index()].credit().expect("checked").bsus.next_at() {
            self.schedule(t, Event::Bsu(p));
        }
    }

    /// BSCs reach the receiver of port `p`'s hop: each makes it count the cells sent before it
    /// that never arrived, and answer with a BSU.
    pub(in crate::world) fn on_bsc(&mut self, p: PortId) {
        let now = self.now;
        while let Some(msg) = self.credit_rx_mut(p).bscs.due(now) {
            let Control::Bsc { unit, tx } = msg else { unreachable!("a BSC line") };
            let next = self.credit_receiver_sync(p, unit);
            let bsu = self.credit_rx_mut(p).on_bsc(unit, tx);
            self.credit_send(p, bsu);
            // The receiver's N2 count restarted: a train at the next port moves its event.
            if let Some(q) = next {
                self.train_rearm(q);
            }
        }
        if let Some(t) = self.credit_rx(p).bscs.next_at() {
            self.schedule(t, Event::Bsc(p));
        }
    }

    /// Before a BSC of unit `unit` of the hop out of port `p` is counted: the receiver's books
    /// brought up to now. A unit of one connection may be received by a credit train (the VC's
    /// next port), whose departures so far count as forwarded; that port is the result (none at
    /// the destination, whose adapter forwards every cell at once). A VP's connections are never
    /// received by a train (`mark_credit_trains`).
    fn credit_receiver_sync(&mut self, p: PortId, unit: u32) -> Option<PortId> {
        let (vc, alone) = self.credit_rx(p).unit_first(unit);
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
