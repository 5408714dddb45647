//! The RD packets among a FICCRD port's queued packets (docs/models/ficcrd.md, "Model"): how
//! many the buffer holds now and the time integral of that count, so that the control can read
//! the data queue alone (`FiccrdQueue::Data`) and the report can give the data and RD queues
//! apart (`mean_data_queue_packets`, `mean_rd_queue_packets`).
//!
//! A controlled port is FIFO, so an RD's departure is known when the port admits it (the port's
//! own bookkeeping rests on the same fact, `port/discipline/fifo.rs`): the tracker keeps the
//! departure times of the RDs still queued, oldest first, and adds each RD's whole stay to the
//! integral at admission; a reader takes back the part still to come. Nothing is done per
//! departure, and the ring is allocated once, at the port's buffer size.

use ccsim_engine::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct RdQueue {
    /// Departure times of the RD packets admitted and perhaps still queued, oldest first.
    departures: VecDeque<SimTime>,
    /// Sum of (departure − admission) over every RD admitted, picoseconds.
    stays: u128,
    /// The integral when the measurement window opened, packet·picoseconds.
    window_area: u128,
    /// RD packets admitted.
    pub admitted: u64,
}

impl RdQueue {
    pub fn new(buffer_packets: u32) -> Self {
        RdQueue { departures: VecDeque::with_capacity(buffer_packets as usize + 1), ..Default::default() }
    }

    /// The port admitted an RD packet at `now` that leaves the buffer at `departure`.
    #[inline]
    pub fn admit(&mut self, now: SimTime, departure: SimTime) {
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        debug_assert!(self.departures.back().is_none_or(|&d| d <= departure), "a FIFO port departs in order");
        self.departures.push_back(departure);
        self.stays += departure.saturating_since(now).as_ps() as u128;
        self.admitted += 1;
    }

    /// RD packets in the buffer at `now` (one whose departure is `now` has left, as the port's
    /// `sync` has it).
    #[inline]
    pub fn len_at(&self, now: SimTime) -> u32 {
        (self.departures.len() - self.departures.partition_point(|&d| d <= now)) as u32
    }

    /// The integral of the RD count up to `now`, packet·picoseconds.
    pub fn area_at(&self, now: SimTime) -> u128 {
        let to_come: u128 = self.departures.iter().filter(|&&d| d > now).map(|&d| d.saturating_since(now).as_ps() as u128).sum();
        self.stays - to_come
    }

    /// The measurement window opens at `now`.
    pub fn open_window(&mut self, now: SimTime) {
        self.window_area = self.area_at(now);
    }

    /// The integral since the window opened (since the start if it never did), packet·ps.
    pub fn window_area_at(&self, now: SimTime) -> u128 {
        self.area_at(now) - self.window_area
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ps: u64) -> SimTime {
        SimTime::from_ps(ps)
    }

    /// The count and its integral against a packet-by-packet reference.
    #[test]
    fn counts_and_integrates_the_rds_still_queued() {
        let mut q = RdQueue::new(4);
        // RDs admitted at 0, 2, 3 leaving at 10, 20, 25; one more at 30 leaving at 41.
        q.admit(t(0), t(10));
        q.admit(t(2), t(20));
        q.admit(t(3), t(25));
        assert_eq!((q.len_at(t(3)), q.len_at(t(9)), q.len_at(t(10)), q.len_at(t(24)), q.len_at(t(25))), (3, 3, 2, 1, 0));
        // By 12: 10 + 10 + 9 packet·ps.
        assert_eq!(q.area_at(t(12)), 29);
        q.admit(t(30), t(41));
        assert_eq!(q.len_at(t(30)), 1);
        assert_eq!(q.area_at(t(50)), (10 + 18 + 22 + 11) as u128);
        // The window opened at 12: what came after.
        let mut w = q.clone();
        w.window_area = 29;
        assert_eq!(w.window_area_at(t(50)), 61 - 29);
        assert_eq!(q.admitted, 4);
        // Departed entries are dropped at the next admission: the ring stays at its size.
        assert_eq!(q.departures.len(), 1);
    }
}
