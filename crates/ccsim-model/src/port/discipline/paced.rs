//! An HG-RCP host's IP output (seed 000; docs/models/hgrcp.md): a default queue, whose packets
//! leave as the link allows, and a rate-managed queue for the destinations the Queue Mapping
//! Table knows, paced at the explicit rate the gateway's last rate notification (RN) gave.
//!
//! The pacer charges each packet the ATM cells it will take behind the gateway (its IP length
//! plus LLC/SNAP and the AAL5 trailer, in 48-byte payloads) and lets the next one go
//! `cells / ER` after the last release [RECON: the seed defers the pacer to another paper]. A
//! rate change re-times the next release from the last one, so a higher rate takes effect at
//! once; ER = 0 holds the queue until a positive RN. A held discipline: `next` says when the
//! next packet is due (`Next::At`), or that the queue waits for an RN (`Next::Idle`).

use super::{HeldOrder, Next};
use crate::aal5;
use crate::cell::{Cell, Flags};
use ccsim_engine::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Paced {
    /// Packets for destinations the Queue Mapping Table does not know (not rate-managed).
    default: VecDeque<Cell>,
    /// The rate-managed queue (one Qid: a host of seed 000 talks through one gateway).
    managed: VecDeque<Cell>,
    /// The Queue Mapping Table knows the destination network (preloaded, or learned from a QN).
    known: bool,
    /// The explicit rate, cells/s (0: held).
    rate: f64,
    /// The last release from the managed queue and the cells it was charged.
    last_release: Option<(SimTime, u32)>,
    /// Bytes of link framing in a packet's `size` above its IP length (Ethernet: 38).
    framing_bytes: u16,
}

impl Paced {
    /// `known`: the Queue Mapping Table is preloaded with the destination; `rate`: the initial
    /// explicit rate (cells/s); `framing_bytes`: link framing counted in each packet's size.
    pub fn new(known: bool, rate: f64, framing_bytes: u16) -> Self {
        Paced { default: VecDeque::new(), managed: VecDeque::new(), known, rate, last_release: None, framing_bytes }
    }

    /// The cells a packet will take in the ABR connection: its IP length with LLC/SNAP in AAL5.
    fn charge(&self, packet: &Cell) -> u32 {
        aal5::cells((packet.size.saturating_sub(self.framing_bytes)) as u32, true)
    }

    /// When the managed queue's head may leave.
    fn due(&self) -> SimTime {
        match self.last_release {
            None => SimTime::ZERO,
            Some((t, cells)) => t + SimDuration::from_secs_f64(cells as f64 / self.rate),
        }
    }

    /// A rate notification: the new explicit rate (cells/s).
    pub fn set_rate(&mut self, rate: f64) {
        self.rate = rate.max(0.0);
    }

    /// A queue notification: the destination is rate-managed from now on, and the packets
    /// waiting in the default queue for it move to the managed queue, in order.
    pub fn learn(&mut self) {
        self.known = true;
        for mut p in self.default.drain(..) {
            p.flags.set(Flags::QBIT, true);
            self.managed.push_back(p);
        }
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn is_managed(&self) -> bool {
        self.known
    }
}

impl HeldOrder for Paced {
    fn buffered(&self, _cell: &Cell) -> bool {
        true
    }

    fn hold(&mut self, mut cell: Cell) {
        if self.known && cell.is_forward() {
            cell.flags.set(Flags::QBIT, true);
            self.managed.push_back(cell);
        } else {
            self.default.push_back(cell);
        }
    }

    fn next(&mut self, now: SimTime) -> Next {
        if let Some(p) = self.default.pop_front() {
            return Next::Cell(p);
        }
        let Some(head) = self.managed.front() else { return Next::Idle };
        if self.rate <= 0.0 {
            return Next::Idle;
        }
        let due = self.due();
        if due > now {
            return Next::At(due);
        }
        let cells = self.charge(head);
        self.last_release = Some((now, cells));
        Next::Cell(self.managed.pop_front().expect("checked"))
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.default.iter().chain(self.managed.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;
    use crate::ids::VcId;

    /// A 1500-byte IP packet with Ethernet framing on the wire: 32 cells behind the gateway.
    fn packet(n: u16) -> Cell {
        Cell::packet(VcId(0), CellKind::Data, n, 1500 + 38)
    }

    fn t(s: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(s)
    }

    #[test]
    fn unmanaged_packets_leave_at_once_without_the_q_bit() {
        let mut p = Paced::new(false, 0.0, 38);
        p.hold(packet(0));
        p.hold(packet(1));
        for n in 0..2 {
            let c = p.next(t(0.0)).cell().expect("unpaced");
            assert_eq!(c.frame, n);
            assert!(!c.flags.get(Flags::QBIT));
        }
        assert_eq!(p.next(t(0.0)), Next::Idle);
    }

    #[test]
    fn managed_packets_are_spaced_by_their_cells_at_the_explicit_rate() {
        let mut p = Paced::new(true, 3200.0, 38);
        for n in 0..3 {
            p.hold(packet(n));
        }
        let first = p.next(t(0.0)).cell().unwrap();
        assert!(first.flags.get(Flags::QBIT), "sent from a rate-managed queue");
        // 32 cells at 3200 cells/s: the next one 10 ms later.
        assert_eq!(p.next(t(0.001)), Next::At(t(0.010)));
        assert!(p.next(t(0.010)).cell().is_some());
        assert_eq!(p.next(t(0.010)), Next::At(t(0.020)));
    }

    #[test]
    fn a_zero_rate_holds_the_queue_and_a_higher_rate_takes_effect_at_once() {
        let mut p = Paced::new(true, 0.0, 38);
        p.hold(packet(0));
        p.hold(packet(1));
        assert_eq!(p.next(t(0.0)), Next::Idle);
        p.set_rate(320.0);
        assert!(p.next(t(0.005)).cell().is_some(), "released at once once the rate is positive");
        assert_eq!(p.next(t(0.006)), Next::At(t(0.105)));
        p.set_rate(3200.0);
        assert_eq!(p.next(t(0.006)), Next::At(t(0.015)), "re-timed from the last release");
    }

    #[test]
    fn a_queue_notification_moves_waiting_packets_to_the_managed_queue_in_order() {
        let mut p = Paced::new(false, 3200.0, 38);
        for n in 0..3 {
            p.hold(packet(n));
        }
        p.learn();
        p.hold(packet(3));
        let mut got = vec![p.next(t(0.0)).cell().unwrap()];
        for k in 1..4 {
            got.push(p.next(t(0.010 * k as f64)).cell().unwrap());
        }
        assert_eq!(got.iter().map(|c| c.frame).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(got.iter().all(|c| c.flags.get(Flags::QBIT)));
    }
}
