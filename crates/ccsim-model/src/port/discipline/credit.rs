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
//! more). The receiver's counters of this hop are kept here too, where its BSUs go: the world
//! tells `received` each time the next element took one of the unit's cells into its buffer and
//! `forwarded` each time it forwarded one, and every N2 forwarded a BSU carrying `Fwd_Counter` is
//! on its way back. Every T_BSC the transmitter sends a buffer state check (BSC) with its
//! `Tx_Counter`; the receiver counts cells sent before it that it neither forwarded nor holds
//! (lost: their credit comes back) and answers with a BSU. BSU and BSC cells take one cell time
//! plus the link's propagation delay and no buffer space [RECON]; `control` holds them until they
//! take effect, in order (their latency is the same for all).
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
use crate::ids::VcId;
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

/// One connection (VC) this port carries forward.
#[derive(Clone, Debug)]
struct Conn {
    /// The unit of credit it belongs to on this hop.
    unit: u32,
    /// Its cells here, the one in transmission included.
    held: u32,
}

/// One unit of credit on this hop: a VP (the connections of one VP crossing this port) or, with
/// `scope = "connection"`, one connection. Its transmitter's and its receiver's counters.
#[derive(Clone, Debug)]
struct Unit {
    /// Its first connection, and how many it has.
    first: VcId,
    members: u32,
    /// Its cells waiting here (the receive buffer of the hop before), in arrival order.
    queue: VecDeque<Cell>,
    /// Transmitter: cells sent (Tx_Counter) and the receiver's Fwd_Counter from the last BSU.
    tx: u64,
    bsu_fwd: u64,
    /// Receiver of this hop: cells it forwarded (Fwd_Counter), since its last BSU (N2_Counter),
    /// and the cells it holds (received, not yet forwarded: its buffer occupancy).
    fwd: u64,
    n2: u32,
    rx_held: u32,
    /// Backlogged with a credit: on the round-robin ring.
    ringed: bool,
    /// When its last cell left the queue (a source adapter's head-of-queue stamps).
    last_pop: SimTime,
}

impl Unit {
    fn new(first: VcId) -> Self {
        Unit { first, members: 0, queue: VecDeque::new(), tx: 0, bsu_fwd: 0, fwd: 0, n2: 0, rx_held: 0, ringed: false, last_pop: SimTime::ZERO }
    }
}

/// Counters of a credit-controlled port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreditStats {
    /// Cells the receiver of this port's hop held beyond a unit's Policy_Limit (0 unless
    /// `allow_equal`).
    pub overflows: u64,
    pub bsu_sent: u64,
    pub bsc_sent: u64,
    /// Cells a BSC found lost on this hop (their credit restored).
    pub cells_recovered: u64,
}

#[derive(Clone, Debug)]
pub struct Credit {
    p: CreditParams,
    conns: Vec<Conn>,
    /// Connection of each VC (by VC index; `NONE`: none yet).
    slot: Vec<u32>,
    units: Vec<Unit>,
    /// The unit of each VP joined so far (`join`; build time only).
    vps: HashMap<u32, u32>,
    /// Backlogged units with a credit, in round-robin order.
    ring: VecDeque<u32>,
    /// Cells outside the flow control.
    free: VecDeque<Cell>,
    /// BSU and BSC cells on their way, by when they take effect.
    control: VecDeque<(SimTime, Control)>,
    /// The next round of BSCs (moved to T_BSC after the first send when it is past).
    next_bsc: SimTime,
    /// A unit has sent: BSC rounds run from then on (the world arms the first one at that
    /// send, `World::credit_started`).
    sent: bool,
    /// The time of the pending `Credit` event (a later one supersedes it).
    pub event_at: Option<SimTime>,
    /// A source adapter: each data cell arrives stamped with the time it was queued and leaves
    /// stamped with the time it reached the head of its queue (`Cell::queued`).
    pub stamp_heads: bool,
    pub stats: CreditStats,
    /// A credit train (one connection, no other cells): its cells are scheduled on the link
    /// when they may start (`credit_train.rs`); the ring is then unused.
    pub train: Option<Train>,
}

const NONE: u32 = u32::MAX;

