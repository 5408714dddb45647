//! The future event list: a binary heap ordered by (time, insertion sequence).
//!
//! The sequence number makes the order total and deterministic: two events at the same
//! picosecond run in the order they were scheduled, whatever the heap's internal layout.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(256), next_seq: 0 }
    }

    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The queue must agree with a stable sort of the pushes by time (the reference model).
        #[test]
        fn matches_sorted_reference(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.push(SimTime::from_ps(*t), i);
            }
            let mut reference: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            reference.sort_by_key(|&(t, i)| (t, i));
            let got: Vec<(u64, usize)> =
                std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.as_ps(), e)).collect();
            prop_assert_eq!(got, reference);
        }

        /// Interleaved pushes and pops (as a simulation does) keep the same order.
        #[test]
        fn interleaved_matches_reference(ops in proptest::collection::vec((0u64..20, any::<bool>()), 0..300)) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut now = 0u64;
            for (seq, (dt, pop)) in ops.into_iter().enumerate() {
                if pop {
                    reference.sort();
                    let want = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                    let got = q.pop().map(|(t, s)| (t.as_ps(), s));
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got { now = t; }
                } else {
                    q.push(SimTime::from_ps(now + dt), seq as u64);
                    reference.push((now + dt, seq as u64));
                }
            }
        }
    }
}
