//! The `type`-tagged ABR switch algorithms of the scenario schema, and their conversion into
//! the model's `AnyAbrSwitch`. A new scheme adds a variant, a spec struct and one match arm.

use crate::units::Duration;
use ccsim_engine::RngStream;
use ccsim_model::abr::switch::{
    AnyAbrSwitch, Debra, DebraParams, Efci, EfciMode, EfciParams, Eprca, EprcaParams, Erica, EricaParams,
    AbrRateReading, LoadAveraging, QueueControl, Ut, UtParams,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The ABR switch algorithm of a port, chosen by `type`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AlgorithmSpec {
    Erica(EricaSpec),
    EricaPlus(EricaPlusSpec),
    Debra(DebraSpec),
    Eprca(EprcaSpec),
    Ut(UtSpec),
    Efci(EfciSpec),
}

impl AlgorithmSpec {
    pub const NAMES: [&'static str; 6] = ["erica", "erica_plus", "debra", "eprca", "ut", "efci"];

    pub fn is_debra(&self) -> bool {
        matches!(self, AlgorithmSpec::Debra(_))
    }

    /// The algorithm for one port with `link_rate` cells/s; `rng` is the port's own random
    /// stream (used by DEBRA's probabilistic discard).
    pub fn build(&self, link_rate: f64, rng: RngStream) -> AnyAbrSwitch {
        match self {
            AlgorithmSpec::Erica(e) => AnyAbrSwitch::Erica(Erica::new(e.params(), link_rate)),
            AlgorithmSpec::EricaPlus(e) => AnyAbrSwitch::EricaPlus(Erica::new(e.params(), link_rate)),
            AlgorithmSpec::Debra(d) => AnyAbrSwitch::Debra(Debra::new(
                DebraParams {
                    target_utilization: d.target_utilization,
                    advertised_fraction: d.advertised_fraction,
                    k: d.k,
                    interval: d.interval.0,
                    interval_cells: d.interval_cells,
                    greedy_margin: d.greedy_margin,
                    active_timeout: d.active_timeout.0,
                    active_frm_periods: d.active_frm_periods,
                    assumed_nrm: d.assumed_nrm,
                    selective_discard: d.selective_discard,
                },
                link_rate,
                rng,
            )),
            AlgorithmSpec::Eprca(e) => AnyAbrSwitch::Eprca(Eprca::new(
                EprcaParams {
                    av: e.av,
                    dpf: e.dpf,
                    erf: e.erf,
                    mrf: e.mrf,
                    qt: e.qt,
                    dqt: e.dqt,
                    macr_only_below: e.macr_only_below,
                    ci_when_congested: e.ci_when_congested,
                    efci_marking: e.efci_marking,
                },
            )),
            AlgorithmSpec::Ut(u) => AnyAbrSwitch::Ut(Ut::new(
                UtParams {
                    target_utilization: u.target_utilization,
                    interval: u.interval.0,
                    beta_f: u.beta_f,
                    beta_b: u.beta_b,
                    r_a: match u.r_a {
                        AbrRateReadingSpec::Arrivals => AbrRateReading::Arrivals,
                        AbrRateReadingSpec::Ccr => AbrRateReading::Ccr,
                    },
                },
                link_rate,
            )),
            AlgorithmSpec::Efci(e) => AnyAbrSwitch::Efci(Efci::new(EfciParams {
                mode: match e.mode {
                    EfciModeSpec::Efci => EfciMode::Efci,
                    EfciModeSpec::RelativeRate => EfciMode::RelativeRate,
                },
                q_hi: e.q_hi,
                q_lo: e.q_lo,
            })),
        }
    }
}

/// ERICA and ERICA+ share every option but the target; one macro declares both structs so the
/// option list lives in one place.
macro_rules! erica_like {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident : $ty:ty = $default:expr),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
            /// Underload band δ of the max-min fix (seed 003: 0.2).
            pub delta: f64,
            /// Averaging interval by time, t_AI.
            pub interval: Duration,
            /// Averaging interval by ABR input cells, N_AI (0: by time only).
            pub interval_cells: u32,
            pub max_min_fix: bool,
            pub fairshare_first: bool,
            pub one_feedback_per_interval: bool,
            pub bidirectional_counting: bool,
            pub avg_n_active: bool,
            /// [RECON] decay of an unseen VC's share of the active count.
            pub n_active_decay: f64,
            pub immediate_fair_share: bool,
            /// `none`, `separate` (method 1) or `z` (method 2).
            pub load_averaging: LoadAveragingSpec,
            /// [RECON] weight of the newest load sample.
            pub load_alpha: f64,
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $($field: $default,)*
                    delta: 0.2,
                    interval: "1ms".parse().expect("valid"),
                    interval_cells: 50,
                    max_min_fix: true,
                    fairshare_first: true,
                    one_feedback_per_interval: true,
                    bidirectional_counting: false,
                    avg_n_active: false,
                    n_active_decay: 0.9,
                    immediate_fair_share: false,
                    load_averaging: LoadAveragingSpec::None,
                    load_alpha: 0.8,
                }
            }
        }

        impl $name {
            fn options(&self) -> EricaParams {
                EricaParams {
                    delta: self.delta,
                    interval: self.interval.0,
                    interval_cells: self.interval_cells,
                    max_min_fix: self.max_min_fix,
                    fairshare_first: self.fairshare_first,
                    one_feedback_per_interval: self.one_feedback_per_interval,
                    bidirectional_counting: self.bidirectional_counting,
                    avg_n_active: self.avg_n_active,
                    n_active_decay: self.n_active_decay,
                    immediate_fair_share: self.immediate_fair_share,
                    load_averaging: match self.load_averaging {
                        LoadAveragingSpec::None => LoadAveraging::None,
                        LoadAveragingSpec::Separate => LoadAveraging::Separate,
                        LoadAveragingSpec::Z => LoadAveraging::Z,
                    },
                    load_alpha: self.load_alpha,
                    ..EricaParams::default()
                }
            }
        }
    };
}

