//! FIFO, the fast path: an admitted cell's departure is known at admission (the transmitter
//! finishes everything ahead of it first), so it goes straight into the link pipe with its
//! arrival time and the buffer keeps only a token; `Port::sync` applies departures lazily
//! before anything reads the queue. Exactly the queue lengths, drops and timings of an event
//! per departure, with no departure events. RED (IP ports) decides before the buffer.

use crate::cell::Cell;
use crate::port::{DropReason, InFlight, Port};
use ccsim_engine::SimTime;

impl Port {
    /// Offers a cell at `now` to a FIFO port (after `sync(now)`). If it fits, it enters the pipe
    /// and the result says when it reaches the far end and whether it is the pipe's new head (the
    /// caller then schedules the arrival).
    #[inline]
    pub fn offer(&mut self, now: SimTime, cell: Cell) -> Result<(SimTime, bool), DropReason> {
        debug_assert!(self.buffer.head_departure().is_none_or(|d| d > now), "sync before offer");
        if let Some(red) = self.red.as_mut() {
            let idle_since = self.buffer.is_empty().then_some(self.busy_until);
            if red.on_arrival(now, self.buffer.len(), idle_since) {
                self.buffer.reject(cell.vc, DropReason::Early);
                return Err(DropReason::Early);
            }
        }
        let clock = &mut self.clock;
        let busy_until = &mut self.busy_until;
        let dep = self.buffer.offer(&cell, || {
            let t = now.max(*busy_until) + clock.tx_time(cell.bits());
            *busy_until = t;
            t
        })?;
        self.queue.admit(now, dep, self.buffer.len());
        let arrival = dep + self.delay;
        let head = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrival, cell });
        Ok((arrival, head))
    }

    /// Applies every departure up to `now`: the queue length and its statistics then hold
    /// for `now`.
    #[inline]
    pub fn sync(&mut self, now: SimTime) {
        while let Some(token) = self.buffer.pop_departed(now) {
            self.departed += 1;
            self.departed_bits += token.size as u64 * 8;
        }
    }
}
