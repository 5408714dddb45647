//! Serialisation time with the remainder carried, so that a link's long-run rate is exact.
//!
//! At 155.52 Mb/s a 424-bit cell takes 2 726 337.448… ps. Truncating to 2 726 337 ps per cell
//! would make the link 0.16 ppm fast, and the error would grow with every cell (the drift
//! htsim's `queue.cpp` shows). Instead each call returns the integer part and keeps the
//! fraction (as a numerator over the rate) for the next call.
//!
//! A link serialises cells of one size again and again, so the quotient and remainder of
//! `bits × 10¹²` by the rate are kept for the last size: a call is then one addition and one
//! comparison instead of a 128-bit division, with exactly the same results.

use crate::time::{SimDuration, PS_PER_SEC};

#[derive(Clone, Debug)]
pub struct TxClock {
    bits_per_sec: u64,
    /// The carried fraction of a picosecond, as a numerator over `bits_per_sec`.
    remainder: u64,
    /// `bits × 10¹² = whole × bits_per_sec + frac` for the last size `bits` asked for.
    bits: u64,
    whole: u64,
    frac: u64,
}

impl TxClock {
    /// `bits_per_sec` must be > 0 (validated by the scenario layer).
    pub fn new(bits_per_sec: u64) -> Self {
        assert!(bits_per_sec > 0, "TxClock needs a positive rate");
        TxClock { bits_per_sec, remainder: 0, bits: 0, whole: 0, frac: 0 }
    }

    pub fn bits_per_sec(&self) -> u64 {
        self.bits_per_sec
    }

    /// The time to put `bits` on the wire, carrying the sub-picosecond remainder.
    #[inline]
    pub fn tx_time(&mut self, bits: u64) -> SimDuration {
        if bits != self.bits {
            let num = bits as u128 * PS_PER_SEC as u128;
            let rate = self.bits_per_sec as u128;
            self.bits = bits;
            self.whole = (num / rate) as u64;
            self.frac = (num % rate) as u64;
        }
        // (bits × 10¹² + remainder) / rate = whole + (frac + remainder) / rate, and
        // frac + remainder < 2 × rate: the carry is at most one picosecond.
        let mut ps = self.whole;
        let mut rem = self.frac + self.remainder;
        if rem >= self.bits_per_sec {
            rem -= self.bits_per_sec;
            ps += 1;
        }
        self.remainder = rem;
        SimDuration::from_ps(ps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_run_rate_is_exact() {
        let mut c = TxClock::new(155_520_000);
        let n = 155_520_000u64; // cells; total bits = 424 * n
        let mut total = 0u64;
        for _ in 0..n / 1000 {
            total += c.tx_time(424).as_ps();
        }
        // 155 520 cells at 424 bits on 155.52 Mb/s take exactly 424 ms, to the picosecond.
        assert_eq!(total, 424 * 1_000_000_000);
    }

    /// The cached quotient agrees with the plain 128-bit division, for changing sizes too.
    #[test]
    fn agrees_with_exact_division() {
        for rate in [1u64, 7, 1_000_000, 155_520_000, 622_080_000, 2_488_320_000, 999_999_999_989] {
            let mut c = TxClock::new(rate);
            let mut rem = 0u128;
            for i in 0..2000u64 {
                let bits = if i % 97 < 90 { 424 } else { 8 * (40 + i % 1500) };
                let num = bits as u128 * PS_PER_SEC as u128 + rem;
                let want = (num / rate as u128) as u64;
                rem = num % rate as u128;
                assert_eq!(c.tx_time(bits).as_ps(), want, "rate {rate} call {i}");
            }
        }
    }

    #[test]
    fn each_slot_is_floor_or_ceil() {
        let mut c = TxClock::new(155_520_000);
        for _ in 0..1000 {
            let t = c.tx_time(424).as_ps();
            assert!(t == 2_726_337 || t == 2_726_338, "{t}");
        }
    }
}