erica_like!(
    /// ERICA (`ccsim docs models/abr/erica`).
    EricaSpec {
        /// Target utilisation U of the ABR capacity (0.95 LAN, 0.90 WAN in seed 003).
        target_utilization: f64 = 0.95,
    }
);

erica_like!(
    /// ERICA+ (`ccsim docs models/abr/erica-plus`): ERICA with a queue control target.
    EricaPlusSpec {
        /// Target queueing delay T0 (the seed's D).
        t0: Duration = "100us".parse().expect("valid"),
        /// Overload hyperbola parameter a (> 1).
        a: f64 = 1.15,
        /// Underload hyperbola parameter b (> 1).
        b: f64 = 1.05,
        /// Queue drain limit factor.
        qdlf: f64 = 0.5,
    }
);

impl EricaSpec {
    pub fn params(&self) -> EricaParams {
        EricaParams { target_utilization: self.target_utilization, ..self.options() }
    }
}

impl EricaPlusSpec {
    pub fn params(&self) -> EricaParams {
        EricaParams {
            queue_control: Some(QueueControl { t0: self.t0.0, a: self.a, b: self.b, qdlf: self.qdlf }),
            ..self.options()
        }
    }
}

#[derive(Copy, Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadAveragingSpec {
    None,
    Separate,
    Z,
}

/// DEBRA (`ccsim docs models/abr/debra`) — a reconstruction; every [RECON] choice is a field.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DebraSpec {
    /// C: target utilisation of the ABR capacity (seed 003: 0.95).
    pub target_utilization: f64,
    /// V: fraction of the target advertised (seed 003: 1.0).
    pub advertised_fraction: f64,
    /// K: responsiveness; increases move 1/K of the way to the knee [RECON meaning].
    pub k: f64,
    /// [RECON] recomputation interval by time.
    pub interval: Duration,
    /// [RECON] … or by ABR input cells (0: by time only).
    pub interval_cells: u32,
    /// [RECON] ε of the greedy test.
    pub greedy_margin: f64,
    /// [RECON] a VC is active if its last FRM is at most this old…
    pub active_timeout: Duration,
    /// [RECON] …or at most this many of its FRM spacings (Nrm/CCR) old.
    pub active_frm_periods: f64,
    /// [RECON] Nrm assumed for that spacing.
    pub assumed_nrm: f64,
    /// [RECON] discard cells of honest greedy VCs.
    pub selective_discard: bool,
}

