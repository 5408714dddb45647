//! Controlled Transfer (CT, seed 004's credit scheme after the QFC protocol; docs/models/credit.md):
//! hop-by-hop credit flow control at a port. The port is the transmitter of one hop for every
//! connection it carries forward, and its per-connection queues are the receive buffer of the hop
//! before it (one physical buffer: a cell leaves the upstream hop's receiver when it leaves here).
//!
//! Per connection, the transmitter counts the cells it sent (`Tx_Counter`) and keeps the receiver's
//! `Fwd_Counter` from the last buffer state update (BSU); it may send while
//! `Tx − BSU_Fwd < Policy_Limit` (`allow_equal`: the seed's literal `≤` before sending, one cell
//! more). The receiver's counters of this hop are kept here too, where its BSUs go: the world tells
//! `forwarded` each time the next element forwarded one of the connection's cells, and every N2 of
//! them a BSU carrying `Fwd_Counter` is on its way back. Every T_BSC the transmitter sends a buffer
//! state check (BSC) with its `Tx_Counter`; the receiver counts cells sent before it that never
//! arrived as forwarded (their credit comes back) and answers with a BSU. BSU and BSC cells take one
//! cell time plus the link's propagation delay and no buffer space [RECON]; `control` holds them
//! until they take effect, in order (their latency is the same for all).
//!
//! Among connections with a cell and a credit the port goes round robin [RECON]. Cells outside
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
use std::collections::VecDeque;

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

/// A BSU or BSC cell on its way.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// To the transmitter: the receiver's `Fwd_Counter`.
    Bsu { conn: u32, fwd: u64 },
    /// To the receiver: the transmitter's `Tx_Counter` when it was sent.
    Bsc { conn: u32, tx: u64 },
}

/// One connection on this hop.
#[derive(Clone, Debug)]
struct Conn {
    vc: VcId,
    /// Its cells waiting here (the receive buffer of the hop before).
    queue: VecDeque<Cell>,
    /// Its cells here, the one in transmission included (the upstream receiver's occupancy).
    held: u32,
    /// Transmitter: cells sent (Tx_Counter) and the receiver's Fwd_Counter from the last BSU.
    tx: u64,
    bsu_fwd: u64,
    /// Receiver of this hop: cells it forwarded (Fwd_Counter) and since its last BSU (N2_Counter).
    fwd: u64,
    n2: u32,
    /// Backlogged with a credit: on the round-robin ring.
    ringed: bool,
    /// When its last cell left the queue (a source adapter's head-of-queue stamps).
    last_pop: SimTime,
    /// The Policy_Limit of its hop into this port's node (`None`: that hop is not credit-controlled):
    /// this port's queue is that hop's receive buffer. Per connection: connections reach a port
    /// over different hops.
    limit_in: Option<u32>,
}