impl Credit {
    pub fn new(p: CreditParams) -> Self {
        Credit {
            p,
            conns: Vec::new(),
            slot: Vec::new(),
            units: Vec::new(),
            vps: HashMap::new(),
            ring: VecDeque::new(),
            free: VecDeque::new(),
            control: VecDeque::new(),
            next_bsc: SimTime::ZERO + p.t_bsc,
            sent: false,
            event_at: None,
            stamp_heads: false,
            stats: CreditStats::default(),
            train: None,
        }
    }

    pub fn params(&self) -> &CreditParams {
        &self.p
    }

    /// Connection `vc` crosses this hop in VP `vp` (its cells share that VP's credit, counters
    /// and queue with the VP's other connections here), or alone (`None`: flow control per
    /// connection). A connection not joined is on its own.
    pub fn join(&mut self, vc: VcId, vp: Option<u32>) {
        let i = vc.index();
        assert!(self.slot.get(i).is_none_or(|&k| k == NONE), "a connection joins a hop once");
        let unit = match vp.and_then(|v| self.vps.get(&v)) {
            Some(&u) => u,
            None => {
                self.units.push(Unit::new(vc));
                let u = self.units.len() as u32 - 1;
                if let Some(v) = vp {
                    self.vps.insert(v, u);
                }
                u
            }
        };
        self.units[unit as usize].members += 1;
        if i >= self.slot.len() {
            self.slot.resize(i + 1, NONE);
        }
        self.slot[i] = self.conns.len() as u32;
        self.conns.push(Conn { unit, held: 0 });
    }

    #[inline]
    fn conn_of(&mut self, vc: VcId) -> u32 {
        match self.slot.get(vc.index()) {
            Some(&k) if k != NONE => k,
            _ => self.new_conn(vc),
        }
    }

    #[cold]
    fn new_conn(&mut self, vc: VcId) -> u32 {
        self.join(vc, None);
        self.slot[vc.index()]
    }

    /// The unit of `vc` (created alone if it never joined).
    #[inline]
    fn unit_of(&mut self, vc: VcId) -> u32 {
        let k = self.conn_of(vc);
        self.conns[k as usize].unit
    }

    fn unit_of_known(&self, vc: VcId) -> Option<&Unit> {
        self.slot.get(vc.index()).filter(|&&k| k != NONE).map(|&k| &self.units[self.conns[k as usize].unit as usize])
    }

    /// How many connections share `vc`'s unit of credit on this hop (0: `vc` is not here).
    pub fn unit_members(&self, vc: VcId) -> u32 {
        self.unit_of_known(vc).map_or(0, |u| u.members)
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
        if let Some(&k) = self.slot.get(vc.index()).filter(|&&k| k != NONE) {
            let c = &mut self.conns[k as usize];
            c.held = c.held.saturating_sub(1);
        }
    }

    /// Cells of `vc` held here, the one in transmission included.
    pub fn held_of(&self, vc: VcId) -> u32 {
        self.slot.get(vc.index()).filter(|&&k| k != NONE).map_or(0, |&k| self.conns[k as usize].held)
    }

    /// The receiver of this port's hop took a cell of `vc` into its buffer (the next port held
    /// it, or the destination's adapter took it). More than its unit's Policy_Limit there is an
    /// overflow (only with `allow_equal`).
    #[inline]
    pub fn received(&mut self, vc: VcId) {
        let k = self.unit_of(vc);
        let u = &mut self.units[k as usize];
        u.rx_held += 1;
        if u.rx_held > self.p.policy_limit {
            self.stats.overflows += 1;
        }
    }

    /// The receiver of this port's hop forwarded a cell of `vc` (to the next element, which
    /// holds it no more here): its counters; the result is the BSU to send back if one is due
    /// (every N2 cells of the unit).
    pub fn forwarded(&mut self, vc: VcId) -> Option<Control> {
        let k = self.unit_of(vc);
        let u = &mut self.units[k as usize];
        debug_assert!(u.rx_held > 0, "a cell forwarded that the receiver never held");
        u.rx_held = u.rx_held.saturating_sub(1);
        u.fwd += 1;
        u.n2 += 1;
        if u.n2 < self.p.n2 {
            return None;
        }
        u.n2 = 0;
        self.stats.bsu_sent += 1;
        Some(Control::Bsu { unit: k, fwd: u.fwd })
    }

