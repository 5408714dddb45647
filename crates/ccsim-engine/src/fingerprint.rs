//! A running hash over processed events, as OMNeT++'s fingerprint tests use: any change in
//! behaviour (an event at another time, for another component, of another kind) changes it.

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
        self.0 = (self.0 ^ word).wrapping_mul(0x0000_0100_0000_01b3);
        self.0 ^= self.0 >> 29;
        self.0 = self.0.wrapping_mul(0xbf58_476d_1ce4_e5b9);
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

    #[test]
    fn sensitive_to_order_time_and_component() {
        let mut a = Fingerprint::default();
        a.add(1, 0, 0);
        a.add(2, 0, 1);
        let mut b = Fingerprint::default();
        b.add(2, 0, 1);
        b.add(1, 0, 0);
        assert_ne!(a, b);
        let mut c = Fingerprint::default();
        c.add(1, 0, 0);
        c.add(2, 0, 2);
        assert_ne!(a, c);
    }
}
