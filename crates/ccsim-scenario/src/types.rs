//! The scenario schema: serde types with unknown keys rejected and defaults declared once.
//!
//! The same structure is read from TOML files, from JSON, and from Python dicts (sent as
//! JSON). A JSON Schema is generated from these types (`ccsim schema`).

pub use crate::algorithms::AlgorithmSpec;
use crate::algorithms::EricaSpec;
use crate::transport::{BackgroundSpec, BufferPolicySpec, ConnectionSpec, TcpSpec};
use crate::ip::{QueueSpec, RouterSpec};
use crate::units::{Cells, Duration, Packets, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn default_name() -> String {
    "unnamed".into()
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Scenario name, `<paper>/<scenario>` for presets.
    #[serde(default = "default_name")]
    pub name: String,
    /// One paragraph: what the scenario is, where it comes from, what is reconstructed.
    #[serde(default)]
    pub description: String,
    pub run: RunSpec,
    #[serde(default)]
    pub defaults: Defaults,
    /// Per-scheme settings used when `--scheme NAME` swaps the algorithm at every switch:
    /// `schemes.erica = { target_utilization = 0.9 }`; an `abr` table inside is merged into
    /// `defaults.abr` (`schemes.efci = { abr = { rif = 0.0625 } }`).
    #[serde(default)]
    pub schemes: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    pub switch: Vec<SwitchSpec>,
    /// IP routers (`ccsim docs models/ip`).
    #[serde(default)]
    pub router: Vec<RouterSpec>,
    #[serde(default)]
    pub link: Vec<LinkSpec>,
    #[serde(default)]
    pub source: Vec<SourceSpec>,
    /// TCP connections over UBR (`ccsim docs models/tcp`).
    #[serde(default)]
    pub connection: Vec<ConnectionSpec>,
    /// Background CBR/VBR ON-OFF traffic with strict priority (`ccsim docs models/vbr`).
    #[serde(default)]
    pub background: Vec<BackgroundSpec>,
    /// IP-over-ATM gateways between intranet LANs and ABR connections (HG-RCP, `ccsim docs models/hgrcp`).
    #[serde(default)]
    pub gateway: Vec<crate::hgrcp::GatewaySpec>,
    /// Hop-by-hop credit flow control (Controlled Transfer) on every TCP connection
    /// (`ccsim docs models/credit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit: Option<crate::credit::CreditSpec>,
    #[serde(default)]
    pub measure: MeasureSpec,
    /// What loading did not do as asked (an option that changes nothing, a value adjusted to
    /// keep the scenario valid): one line each, for the user; not part of the scenario.
    #[serde(skip)]
    #[schemars(skip)]
    pub notices: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time to run.
    pub duration: Duration,
    /// Seed of every random stream.
    #[serde(default = "one")]
    pub seed: u64,
    /// Replication index, mixed into every random stream.
    #[serde(default)]
    pub replication: u64,
    /// Start of the measurement window for summary numbers (default: half the duration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure_from: Option<Duration>,
    /// Threads the run uses: "auto" (the cores available, as many as the world has parts to
    /// spread; 1 where it cannot gain) or a count. Results are identical for every count
    /// (`ccsim docs scenarios`, "Threads"). Not part of the resolved scenario: it changes how the run
    /// goes, never what it gives.
    #[serde(default, skip_serializing)]
    pub threads: ThreadCount,
}

/// `run.threads`: "auto" or a count of at least 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(try_from = "ThreadWord")]
pub enum ThreadCount {
    #[default]
    Auto,
    Count(u32),
}

/// How `run.threads` is written: the word "auto" or a whole number.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum ThreadWord {
    Count(u32),
    Word(String),
}

impl TryFrom<ThreadWord> for ThreadCount {
    type Error = String;
    fn try_from(w: ThreadWord) -> Result<Self, String> {
        match w {
            ThreadWord::Count(0) => Err("threads must be at least 1 (or \"auto\")".into()),
            ThreadWord::Count(n) if n > 1024 => Err(format!("{n} threads: at most 1024")),
            ThreadWord::Count(n) => Ok(ThreadCount::Count(n)),
            ThreadWord::Word(w) if w == "auto" => Ok(ThreadCount::Auto),
            ThreadWord::Word(w) => Err(format!("threads is \"auto\" or a whole number, not {w:?}")),
        }
    }
}

