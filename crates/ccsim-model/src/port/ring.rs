//! A ring (first in, first out) of `Copy` items with a power-of-two capacity, for the link pipes and the buffer
//! tokens: every cell-hop pops and pushes a few of these.
//!
//! `VecDeque` wraps an index with a compare and a conditional move against an arbitrary
//! capacity; here a mask does it. The ring only grows (doubling), and fills its spare slots
//! with copies of an item it holds, so it needs no `Default` and no uninitialised memory.

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// `buf.len()` is zero or a power of two; item `i` (0 = oldest) is at `(head + i) & mask`.
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
    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
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
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = item;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(item)
    }

    /// Pops the oldest item if `pred` holds for it (one look at the head instead of two).
    #[inline]
    pub fn pop_front_if(&mut self, pred: impl FnOnce(&T) -> bool) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.buf[self.head];
        if !pred(&item) {
            return None;
        }
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(item)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The `i`-th oldest item.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.buf[(self.head + i) & self.mask()])
    }

    /// Oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(move |i| &self.buf[(self.head + i) & self.mask()])
    }

    /// Doubles the capacity (at least 16), keeping the order; `filler` fills the spare slots.
    #[cold]
    fn grow(&mut self, filler: T) {
        let cap = (self.buf.len() * 2).max(16);
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
    use std::collections::VecDeque;

    /// Agrees with `VecDeque` through growth and wrap-around.
    #[test]
    fn behaves_like_vecdeque() {
        let mut f = Ring::default();
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
            if step % 3 == 0 {
                let odd = |x: &u64| x % 2 == 1;
                let want = d.front().copied().filter(odd);
                if want.is_some() {
                    d.pop_front();
                }
                assert_eq!(f.pop_front_if(odd), want);
            }
            if step % 997 == 0 {
                assert!(f.iter().eq(d.iter()));
            }
        }
    }
}