/// Counters of a credit-controlled port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreditStats {
    /// Cells held beyond the upstream hop's Policy_Limit (0 unless `allow_equal`).
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
    /// Backlogged connections with a credit, in round-robin order.
    ring: VecDeque<u32>,
    /// Cells outside the flow control.
    free: VecDeque<Cell>,
    /// BSU and BSC cells on their way, by when they take effect.
    control: VecDeque<(SimTime, Control)>,
    /// The next round of BSCs (moved to T_BSC after the first send when it is past).
    next_bsc: SimTime,
    /// A connection has sent: BSC rounds run from then on (the world arms the first one at that
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

    /// Connection `vc`'s hop into this port's node is credit-controlled with this Policy_Limit:
    /// its queue here is that hop's receive buffer (the overflow check).
    pub fn set_limit_in(&mut self, vc: VcId, limit: u32) {
        let k = self.conn_of(vc);
        self.conns[k as usize].limit_in = Some(limit);
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
        let i = vc.index();
        if i >= self.slot.len() {
            self.slot.resize(i + 1, NONE);
        }
        if self.slot[i] == NONE {
            self.slot[i] = self.conns.len() as u32;
            self.conns.push(Conn { vc, queue: VecDeque::new(), held: 0, tx: 0, bsu_fwd: 0, fwd: 0, n2: 0, ringed: false, last_pop: SimTime::ZERO, limit_in: None });
        }
        self.slot[i]
    }

    fn has_credit(&self, c: &Conn) -> bool {
        let out = c.tx - c.bsu_fwd;
        let limit = self.p.policy_limit as u64;
        if self.p.allow_equal {
            out <= limit
        } else {
            out < limit
        }
    }

    /// Puts connection `k` on the ring if it is backlogged, has a credit and is not there yet.
    fn ring_if_ready(&mut self, k: u32) {
        let c = &self.conns[k as usize];
        if !c.ringed && !c.queue.is_empty() && self.has_credit(c) && self.train.is_none() {
            self.conns[k as usize].ringed = true;
            self.ring.push_back(k);
        }
    }

    /// A cell of `vc` left this port (its transmission ended): the upstream receiver holds one
    /// cell fewer.
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

    /// The next element forwarded a cell of `vc` that crossed this hop: the receiver's counters;
    /// the result is the BSU to send back if one is due (every N2 cells).
    pub fn forwarded(&mut self, vc: VcId) -> Option<Control> {
        let k = self.conn_of(vc);
        let c = &mut self.conns[k as usize];
        c.fwd += 1;
        c.n2 += 1;
        if c.n2 < self.p.n2 {
            return None;
        }
        c.n2 = 0;
        self.stats.bsu_sent += 1;
        Some(Control::Bsu { conn: k, fwd: c.fwd })
    }

    /// A BSC of connection `conn` reached the receiver, which holds `occupancy` of its cells: cells
    /// sent before the BSC and never received count as forwarded (their credit comes back); the
    /// result is the BSU the receiver answers with.
    pub fn on_bsc(&mut self, conn: u32, tx: u64, occupancy: u32) -> Control {
        let c = &mut self.conns[conn as usize];
        let received = c.fwd + occupancy as u64;
        if tx > received {
            c.fwd += tx - received;
            self.stats.cells_recovered += tx - received;
        }
        c.n2 = 0;
        self.stats.bsu_sent += 1;
        Control::Bsu { conn, fwd: c.fwd }
    }

    /// A BSU reached the transmitter (stale ones change nothing).
    pub fn on_bsu(&mut self, conn: u32, fwd: u64) {
        let c = &mut self.conns[conn as usize];
        if fwd > c.bsu_fwd {
            c.bsu_fwd = fwd;
            self.ring_if_ready(conn);
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

    /// If the BSC round is due at `now`: the BSCs of every connection that has sent, and the next
    /// round scheduled.
    pub fn bsc_round(&mut self, now: SimTime) -> Vec<Control> {
        if now < self.next_bsc {
            return Vec::new();
        }
        self.next_bsc = now + self.p.t_bsc;
        // A train's Tx_Counter counts its scheduled cells; those not started yet are not sent.
        let unstarted = self.train.as_ref().map_or(0, Train::unstarted);
        let out: Vec<Control> = self
            .conns
            .iter()
            .enumerate()
            .map(|(k, c)| (k, c.tx - unstarted))
            .filter(|&(_, tx)| tx > 0)
            .map(|(k, tx)| Control::Bsc { conn: k as u32, tx })
            .collect();
        self.stats.bsc_sent += out.len() as u64;
        out
    }

    /// When this port's credit machinery next needs an event: its next control cell or BSC round
    /// (none before any connection has sent).
    pub fn next_due(&self) -> Option<SimTime> {
        let bsc = self.sent.then_some(self.next_bsc);
        match (self.control.front().map(|&(t, _)| t), bsc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A connection has sent, and no `Credit` event is pending: the BSC rounds are not armed yet
    /// (only at the port's first send; from then on a round or a control cell is always due).
    #[inline]
    pub fn rounds_unarmed(&self) -> bool {
        self.sent && self.event_at.is_none()
    }

    /// The receiver's N2_Counter of `vc` on this hop: cells it forwarded since its last BSU.
    pub fn receiver_n2(&self, vc: VcId) -> u32 {
        self.slot.get(vc.index()).filter(|&&k| k != NONE).map_or(0, |&k| self.conns[k as usize].n2)
    }

    /// A train's next cell, if its connection has one waiting and a credit: it starts at `start`
    /// (the end of the cell before it, or now), so `Tx_Counter` counts it and a source adapter
    /// stamps it with when it became the head of its queue, as `next` does at its start.
    #[inline]
    pub(super) fn train_take(&mut self, start: SimTime) -> Option<Cell> {
        let c = self.conns.first()?;
        if c.queue.is_empty() || !self.has_credit(c) {
            return None;
        }
        let stamp_heads = self.stamp_heads;
        let c = &mut self.conns[0];
        let mut cell = c.queue.pop_front().expect("checked");
        if stamp_heads {
            cell.set_queued(Stamp::of(cell.queued().at(start).max(c.last_pop)));
            c.last_pop = start;
        }
        c.tx += 1;
        Some(cell)
    }

    /// A train's connection (its only one) holds a cell (`hold`, without the look-up).
    #[inline]
    pub fn train_hold(&mut self, cell: Cell) {
        debug_assert!(cell.is_forward() && self.train.as_ref().is_some_and(|t| t.vc == cell.vc));
        if self.conns.is_empty() {
            self.conn_of(cell.vc);
        }
        let c = &mut self.conns[0];
        c.queue.push_back(cell);
        c.held += 1;
        if c.limit_in.is_some_and(|l| c.held > l) {
            self.stats.overflows += 1;
        }
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

    /// The VC of connection `conn`.
    pub fn vc_of(&self, conn: u32) -> VcId {
        self.conns[conn as usize].vc
    }

    /// Cells sent and not yet credited back, per connection (`Tx − BSU_Fwd`).
    pub fn outstanding(&self, vc: VcId) -> u64 {
        self.slot.get(vc.index()).filter(|&&k| k != NONE).map_or(0, |&k| {
            let c = &self.conns[k as usize];
            c.tx - c.bsu_fwd
        })
    }

    /// The Policy_Limits this port's connections hold at the next element (the memory CT
    /// allocates for this hop).
    pub fn allocated(&self) -> u64 {
        self.conns.len() as u64 * self.p.policy_limit as u64
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
        c.queue.push_back(cell);
        c.held += 1;
        if c.limit_in.is_some_and(|l| c.held > l) {
            self.stats.overflows += 1;
        }
        self.ring_if_ready(k);
    }

    fn next(&mut self, now: SimTime) -> Next {
        if let Some(c) = self.free.pop_front() {
            return Next::Cell(c);
        }
        let Some(k) = self.ring.pop_front() else { return Next::Idle };
        let c = &mut self.conns[k as usize];
        let mut cell = c.queue.pop_front().expect("a ringed connection is backlogged");
        // BSC rounds run while anything was sent; after a silence the next is T_BSC from now.
        if self.next_bsc < now {
            self.next_bsc = now + self.p.t_bsc;
        }
        self.sent = true;
        if self.stamp_heads {
            // It became the head when it was queued or when the cell before it left.
            cell.set_queued(Stamp::of(cell.queued().at(now).max(c.last_pop)));
            c.last_pop = now;
        }
        c.tx += 1;
        c.ringed = false;
        self.ring_if_ready(k);
        Next::Cell(cell)
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.free.iter().chain(self.conns.iter().flat_map(|c| c.queue.iter()))
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
        let bsu: Vec<Control> = (0..4).filter_map(|_| c.forwarded(VcId(0))).collect();
        assert_eq!(bsu, [Control::Bsu { conn: 0, fwd: 4 }]);
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
        // 3 of the 10 were lost on the link; the receiver got and forwarded 5, holds 2.
        let bsus: Vec<Control> = (0..5).filter_map(|_| c.forwarded(VcId(0))).collect();
        for b in bsus {
            let Control::Bsu { conn, fwd } = b else { unreachable!() };
            c.on_bsu(conn, fwd);
        }
        assert_eq!(c.outstanding(VcId(0)), 6);
        let Control::Bsu { conn, fwd } = c.on_bsc(0, 10, 2) else { unreachable!() };
        assert_eq!(fwd, 8, "5 forwarded and 3 lost");
        c.on_bsu(conn, fwd);
        // What is still outstanding is exactly the 2 cells the receiver holds.
        assert_eq!(c.outstanding(VcId(0)), 2);
        assert_eq!(c.stats.cells_recovered, 3);
    }

    #[test]
    fn the_receiver_side_counts_cells_held_beyond_the_upstream_limit() {
        let mut c = Credit::new(params(4, 100));
        c.set_limit_in(VcId(0), 3);
        c.set_limit_in(VcId(1), 10);
        for n in 0..4 {
            c.hold(cell(1, n));
        }
        for n in 0..4 {
            c.hold(cell(0, n));
        }
        assert_eq!(c.stats.overflows, 1);
        c.departed(VcId(0));
        assert_eq!(c.held_of(VcId(0)), 3);
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
            assert!((0..3).all(|_| c.forwarded(VcId(0)).is_none()), "no BSU: N2_Counter stays below N2");
            assert!(drain(&mut c).is_empty(), "stalled until the BSC");
            let Control::Bsu { conn, fwd } = c.on_bsc(0, 3 * round, 0) else { unreachable!() };
            assert_eq!(fwd, 3 * round);
            c.on_bsu(conn, fwd);
        }
        assert_eq!(drain(&mut c).len(), 1, "the last cell");
        assert_eq!(c.stats.cells_recovered, 0);
    }
}
