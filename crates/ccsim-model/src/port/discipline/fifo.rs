//! FIFO, the fast path: an admitted cell's departure is known at admission (the transmitter
//! finishes everything ahead of it first), so it goes straight into the link pipe with its
//! arrival time, and the buffer only counts it. The queued cells are then the pipe's newest
//! `buffer.len()` entries, each departing one propagation delay before it arrives; `Port::sync`
//! applies departures lazily before anything reads the queue, and a cell that reaches the far
//! end before any sync departs as it leaves the pipe (`Port::pop_arrival`). Exactly the queue
//! lengths, drops and timings of an event per departure, with no departure events and nothing
//! stored per queued cell beyond its pipe entry. RED (IP ports) decides before the buffer, seeing
//! the packets waiting behind the one on the wire; a full buffer's drop is an overflow even
//! when RED would have dropped the packet, and tells RED (ns-2's forced drops).

use crate::cell::Cell;
use crate::port::{DropReason, InFlight, Port};
use ccsim_engine::SimTime;

impl Port {
    /// Offers a cell at `now` to a FIFO port (after `sync(now)`). If it fits, it enters the pipe
    /// and the result says when it reaches the far end and whether it is the pipe's new head (the
    /// caller then schedules the arrival).
    #[inline]
    pub fn offer(&mut self, now: SimTime, cell: Cell) -> Result<(SimTime, bool), DropReason> {
        debug_assert!(self.queued_head().is_none_or(|f| self.departure_of(f) > now), "sync before offer");
        debug_assert!(!self.buffer.policy().counts_tags(), "a policy that counts tags runs on a held discipline");
        if let Some(red) = self.red.as_mut() {
            let idle_since = self.buffer.is_empty().then_some(self.busy_until);
            // After `sync` a non-empty buffer's head is on the wire.
            let waiting = self.buffer.len().saturating_sub(1);
            let full = self.buffer.len() >= self.buffer.capacity();
            if red.on_arrival(now, waiting, idle_since) && !full {
                self.buffer.reject(cell.vc, DropReason::Early);
                return Err(DropReason::Early);
            }
        }
        if let Err(reason) = self.buffer.admit(&cell) {
            if let Some(red) = self.red.as_mut() {
                red.on_overflow();
            }
            return Err(reason);
        }
        let dep = now.max(self.busy_until) + self.clock.tx_time(cell.bits());
        self.busy_until = dep;
        self.queue.admit(now, dep, self.buffer.len());
        let arrival = dep + self.delay;
        let head = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrival, cell });
        Ok((arrival, head))
    }

    /// A FIFO port's queued cells, oldest first: its pipe's newest `buffer.len()` entries (none
    /// for a held discipline, whose queued cells are not in the pipe).
    pub fn queued_entries(&self) -> impl Iterator<Item = &InFlight> {
        let queued = if self.is_event_scheduled() { 0 } else { self.buffer.len() as usize };
        let len = self.pipe.len();
        (len - queued..len).filter_map(|i| self.pipe.get(i))
    }

    /// The oldest cell a FIFO port still has queued (the one on the wire after `sync`).
    pub fn queued_head(&self) -> Option<&InFlight> {
        self.queued_entries().next()
    }

    /// When a FIFO port's pipe entry finished (or finishes) transmission.
    #[inline]
    pub fn departure_of(&self, f: &InFlight) -> SimTime {
        SimTime::from_ps(f.arrival.as_ps() - self.delay.as_ps())
    }

    /// Applies every departure up to `now`: the queue length and its statistics then hold
    /// for `now`. A queued cell departs one propagation delay before it arrives.
    #[inline]
    pub fn sync(&mut self, now: SimTime) {
        let queued = self.buffer.len() as usize;
        if queued == 0 || self.is_event_scheduled() {
            return;
        }
        let len = self.pipe.len();
        debug_assert!(queued <= len, "a FIFO port's queued cells are in its pipe");
        for i in len - queued..len {
            let f = *self.pipe.get(i).expect("queued cells are in the pipe");
            if self.departure_of(&f) > now {
                break;
            }
            self.fifo_depart(&f.cell);
        }
    }

    /// A FIFO port's queued cell finished transmission.
    #[inline]
    fn fifo_depart(&mut self, cell: &Cell) {
        self.departed += 1;
        self.departed_bits += cell.bits();
        // No tag kept with the cell: FIFO ports never count tags (`AnyBufferPolicy::counts_tags`).
        self.buffer.release(cell.vc, false);
    }

    /// The pipe's head reached the far end: it leaves the pipe. On a FIFO port not synced since
    /// it finished transmission, it is still counted queued: it departs now (the cells behind it
    /// depart at the next `sync`).
    #[inline]
    pub fn pop_arrival(&mut self) -> Option<InFlight> {
        if self.buffer.len() as usize >= self.pipe.len() && !self.is_event_scheduled() {
            let f = *self.pipe.front()?;
            self.fifo_depart(&f.cell);
        }
        self.pipe.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use crate::cell::{Cell, CellKind};
    use crate::ids::{NodeId, VcId};
    use crate::port::{DropReason, Port, Red, RedParams};
    use ccsim_engine::{RngStream, SimDuration, SimTime, StreamKey};

    /// A 10 Mb/s packet port of `capacity` packets whose RED has `avg = q` (w_q = 1) and
    /// thresholds 1 and 2.
    fn red_port(capacity: u32) -> Port {
        let mut port = Port::new("p".into(), "l".into(), NodeId(0), NodeId(1), 10_000_000, SimDuration::ZERO, capacity, None, true);
        port.packets = true;
        let p = RedParams { min_th: 1.0, max_th: 2.0, w_q: 1.0, ..RedParams::default() };
        let rng = RngStream::new(StreamKey { seed: 1, replication: 0, component: 0, purpose: 0 });
        port.red = Some(Box::new(Red::new(p, 10_000_000, rng)));
        port
    }

    /// A FIFO port's queued cells are its pipe's newest entries, each departing one propagation
    /// delay before it arrives: `sync` departs those whose transmission ended, a cell reaching
    /// the far end before any sync departs as it leaves the pipe, and the queue integral counts
    /// each cell's whole stay.
    #[test]
    fn a_fifo_port_s_queue_is_its_pipe_s_newest_entries() {
        // 424 bits at 424 kb/s: a cell time of 1 ms; a propagation delay of half that.
        let ms = |x: f64| SimTime::from_ps((x * 1e9) as u64);
        let mut port = Port::new("p".into(), "l".into(), NodeId(0), NodeId(1), 424_000, SimDuration::from_micros(500), 10, None, true);
        for vc in 0..3 {
            port.offer(SimTime::ZERO, Cell::data(VcId(vc))).unwrap();
        }
        assert_eq!((port.buffer.len(), port.pipe.len()), (3, 3));
        assert_eq!(port.queued_head().map(|f| port.departure_of(f)), Some(ms(1.0)));
        // The first cell reaches the far end at 1.5 ms, the port not synced since it departed at 1 ms.
        let head = port.pop_arrival().unwrap();
        assert_eq!((head.arrival, head.cell.vc, port.departed), (ms(1.5), VcId(0), 1));
        assert_eq!((port.buffer.len(), port.pipe.len()), (2, 2));
        port.sync(ms(1.9));
        assert_eq!(port.buffer.len(), 2);
        port.sync(ms(2.0));
        assert_eq!((port.buffer.len(), port.departed, port.departed_bits), (1, 2, 2 * 424));
        assert_eq!(port.queued_head().unwrap().cell.vc, VcId(2));
        // Stays of 1, 2 and 3 ms: 6 cell·ms by 3 ms, 5.5 by 2.5 ms (the third cell's last half to come).
        assert_eq!(port.queue_area(ms(2.5)), 5_500_000_000);
        port.sync(ms(3.0));
        assert_eq!((port.buffer.len(), port.pipe.len(), port.queue_area(ms(3.0))), (0, 2, 6_000_000_000));
    }

    fn offer(port: &mut Port) -> Result<(), DropReason> {
        port.sync(SimTime::ZERO);
        port.offer(SimTime::ZERO, Cell::packet(VcId(0), CellKind::Data, 0, 1000)).map(|_| ())
    }

    /// Back-to-back arrivals: RED counts the packets waiting, not the one being transmitted
    /// (ns-2's queue), so the third arrival sees one waiting (guard), the fourth two (spared:
    /// the first at `avg >= min_th`), and only the fifth is dropped.
    #[test]
    fn red_sees_the_packets_waiting_behind_the_one_on_the_wire() {
        let mut port = red_port(10);
        for _ in 0..4 {
            assert_eq!(offer(&mut port), Ok(()));
        }
        assert_eq!(offer(&mut port), Err(DropReason::Early));
        assert_eq!(port.red.as_ref().unwrap().count(), 0);
    }

    /// At a full buffer the drop is an overflow even where RED would have dropped the packet,
    /// and RED's `count` restarts (ns-2's forced drops).
    #[test]
    fn a_full_buffer_drop_is_an_overflow_and_resets_reds_count() {
        let mut port = red_port(4);
        for _ in 0..4 {
            assert_eq!(offer(&mut port), Ok(()));
        }
        assert_eq!(port.red.as_ref().unwrap().count(), 1, "the fourth arrival was spared");
        assert_eq!(offer(&mut port), Err(DropReason::Overflow));
        assert_eq!((port.buffer.dropped(DropReason::Overflow), port.buffer.dropped(DropReason::Early)), (1, 0));

        // A RED that admits the arrival (p_b small, `wait`): the overflow alone resets `count`.
        let mut port = red_port(4);
        port.red.as_mut().unwrap().p = RedParams { min_th: 1.0, max_th: 100.0, w_q: 1.0, ..RedParams::default() };
        for _ in 0..4 {
            assert_eq!(offer(&mut port), Ok(()));
        }
        assert_eq!(port.red.as_ref().unwrap().count(), 1);
        assert_eq!(offer(&mut port), Err(DropReason::Overflow));
        assert_eq!(port.red.as_ref().unwrap().count(), 0);
    }
}
