//! TCP with SACK (RFC 2018 blocks) and conservative, pipe-based loss recovery (RFC 6675):
//! a scoreboard marks what the receiver holds, a segment is lost once `dupthresh` segments
//! above it are SACKed, and during recovery the sender keeps `pipe` (its estimate of data in
//! the network) at cwnd, sending lost segments first, then new data, then other holes. So
//! exactly the lost segments are retransmitted. A timeout clears the scoreboard
//! (docs/models/tcp.md, "Deviations and choices").
//!
//! With `fall_floyd` the recovery is Fall & Floyd's "sack1" (CCR 1996; docs/models/tcp.md,
//! "Model"): halve cwnd, estimate `pipe = FlightSize − 3·SMSS`, subtract one segment per
//! duplicate ACK and two per partial ACK, and send holes first, then new data, whenever
//! `pipe < cwnd`.

use super::segment::{Ack, Segment};
use super::sender::{AckKind, CongestionControl, Core};
use ccsim_engine::SimTime;
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, Default)]
struct Slot {
    sacked: bool,
    retransmitted: bool,
}

/// The scoreboard: one slot per SMSS from snd_una.
#[derive(Clone, Debug, Default)]
pub struct Sack {
    board: VecDeque<Slot>,
    /// Fall & Floyd's sack1 recovery instead of RFC 6675's.
    pub fall_floyd: bool,
    /// sack1's running estimate of the data in the network, bytes.
    ff_pipe: f64,
}

impl Sack {
    /// SACK with Fall & Floyd's sack1 recovery.
    pub fn fall_floyd() -> Self {
        Sack { fall_floyd: true, ..Sack::default() }
    }

    fn sync(&mut self, c: &Core) {
        let n = (c.snd_max - c.snd_una).div_ceil(c.cfg.smss as u64) as usize;
        self.board.resize(n, Slot::default());
    }

    fn seq_of(c: &Core, i: usize) -> u64 {
        c.snd_una + i as u64 * c.cfg.smss as u64
    }

    fn mark(&mut self, c: &Core, blocks: &[(u64, u64)]) {
        let smss = c.cfg.smss as u64;
        for &(l, r) in blocks {
            for (i, slot) in self.board.iter_mut().enumerate() {
                let s = c.snd_una + i as u64 * smss;
                let e = (s + smss).min(c.snd_max);
                if s >= l && e <= r {
                    slot.sacked = true;
                }
            }
        }
    }

    /// For each slot, how many SACKed slots lie above it.
    fn sacked_above(&self) -> Vec<u32> {
        let mut above = vec![0u32; self.board.len()];
        let mut n = 0;
        for i in (0..self.board.len()).rev() {
            above[i] = n;
            if self.board[i].sacked {
                n += 1;
            }
        }
        above
    }

    /// RFC 6675 SetPipe, in bytes.
    fn pipe(&self, c: &Core) -> f64 {
        let above = self.sacked_above();
        let lost = |i: usize| above[i] >= c.cfg.dupthresh;
        let segs: u32 = (0..self.board.len())
            .filter(|&i| !self.board[i].sacked)
            .map(|i| u32::from(!lost(i)) + u32::from(self.board[i].retransmitted))
            .sum();
        segs as f64 * c.smss()
    }

    /// RFC 6675 NextSeg: a lost hole, else new data, else another hole below the highest SACK.
    fn next_seg(&self, c: &Core) -> Option<usize> {
        let above = self.sacked_above();
        let highest_sacked = self.board.iter().rposition(|s| s.sacked)?;
        let hole = |i: usize| !self.board[i].sacked && !self.board[i].retransmitted && i < highest_sacked;
        if let Some(i) = (0..self.board.len()).find(|&i| hole(i) && above[i] >= c.cfg.dupthresh) {
            return Some(i);
        }
        let new_fits = c.app_left(c.snd_max) > 0 && (c.snd_max - c.snd_una + c.cfg.smss as u64) <= c.rwnd;
        if new_fits {
            return Some(self.board.len());
        }
        (0..self.board.len()).find(|&i| hole(i))
    }

