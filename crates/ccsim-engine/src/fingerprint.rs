//! A hash over processed events, as OMNeT++'s fingerprint tests use: any change in behaviour
//! (an event at another time, for another component, of another kind) changes it.
//!
//! It is a hash of the multiset of events (a sum of mixed words), not of their sequence: when
//! simultaneous events are ordered by what they are (`ByEvent`), the multiset fixes the order,
//! and the hash does not depend on how the run was partitioned into queues.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    /// Mixes one event in. Cheap (two multiplies) because it runs for every event.
    #[inline]
    pub fn add(&mut self, time_ps: u64, kind: u32, component: u32) {
        let word = time_ps ^ ((kind as u64) << 56) ^ ((component as u64) << 32).rotate_left(7);
        let mut h = (word ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 31;
        h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 29;
        self.0 = self.0.wrapping_add(h);
    }

    /// Takes in the events `other` mixed in (a fingerprint of another part of the same run,
    /// started from the default), and leaves `other` at the default: the sum over every event
    /// is the same however the events were split between fingerprints.
    pub fn absorb(&mut self, other: &mut Fingerprint) {
        self.0 = self.0.wrapping_add(other.0.wrapping_sub(Fingerprint::default().0));
        *other = Fingerprint::default();
    }

    pub fn value(self) -> u64 {
        self.0
    }

    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(events: &[(u64, u32, u32)]) -> Fingerprint {
        let mut f = Fingerprint::default();
        for &(t, k, c) in events {
            f.add(t, k, c);
        }
        f
    }

    #[test]
    fn sensitive_to_time_kind_component_and_count_not_to_order() {
        let a = of(&[(1, 0, 0), (2, 0, 1)]);
        assert_eq!(a, of(&[(2, 0, 1), (1, 0, 0)]));
        assert_ne!(a, of(&[(1, 0, 0), (2, 0, 2)]));
        assert_ne!(a, of(&[(1, 0, 0), (3, 0, 1)]));
        assert_ne!(a, of(&[(1, 0, 0), (2, 1, 1)]));
        assert_ne!(a, of(&[(1, 0, 0), (2, 0, 1), (2, 0, 1)]));
        assert_ne!(a, of(&[(1, 0, 0)]));
    }

    #[test]
    fn absorbing_a_part_gives_the_whole() {
        let mut first = of(&[(1, 0, 0)]);
        let mut second = of(&[(2, 0, 1), (3, 1, 1)]);
        first.absorb(&mut second);
        assert_eq!(first, of(&[(1, 0, 0), (2, 0, 1), (3, 1, 1)]));
        assert_eq!(second, Fingerprint::default());
    }
}
