//! Credit trains, the port's side (docs/models/credit.md; the world's side is
//! `world/credit_train.rs`): a credit port carried by exactly one connection and no other cells
//! serves that connection's cells in order, one after the other, whenever it has a credit. So,
//! as at a FIFO port, a cell's departure is known as soon as it may start: at the end of the
//! cell before it, or now if the link is idle. The train schedules it then (`Tx_Counter` counts
//! it, its stamps are set for its start), puts it into the link pipe with its arrival time, and
//! keeps its start and end here. A cell without a credit waits in its connection's queue until a
//! BSU (`train_fill` again). Credit only grows between a scheduling and the cell's start (only
//! this port's own sends consume it), so every cell starts when the held discipline would have
//! started it.
//!
//! What the held discipline does at a start (`Credit::next`'s BSC bookkeeping) and at a
//! departure (buffer, queue record, counters, the connection's held cells) is applied lazily, in
//! time order, by `train_starts` (only before the BSC bookkeeping is read; a departure applies
//! its cell's start first if it was not) and `train_depart`, up to a cut-off the world gives:
//! the instants the event order of the held discipline has passed (`World::train_sync`).

use super::{AnyDiscipline, AnyHeldOrder, Credit};
use crate::cell::{CellKind, Stamp};
use crate::ids::{PortId, VcId};
use crate::port::{InFlight, Port};
use ccsim_engine::SimTime;
use std::collections::VecDeque;

/// A scheduled cell: when its transmission starts and ends, its size and tag.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Sched {
    start: SimTime,
    end: SimTime,
    bits: u32,
    clp: bool,
}

/// The schedule of a credit train.
#[derive(Clone, Debug)]
pub struct Train {
    /// Cells scheduled and not yet departed, in order (each in the pipe already).
    sched: VecDeque<Sched>,
    /// The first `started` of them have had their start applied (`Credit::train_started`).
    started: usize,
    /// When the last scheduled cell's transmission ends.
    last_end: SimTime,
    /// The connection.
    pub vc: VcId,
    /// The port whose receiver counts this port's departures as forwarded (the hop before this
    /// one; `None` at the connection's first hop, where nobody does).
    pub up: Option<PortId>,
    /// The time of the pending departure event (the departure that completes the upstream
    /// receiver's next N2 count); a later one supersedes it.
    pub event_at: Option<SimTime>,
}

impl Train {
    pub fn new(vc: VcId, up: Option<PortId>) -> Self {
        Train { sched: VecDeque::new(), started: 0, last_end: SimTime::ZERO, vc, up, event_at: None }
    }

    /// Cells scheduled that have not started yet.
    pub(super) fn unstarted(&self) -> u64 {
        (self.sched.len() - self.started) as u64
    }

    /// When the `n`-th (from 0) pending departure happens, if that many are scheduled.
    pub fn pending_end(&self, n: usize) -> Option<SimTime> {
        self.sched.get(n).map(|s| s.end)
    }

    /// The transmission in progress at `now` (brought up to `now`): its end and bits.
    pub(super) fn in_progress(&self, now: SimTime) -> Option<(SimTime, f64)> {
        self.sched.front().filter(|s| s.start <= now).map(|s| (s.end, s.bits as f64))
    }
}

impl Port {
    /// The credit train of this port, if it runs as one.
    #[inline]
    pub fn train(&self) -> Option<&Train> {
        self.credit().and_then(|c| c.train.as_ref())
    }

    pub fn train_mut(&mut self) -> Option<&mut Train> {
        self.credit_mut().and_then(|c| c.train.as_mut())
    }

    #[inline]
    pub fn is_train(&self) -> bool {
        self.train().is_some()
    }

    fn train_credit(&mut self) -> &mut Credit {
        match &mut self.discipline {
            AnyDiscipline::Held(h) => match &mut h.order {
                AnyHeldOrder::Credit(c) if c.train.is_some() => c,
                _ => unreachable!("a credit train"),
            },
            AnyDiscipline::Fifo => unreachable!("a credit train"),
        }
    }

