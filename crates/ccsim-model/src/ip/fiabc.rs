//! FICCRD's source edge with FIABC enforcement (docs/models/ficcrd.md, "Model"; after Narvaez &
//! Siu's ACK bucket), per flow: the RD machinery of `rd_edge.rs`, and the flow's ACKs paced at the
//! source edge so that the data they release enters the network at the flow's ER.
//!
//! A token counter fills at ER / 8 bytes per second, capped at `2 MSS` while no ACK waits. An
//! ACK that acknowledges new data waits in the flow's queue until the counter holds the bytes it
//! acknowledges beyond the last ACK released (`need`), which it then takes; so each released ACK
//! lets a window-limited sender emit `need` new bytes, at ER. A duplicate ACK (no new data)
//! passes at once when nothing waits, so loss recovery is not disturbed, and otherwise queues
//! behind the others with no need: ACKs are never reordered or dropped. Before the first ER,
//! ACKs pass. Event-driven: the queue's head is released at the exact time the counter reaches
//! its need (`World`'s `EdgeRelease` event). Not modelled: the option of charging twice the need
//! while the sender is in slow start.

use super::rd_edge::{RdEdge, RdParams};
use crate::cell::Cell;
use ccsim_engine::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct FiabcFlow {
    pub rd: RdEdge,
    pub bucket: AckBucket,
}

impl FiabcFlow {
    pub fn new(params: RdParams, out_rate_bps: f64, mss_bytes: u32) -> Self {
        FiabcFlow { rd: RdEdge::new(params, out_rate_bps), bucket: AckBucket::new(2.0 * mss_bytes as f64) }
    }

    /// A backward RD came home: the tokens earned so far at the old ER, then the new ER.
    pub fn on_backward_rd(&mut self, now: SimTime, rd: &Cell) {
        self.bucket.refill(now);
        self.rd.on_backward_rd(now, rd);
        self.bucket.rate = self.rd.er.map(|er| er / 8.0);
    }
}

/// The ACK bucket of one flow.
#[derive(Clone, Debug)]
pub struct AckBucket {
    /// ACK packets waiting, with the cumulative ACK (bytes) each carries, oldest first.
    queue: VecDeque<(Cell, u64)>,
    /// Bytes of new data the next released ACKs may acknowledge.
    tokens: f64,
    /// When `tokens` was last brought up to date.
    updated: SimTime,
    /// Token rate, bytes/s (the flow's ER / 8); `None` before the first ER: ACKs pass.
    pub rate: Option<f64>,
    /// The counter's cap while no ACK waits, bytes (2 MSS).
    cap: f64,
    /// The highest cumulative ACK released, and the highest seen.
    released: u64,
    seen: u64,
    /// The latest release wake-up scheduled (`wake_at`).
    event_at: Option<SimTime>,
    pub acks_held: u64,
    pub acks_passed: u64,
}

impl AckBucket {
    pub fn new(cap: f64) -> Self {
        AckBucket {
            queue: VecDeque::new(),
            tokens: cap,
            updated: SimTime::ZERO,
            rate: None,
            cap,
            released: 0,
            seen: 0,
            event_at: None,
            acks_held: 0,
            acks_passed: 0,
        }
    }