impl Default for DebraSpec {
    fn default() -> Self {
        DebraSpec {
            target_utilization: 0.95,
            advertised_fraction: 1.0,
            k: 2.0,
            interval: "1ms".parse().expect("valid"),
            interval_cells: 50,
            greedy_margin: 0.05,
            active_timeout: "10ms".parse().expect("valid"),
            active_frm_periods: 3.0,
            assumed_nrm: 32.0,
            selective_discard: true,
        }
    }
}

/// EPRCA (`ccsim docs models/abr/eprca`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EprcaSpec {
    pub av: f64,
    pub dpf: f64,
    pub erf: f64,
    pub mrf: f64,
    /// [RECON] congestion threshold, cells.
    pub qt: u32,
    /// [RECON] heavy-congestion threshold, cells.
    pub dqt: u32,
    /// [RECON] while congested, average only CCRs below MACR.
    pub macr_only_below: bool,
    /// [RECON] set CI with the ERF reduction.
    pub ci_when_congested: bool,
    /// [RECON] EFCI-mark data cells above QT.
    pub efci_marking: bool,
}

impl Default for EprcaSpec {
    fn default() -> Self {
        let d = EprcaParams::default();
        EprcaSpec {
            av: d.av,
            dpf: d.dpf,
            erf: d.erf,
            mrf: d.mrf,
            qt: d.qt,
            dqt: d.dqt,
            macr_only_below: d.macr_only_below,
            ci_when_congested: d.ci_when_congested,
            efci_marking: d.efci_marking,
        }
    }
}

/// UT, Uniform Tracking (`ccsim docs models/abr/ut`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct UtSpec {
    /// ρ_T (seed 004: 0.9).
    pub target_utilization: f64,
    /// Control interval t_c (seed 004: 10 ms).
    pub interval: Duration,
    /// [RECON] fair-share filter weight.
    pub beta_f: f64,
    /// [RECON] background-rate filter weight.
    pub beta_b: f64,
    /// [RECON] what eq. 2's r_A, "the total ABR rate", is: `arrivals` (the ABR cells that
    /// arrived in the interval, per second) or `ccr` (the sum of the CCRs last reported by the
    /// VCs that sent in the interval).
    pub r_a: AbrRateReadingSpec,
}

impl Default for UtSpec {
    fn default() -> Self {
        UtSpec {
            target_utilization: 0.9,
            interval: "10ms".parse().expect("valid"),
            beta_f: 0.25,
            beta_b: 0.125,
            r_a: AbrRateReadingSpec::Arrivals,
        }
    }
}

/// UT's reading of r_A (`ccsim docs models/abr/ut`, "Parameters").
#[derive(Copy, Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AbrRateReadingSpec {
    Arrivals,
    Ccr,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EfciSpec {
    /// `efci` marks data cells; `relative_rate` sets CI/NI in backward RM cells.
    pub mode: EfciModeSpec,
    /// [RECON] queue length at which the port is congested.
    pub q_hi: u32,
    /// [RECON] queue length below which it is not.
    pub q_lo: u32,
}

impl Default for EfciSpec {
    fn default() -> Self {
        EfciSpec { mode: EfciModeSpec::Efci, q_hi: 100, q_lo: 50 }
    }
}

#[derive(Copy, Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EfciModeSpec {
    Efci,
    RelativeRate,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `NAMES` (what `--scheme` and `schemes.*` accept, and what the equivalence tests run) lists
    /// exactly the `type` tags serde accepts: a new scheme cannot be left out of either.
    #[test]
    fn names_are_the_schema_s_type_tags() {
        let schema = serde_json::to_value(schemars::schema_for!(AlgorithmSpec)).unwrap();
        let mut tags: Vec<String> = schema["oneOf"]
            .as_array()
            .expect("a tagged enum")
            .iter()
            .map(|v| v["properties"]["type"]["const"].as_str().expect("a type tag").to_string())
            .collect();
        let mut names: Vec<String> = AlgorithmSpec::NAMES.iter().map(|s| s.to_string()).collect();
        tags.sort();
        names.sort();
        assert_eq!(tags, names);
    }
}