    /// Schedules the connection's waiting cells while it has a credit, back to back from the end
    /// of the last scheduled cell (or from `now` if none is left: the link is idle, and the cell
    /// starts now). Departures up to now must be applied first. The result: whether any cell was
    /// scheduled, and the arrival to schedule if the first became the pipe's head.
    #[inline]
    pub fn train_fill(&mut self, now: SimTime) -> (bool, Option<SimTime>) {
        let Port { discipline, clock, pipe, delay, .. } = self;
        let AnyDiscipline::Held(h) = discipline else { unreachable!("a credit train") };
        let AnyHeldOrder::Credit(c) = &mut h.order else { unreachable!("a credit train") };
        let (mut any, mut head) = (false, None);
        loop {
            let t = c.train.as_ref().expect("a credit train");
            let idle = t.sched.is_empty();
            let start = if idle { now } else { t.last_end };
            debug_assert!(start >= now);
            let Some(mut cell) = c.train_take(start) else { break };
            // A forward data item on its source's access link (hop 0) leaves its source now.
            if cell.hop == 0 && cell.kind == CellKind::Data {
                cell.set_sent(Stamp::of(start));
            }
            let end = start + clock.tx_time(cell.bits());
            if idle {
                // The transmitter was free: it starts in this very event, as a kick starts it.
                c.train_started(start);
            }
            let t = c.train.as_mut().expect("a credit train");
            t.sched.push_back(Sched { start, end, bits: cell.bits() as u32, clp: cell.clp() });
            t.started += idle as usize;
            t.last_end = end;
            let arrival = end + *delay;
            if pipe.is_empty() {
                head = Some(arrival);
            }
            pipe.push_back(InFlight { arrival, cell });
            any = true;
        }
        (any, head)
    }

    /// Applies the starts that `due` says have happened (`Credit::train_started`, in order).
    pub fn train_starts(&mut self, due: impl Fn(SimTime) -> bool) {
        let c = self.train_credit();
        loop {
            let t = c.train.as_mut().expect("a credit train");
            let Some(s) = t.sched.get(t.started).filter(|s| due(s.start)) else { return };
            let start = s.start;
            t.started += 1;
            c.train_started(start);
        }
    }

