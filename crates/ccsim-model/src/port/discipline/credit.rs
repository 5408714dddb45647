//! Controlled Transfer (CT, seed 004's credit scheme after the QFC protocol; docs/models/credit.md):
//! hop-by-hop credit flow control at a port. The port is the transmitter of one hop for every
//! connection it carries forward, and its queues are the receive buffer of the hop before it (one
//! physical buffer: a cell leaves the upstream hop's receiver when it leaves here).
//!
//! The unit of credit is a VP (seed 004: "our work only focuses on flow control per VP"): the
//! connections of one VP that cross this hop share its counters, its Policy_Limit and one queue,
//! in arrival order (`join`); with `scope = "connection"` each connection is a unit of its own.
//! Per unit, the transmitter counts the cells it sent (`Tx_Counter`) and keeps the receiver's
//! `Fwd_Counter` from the last buffer state update (BSU); it may send while
//! `Tx − BSU_Fwd < Policy_Limit` (`allow_equal`: the seed's literal `≤` before sending, one cell
//! more). Every T_BSC it sends a buffer state check (BSC) with its `Tx_Counter`. The receiver's
//! counters of the hop live at the receiving node (`credit_rx.rs`), which answers with buffer
//! state updates (BSUs). BSU and BSC cells take one cell time plus the link's propagation delay
//! and no buffer space [RECON]; each direction's `ControlLine` holds them until they take effect,
//! in order (their latency is the same for all). The two ends share nothing else, so a window
//! (docs/DESIGN.md §2) may separate them.
//!
//! Among units with a cell and a credit the port goes round robin [RECON]. Cells outside
//! the flow control (backward ACK and RM cells of connections that use this port in reverse) go
//! first [RECON]. A held discipline: a BSU that restores credit to an idle port kicks it.
//!
//! A port carried by one connection alone may run as a credit train instead (`credit_train.rs`,
//! `World`'s `credit_train.rs`): its cells are scheduled on the link as soon as they may start,
//! and `train_take` / `train_started` below apply what `next` applies, at each cell's start.

use super::credit_train::Train;
use super::{HeldOrder, Next};
use crate::cell::{Cell, Stamp};
use crate::ids::{PortId, VcId};
use ccsim_engine::{SimDuration, SimTime};
use std::collections::{HashMap, VecDeque};

/// The parameters of one hop's credit control.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CreditParams {
    /// Cells the receiver forwards between two BSUs (N2).
    pub n2: u32,
    /// The receiver's buffer allocation per connection, cells (Policy_Limit): at least 1. Below N2
    /// the receiver never forwards N2 cells between two BSCs, so only the BSCs return credit
    /// (`below_n2`).
    pub policy_limit: u32,
    /// Send while `Tx − BSU_Fwd ≤ Policy_Limit` before sending (the seed's wording) instead of `<`.
    pub allow_equal: bool,
    /// Interval between a connection's BSC cells (T_BSC).
    pub t_bsc: SimDuration,
}

impl CreditParams {
    /// Why these parameters cannot work, if they cannot (field name, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.n2 == 0 {
            return Err(("n2", "must be at least 1".into()));
        }
        if self.policy_limit == 0 {
            return Err(("policy_limit", "must be at least 1 cell".into()));
        }
        if self.t_bsc.is_zero() {
            return Err(("t_bsc", "must be > 0".into()));
        }
        Ok(())
    }

    /// Policy_Limit below N2: the transmitter stops after Policy_Limit cells, the receiver forwards
    /// them and empties its buffer with its N2_Counter short of N2, and sends no BSU of its own; a
    /// BSC (which resets N2_Counter) is answered by a BSU, so a hop carries at most Policy_Limit
    /// cells of a connection per T_BSC (docs/models/credit.md).
    pub fn below_n2(&self) -> bool {
        self.policy_limit < self.n2
    }
}

/// A BSU or BSC cell on its way, for one unit of credit (a VP, or a connection).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// To the transmitter: the receiver's `Fwd_Counter`.
    Bsu { unit: u32, fwd: u64 },
    /// To the receiver: the transmitter's `Tx_Counter` when it was sent.
    Bsc { unit: u32, tx: u64 },
}