fn one() -> u64 {
    1
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    #[serde(default = "Defaults::link_rate")]
    pub link_rate: Rate,
    #[serde(default = "Defaults::link_delay")]
    pub link_delay: Duration,
    /// Replace 155.52 Mb/s by its SONET payload 149.76 Mb/s on every link.
    #[serde(default)]
    pub sonet_payload: bool,
    /// Buffer of every switch output port.
    #[serde(default = "Defaults::buffer")]
    pub buffer: Cells,
    /// Buffer of host adapters (source and destination NICs), cells (packets at IP hosts);
    /// large, so hosts never drop.
    #[serde(default = "Defaults::host_buffer")]
    pub host_buffer: Cells,
    /// What a source adapter with a buffer of its own (CT's, TCP over ABR's) does with a PDU that
    /// does not fit: `drop_pdu` (the whole PDU; TCP recovers) or `block` (the PDU waits in the host,
    /// and the sender with it, until the adapter has room) (`ccsim docs models/credit`).
    #[serde(default)]
    pub adapter_full: AdapterFull,
    /// Buffer of every router output port (ns-2's default queue limit).
    #[serde(default = "Defaults::router_buffer")]
    pub router_buffer: Packets,
    /// Queue discipline of every router output port.
    #[serde(default)]
    pub queue: QueueSpec,
    /// ABR switch algorithm of every switch that does not set its own.
    #[serde(default = "Defaults::algorithm")]
    pub algorithm: AlgorithmSpec,
    /// ABR source parameters of every source, overridable per source.
    #[serde(default)]
    pub abr: AbrSpec,
    /// TCP parameters of every connection, overridable per connection.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Buffer policy of every switch port (default: cell drop-tail).
    #[serde(default)]
    pub buffer_policy: BufferPolicySpec,
    /// Ingress policer of every switch for the GFR VCs entering there (default: none).
    #[serde(default)]
    pub policer: crate::gfr::PolicerSpec,
    /// Scheduling of every switch output port (default: FIFO).
    #[serde(default)]
    pub scheduling: crate::gfr::SchedulingSpec,
}

#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AdapterFull {
    #[default]
    DropPdu,
    Block,
}

impl Defaults {
    fn link_rate() -> Rate {
        Rate(155.52e6)
    }
    fn link_delay() -> Duration {
        "5us".parse().expect("valid")
    }
    fn buffer() -> Cells {
        Cells(1000)
    }
    fn host_buffer() -> Cells {
        Cells(1_000_000)
    }
    fn router_buffer() -> Packets {
        Packets(50)
    }
    fn algorithm() -> AlgorithmSpec {
        AlgorithmSpec::Erica(EricaSpec::default())
    }
}

impl Default for Defaults {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all fields have defaults")
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Cells>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<AlgorithmSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_policy: Option<BufferPolicySpec>,
    /// Ingress policer for the GFR VCs whose route starts here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policer: Option<crate::gfr::PolicerSpec>,
    /// Scheduling of this switch's output ports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling: Option<crate::gfr::SchedulingSpec>,
}

/// A full-duplex link between two switches or two routers.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub between: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// Fault injection: the probability that a cell (or, between routers, a packet) crossing
    /// the link, in either direction, is lost on the wire (after its transmission and
    /// propagation). Each direction draws from its own random stream. Default: none lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
}

/// Rate and delay of a host's own link to its switch.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
}

/// A greedy persistent ABR source (or a group of `count` identical ones).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Name; with `count > 1` the sources are named `<name>1 … <name>N`.
    pub name: String,
    #[serde(default = "one_u32")]
    pub count: u32,
    /// Switches crossed, in order. The source's host attaches to the first, its destination
    /// to the last.
    pub route: Vec<String>,
    /// Destination name (default: `D` + the source's name without a leading `S`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(default)]
    pub start: Duration,
    /// Extra start delay of each further member of a group (one-at-a-time arrivals).
    #[serde(default)]
    pub start_step: Duration,
    /// When the source stops sending (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Overrides of `defaults.abr`.
    #[serde(default)]
    pub abr: AbrSpec,
    /// Source host to first switch (default: `defaults.link_rate` / `link_delay`).
    #[serde(default)]
    pub access: AccessSpec,
    /// Last switch to destination host.
    #[serde(default)]
    pub egress: AccessSpec,
    /// A source that does not follow the feedback (robustness scenarios; `ccsim docs models/abr/source`, "Misbehaving sources").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misbehaviour: Option<MisbehaviourSpec>,
}

