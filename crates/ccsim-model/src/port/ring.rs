//! A ring (first in, first out) of `Copy` items, for the link pipes: every cell-hop pops and
//! pushes a few of these.
//!
//! A ring only grows, by an eighth (`GROWTH`), so its capacity stays within 12.5 % of the most
//! items it ever held: the cells in flight are most of a large run's memory (a 5 ms access link
//! at 25 Mb/s holds ~300 cells), and doubling left up to half of every pipe empty. Its index wraps
//! with a compare, a few instructions more per use than a power-of-two mask (docs/benchmarks.md).
//! Spare slots hold copies of an item the ring holds, so a ring needs no `Default` and no
//! uninitialised memory.
//!
//! Every slot index the ring computes is below the storage's length (`wrap` of an index under
//! twice the capacity, `head` always a slot), so slots are read and written without a bounds
//! check (`slot`, `slot_mut`): a ring operation is a few instructions, and every cell-hop does
//! several of them (docs/benchmarks.md). Debug builds check every index.

/// A ring grows by `1 / GROWTH` of its capacity when full.
const GROWTH: usize = 8;

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// Item `i` (0 = oldest) is at `wrap(head + i)`.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy> Ring<T> {
    /// `i` (less than twice the capacity) as a slot index.
    #[inline]
    fn wrap(&self, i: usize) -> usize {
        let cap = self.buf.len();
        if i >= cap { i - cap } else { i }
    }

    /// Slot `i`, a slot index.
    #[inline(always)]
    fn slot(&self, i: usize) -> &T {
        debug_assert!(i < self.buf.len());
        // SAFETY: every caller passes a slot index (`head`, or the result of `wrap` or `next`),
        // which is below `buf.len()`; `buf`'s items are all initialised (spare slots hold copies).
        unsafe { self.buf.get_unchecked(i) }
    }

    #[inline(always)]
    fn slot_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.buf.len());
        // SAFETY: as in `slot`.
        unsafe { self.buf.get_unchecked_mut(i) }
    }

    /// The slot after `i` (a slot index).
    #[inline]
    fn next(&self, i: usize) -> usize {
        if i + 1 == self.buf.len() { 0 } else { i + 1 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, item: T) {
        if self.len == self.buf.len() {
            self.grow(item);
        }
        let i = self.wrap(self.head + self.len);
        *self.slot_mut(i) = item;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = *self.slot(self.head);
        self.head = self.next(self.head);
        self.len -= 1;
        Some(item)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        // `head` is always a slot index: no wrap.
        (self.len > 0).then(|| self.slot(self.head))
    }

    /// Loads the oldest item, its value unused: its cache line comes in while the caller does
    /// other work (a load nothing waits for).
    #[inline]
    pub fn touch_front(&self) {
        if self.len > 0 {
            std::hint::black_box(*self.slot(self.head));
        }
    }

    /// The `i`-th oldest item.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| self.slot(self.wrap(self.head + i)))
    }

    /// The `i`-th oldest item, to change it in place (the trace numbers a cell just accepted).
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        let k = self.wrap(self.head + i);
        (i < self.len).then(|| &mut self.buf[k])
    }

    /// The `n` oldest items (at most `len`) leave, appended to `out` oldest first: at most two
    /// copies of a contiguous run (threads move the cells that left a buffer this way).
    pub fn move_front_into(&mut self, n: usize, out: &mut Vec<T>) {
        let n = n.min(self.len);
        let first = n.min(self.buf.len() - self.head);
        out.extend_from_slice(&self.buf[self.head..self.head + first]);
        out.extend_from_slice(&self.buf[..n - first]);
        self.head = self.wrap(self.head + n);
        self.len -= n;
        if self.len == 0 {
            self.head = 0;
        }
    }

    /// Appends `items`, oldest first.
    pub fn extend_from_slice(&mut self, items: &[T]) {
        for &item in items {
            self.push_back(item);
        }
    }

    /// Oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(move |i| self.slot(self.wrap(self.head + i)))
    }

    /// Slots allocated.
    #[cfg(test)]
    fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Grows the capacity (by `1 / GROWTH`, to at least 16), keeping the order; `filler` fills
    /// the spare slots.
    #[cold]
    fn grow(&mut self, filler: T) {
        let n = self.buf.len();
        let cap = (n + n / GROWTH).max(16);
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter().copied());
        buf.resize(cap, filler);
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items moved out in bulk are the oldest, in order, wrapped around the storage's end or not.
    #[test]
    fn moving_the_front_out_keeps_the_order() {
        let mut r = Ring::default();
        let mut next = 0u32;
        let mut expect = std::collections::VecDeque::new();
        for round in 0..50usize {
            for _ in 0..(round * 7) % 23 {
                r.push_back(next);
                expect.push_back(next);
                next += 1;
            }
            let mut out = Vec::new();
            r.move_front_into((round * 5) % 17, &mut out);
            let want: Vec<u32> = (0..out.len()).map(|_| expect.pop_front().unwrap()).collect();
            assert_eq!(out, want);
            assert_eq!(r.iter().copied().collect::<Vec<_>>(), expect.iter().copied().collect::<Vec<_>>());
        }
    }
    use std::collections::VecDeque;

    /// A ring stays within an eighth (and 16 slots) of the most items it held.
    #[test]
    fn a_ring_stays_near_its_largest_occupancy() {
        for n in [1usize, 17, 295, 300, 1000, 5000] {
            let mut f: Ring<u32> = Ring::default();
            (0..n as u32).for_each(|x| f.push_back(x));
            assert!(f.capacity() >= n && f.capacity() <= (n + n / GROWTH).max(16), "{n} items: {} slots", f.capacity());
        }
    }

    /// A ring agrees with `VecDeque` through growth and wrap-around.
    #[test]
    fn behaves_like_vecdeque() {
        let mut f: Ring<u64> = Ring::default();
        let mut d = VecDeque::new();
        let mut x = 0u64;
        for step in 0..20_000u64 {
            // Phases of mostly pushing and mostly popping.
            let push = (step / 700) % 2 == 0 || step % 5 == 0;
            if push {
                f.push_back(x);
                d.push_back(x);
                x += 1;
            } else {
                assert_eq!(f.pop_front(), d.pop_front());
            }
            assert_eq!(f.len(), d.len());
            assert_eq!(f.front(), d.front());
            assert_eq!(f.get(2), d.get(2));
            if step % 997 == 0 {
                assert!(f.iter().eq(d.iter()));
            }
        }
    }
}