    /// A BSC of unit `unit` reached the receiver: cells sent before the BSC and neither forwarded
    /// nor held count as forwarded (lost on the hop: their credit comes back); the result is the
    /// BSU the receiver answers with. The receiver's books must be up to now.
    pub fn on_bsc(&mut self, unit: u32, tx: u64) -> Control {
        let u = &mut self.units[unit as usize];
        let received = u.fwd + u.rx_held as u64;
        if tx > received {
            u.fwd += tx - received;
            self.stats.cells_recovered += tx - received;
        }
        u.n2 = 0;
        self.stats.bsu_sent += 1;
        Control::Bsu { unit, fwd: u.fwd }
    }

    /// A BSU reached the transmitter (stale ones change nothing).
    pub fn on_bsu(&mut self, unit: u32, fwd: u64) {
        let u = &mut self.units[unit as usize];
        if fwd > u.bsu_fwd {
            u.bsu_fwd = fwd;
            self.ring_if_ready(unit);
        }
    }

    /// A BSU or BSC leaves now and takes effect at `at` (sent in order, the same latency for all).
    pub fn send(&mut self, at: SimTime, msg: Control) {
        debug_assert!(self.control.back().is_none_or(|&(t, _)| t <= at));
        self.control.push_back((at, msg));
    }

    /// The next control cell due by `now`, if any.
    pub fn due(&mut self, now: SimTime) -> Option<Control> {
        if self.control.front().is_some_and(|&(t, _)| t <= now) {
            return self.control.pop_front().map(|(_, m)| m);
        }
        None
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
        self.stats.bsc_sent += out.len() as u64;
        out
    }