    /// The next departure, if `due` says it has happened (starts applied first): the cell leaves
    /// the buffer's books and the connection's held cells, and the queue is recorded at its end.
    /// The result is its VC.
    #[inline]
    pub fn train_depart(&mut self, due: impl Fn(SimTime) -> bool) -> Option<VcId> {
        let c = self.train_credit();
        let t = c.train.as_mut().expect("a credit train");
        let s = *t.sched.front().filter(|s| due(s.end))?;
        t.sched.pop_front();
        let vc = t.vc;
        if t.started == 0 {
            // Its start, before its end, has happened (the ones before it are applied).
            c.train_started(s.start);
        } else {
            t.started -= 1;
        }
        c.train_departed();
        self.buffer.release(vc, s.clp);
        self.queue.record(s.end, self.buffer.len());
        self.departed += 1;
        self.departed_bits += s.bits as u64;
        Some(vc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Cell;
    use crate::ids::NodeId;
    use crate::port::discipline::HeldOrder;
    use crate::port::{Control, CreditParams};
    use ccsim_engine::SimDuration;

    const CELL_PS: u64 = 42_400_000;

    fn port(train: bool) -> Port {
        let mut p = Port::new("p".into(), "l".into(), NodeId(0), NodeId(1), 10_000_000, SimDuration::from_micros(5), 1000, None, true);
        let params = CreditParams { n2: 2, policy_limit: 4, allow_equal: false, t_bsc: SimDuration::from_secs(1) };
        let mut c = Credit::new(params);
        c.stamp_heads = true;
        if train {
            c.train = Some(Train::new(VcId(0), None));
        }
        p.discipline = AnyDiscipline::held(AnyHeldOrder::Credit(c));
        p
    }

    fn cell(n: u16) -> Cell {
        let mut c = Cell::data(VcId(0));
        c.frame = n;
        c.set_queued(Stamp::of(SimTime::ZERO));
        c
    }

    /// Every cell's arrival at the far end, `sent` and `queued` stamps, and the queue's integral.
    fn outcome(p: &Port, end: SimTime) -> (Vec<(SimTime, SimTime, SimTime)>, u128, u32) {
        let cells = p.pipe.iter().map(|f| (f.arrival, f.cell.sent().at(f.arrival), f.cell.queued().at(f.arrival))).collect();
        (cells, p.queue_area(end), p.queue.max)
    }

    /// The held discipline with an event per departure; at a tie, offers (arrivals) first, then
    /// the departure, then the BSU (the world's order of event kinds).
    fn held(offers: &[u64], bsu: u64) -> (Vec<(SimTime, SimTime, SimTime)>, u128, u32) {
        let mut p = port(false);
        let (mut dep, mut i, mut bsu) = (None::<SimTime>, 0, Some(SimTime::from_ps(bsu)));
        loop {
            let offer = offers.get(i).map(|&t| SimTime::from_ps(t));
            let Some(now) = [offer, dep, bsu].into_iter().flatten().min() else { break };
            if offer == Some(now) {
                if let Some(t) = p.offer_held(now, cell(i as u16)).unwrap() {
                    dep = Some(t);
                }
                i += 1;
            } else if dep == Some(now) {
                dep = p.depart(now).1;
            } else {
                bsu = None;
                p.credit_mut().unwrap().on_bsu(0, 4);
                dep = p.kick(now).or(dep);
            }
        }
        outcome(&p, SimTime::from_ps(1_000_000_000_000))
    }

    /// The same as a train: happenings in time order, each after the departures before it (at
    /// a tie, an offer sees the departure still to come; the BSU sees it done).
    fn train(offers: &[u64], bsu: u64) -> (Vec<(SimTime, SimTime, SimTime)>, u128, u32, Port) {
        let mut p = port(true);
        let mut happenings: Vec<(u64, Option<u16>)> = offers.iter().enumerate().map(|(i, &t)| (t, Some(i as u16))).collect();
        happenings.push((bsu, None));
        happenings.sort_by_key(|&(t, what)| (t, what.is_none()));
        for (t, what) in happenings {
            let now = SimTime::from_ps(t);
            let inclusive = what.is_none();
            let due = |x: SimTime| x < now || (inclusive && x == now);
            p.train_starts(due);
            while p.train_depart(due).is_some() {}
            match what {
                Some(n) => {
                    p.buffer.admit(&cell(n)).unwrap();
                    p.credit_mut().unwrap().hold(cell(n));
                    p.queue.record(now, p.buffer.len());
                }
                None => p.credit_mut().unwrap().on_bsu(0, 4),
            }
            p.train_fill(now);
        }
        p.train_starts(|_| true);
        while p.train_depart(|_| true).is_some() {}
        let (cells, area, max) = outcome(&p, SimTime::from_ps(1_000_000_000_000));
        (cells, area, max, p)
    }

    /// A train schedules each cell when the held discipline would start it: the same arrivals,
    /// stamps and queue, with a credit that runs out (Policy_Limit 4) until a BSU restores it,
    /// whether the BSU comes while the link is busy, at a departure's very picosecond, or after
    /// the link went idle; and offers at the picosecond a transmission ends.
    #[test]
    fn a_train_starts_every_cell_when_the_held_discipline_would() {
        let offers = [0, 0, 1_000, CELL_PS, CELL_PS * 3 / 2, CELL_PS * 10, CELL_PS * 10 + 1];
        for bsu in [CELL_PS * 2, CELL_PS * 4, CELL_PS * 4 + 7, CELL_PS * 20] {
            let want = held(&offers, bsu);
            let (cells, area, max, p) = train(&offers, bsu);
            assert_eq!((cells, area, max), want, "BSU at {bsu}");
            assert_eq!(want.0.len(), 7);
            assert_eq!((p.departed, p.buffer.len()), (7, 0));
            let c = p.credit().unwrap();
            assert_eq!((c.held_of(VcId(0)), c.outstanding(VcId(0))), (0, 3));
        }
    }

    /// A BSC round counts only the cells whose transmission started (the others would be
    /// phantom losses at the receiver).
    #[test]
    fn a_bsc_round_counts_only_started_cells() {
        let mut p = port(true);
        for n in 0..3 {
            p.buffer.admit(&cell(n)).unwrap();
            p.credit_mut().unwrap().hold(cell(n));
        }
        p.train_fill(SimTime::ZERO);
        // The first cell started at once; the others start one and two cell times later.
        p.train_starts(|x| x <= SimTime::from_ps(CELL_PS - 1));
        assert_eq!(p.credit_mut().unwrap().bsc_round(SimTime::from_ps(1_000_000_000_000)), [Control::Bsc { unit: 0, tx: 1 }]);
        p.train_starts(|x| x <= SimTime::from_ps(CELL_PS));
        assert_eq!(p.credit_mut().unwrap().bsc_round(SimTime::from_ps(2_000_000_000_000)), [Control::Bsc { unit: 0, tx: 2 }]);
    }
}
