//! Scenario types for seed 004's bulk-data session model (docs/models/sessions.md): a
//! connection's `sessions = { ... }` table makes its application write bursts of sessions instead
//! of a greedy transfer. Every constant of the seed is a field with the seed's value as default;
//! the readings the seed leaves open are named: rates per source and per second, the gap in
//! seconds, the burst minimum in bytes (2 × 10^6 bytes; `"250000B"` is the bits reading).

use crate::units::Bytes;
use ccsim_model::sessions::{NitemsMode, SessionParams};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionsSpec {
    /// Session arrivals per second at each source (seed 004: 0.014).
    #[serde(default = "SessionsSpec::rate")]
    pub rate: f64,
    /// Bursts per session from TCPLib's FTP table: `tcplib` (its own sampling, mean 6.71) or
    /// `discrete` (the table read as a distribution, mean 7.81).
    #[serde(default)]
    pub nitems: Nitems,
    /// Gap between a session's bursts: log-normal, seconds.
    #[serde(default)]
    pub gap: GapSpec,
    /// Burst size: Pareto.
    #[serde(default)]
    pub burst: BurstSpec,
}

#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Nitems {
    #[default]
    Tcplib,
    Discrete,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GapSpec {
    /// Log-mean (seed 004: ln 4 = 1.386).
    #[serde(default = "GapSpec::mu")]
    pub mu: f64,
    /// Log-sigma (seed 004: 1.8).
    #[serde(default = "GapSpec::sigma")]
    pub sigma: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BurstSpec {
    /// Pareto shape (seed 004: 1.2).
    #[serde(default = "BurstSpec::shape")]
    pub shape: f64,
    /// Pareto minimum (seed 004: 2 × 10^6, read as bytes; the bits reading is 250 000 bytes).
    #[serde(default = "BurstSpec::min")]
    pub min: Bytes,
    /// Truncation (default none: infinite variance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Bytes>,
}

impl SessionsSpec {
    fn rate() -> f64 {
        0.014
    }

    pub fn params(&self) -> SessionParams {
        SessionParams {
            rate: self.rate,
            nitems: match self.nitems {
                Nitems::Tcplib => NitemsMode::Tcplib,
                Nitems::Discrete => NitemsMode::Discrete,
            },
            gap_mu: self.gap.mu,
            gap_sigma: self.gap.sigma,
            burst_shape: self.burst.shape,
            burst_min_bytes: self.burst.min.0 as f64,
            burst_max_bytes: self.burst.max.map(|b| b.0 as f64),
        }
    }
}

impl GapSpec {
    fn mu() -> f64 {
        4f64.ln()
    }
    fn sigma() -> f64 {
        1.8
    }
}

impl Default for GapSpec {
    fn default() -> Self {
        GapSpec { mu: Self::mu(), sigma: Self::sigma() }
    }
}

impl BurstSpec {
    fn shape() -> f64 {
        1.2
    }
    fn min() -> Bytes {
        Bytes(2_000_000)
    }
}

impl Default for BurstSpec {
    fn default() -> Self {
        BurstSpec { shape: Self::shape(), min: Self::min(), max: None }
    }
}

/// Each connection's session parameters, checked by field.
pub(crate) fn validate(s: &crate::types::Scenario) -> Result<(), crate::ScenarioError> {
    for (i, c) in s.connection.iter().enumerate() {
        if let Some(sp) = &c.sessions {
            if let Err((field, msg)) = sp.params().check() {
                return Err(crate::ScenarioError::new(format!("connection[{i}].sessions.{field}"), msg));
            }
        }
    }
    Ok(())
}