    /// When this port's credit machinery next needs an event: its next control cell or BSC round
    /// (none before any unit has sent).
    pub fn next_due(&self) -> Option<SimTime> {
        let bsc = self.sent.then_some(self.next_bsc);
        match (self.control.front().map(|&(t, _)| t), bsc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A unit has sent, and no `Credit` event is pending: the BSC rounds are not armed yet
    /// (only at the port's first send; from then on a round or a control cell is always due).
    #[inline]
    pub fn rounds_unarmed(&self) -> bool {
        self.sent && self.event_at.is_none()
    }

    /// The receiver's N2_Counter of `vc`'s unit on this hop: cells it forwarded since its last BSU.
    pub fn receiver_n2(&self, vc: VcId) -> u32 {
        self.unit_of_known(vc).map_or(0, |u| u.n2)
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
        if self.conns.is_empty() {
            self.conn_of(cell.vc);
        }
        self.conns[0].held += 1;
        self.units[0].queue.push_back(cell);
    }

    /// A train's cell left (`departed`, without the look-up).
    #[inline]
    pub(super) fn train_departed(&mut self) {
        let c = &mut self.conns[0];
        c.held = c.held.saturating_sub(1);
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

    /// The first connection of unit `unit`, and whether it is the unit's only one.
    pub fn unit_first(&self, unit: u32) -> (VcId, bool) {
        let u = &self.units[unit as usize];
        (u.first, u.members == 1)
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
        let c = &mut self.conns[k as usize];
        c.held += 1;
        let unit = c.unit;
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

    fn params(n2: u32, limit: u32) -> CreditParams {
        CreditParams { n2, policy_limit: limit, allow_equal: false, t_bsc: SimDuration::from_secs(1) }
    }

    fn cell(vc: u32, n: u16) -> Cell {
        let mut c = Cell::data(VcId(vc));
        c.frame = n;
        c
    }

    fn drain(c: &mut Credit) -> Vec<u32> {
        std::iter::from_fn(|| c.next(SimTime::ZERO).cell()).map(|x| x.vc.0).collect()
    }

    #[test]
    fn a_connection_sends_policy_limit_cells_then_waits_for_a_bsu() {
        let mut c = Credit::new(params(4, 10));
        for n in 0..20 {
            c.hold(cell(0, n));
        }
        assert_eq!(drain(&mut c).len(), 10, "Policy_Limit cells on credit");
        assert_eq!(c.outstanding(VcId(0)), 10);
        // The receiver forwards 4: one BSU with Fwd_Counter 4 gives 4 credits back.
        (0..10).for_each(|_| c.received(VcId(0)));
        let bsu: Vec<Control> = (0..4).filter_map(|_| c.forwarded(VcId(0))).collect();
        assert_eq!(bsu, [Control::Bsu { unit: 0, fwd: 4 }]);
        c.on_bsu(0, 4);
        assert_eq!(drain(&mut c).len(), 4);
        c.on_bsu(0, 2);
        assert!(drain(&mut c).is_empty(), "a stale BSU changes nothing");
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
        let mut c = Credit::new(params(4, 10));
        for n in 0..10 {
            c.hold(cell(0, n));
        }
        assert_eq!(drain(&mut c).len(), 10);
        // 3 of the 10 were lost on the link; the receiver got 7, forwarded 5, holds 2.
        for _ in 0..7 {
            c.received(VcId(0));
        }
        let bsus: Vec<Control> = (0..5).filter_map(|_| c.forwarded(VcId(0))).collect();
        for b in bsus {
            let Control::Bsu { unit, fwd } = b else { unreachable!() };
            c.on_bsu(unit, fwd);
        }
        assert_eq!(c.outstanding(VcId(0)), 6);
        let Control::Bsu { unit, fwd } = c.on_bsc(0, 10) else { unreachable!() };
        assert_eq!(fwd, 8, "5 forwarded and 3 lost");
        c.on_bsu(unit, fwd);
        // What is still outstanding is exactly the 2 cells the receiver holds.
        assert_eq!(c.outstanding(VcId(0)), 2);
        assert_eq!(c.stats.cells_recovered, 3);
    }

    #[test]
    fn the_receiver_counts_cells_held_beyond_the_policy_limit() {
        let mut c = Credit::new(CreditParams { allow_equal: true, ..params(4, 3) });
        (0..4).for_each(|_| c.received(VcId(0)));
        assert_eq!(c.stats.overflows, 1, "the fourth cell of a 3-cell allocation");
        assert!(c.forwarded(VcId(0)).is_none());
        c.received(VcId(0));
        assert_eq!(c.stats.overflows, 2);
    }

    /// Two connections in one VP share its credit (Policy_Limit 4 for both), its receiver's N2
    /// count and its queue (arrival order); a third, alone, has its own. A BSU of the VP
    /// releases the VP's cells in arrival order.
    #[test]
    fn the_connections_of_a_vp_share_its_credit_and_queue_in_arrival_order() {
        let mut c = Credit::new(params(2, 4));
        c.join(VcId(0), Some(7));
        c.join(VcId(1), Some(7));
        c.join(VcId(2), None);
        for (vc, n) in [(0, 0), (1, 0), (1, 1), (0, 1), (1, 2), (2, 0), (0, 2)] {
            c.hold(cell(vc, n));
        }
        assert_eq!((c.unit_members(VcId(1)), c.unit_members(VcId(2)), c.allocated()), (2, 1, 8));
        // Round robin between the VP and connection 2; within the VP, arrival order.
        assert_eq!(drain(&mut c), [0, 2, 1, 1, 0], "4 cells of the VP, 1 of connection 2");
        assert_eq!((c.outstanding(VcId(0)), c.outstanding(VcId(1)), c.outstanding(VcId(2))), (4, 4, 1));
        (0..4).for_each(|_| c.received(VcId(0)));
        // One cell of each VP member forwarded: N2 = 2 for the VP, one BSU.
        assert!(c.forwarded(VcId(1)).is_none());
        assert_eq!(c.forwarded(VcId(0)), Some(Control::Bsu { unit: 0, fwd: 2 }));
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
        let mut c = Credit::new(params(4, 3));
        for n in 0..10 {
            c.hold(cell(0, n));
        }
        for round in 1..=3u64 {
            assert_eq!(drain(&mut c).len(), 3, "round {round}: Policy_Limit cells");
            (0..3).for_each(|_| c.received(VcId(0)));
            assert!((0..3).all(|_| c.forwarded(VcId(0)).is_none()), "no BSU: N2_Counter stays below N2");
            assert!(drain(&mut c).is_empty(), "stalled until the BSC");
            let Control::Bsu { unit, fwd } = c.on_bsc(0, 3 * round) else { unreachable!() };
            assert_eq!(fwd, 3 * round);
            c.on_bsu(unit, fwd);
        }
        assert_eq!(drain(&mut c).len(), 1, "the last cell");
        assert_eq!(c.stats.cells_recovered, 0);
    }
}
