//! The future event list, ordered by (time, tie).
//!
//! The tie makes the order total and deterministic. With the default `Fifo` rule it is the
//! insertion sequence: two events at the same picosecond run in the order they were scheduled.
//! With `ByEvent` the event itself names its tie (`IntrinsicOrder`): the order of simultaneous
//! events then depends only on what they are, not on when they were scheduled, so a simulation
//! that schedules the same events in another order (several partitioned queues, say) runs
//! them in the same order.
//!
//! A binary min-heap (`heap.rs`) keyed by one `u128`, `time << 64 | tie`, so every comparison
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

/// How events at the same picosecond are ordered: the low 64 bits of the queue's key.
pub trait TieBreak<E> {
    fn tie(&self, seq: u64, time: SimTime, event: &E) -> u64;
}

/// In the order they were scheduled.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fifo;

impl<E> TieBreak<E> for Fifo {
    #[inline]
    fn tie(&self, seq: u64, _: SimTime, _: &E) -> u64 {
        seq
    }
}

/// An event that knows its place among events at the same `time`. Two events with the same tie
/// at the same time must be interchangeable (the queue may return them in either order).
pub trait IntrinsicOrder {
    fn tie(&self, time: SimTime) -> u64;
}

/// By the event's own tie (`IntrinsicOrder`), whatever the order of scheduling.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByEvent;

impl<E: IntrinsicOrder> TieBreak<E> for ByEvent {
    #[inline]
    fn tie(&self, _: u64, time: SimTime, event: &E) -> u64 {
        event.tie(time)
    }
}

pub struct EventQueue<E, T: TieBreak<E> = Fifo> {
    heap: MinHeap<E>,
    /// The last key popped; every queued key is >= it.
    last: u128,
    next_seq: u64,
    /// The heap's root is the entry `pop` returned last: it is no longer queued, and the next
    /// `push` takes its place (see the module doc).
    root_popped: bool,
    rule: T,
}

impl<E: Copy, T: TieBreak<E> + Default> Default for EventQueue<E, T> {
    fn default() -> Self {
        Self::with_rule(T::default())
    }
}

impl<E: Copy> EventQueue<E> {
    /// A queue that runs simultaneous events in the order they were scheduled.
    pub fn new() -> Self {
        Self::with_rule(Fifo)
    }
}

impl<E: Copy, T: TieBreak<E>> EventQueue<E, T> {
    /// A queue that orders simultaneous events by `rule` (`EventQueue::with_rule(ByEvent)`).
    /// It allocates as events come: a world in windows keeps one queue per node, and most
    /// nodes (hosts) never hold more than a few events.
    pub fn with_rule(rule: T) -> Self {
        EventQueue { heap: MinHeap::with_capacity(0), last: 0, next_seq: 0, root_popped: false, rule }
    }

    /// Schedules `event` at `time`. Times earlier than the last event popped are run as if
    /// at that time (a simulation never does this; the queue stays well-defined if it does).
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let tie = self.rule.tie(seq, time, &event) as u128;
        let mut key = (time.as_ps() as u128) << 64 | tie;
        if key < self.last {
            key = (self.last >> 64) << 64 | tie;
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
        self.pop_if(|_| true)
    }

