//! Serialisation time with the remainder carried, so that a link's long-run rate is exact.
//!
//! At 155.52 Mb/s a 424-bit cell takes 2 726 337.448… ps. Truncating to 2 726 337 ps per cell
//! would make the link 0.16 ppm fast, and the error would grow with every cell (the drift
//! htsim's `queue.cpp` shows). Instead each call returns the integer part and keeps the
//! fraction (as a numerator over the rate) for the next call.

use crate::time::{SimDuration, PS_PER_SEC};

#[derive(Clone, Debug)]
pub struct TxClock {
    bits_per_sec: u64,
    remainder: u64,
}

impl TxClock {
    /// `bits_per_sec` must be > 0 (validated by the scenario layer).
    pub fn new(bits_per_sec: u64) -> Self {
        assert!(bits_per_sec > 0, "TxClock needs a positive rate");
        TxClock { bits_per_sec, remainder: 0 }
    }

    pub fn bits_per_sec(&self) -> u64 {
        self.bits_per_sec
    }

    /// The time to put `bits` on the wire, carrying the sub-picosecond remainder.
    #[inline]
    pub fn tx_time(&mut self, bits: u64) -> SimDuration {
        let num = bits as u128 * PS_PER_SEC as u128 + self.remainder as u128;
        let rate = self.bits_per_sec as u128;
        self.remainder = (num % rate) as u64;
        SimDuration::from_ps((num / rate) as u64)
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

    #[test]
    fn each_slot_is_floor_or_ceil() {
        let mut c = TxClock::new(155_520_000);
        for _ in 0..1000 {
            let t = c.tx_time(424).as_ps();
            assert!(t == 2_726_337 || t == 2_726_338, "{t}");
        }
    }
}
