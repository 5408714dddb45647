//! Sources that do not do what the switches tell them (seed 003 §5; docs/models/abr/source.md,
//! "Misbehaving sources").
//!
//! A misbehaving source keeps its TM 4.0 state (ACR from the feedback) but may *send* at a
//! different rate and may *report* either its ACR or what it really sends in the CCR field.

use ccsim_engine::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Default)]
pub enum Misbehaviour {
    #[default]
    None,
    /// From `start`, alternately `period` greedy (sending at `multiplier` × ACR while still
    /// reporting CCR = ACR) and `period` normal (seed 003 §5.1).
    DishonestGreedy { start: SimTime, multiplier: f64, period: SimDuration },
    /// From `start`, send at `rate` cells/s whatever the feedback says; `honest` sources
    /// report it as their CCR (and bid it under DEBRA), dishonest ones report the ACR they
    /// were given (seed 003 §5.2 "one high", and the "one low" variant).
    FixedRate { start: SimTime, rate: f64, honest: bool },
}

impl Misbehaviour {
    /// The fixed rate in force at `now`, if any: ACR is pinned to it and feedback ignored.
    pub fn fixed_rate(&self, now: SimTime) -> Option<f64> {
        match *self {
            Misbehaviour::FixedRate { start, rate, .. } if now >= start => Some(rate),
            _ => None,
        }
    }

    /// The rate the source really sends at, given its ACR.
    pub fn sending_rate(&self, now: SimTime, acr: f64) -> f64 {
        match *self {
            Misbehaviour::None => acr,
            Misbehaviour::DishonestGreedy { start, multiplier, period } => {
                if now >= start && !period.is_zero() && (now.saturating_since(start).as_ps() / period.as_ps()) % 2 == 0 {
                    acr * multiplier
                } else {
                    acr
                }
            }
            Misbehaviour::FixedRate { .. } => self.fixed_rate(now).unwrap_or(acr),
        }
    }

    /// What the source writes into the CCR field of its forward RM cells.
    pub fn reported_rate(&self, now: SimTime, acr: f64) -> f64 {
        match *self {
            Misbehaviour::FixedRate { honest: true, .. } => self.fixed_rate(now).unwrap_or(acr),
            _ => acr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    #[test]
    fn dishonest_greedy_alternates_and_lies() {
        let m = Misbehaviour::DishonestGreedy { start: ms(100), multiplier: 1.5, period: SimDuration::from_millis(50) };
        assert_eq!(m.sending_rate(ms(99), 10.0), 10.0);
        assert_eq!(m.sending_rate(ms(100), 10.0), 15.0);
        assert_eq!(m.sending_rate(ms(149), 10.0), 15.0);
        assert_eq!(m.sending_rate(ms(150), 10.0), 10.0);
        assert_eq!(m.sending_rate(ms(200), 10.0), 15.0);
        assert_eq!(m.reported_rate(ms(120), 10.0), 10.0);
    }

    #[test]
    fn fixed_rate_honest_or_not() {
        let h = Misbehaviour::FixedRate { start: ms(100), rate: 42.0, honest: true };
        assert_eq!(h.sending_rate(ms(50), 10.0), 10.0);
        assert_eq!(h.sending_rate(ms(100), 10.0), 42.0);
        assert_eq!(h.reported_rate(ms(100), 10.0), 42.0);
        let d = Misbehaviour::FixedRate { start: ms(100), rate: 42.0, honest: false };
        assert_eq!(d.reported_rate(ms(100), 10.0), 10.0);
    }
}
