//! The future event list, ordered by (time, insertion sequence).
//!
//! The sequence number makes the order total and deterministic: two events at the same
//! picosecond run in the order they were scheduled.
//!
//! A binary min-heap (`heap.rs`) keyed by one `u128`, `time << 64 | seq`, so every comparison
//! is a single integer compare. The order is checked against a sorted reference by the
//! property tests below.
//!
//! `pop` is lazy: the popped entry stays in the heap as its root until the next operation. Most
//! handlers schedule their component's next wake-up right away (a pipe's next arrival, a
//! source's next cell, a timer's next deadline); that first `push` then overwrites the root and
//! sifts it down once, instead of a pop's sift and a push's sift-up. Keys are unique and
//! assigned by `push` exactly as before, so the order of events is unchanged: the heap holds
//! the same keys after every operation as with an eager pop.
//!
//! Alternatives measured on GFC1 (docs/benchmarks.md) and dropped: a calendar queue (1 µs
//! buckets: cache misses on sparse buckets), a radix heap (entries redistributed many times:
//! keys span ~40 significant bits), a 4-ary heap, a bottom-up sift for the replaced root (a
//! new wake-up usually settles a level or two above the leaves) and an indexed tournament tree
//! with one slot per busy component (fixed-length paths, but more instructions per update in
//! safe Rust, and superseded source wake-ups still have to run: they are fingerprinted).

use crate::heap::{Entry, MinHeap};
use crate::time::SimTime;

pub struct EventQueue<E> {
    heap: MinHeap<E>,
    /// The last key popped; every queued key is >= it.
    last: u128,
    next_seq: u64,
    /// The heap's root is the entry `pop` returned last: it is no longer queued, and the next
    /// `push` takes its place (see the module doc).
    root_popped: bool,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: MinHeap::with_capacity(256), last: 0, next_seq: 0, root_popped: false }
    }

    /// Schedules `event` at `time`. Times earlier than the last event popped are run as if
    /// at that time (a simulation never does this; the queue stays well-defined if it does).
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let mut key = (time.as_ps() as u128) << 64 | seq as u128;
        if key < self.last {
            key = (self.last >> 64) << 64 | seq as u128;
        }
        let entry = Entry { key, event };
        if self.root_popped {
            // The root is the popped entry, and every new key is above it: replace it.
            self.root_popped = false;
            self.heap.replace_root(entry);
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes the entry popped last if no `push` has reused its place yet.
    #[inline]
    fn drop_popped_root(&mut self) {
        if self.root_popped {
            self.root_popped = false;
            self.heap.pop_root();
        }
    }

    /// Removes and returns the earliest event (lazily: see the module doc).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.drop_popped_root();
        let e = self.heap.peek()?;
        self.last = e.key;
        self.root_popped = true;
        Some((SimTime::from_ps((e.key >> 64) as u64), e.event))
    }

    /// `pop`, if the earliest event is due by `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        self.drop_popped_root();
        let e = self.heap.peek()?;
        if (e.key >> 64) as u64 > until.as_ps() {
            return None;
        }
        self.last = e.key;
        self.root_popped = true;
        Some((SimTime::from_ps((e.key >> 64) as u64), e.event))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.drop_popped_root();
        self.heap.peek().map(|e| SimTime::from_ps((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.root_popped as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Times from sub-nanosecond to hours apart, with many ties.
    fn times() -> impl Strategy<Value = u64> {
        prop_oneof![0u64..50, 0u64..(1 << 22), 0u64..(1 << 36), 0u64..(1 << 52)]
    }

    proptest! {
        /// The queue must agree with a stable sort of the pushes by time (the reference model).
        #[test]
        fn matches_sorted_reference(ts in proptest::collection::vec(times(), 0..300)) {
            let mut q = EventQueue::new();
            for (i, t) in ts.iter().enumerate() {
                q.push(SimTime::from_ps(*t), i);
            }
            prop_assert_eq!(q.len(), ts.len());
            let mut reference: Vec<(u64, usize)> = ts.iter().copied().zip(0..).collect();
            reference.sort_by_key(|&(t, i)| (t, i));
            let got: Vec<(u64, usize)> =
                std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.as_ps(), e)).collect();
            prop_assert_eq!(got, reference);
        }

        /// Interleaved pushes (never into the past) and pops, as a simulation does.
        #[test]
        fn interleaved_matches_reference(ops in proptest::collection::vec((times(), any::<bool>()), 0..400)) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut now = 0u64;
            for (seq, (dt, pop)) in ops.into_iter().enumerate() {
                if pop {
                    reference.sort();
                    let want = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                    prop_assert_eq!(q.peek_time().map(|t| t.as_ps()), want.map(|w| w.0));
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

    proptest! {
        /// As a simulation's run loop uses the queue: pop one event, then schedule zero or more
        /// (the first one reuses the popped root), sometimes into the past, with `len` and
        /// `peek_time` checked on the way. Reference: a sorted list of (time, seq), where a
        /// time before the current one counts as the current one.
        #[test]
        fn pop_then_pushes_match_reference(
            initial in proptest::collection::vec(times(), 1..50),
            steps in proptest::collection::vec(
                (proptest::collection::vec((times(), any::<bool>()), 0..4), any::<bool>()), 0..300),
        ) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            for t in initial {
                q.push(SimTime::from_ps(t), seq);
                reference.push((t, seq));
                seq += 1;
            }
            let mut now = 0u64;
            for (pushes, peek) in steps {
                reference.sort();
                if peek {
                    prop_assert_eq!(q.peek_time().map(|t| t.as_ps()), reference.first().map(|r| r.0));
                }
                // Half the time through `pop_until`, with a deadline just before or at the next event.
                if let (false, Some(&(t, _))) = (peek, reference.first()) {
                    if t > 0 {
                        prop_assert_eq!(q.pop_until(SimTime::from_ps(t - 1)), None);
                    }
                    let got = q.pop_until(SimTime::from_ps(t)).map(|(t, s)| (t.as_ps(), s));
                    prop_assert_eq!(got, Some(reference.remove(0)));
                    now = t;
                } else {
                    let want = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                    let got = q.pop().map(|(t, s)| (t.as_ps(), s));
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got { now = t; }
                }
                prop_assert_eq!(q.len(), reference.len());
                for (dt, past) in pushes {
                    let t = if past { now.saturating_sub(dt) } else { now + dt };
                    q.push(SimTime::from_ps(t), seq);
                    reference.push((t.max(now), seq));
                    seq += 1;
                }
                prop_assert_eq!(q.len(), reference.len());
                prop_assert_eq!(q.is_empty(), reference.is_empty());
            }
            reference.sort();
            let rest: Vec<(u64, u64)> = std::iter::from_fn(|| q.pop()).map(|(t, s)| (t.as_ps(), s)).collect();
            prop_assert_eq!(rest, reference);
        }
    }

    #[test]
    fn a_push_into_the_past_runs_at_the_current_time_in_order() {
        let mut q = EventQueue::new();
        q.push(SimTime::from_ps(10), 'a');
        q.push(SimTime::from_ps(20), 'b');
        assert_eq!(q.pop(), Some((SimTime::from_ps(10), 'a')));
        q.push(SimTime::from_ps(5), 'c');
        assert_eq!(q.pop(), Some((SimTime::from_ps(10), 'c')));
        assert_eq!(q.pop(), Some((SimTime::from_ps(20), 'b')));
        assert_eq!(q.pop(), None);
    }
}