/// One direction of a hop's control cells on their way, by when they take effect (in the order
/// sent: their latency is the same for all). The end they go to owns it; the other end only
/// appends.
#[derive(Clone, Debug, Default)]
pub struct ControlLine {
    cells: VecDeque<(SimTime, Control)>,
}

impl ControlLine {
    /// `msg` leaves now and takes effect at `at`; the result: whether it is the line's first
    /// (the end it goes to then needs an event at `at`).
    pub fn push(&mut self, at: SimTime, msg: Control) -> bool {
        debug_assert!(self.cells.back().is_none_or(|&(t, _)| t <= at));
        self.cells.push_back((at, msg));
        self.cells.len() == 1
    }

    /// The next cell due by `now`, if any.
    pub fn due(&mut self, now: SimTime) -> Option<Control> {
        if self.cells.front().is_some_and(|&(t, _)| t <= now) {
            return self.cells.pop_front().map(|(_, m)| m);
        }
        None
    }

    /// When the next cell takes effect.
    pub fn next_at(&self) -> Option<SimTime> {
        self.cells.front().map(|&(t, _)| t)
    }

    /// Every cell on the line of hop `hop`, oldest first, moved to `out` (threads: the cells one
    /// end's thread sent go to the other's copy of the line, `World::export`).
    pub fn move_into(&mut self, hop: PortId, out: &mut Vec<(PortId, SimTime, Control)>) {
        out.extend(self.cells.drain(..).map(|(t, m)| (hop, t, m)));
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// Which unit of credit each connection on a hop belongs to: the same at both ends of the hop
/// (both join every connection at build, in the same order).
#[derive(Clone, Debug, Default)]
pub(super) struct UnitMap {
    /// Connection of each VC (by VC index; `NONE`: none yet).
    slot: Vec<u32>,
    /// Per connection, its unit.
    conn_unit: Vec<u32>,
    /// Per unit, its first connection and how many it has.
    first: Vec<VcId>,
    members: Vec<u32>,
    /// The unit of each VP joined so far (build time only).
    vps: HashMap<u32, u32>,
}

impl UnitMap {
    /// Connection `vc` joins VP `vp`'s unit (or one of its own); the result: whether its unit is
    /// new.
    pub(super) fn join(&mut self, vc: VcId, vp: Option<u32>) -> bool {
        let i = vc.index();
        assert!(self.slot.get(i).is_none_or(|&k| k == NONE), "a connection joins a hop once");
        let (unit, new) = match vp.and_then(|v| self.vps.get(&v)) {
            Some(&u) => (u, false),
            None => {
                self.first.push(vc);
                self.members.push(0);
                let u = self.first.len() as u32 - 1;
                if let Some(v) = vp {
                    self.vps.insert(v, u);
                }
                (u, true)
            }
        };
        self.members[unit as usize] += 1;
        if i >= self.slot.len() {
            self.slot.resize(i + 1, NONE);
        }
        self.slot[i] = self.conn_unit.len() as u32;
        self.conn_unit.push(unit);
        new
    }

    /// The connection of `vc`, if it joined.
    #[inline]
    pub(super) fn conn(&self, vc: VcId) -> Option<u32> {
        self.slot.get(vc.index()).copied().filter(|&k| k != NONE)
    }

    /// The unit of `vc`, if it joined.
    #[inline]
    pub(super) fn unit(&self, vc: VcId) -> Option<u32> {
        self.conn(vc).map(|k| self.conn_unit[k as usize])
    }

    pub(super) fn units(&self) -> usize {
        self.first.len()
    }

    /// The first connection of unit `unit`, and whether it is the unit's only one.
    pub(super) fn first(&self, unit: u32) -> (VcId, bool) {
        (self.first[unit as usize], self.members[unit as usize] == 1)
    }

    /// How many connections share `vc`'s unit (0: `vc` is not on this hop).
    pub(super) fn members_with(&self, vc: VcId) -> u32 {
        self.unit(vc).map_or(0, |u| self.members[u as usize])
    }
}

/// One unit of credit on this hop at its transmitter: a VP (the connections of one VP crossing
/// this port) or, with `scope = "connection"`, one connection.
#[derive(Clone, Debug)]
struct Unit {
    /// Its cells waiting here (the receive buffer of the hop before), in arrival order.
    queue: VecDeque<Cell>,
    /// Cells sent (Tx_Counter) and the receiver's Fwd_Counter from the last BSU.
    tx: u64,
    bsu_fwd: u64,
    /// Backlogged with a credit: on the round-robin ring.
    ringed: bool,
    /// When its last cell left the queue (a source adapter's head-of-queue stamps).
    last_pop: SimTime,
}

impl Unit {
    fn new() -> Self {
        Unit { queue: VecDeque::new(), tx: 0, bsu_fwd: 0, ringed: false, last_pop: SimTime::ZERO }
    }
}

/// The transmitter of a credit-controlled hop (the port's held order).
#[derive(Clone, Debug)]
pub struct Credit {
    p: CreditParams,
    map: UnitMap,
    /// Per connection, its cells here, the one in transmission included.
    held: Vec<u32>,
    units: Vec<Unit>,
    /// Backlogged units with a credit, in round-robin order.
    ring: VecDeque<u32>,
    /// Cells outside the flow control.
    free: VecDeque<Cell>,
    /// The receiver's BSUs on their way here.
    pub bsus: ControlLine,
    /// The next round of BSCs (moved to T_BSC after the first send when it is past).
    next_bsc: SimTime,
    /// A unit has sent: BSC rounds run from then on (the world arms the first one at that
    /// send, `World::credit_started`).
    sent: bool,
    /// The time of the pending `Credit` event, the next BSC round (a later one supersedes it).
    pub event_at: Option<SimTime>,
    /// A source adapter: each data cell arrives stamped with the time it was queued and leaves
    /// stamped with the time it reached the head of its queue (`Cell::queued`).
    pub stamp_heads: bool,
    /// BSC cells it sent.
    pub bsc_sent: u64,
    /// A credit train (one connection, no other cells): its cells are scheduled on the link
    /// when they may start (`credit_train.rs`); the ring is then unused.
    pub train: Option<Train>,
}

const NONE: u32 = u32::MAX;

impl Credit {
    pub fn new(p: CreditParams) -> Self {
        Credit {
            p,
            map: UnitMap::default(),
            held: Vec::new(),
            units: Vec::new(),
            ring: VecDeque::new(),
            free: VecDeque::new(),
            bsus: ControlLine::default(),
            next_bsc: SimTime::ZERO + p.t_bsc,
            sent: false,
            event_at: None,
            stamp_heads: false,
            bsc_sent: 0,
            train: None,
        }
    }

    pub fn params(&self) -> &CreditParams {
        &self.p
    }

    /// Connection `vc` crosses this hop in VP `vp` (its cells share that VP's credit, counters
    /// and queue with the VP's other connections here), or alone (`None`: flow control per
    /// connection). A connection not joined is on its own. The hop's receiver joins it too
    /// (`CreditRx::join`), in the same order.
    pub fn join(&mut self, vc: VcId, vp: Option<u32>) {
        if self.map.join(vc, vp) {
            self.units.push(Unit::new());
        }
        self.held.push(0);
    }

    #[inline]
    fn conn_of(&mut self, vc: VcId) -> u32 {
        match self.map.conn(vc) {
            Some(k) => k,
            None => self.new_conn(vc),
        }
    }

    #[cold]
    fn new_conn(&mut self, vc: VcId) -> u32 {
        self.join(vc, None);
        self.map.conn(vc).expect("joined")
    }

    fn unit_of_known(&self, vc: VcId) -> Option<&Unit> {
        self.map.unit(vc).map(|u| &self.units[u as usize])
    }

    /// How many connections share `vc`'s unit of credit on this hop (0: `vc` is not here).
    pub fn unit_members(&self, vc: VcId) -> u32 {
        self.map.members_with(vc)
    }

    fn has_credit(&self, u: &Unit) -> bool {
        let out = u.tx - u.bsu_fwd;
        let limit = self.p.policy_limit as u64;
        if self.p.allow_equal {
            out <= limit
        } else {
            out < limit
        }
    }

    /// Puts unit `k` on the ring if it is backlogged, has a credit and is not there yet.
    fn ring_if_ready(&mut self, k: u32) {
        let u = &self.units[k as usize];
        if !u.ringed && !u.queue.is_empty() && self.has_credit(u) && self.train.is_none() {
            self.units[k as usize].ringed = true;
            self.ring.push_back(k);
        }
    }

    /// A cell of `vc` left this port (its transmission ended).
    pub fn departed(&mut self, vc: VcId) {
        if let Some(k) = self.map.conn(vc) {
            let held = &mut self.held[k as usize];
            *held = held.saturating_sub(1);
        }
    }

    /// Cells of `vc` held here, the one in transmission included.
    pub fn held_of(&self, vc: VcId) -> u32 {
        self.map.conn(vc).map_or(0, |k| self.held[k as usize])
    }

    /// A BSU reached the transmitter (stale ones change nothing).
    pub fn on_bsu(&mut self, unit: u32, fwd: u64) {
        let u = &mut self.units[unit as usize];
        if fwd > u.bsu_fwd {
            u.bsu_fwd = fwd;
            self.ring_if_ready(unit);
        }
    }

    /// If the BSC round is due at `now`: the BSCs of every unit that has sent, and the next
    /// round scheduled.
    pub fn bsc_round(&mut self, now: SimTime) -> Vec<Control> {
        if now < self.next_bsc {
            return Vec::new();
        }
        self.next_bsc = now + self.p.t_bsc;
        // A train's Tx_Counter counts its scheduled cells; those not started yet are not sent.
        let unstarted = self.train.as_ref().map_or(0, Train::unstarted);
        let out: Vec<Control> = self
            .units
            .iter()
            .enumerate()
            .map(|(k, u)| (k, u.tx - unstarted))
            .filter(|&(_, tx)| tx > 0)
            .map(|(k, tx)| Control::Bsc { unit: k as u32, tx })
            .collect();
        self.bsc_sent += out.len() as u64;
        out
    }

    /// When this port's next BSC round is due (none before any unit has sent).
    pub fn next_due(&self) -> Option<SimTime> {
        self.sent.then_some(self.next_bsc)
    }

    /// A unit has sent, and no `Credit` event is pending: the BSC rounds are not armed yet
    /// (only at the port's first send; from then on a round is always due).
    #[inline]
    pub fn rounds_unarmed(&self) -> bool {
        self.sent && self.event_at.is_none()
    }

    /// A train's next cell, if its connection has one waiting and a credit: it starts at `start`
    /// (the end of the cell before it, or now), so `Tx_Counter` counts it and a source adapter
    /// stamps it with when it became the head of its queue, as `next` does at its start.
    #[inline]
    pub(super) fn train_take(&mut self, start: SimTime) -> Option<Cell> {
        let u = self.units.first()?;
        if u.queue.is_empty() || !self.has_credit(u) {
            return None;
        }
        let stamp_heads = self.stamp_heads;
        let u = &mut self.units[0];
        let mut cell = u.queue.pop_front().expect("checked");
        if stamp_heads {
            cell.set_queued(Stamp::of(cell.queued().at(start).max(u.last_pop)));
            u.last_pop = start;
        }
        u.tx += 1;
        Some(cell)
    }

    /// A train's connection (its only one) holds a cell (`hold`, without the look-up).
    #[inline]
    pub fn train_hold(&mut self, cell: Cell) {
        debug_assert!(cell.is_forward() && self.train.as_ref().is_some_and(|t| t.vc == cell.vc));
        if self.held.is_empty() {
            self.conn_of(cell.vc);
        }
        self.held[0] += 1;
        self.units[0].queue.push_back(cell);
    }

    /// A train's cell left (`departed`, without the look-up).
    #[inline]
    pub(super) fn train_departed(&mut self) {
        self.held[0] = self.held[0].saturating_sub(1);
    }

    /// A train's cell starts at `start` (in event order, as `next` runs): the BSC rounds'
    /// bookkeeping of `next`.
    #[inline]
    pub(super) fn train_started(&mut self, start: SimTime) {
        if self.next_bsc < start {
            self.next_bsc = start + self.p.t_bsc;
        }
        self.sent = true;
    }

    /// Cells sent and not yet credited back in `vc`'s unit (`Tx − BSU_Fwd`).
    pub fn outstanding(&self, vc: VcId) -> u64 {
        self.unit_of_known(vc).map_or(0, |u| u.tx - u.bsu_fwd)
    }

    /// The Policy_Limits this port's units hold at the next element (the memory CT allocates
    /// for this hop): one per VP, or per connection.
    pub fn allocated(&self) -> u64 {
        self.units.len() as u64 * self.p.policy_limit as u64
    }
}

impl HeldOrder for Credit {
    fn buffered(&self, _cell: &Cell) -> bool {
        true
    }

    fn hold(&mut self, cell: Cell) {
        if !cell.is_forward() {
            self.free.push_back(cell);
            return;
        }
        let k = self.conn_of(cell.vc);
        self.held[k as usize] += 1;
        let unit = self.map.conn_unit[k as usize];
        self.units[unit as usize].queue.push_back(cell);
        self.ring_if_ready(unit);
    }

    fn next(&mut self, now: SimTime) -> Next {
        if let Some(c) = self.free.pop_front() {
            return Next::Cell(c);
        }
        let Some(k) = self.ring.pop_front() else { return Next::Idle };
        let u = &mut self.units[k as usize];
        let mut cell = u.queue.pop_front().expect("a ringed unit is backlogged");
        // BSC rounds run while anything was sent; after a silence the next is T_BSC from now.
        if self.next_bsc < now {
            self.next_bsc = now + self.p.t_bsc;
        }
        self.sent = true;
        if self.stamp_heads {
            // It became the head when it was queued or when the cell before it left.
            cell.set_queued(Stamp::of(cell.queued().at(now).max(u.last_pop)));
            u.last_pop = now;
        }
        u.tx += 1;
        u.ringed = false;
        self.ring_if_ready(k);
        Next::Cell(cell)
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.free.iter().chain(self.units.iter().flat_map(|u| u.queue.iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;
    use crate::port::CreditRx;

    fn params(n2: u32, limit: u32) -> CreditParams {
        CreditParams { n2, policy_limit: limit, allow_equal: false, t_bsc: SimDuration::from_secs(1) }
    }

    fn cell(vc: u32, n: u16) -> Cell {
        let mut c = Cell::data(VcId(vc));
        c.frame = n;
        c
    }

    /// The two ends of a hop, every connection in `vcs` joined alone.
    fn hop(p: CreditParams, vcs: u32) -> (Credit, CreditRx) {
        let (mut c, mut r) = (Credit::new(p), CreditRx::new(p));
        for vc in 0..vcs {
            c.join(VcId(vc), None);
            r.join(VcId(vc), None);
        }
        (c, r)
    }

    fn drain(c: &mut Credit) -> Vec<u32> {
        std::iter::from_fn(|| c.next(SimTime::ZERO).cell()).map(|x| x.vc.0).collect()
    }

    #[test]
    fn a_connection_sends_policy_limit_cells_then_waits_for_a_bsu() {
        let (mut c, mut r) = hop(params(4, 10), 1);
        for n in 0..20 {
            c.hold(cell(0, n));
        }
        assert_eq!(drain(&mut c).len(), 10, "Policy_Limit cells on credit");
        assert_eq!(c.outstanding(VcId(0)), 10);
        // The receiver forwards 4: one BSU with Fwd_Counter 4 gives 4 credits back.
        (0..10).for_each(|_| r.received(VcId(0)));
        let bsu: Vec<Control> = (0..4).filter_map(|_| r.forwarded(VcId(0))).collect();
        assert_eq!(bsu, [Control::Bsu { unit: 0, fwd: 4 }]);
        c.on_bsu(0, 4);
        assert_eq!(drain(&mut c).len(), 4);
        c.on_bsu(0, 2);
        assert!(drain(&mut c).is_empty(), "a stale BSU changes nothing");
    }

    /// A line gives its cells in order, each once due; its first cell is flagged (the end it
    /// goes to then needs an event) and so is the first after it emptied; moved out, it is empty.
    #[test]
    fn a_control_line_gives_its_cells_in_order_when_due() {
        let (t1, t2) = (SimTime::from_ps(10), SimTime::from_ps(20));
        let mut line = ControlLine::default();
        assert!(line.push(t1, Control::Bsu { unit: 0, fwd: 1 }));
        assert!(!line.push(t2, Control::Bsu { unit: 0, fwd: 2 }));
        assert_eq!((line.due(SimTime::from_ps(9)), line.next_at()), (None, Some(t1)));
        assert_eq!(line.due(t1), Some(Control::Bsu { unit: 0, fwd: 1 }));
        assert_eq!((line.due(t1), line.next_at()), (None, Some(t2)));
        assert_eq!(line.due(t2), Some(Control::Bsu { unit: 0, fwd: 2 }));
        assert!(line.is_empty() && line.push(t2, Control::Bsc { unit: 1, tx: 5 }));
        let mut out = Vec::new();
        line.move_into(PortId(3), &mut out);
        assert_eq!((out, line.len()), (vec![(PortId(3), t2, Control::Bsc { unit: 1, tx: 5 })], 0));
    }

    #[test]
    fn allow_equal_sends_one_cell_more() {
        let mut c = Credit::new(CreditParams { allow_equal: true, ..params(4, 10) });
        for n in 0..20 {
            c.hold(cell(0, n));
        }
        assert_eq!(drain(&mut c).len(), 11);
    }

    #[test]
    fn eligible_connections_take_turns_and_uncontrolled_cells_go_first() {
        let mut c = Credit::new(params(1, 2));
        for vc in 0..3 {
            for n in 0..3 {
                c.hold(cell(vc, n));
            }
        }
        let mut ack = Cell::data(VcId(9));
        ack.kind = CellKind::BwdData;
        c.hold(ack);
        assert_eq!(drain(&mut c), [9, 0, 1, 2, 0, 1, 2], "two credits each, round robin");
        c.on_bsu(1, 1);
        assert_eq!(drain(&mut c), [1]);
    }

    #[test]
    fn a_bsc_restores_the_credit_of_cells_lost_on_the_hop() {
        let (mut c, mut r) = hop(params(4, 10), 1);
        for n in 0..10 {
            c.hold(cell(0, n));
        }
        assert_eq!(drain(&mut c).len(), 10);
        // 3 of the 10 were lost on the link; the receiver got 7, forwarded 5, holds 2.
        for _ in 0..7 {
            r.received(VcId(0));
        }
        let bsus: Vec<Control> = (0..5).filter_map(|_| r.forwarded(VcId(0))).collect();
        for b in bsus {
            let Control::Bsu { unit, fwd } = b else { unreachable!() };
            c.on_bsu(unit, fwd);
        }
        assert_eq!(c.outstanding(VcId(0)), 6);
        let Control::Bsu { unit, fwd } = r.on_bsc(0, 10) else { unreachable!() };
        assert_eq!(fwd, 8, "5 forwarded and 3 lost");
        c.on_bsu(unit, fwd);
        // What is still outstanding is exactly the 2 cells the receiver holds.
        assert_eq!(c.outstanding(VcId(0)), 2);
        assert_eq!(r.stats.cells_recovered, 3);
    }

    #[test]
    fn the_receiver_counts_cells_held_beyond_the_policy_limit() {
        let (_, mut r) = hop(CreditParams { allow_equal: true, ..params(4, 3) }, 1);
        (0..4).for_each(|_| r.received(VcId(0)));
        assert_eq!(r.stats.overflows, 1, "the fourth cell of a 3-cell allocation");
        assert!(r.forwarded(VcId(0)).is_none());
        r.received(VcId(0));
        assert_eq!(r.stats.overflows, 2);
    }

    /// Two connections in one VP share its credit (Policy_Limit 4 for both), its receiver's N2
    /// count and its queue (arrival order); a third, alone, has its own. A BSU of the VP
    /// releases the VP's cells in arrival order.
    #[test]
    fn the_connections_of_a_vp_share_its_credit_and_queue_in_arrival_order() {
        let (mut c, mut r) = (Credit::new(params(2, 4)), CreditRx::new(params(2, 4)));
        for (vc, vp) in [(0, Some(7)), (1, Some(7)), (2, None)] {
            c.join(VcId(vc), vp);
            r.join(VcId(vc), vp);
        }
        for (vc, n) in [(0, 0), (1, 0), (1, 1), (0, 1), (1, 2), (2, 0), (0, 2)] {
            c.hold(cell(vc, n));
        }
        assert_eq!((c.unit_members(VcId(1)), c.unit_members(VcId(2)), c.allocated()), (2, 1, 8));
        // Round robin between the VP and connection 2; within the VP, arrival order.
        assert_eq!(drain(&mut c), [0, 2, 1, 1, 0], "4 cells of the VP, 1 of connection 2");
        assert_eq!((c.outstanding(VcId(0)), c.outstanding(VcId(1)), c.outstanding(VcId(2))), (4, 4, 1));
        (0..4).for_each(|_| r.received(VcId(0)));
        // One cell of each VP member forwarded: N2 = 2 for the VP, one BSU.
        assert!(r.forwarded(VcId(1)).is_none());
        assert_eq!(r.n2_of(VcId(0)), 1, "the VP's count, whichever member forwarded");
        assert_eq!(r.forwarded(VcId(0)), Some(Control::Bsu { unit: 0, fwd: 2 }));
        assert_eq!((r.units(), r.unit_first(0), r.unit_first(1)), (2, (VcId(0), false), (VcId(2), true)));
        c.on_bsu(0, 2);
        assert_eq!(drain(&mut c), [1, 0], "the VP's next two, in arrival order");
        assert_eq!(c.held_of(VcId(1)), 3, "per connection, held until departed");
    }

    #[test]
    fn a_zero_allocation_or_n2_is_refused_by_name_and_below_n2_is_allowed() {
        assert_eq!(params(32, 0).check().unwrap_err().0, "policy_limit");
        assert_eq!(params(0, 31).check().unwrap_err().0, "n2");
        assert!(params(32, 1).check().is_ok() && params(32, 1).below_n2());
        assert!(params(32, 32).check().is_ok() && !params(32, 32).below_n2());
    }

    /// Policy_Limit 3 < N2 = 4: the receiver forwards the 3 cells and sends no BSU; the BSC's BSU
    /// gives the 3 credits back, and the next 3 cells again leave N2_Counter short of N2.
    #[test]
    fn below_n2_only_the_bsc_returns_credit() {
        let (mut c, mut r) = hop(params(4, 3), 1);
        for n in 0..10 {
            c.hold(cell(0, n));
        }
        for round in 1..=3u64 {
            assert_eq!(drain(&mut c).len(), 3, "round {round}: Policy_Limit cells");
            (0..3).for_each(|_| r.received(VcId(0)));
            assert!((0..3).all(|_| r.forwarded(VcId(0)).is_none()), "no BSU: N2_Counter stays below N2");
            assert!(drain(&mut c).is_empty(), "stalled until the BSC");
            let Control::Bsu { unit, fwd } = r.on_bsc(0, 3 * round) else { unreachable!() };
            assert_eq!(fwd, 3 * round);
            c.on_bsu(unit, fwd);
        }
        assert_eq!(drain(&mut c).len(), 1, "the last cell");
        assert_eq!(r.stats.cells_recovered, 0);
    }
}
