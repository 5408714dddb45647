//! Integer simulation time in picoseconds.
//!
//! A 155.52 Mb/s cell slot is 2726.337… ns, so nanoseconds would round every slot; `u64`
//! picoseconds still span about 213 days.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// An instant of simulated time (picoseconds since the start of the run).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time in picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later (never panics).
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        SimDuration(ps)
    }
    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns * 1_000)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * PS_PER_SEC)
    }
    /// Rounds to the nearest picosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            return SimDuration(0);
        }
        let ps = (s * PS_PER_SEC as f64).round();
        if ps >= u64::MAX as f64 {
            SimDuration::MAX
        } else {
            SimDuration(ps as u64)
        }
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

fn fmt_ps(ps: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    // Pick the largest unit that keeps the value >= 1, like smoltcp's Instant display.
    let (div, unit) = match ps {
        p if p >= PS_PER_SEC => (PS_PER_SEC, "s"),
        p if p >= 1_000_000_000 => (1_000_000_000, "ms"),
        p if p >= 1_000_000 => (1_000_000, "us"),
        p if p >= 1_000 => (1_000, "ns"),
        _ => (1, "ps"),
    };
    if ps % div == 0 {
        write!(f, "{}{}", ps / div, unit)
    } else {
        write!(f, "{}{}", ps as f64 / div as f64, unit)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ps(self.0, f)
    }
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ps(self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_agree() {
        assert_eq!(SimDuration::from_millis(5), SimDuration::from_micros(5000));
        assert_eq!(SimDuration::from_secs_f64(0.005), SimDuration::from_millis(5));
        assert_eq!(SimDuration::from_secs_f64(-1.0), SimDuration::ZERO);
    }

    #[test]
    fn display_uses_units() {
        assert_eq!(SimDuration::from_millis(5).to_string(), "5ms");
        assert_eq!(SimDuration::from_micros(1500).to_string(), "1.5ms");
        assert_eq!(SimTime::from_ps(7).to_string(), "7ps");
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(SimTime::MAX + SimDuration::from_secs(1), SimTime::MAX);
        assert_eq!(SimTime::ZERO.saturating_since(SimTime::from_ps(5)), SimDuration::ZERO);
    }
}