/// How a source misbehaves, chosen by `type`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MisbehaviourSpec {
    /// From `start`, alternately `period` sending at `multiplier` × ACR while reporting ACR,
    /// and `period` normal (seed 003 §5.1).
    DishonestGreedy {
        start: Duration,
        #[serde(default = "MisbehaviourSpec::multiplier")]
        multiplier: f64,
        #[serde(default = "MisbehaviourSpec::period")]
        period: Duration,
    },
    /// From `start`, send at `rate` whatever the feedback; `honest` sources report it
    /// (seed 003 §5.2).
    FixedRate {
        start: Duration,
        rate: Rate,
        #[serde(default = "MisbehaviourSpec::honest")]
        honest: bool,
    },
}

impl MisbehaviourSpec {
    fn multiplier() -> f64 {
        1.5
    }
    fn period() -> Duration {
        "50ms".parse().expect("valid")
    }
    fn honest() -> bool {
        true
    }
}

fn one_u32() -> u32 {
    1
}

/// TM 4.0 source parameters (`ccsim docs models/abr/source`); anything unset takes the TM 4.0 default
/// (PCR: the access link's rate; ICR: PCR).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcr: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icr: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcr: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rif: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdf: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nrm: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mrm: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trm: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adtf: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tbe: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frtt: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdf: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcr: Option<Rate>,
    /// DEBRA bidding: the FRM's ER carries min(PCR, last ER) instead of PCR (default: on
    /// exactly when `defaults.algorithm` is DEBRA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bidding: Option<bool>,
}

/// `fn over(&self, base)`: every `Option` field set here wins over `base`'s (defaults merging
/// for tables like `defaults.abr` / `source[i].abr`).
macro_rules! overlay {
    ($t:ty { $($f:ident),* $(,)? }) => {
        impl $t {
            /// Fields set here win over `base`.
            pub fn over(&self, base: &$t) -> $t {
                Self { $($f: self.$f.clone().or_else(|| base.$f.clone()),)* }
            }
        }
    };
}
pub(crate) use overlay;

overlay!(AbrSpec { pcr, icr, mcr, rif, rdf, nrm, mrm, trm, adtf, tbe, frtt, cdf, tcr, bidding });

/// What to record as time series.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MeasureSpec {
    /// Sampling period of the time series ("0s" turns them off).
    pub interval: Duration,
    pub acr: bool,
    pub queue: bool,
    pub received: bool,
    pub utilization: bool,
    /// cwnd, ssthresh and sequence numbers of TCP connections.
    pub tcp: bool,
    /// The most memory the series may take, MB (20 bytes a sample row): a run whose series
    /// would take more is refused before it starts, with how to sample less.
    pub max_series_mb: u64,
    /// The per-cell/packet event trace (`ccsim docs trace`): every send, enqueue, drop and delivery
    /// of the chosen flows. Writing the table turns it on (`enabled = false` keeps it off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceSpec>,
}

/// `[measure.trace]`: which events the trace keeps, and the memory it may take.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Record the trace (the default once the table is written).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The sources, connections or background flows to trace, by name (default: every flow).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<String>,
    /// Keep events at or after this time (default: from the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Duration>,
    /// Keep events before this time (default: to the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Duration>,
    /// The most memory the recorded trace may take, MB (23 bytes an event). When it is full,
    /// recording stops: the trace keeps every event before the earliest one it could not hold
    /// (`trace.cut_s` in the summary, with a warning).
    #[serde(default = "TraceSpec::default_max_mb")]
    pub max_mb: u64,
}

fn yes() -> bool {
    true
}

impl TraceSpec {
    fn default_max_mb() -> u64 {
        512
    }
}

impl Default for MeasureSpec {
    fn default() -> Self {
        MeasureSpec {
            interval: "100us".parse().expect("valid"),
            acr: true,
            queue: true,
            received: true,
            utilization: true,
            tcp: true,
            max_series_mb: 1024,
            trace: None,
        }
    }
}