    /// sack1: the first hole below the highest SACKed segment not yet resent, else new data.
    fn ff_next(&self, c: &Core) -> Option<usize> {
        if let Some(top) = self.board.iter().rposition(|s| s.sacked) {
            if let Some(i) = (0..top).find(|&i| !self.board[i].sacked && !self.board[i].retransmitted) {
                return Some(i);
            }
        }
        let new_fits = c.app_left(c.snd_max) > 0 && (c.snd_max - c.snd_una + c.cfg.smss as u64) <= c.rwnd;
        new_fits.then_some(self.board.len())
    }

    fn recovery_send(&mut self, c: &mut Core, now: SimTime, out: &mut Vec<Segment>) {
        if self.fall_floyd {
            while self.ff_pipe < c.cwnd {
                let Some(i) = self.ff_next(c) else { break };
                if !self.send_slot(c, i, now, out) {
                    break;
                }
                self.ff_pipe += c.smss();
            }
            return;
        }
        let mut pipe = self.pipe(c);
        while c.cwnd - pipe >= c.smss() {
            let Some(i) = self.next_seg(c) else { break };
            if !self.send_slot(c, i, now, out) {
                break;
            }
            pipe += c.smss();
        }
    }

    /// Sends slot `i` (a retransmission) or, past the board, new data; false if nothing went.
    fn send_slot(&mut self, c: &mut Core, i: usize, now: SimTime, out: &mut Vec<Segment>) -> bool {
        if !c.emit(now, Self::seq_of(c, i), out) {
            return false;
        }
        if i < self.board.len() {
            self.board[i].retransmitted = true;
        } else {
            c.snd_nxt = c.snd_max;
            self.sync(c);
        }
        true
    }
}

impl CongestionControl for Sack {
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, kind: AckKind, now: SimTime, out: &mut Vec<Segment>) {
        self.sync(c);
        if kind == AckKind::New {
            let acked = c.advance(now, ack.ack);
            let drop = (acked.div_ceil(c.cfg.smss as u64) as usize).min(self.board.len());
            self.board.drain(..drop);
            self.sync(c);
            self.mark(c, ack.blocks());
            if c.in_recovery {
                if ack.ack >= c.recover {
                    for s in &mut self.board {
                        s.retransmitted = false;
                    }
                    c.leave_recovery(c.ssthresh, now, out);
                } else {
                    // sack1: the partial ACK took the original and its retransmission out.
                    self.ff_pipe -= 2.0 * c.smss();
                    self.recovery_send(c, now, out);
                }
                return;
            }
            c.dupacks = 0;
            c.grow(acked);
            c.send_window(now, out);
            return;
        }
        self.mark(c, ack.blocks());
        if c.in_recovery {
            if kind == AckKind::Duplicate {
                self.ff_pipe -= c.smss();
            }
            self.recovery_send(c, now, out);
            return;
        }
        if kind == AckKind::Duplicate {
            c.dupacks += 1;
            let first_lost = self.sacked_above().first().is_some_and(|&n| n >= c.cfg.dupthresh);
            if (c.dupacks >= c.cfg.dupthresh || first_lost) && c.fast_retransmit_allowed() {
                c.in_recovery = true;
                c.recover = c.snd_max;
                if self.fall_floyd {
                    c.ssthresh = (c.cwnd / 2.0).max(2.0 * c.smss());
                    self.ff_pipe = c.flight_size() as f64 - 3.0 * c.smss();
                } else {
                    c.ssthresh = c.halved();
                }
                c.cwnd = c.ssthresh;
                c.fast_retransmit(now, out);
                if self.fall_floyd {
                    self.ff_pipe += c.smss();
                }
                if let Some(s) = self.board.front_mut() {
                    s.retransmitted = true;
                }
                self.recovery_send(c, now, out);
            }
        }
    }

    fn on_timeout(&mut self, _c: &mut Core) {
        self.board.clear();
    }
}
