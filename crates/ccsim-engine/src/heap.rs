//! A binary min-heap of `(u128 key, payload)` entries, smallest key at index 0.
//!
//! The algorithms are std's `BinaryHeap`'s (hole-based sifts; `pop` moves the hole to the
//! bottom and sifts the last entry up from there), plus `replace_root`, which sifts a new
//! entry down from the root while holding it in registers. std's equivalent (`PeekMut`) first
//! writes the new entry into the root and then reads it back as the hole: the read cannot be
//! forwarded from the narrower stores just made and stalls, on every event (measured: ~10 % of
//! GFC1's run time, docs/benchmarks.md).

#[derive(Clone, Copy)]
pub(crate) struct Entry<E> {
    pub key: u128,
    pub event: E,
}

pub(crate) struct MinHeap<E> {
    data: Vec<Entry<E>>,
}

impl<E: Copy> MinHeap<E> {
    pub fn with_capacity(n: usize) -> Self {
        MinHeap { data: Vec::with_capacity(n) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.data.len()
    }

    #[inline]
    pub fn peek(&self) -> Option<&Entry<E>> {
        self.data.first()
    }

    /// The smaller key of the root's children.
    #[inline]
    pub fn min_below_root(&self) -> Option<u128> {
        match &self.data[..] {
            [] | [_] => None,
            [_, a] => Some(a.key),
            [_, a, b, ..] => Some(a.key.min(b.key)),
        }
    }

    #[inline]
    pub fn push(&mut self, entry: Entry<E>) {
        let pos = self.data.len();
        self.data.push(entry);
        sift_up(&mut self.data, pos, entry);
    }

    /// Replaces the root (the heap must not be empty): top-down, stopping as soon as the new
    /// entry is no later than both children. A simulation's next wake-up is usually near, so
    /// it seldom goes deep.
    #[inline]
    pub fn replace_root(&mut self, entry: Entry<E>) {
        let data = &mut self.data[..];
        let n = data.len();
        let mut pos = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (data[child + 1].key < data[child].key) as usize;
            if entry.key <= data[child].key {
                data[pos] = entry;
                return;
            }
            data[pos] = data[child];
            pos = child;
            child = 2 * pos + 1;
        }
        if child < n && data[child].key < entry.key {
            data[pos] = data[child];
            pos = child;
        }
        data[pos] = entry;
    }

    /// Removes the root (the heap must not be empty). The last entry belongs near the bottom,
    /// so the hole goes down to a leaf along the smaller children first (one comparison per
    /// level) and the last entry is sifted up from there.
    #[inline]
    pub fn pop_root(&mut self) {
        let last = self.data.pop().expect("a non-empty heap");
        let data = &mut self.data[..];
        let n = data.len();
        if n == 0 {
            return;
        }
        let mut pos = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (data[child + 1].key < data[child].key) as usize;
            data[pos] = data[child];
            pos = child;
            child = 2 * pos + 1;
        }
        if child < n {
            data[pos] = data[child];
            pos = child;
        }
        sift_up(data, pos, last);
    }
}

/// Puts `entry` into the hole at `pos`, moving later ancestors down.
#[inline]
fn sift_up<E: Copy>(data: &mut [Entry<E>], mut pos: usize, entry: Entry<E>) {
    while pos > 0 {
        let parent = (pos - 1) / 2;
        if entry.key >= data[parent].key {
            break;
        }
        data[pos] = data[parent];
        pos = parent;
    }
    data[pos] = entry;
}
