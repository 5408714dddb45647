//! Per-VC state kept at one port (its buffer's books, its scheme's and policy's tables), for the
//! VCs that cross that port only: memory grows with VC-hops, never with ports × VCs (a world of
//! N sources has ~2N ports; tables sized by every VC at every port grew as N²).
//!
//! A dense `Vec` of entries in the order the VCs were inserted (the builder inserts each VC at
//! the ports of its route in VC order, so iterations sum in VC order, as full tables did), found
//! through a small open-addressing hash index (linear probing, multiplicative hash): one probe
//! per lookup as a rule.

use crate::ids::VcId;

/// Multiplier of the hash (2^32 / golden ratio): spreads consecutive VC numbers.
const HASH: u32 = 0x9E37_79B9;

#[derive(Clone, Debug)]
pub struct VcTable<T> {
    /// Open-addressing index: (VC number + 1, entry), 0 = empty; its length a power of two at
    /// least twice the entries.
    index: Vec<(u32, u32)>,
    /// 32 − log2(index.len()): the hash's top bits pick the home position.
    shift: u32,
    ids: Vec<VcId>,
    items: Vec<T>,
}

impl<T> Default for VcTable<T> {
    fn default() -> Self {
        VcTable { index: vec![(0, 0); 4], shift: 30, ids: Vec::new(), items: Vec::new() }
    }
}

impl<T> VcTable<T> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn home(&self, vc: VcId) -> usize {
        (vc.0.wrapping_mul(HASH) >> self.shift) as usize
    }

    /// The entry number of `vc`, if it has one.
    #[inline]
    pub fn slot(&self, vc: VcId) -> Option<usize> {
        let mask = self.index.len() - 1;
        let key = vc.0 + 1;
        let mut i = self.home(vc);
        loop {
            let (k, at) = self.index[i];
            if k == key {
                return Some(at as usize);
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    pub fn get(&self, vc: VcId) -> Option<&T> {
        self.slot(vc).map(|s| &self.items[s])
    }

    #[inline]
    pub fn get_mut(&mut self, vc: VcId) -> Option<&mut T> {
        self.slot(vc).map(|s| &mut self.items[s])
    }

    /// Adds `vc` with `value` unless it is there; its entry number either way.
    pub fn insert_with(&mut self, vc: VcId, value: impl FnOnce() -> T) -> usize {
        if let Some(s) = self.slot(vc) {
            return s;
        }
        if 2 * (self.items.len() + 1) > self.index.len() {
            self.grow();
        }
        let s = self.items.len();
        self.ids.push(vc);
        self.items.push(value());
        self.place(vc, s as u32);
        s
    }

    fn place(&mut self, vc: VcId, at: u32) {
        let mask = self.index.len() - 1;
        let mut i = self.home(vc);
        while self.index[i].0 != 0 {
            i = (i + 1) & mask;
        }
        self.index[i] = (vc.0 + 1, at);
    }

    fn grow(&mut self) {
        self.shift -= 1;
        self.index = vec![(0, 0); 1 << (32 - self.shift)];
        for s in 0..self.ids.len() {
            self.place(self.ids[s], s as u32);
        }
    }

    /// Entry number `slot` (from `slot` or `insert_with`).
    #[inline]
    pub fn at(&self, slot: usize) -> &T {
        &self.items[slot]
    }

    #[inline]
    pub fn at_mut(&mut self, slot: usize) -> &mut T {
        &mut self.items[slot]
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entries in insertion order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.items.iter_mut()
    }

    /// (VC, entry) pairs in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (VcId, &T)> {
        self.ids.iter().copied().zip(self.items.iter())
    }
}

/// Equal when they hold the same VCs with equal entries in the same order.
impl<T: PartialEq> PartialEq for VcTable<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ids == other.ids && self.items == other.items
    }
}

impl<T: Default> VcTable<T> {
    /// The entry of `vc`, added with the default value if it has none.
    #[inline]
    pub fn entry(&mut self, vc: VcId) -> &mut T {
        let s = match self.slot(vc) {
            Some(s) => s,
            None => self.insert_default(vc),
        };
        &mut self.items[s]
    }

    /// Out of the lookup's inline path: entries are made before the run as a rule.
    #[cold]
    #[inline(never)]
    fn insert_default(&mut self, vc: VcId) -> usize {
        self.insert_with(vc, T::default)
    }

    /// Adds `vc` with the default value unless it is there.
    pub fn insert(&mut self, vc: VcId) {
        self.insert_with(vc, T::default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_vc_inserted_in_order_and_no_other() {
        let mut t: VcTable<u64> = VcTable::new();
        let vcs: Vec<u32> = (0..5000).map(|k| k * 7 + (k % 3) * 100_000).collect();
        for (n, &v) in vcs.iter().enumerate() {
            assert_eq!(t.insert_with(VcId(v), || v as u64 * 2), n);
        }
        assert_eq!(t.len(), vcs.len());
        for (n, &v) in vcs.iter().enumerate() {
            assert_eq!(t.slot(VcId(v)), Some(n));
            assert_eq!(t.get(VcId(v)), Some(&(v as u64 * 2)));
        }
        assert_eq!(t.get(VcId(1)), None);
        assert_eq!(t.get(VcId(u32::MAX - 1)), None);
        // Insertion order is kept, and a second insert changes nothing.
        assert!(t.iter().map(|(v, _)| v.0).eq(vcs.iter().copied()));
        assert_eq!(t.insert_with(VcId(vcs[10]), || 0), 10);
        assert_eq!(*t.entry(VcId(vcs[10])), vcs[10] as u64 * 2);
        // The index stays at most half full.
        assert!(t.index.len() >= 2 * t.len());
    }

    #[test]
    fn entry_adds_a_default_once() {
        let mut t: VcTable<u32> = VcTable::new();
        *t.entry(VcId(9)) += 1;
        *t.entry(VcId(9)) += 1;
        *t.entry(VcId(0)) += 5;
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![(VcId(9), &2), (VcId(0), &5)]);
    }
}