    /// Tokens earned since the last update (capped if nothing waited meanwhile).
    pub fn refill(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.updated).as_secs_f64();
        self.tokens += self.rate.unwrap_or(0.0) * dt;
        if self.queue.is_empty() {
            self.tokens = self.tokens.min(self.cap);
        }
        self.updated = self.updated.max(now);
    }

    /// An ACK carrying cumulative ACK `ack` (bytes) reached the edge: `Some` if it passes now
    /// (before any ER, or a duplicate with nothing waiting); otherwise it waits (`release`).
    pub fn on_ack(&mut self, now: SimTime, cell: Cell, ack: u64) -> Option<Cell> {
        self.refill(now);
        let duplicate = ack <= self.seen;
        self.seen = self.seen.max(ack);
        if self.rate.is_none() || (duplicate && self.queue.is_empty()) {
            self.released = self.released.max(ack);
            self.acks_passed += 1;
            return Some(cell);
        }
        self.acks_held += 1;
        self.queue.push_back((cell, ack));
        None
    }

    /// Releases, in order, every waiting ACK the counter pays for by `now`; the result is when
    /// the next one will be paid for (none if nothing waits or the rate is zero).
    pub fn release(&mut self, now: SimTime, out: &mut Vec<Cell>) -> Option<SimTime> {
        self.refill(now);
        while let Some(&(cell, ack)) = self.queue.front() {
            let need = ack.saturating_sub(self.released) as f64;
            // A relative tolerance for the float sum of earned tokens.
            if self.tokens + 1e-9 * need.max(1.0) < need {
                let rate = self.rate.filter(|&r| r > 0.0)?;
                let wait = (need - self.tokens) / rate;
                return Some(now + SimDuration::from_ps((wait * 1e12).ceil().max(1.0) as u64));
            }
            self.tokens = (self.tokens - need).max(0.0);
            self.released = self.released.max(ack);
            self.queue.pop_front();
            out.push(cell);
        }
        self.tokens = self.tokens.min(self.cap);
        None
    }

    /// When to schedule a wake-up for the next release due at `due`: none if one is pending
    /// after `now` and no later than `due` (it will look again when it fires).
    pub fn wake_at(&mut self, now: SimTime, due: Option<SimTime>) -> Option<SimTime> {
        let due = due?;
        if self.event_at.is_some_and(|t| t > now && t <= due) {
            return None;
        }
        self.event_at = Some(due);
        Some(due)
    }

    /// ACK packets waiting (conservation counts them).
    pub fn held(&self) -> impl Iterator<Item = &Cell> {
        self.queue.iter().map(|(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellKind;
    use crate::ids::VcId;

    const MSS: u64 = 4096;

    fn ack_cell(k: u64) -> Cell {
        Cell::packet(VcId(0), CellKind::BwdData, (k % 65536) as u16, 40)
    }

    fn at(ms: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ps((ms * 1e9) as u64)
    }

    /// Drives a bucket: `acks` (arrival time in ms, cumulative ACK) in; the release times and
    /// cells out, in order.
    fn drive(b: &mut AckBucket, acks: &[(f64, u64)]) -> Vec<(SimTime, Cell)> {
        let mut out = Vec::new();
        let mut due: Option<SimTime> = None;
        let mut i = 0;
        loop {
            let next_ack = acks.get(i).map(|&(t, _)| at(t));
            let now = match (next_ack, due) {
                (Some(a), Some(d)) if d < a => d,
                (Some(a), _) => a,
                (None, Some(d)) => d,
                (None, None) => break,
            };
            let mut cells = Vec::new();
            if next_ack == Some(now) {
                let (_, ack) = acks[i];
                if let Some(c) = b.on_ack(now, ack_cell(i as u64), ack) {
                    cells.push(c);
                }
                i += 1;
            }
            due = b.release(now, &mut cells);
            out.extend(cells.into_iter().map(|c| (now, c)));
        }
        out
    }

    #[test]
    fn with_a_constant_er_acks_leave_at_er() {
        // ER 1 Mb/s = 125 000 B/s: one 4096-byte ACK every 32.768 ms; ACKs arrive every 5 ms.
        let mut b = AckBucket::new(2.0 * MSS as f64);
        b.rate = Some(125_000.0);
        let acks: Vec<(f64, u64)> = (1..=400).map(|k| (5.0 * k as f64, k * MSS)).collect();
        let out = drive(&mut b, &acks);
        assert_eq!(out.len(), 400, "no ACK lost");
        assert!(out.iter().enumerate().all(|(k, (_, c))| c.frame == k as u16), "in order");
        // After the 2-MSS burst the release rate is ER: bytes acknowledged per second.
        let (t0, t1) = (out[10].0, out[399].0);
        let rate = (389 * MSS) as f64 / t1.saturating_since(t0).as_secs_f64();
        assert!((rate - 125_000.0).abs() / 125_000.0 < 0.02, "{rate} B/s");
    }

    #[test]
    fn duplicates_pass_at_once_only_when_nothing_waits() {
        let mut b = AckBucket::new(2.0 * MSS as f64);
        b.rate = Some(125_000.0);
        let mut out = Vec::new();
        // Two new ACKs use the 2-MSS allowance; the third waits.
        for k in 1..=3u64 {
            if let Some(c) = b.on_ack(at(1.0), ack_cell(k), k * MSS) {
                out.push(c);
            }
        }
        let due = b.release(at(1.0), &mut out);
        assert_eq!(out.len(), 2);
        assert!(due.is_some());
        // A duplicate of the third waits behind it (no reordering).
        assert!(b.on_ack(at(2.0), ack_cell(4), 3 * MSS).is_none());
        let mut later = Vec::new();
        assert_eq!(b.release(due.unwrap(), &mut later), None);
        assert_eq!(later.iter().map(|c| c.frame).collect::<Vec<_>>(), vec![3, 4]);
        // With nothing waiting a duplicate passes at once, whatever the tokens.
        assert!(b.on_ack(due.unwrap(), ack_cell(5), 3 * MSS).is_some());
    }

    #[test]
    fn the_release_rate_follows_er_when_it_changes() {
        let mut b = AckBucket::new(2.0 * MSS as f64);
        b.rate = Some(125_000.0);
        let acks: Vec<(f64, u64)> = (1..=300).map(|k| (2.0 * k as f64, k * MSS)).collect();
        let first = drive(&mut b, &acks[..100]);
        // ER doubles (the caller brings the counter up to date first, as `FiabcFlow` does).
        let t = first.last().unwrap().0;
        b.refill(t);
        b.rate = Some(250_000.0);
        let rest: Vec<(f64, u64)> = acks[100..].iter().map(|&(_, a)| (t.as_secs_f64() * 1e3, a)).collect();
        let out = drive(&mut b, &rest);
        let (t0, t1) = (out[5].0, out.last().unwrap().0);
        let rate = ((out.len() - 6) as u64 * MSS) as f64 / t1.saturating_since(t0).as_secs_f64();
        assert!((rate - 250_000.0).abs() / 250_000.0 < 0.02, "{rate} B/s");
    }

    #[test]
    fn before_the_first_er_acks_pass() {
        let mut b = AckBucket::new(2.0 * MSS as f64);
        assert!((1..=10u64).all(|k| b.on_ack(at(0.0), ack_cell(k), k * MSS).is_some()));
    }
}