    /// `pop`, if the earliest event is due by `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        self.pop_if(|key| (key >> 64) as u64 <= until.as_ps())
    }

    /// `pop`, if the earliest event comes before `bound` in the queue's order (time, then tie).
    #[inline]
    pub fn pop_before(&mut self, bound: (SimTime, u64)) -> Option<(SimTime, E)> {
        let bound = (bound.0.as_ps() as u128) << 64 | bound.1 as u128;
        self.pop_if(|key| key < bound)
    }

    /// `pop`, if `due` accepts the earliest event's key.
    #[inline]
    fn pop_if(&mut self, due: impl FnOnce(u128) -> bool) -> Option<(SimTime, E)> {
        self.drop_popped_root();
        let e = self.heap.peek()?;
        if !due(e.key) {
            return None;
        }
        self.last = e.key;
        self.root_popped = true;
        Some((SimTime::from_ps((e.key >> 64) as u64), e.event))
    }

    /// The place of the earliest event in the queue's order: (time, tie). Leaves the entry
    /// popped last in place (it is then the smaller of the root's children).
    #[inline]
    pub fn peek_key(&self) -> Option<(SimTime, u64)> {
        let key = if self.root_popped { self.heap.min_below_root() } else { self.heap.peek().map(|e| e.key) };
        key.map(|k| (SimTime::from_ps((k >> 64) as u64), k as u64))
    }

    /// The key this queue would give `event` at `time` (for comparison with `peek_key`).
    #[inline]
    pub fn key_of(&self, time: SimTime, event: &E) -> (SimTime, u64) {
        (time, self.rule.tie(self.next_seq, time, event))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.drop_popped_root();
        self.heap.peek().map(|e| SimTime::from_ps((e.key >> 64) as u64))
    }

    /// How many events were ever scheduled: a change says the queue may have a new earliest
    /// event (cheaper to compare than `peek_key`).
    #[inline]
    pub fn pushes(&self) -> u64 {
        self.next_seq
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

    #[derive(Copy, Clone, Debug, PartialEq)]
    struct Named(u64, char);

    impl IntrinsicOrder for Named {
        fn tie(&self, _: SimTime) -> u64 {
            self.0
        }
    }

    #[test]
    fn by_event_orders_simultaneous_events_by_their_tie_not_by_scheduling() {
        let t = SimTime::from_ps(7);
        let mut a = EventQueue::with_rule(ByEvent);
        let mut b = EventQueue::with_rule(ByEvent);
        let evs = [Named(3, 'c'), Named(1, 'a'), Named(2, 'b')];
        for e in evs {
            a.push(t, e);
        }
        for e in evs.iter().rev() {
            b.push(t, *e);
        }
        b.push(SimTime::from_ps(6), Named(9, 'z'));
        assert_eq!(b.pop(), Some((SimTime::from_ps(6), Named(9, 'z'))));
        let order = |q: &mut EventQueue<Named, ByEvent>| std::iter::from_fn(|| q.pop()).map(|(_, e)| e.1).collect::<String>();
        assert_eq!(order(&mut a), "abc");
        assert_eq!(order(&mut b), "abc");
    }

    #[test]
    fn pop_before_and_peek_key_follow_time_then_tie() {
        let mut q = EventQueue::with_rule(ByEvent);
        let t = SimTime::from_ps(100);
        q.push(t, Named(5, 'x'));
        q.push(t, Named(2, 'y'));
        assert_eq!(q.peek_key(), Some((t, 2)));
        assert_eq!(q.key_of(t, &Named(4, 'w')), (t, 4));
        assert_eq!(q.pop_before((t, 2)), None);
        assert_eq!(q.pop_before((t, 3)), Some((t, Named(2, 'y'))));
        assert_eq!(q.pop_before((t, 5)), None);
        q.push(SimTime::from_ps(200), Named(1, 'v'));
        q.push(SimTime::from_ps(150), Named(1, 'u'));
        assert_eq!(q.pop(), Some((t, Named(5, 'x'))));
        // The popped root is still in the heap: peek_key looks past it.
        assert_eq!(q.peek_key(), Some((SimTime::from_ps(150), 1)));
        q.push(t, Named(6, 'z'));
        assert_eq!(q.pop_before((SimTime::from_ps(101), 0)), Some((t, Named(6, 'z'))));
        assert_eq!(q.pop_before((SimTime::from_ps(150), 1)), None);
        assert_eq!(q.pop_before((SimTime::from_ps(150), 2)), Some((SimTime::from_ps(150), Named(1, 'u'))));
        assert_eq!(q.pop(), Some((SimTime::from_ps(200), Named(1, 'v'))));
        assert_eq!(q.peek_key(), None);
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
