//! Scenario types for packet traffic over ATM: TCP connections (`[[connection]]`), their
//! TCP parameters, and the switches' UBR buffer policies; with conversion into the model.

use crate::units::{Bytes, Cells, Duration};
use ccsim_engine::{RngStream, SimDuration, SimTime};
use ccsim_model::port::policy::{AnyBufferPolicy, Epd, Fba, SelectiveDrop, Wba};
use ccsim_model::tcp::{self, ClockMode, DelayedAck, PartialAckTimer, RttConfig, TcpConfig, TcpReceiver, TcpSender};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who may enter a switch port's buffer, chosen by `type` (`ccsim docs models/ubr/buffer-policies`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum BufferPolicySpec {
    /// Drop-tail per cell, blind to frames.
    #[default]
    DropTail,
    /// Partial packet discard after an overflow.
    Ppd,
    /// Early packet discard above `threshold` (default 0.9 × buffer [RECON]). With
    /// `clp1_threshold` (at most `threshold`), frames whose first cell is tagged (CLP = 1) are
    /// refused from that lower level up: seed 001's "preferential dropping of tagged frames".
    /// Without it EPD is blind to the CLP bit.
    Epd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threshold: Option<Cells>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clp1_threshold: Option<Cells>,
    },
    /// Selective Drop: above `threshold`, frames of VCs over Z × their share are refused.
    SelectiveDrop {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threshold: Option<Cells>,
        #[serde(default = "default_z")]
        z: f64,
    },
    /// Fair Buffer Allocation.
    Fba {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threshold: Option<Cells>,
        #[serde(default = "default_z")]
        z: f64,
    },
    /// Weighted Buffer Allocation (GFR, seed 001 §4.2): above `threshold` (default 0.5 ×
    /// buffer, the seed's best), untagged frames of VCs below their reserved share R·MCR/C
    /// enter, others only within Z × their share of the space above R; `hard_threshold`
    /// refuses every new frame above it (EPD on top; off by default, as in the seed).
    Wba {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threshold: Option<Cells>,
        /// [RECON] the seed does not give Z.
        #[serde(default = "default_wba_z")]
        z: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hard_threshold: Option<Cells>,
    },
}

fn default_wba_z() -> f64 {
    1.0
}

fn default_z() -> f64 {
    0.8
}

/// The [RECON] default threshold: 90 % of the buffer.
fn threshold(t: Option<Cells>, capacity: u32) -> u32 {
    t.map_or((capacity as u64 * 9 / 10) as u32, |c| c.0).clamp(1, capacity.max(1))
}

impl BufferPolicySpec {
    /// The policy of one port of `capacity` cells.
    pub fn build(&self, capacity: u32) -> AnyBufferPolicy {
        match self {
            BufferPolicySpec::DropTail => AnyBufferPolicy::CellDropTail,
            BufferPolicySpec::Ppd => AnyBufferPolicy::Ppd,
            BufferPolicySpec::Epd { threshold: t, clp1_threshold } => AnyBufferPolicy::Epd(Epd {
                threshold: threshold(*t, capacity),
                clp1_threshold: clp1_threshold.map(|c| c.0.clamp(1, capacity.max(1))),
            }),
            BufferPolicySpec::SelectiveDrop { threshold: t, z } => {
                AnyBufferPolicy::SelectiveDrop(SelectiveDrop { threshold: threshold(*t, capacity), z: *z })
            }
            BufferPolicySpec::Fba { threshold: t, z } => AnyBufferPolicy::Fba(Fba { threshold: threshold(*t, capacity), z: *z }),
            BufferPolicySpec::Wba { threshold: t, z, hard_threshold } => {
                let r = t.map_or(capacity / 2, |c| c.0).clamp(1, capacity.max(1));
                AnyBufferPolicy::Wba(Box::new(Wba::new(r, *z, hard_threshold.map(|h| h.0))))
            }
        }
    }
}

/// The TCP clock (`ccsim docs models/tcp`, "Model").
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockSpec {
    Continuous,
    /// 4.4BSD ticks; the tick phase of each host is drawn at random unless given [RECON].
    BsdTicks {
        tick: Duration,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<Duration>,
    },
    /// ns-2's quantised timer.
    Quantized { tick: Duration },
}

/// TCP parameters (tcp.md); anything unset takes the default listed in `ccsim docs models/tcp`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// `jacobson88`, `tahoe`, `reno`, `newreno`, `sack` (RFC 6675) or `sack1` (Fall & Floyd)
    /// (default `reno`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Maximum segment size, payload bytes (default 1460B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    /// Maximum window (and receiver window), bytes (default 65535B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Bytes>,
    /// RFC 7323 window scaling (default true); without it windows are clamped to 65535 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_scaling: Option<bool>,
    /// Initial window in segments (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Delayed ACKs with this timeout (default: off, as in every seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_initial: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_max: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reno_bugfix: Option<bool>,
    /// Which partial ACKs of a NewReno recovery restart the retransmission timer: `first`
    /// (RFC 6582's "Impatient", ns-2.35's default) or `every` ("Slow-but-Steady"). Default `first`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_ack_timer: Option<PartialAckTimerSpec>,
    /// Whether a fast retransmit restarts the retransmission timer (ns-2 does, in every variant)
    /// or leaves the running timer alone (RFC 6298 §5.1). Default true, as the seeds' ns-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_retransmit_restarts_timer: Option<bool>,
    /// ns-2's `overhead_`: new data waits a random time uniform on [0, overhead) when the window
    /// opens, then goes out as one burst (breaks drop-tail phase effects). Default 0 (none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Duration>,
    /// RFC 2684 LLC/SNAP encapsulation (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llc_snap: Option<bool>,
    /// Bytes to transfer (default: a greedy bulk transfer that never ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_bytes: Option<Bytes>,
}

impl TcpSpec {
    pub fn variant_name(&self) -> &str {
        self.variant.as_deref().unwrap_or("reno")
    }

    pub fn mss(&self) -> u32 {
        self.mss.map_or(1460, |b| b.0 as u32)
    }

    /// The effective window: without window scaling the 16-bit field caps it (`ccsim docs models/tcp`, "Scenario keys").
    pub fn window(&self) -> u64 {
        let w = self.window.map_or(65_535, |b| b.0);
        if self.window_scaling.unwrap_or(true) {
            w
        } else {
            w.min(65_535)
        }
    }

    pub fn llc_snap(&self) -> bool {
        self.llc_snap.unwrap_or(true)
    }

    /// Cells of a full-size segment's AAL5 frame (MSS + 40 bytes of TCP/IP headers).
    pub fn frame_cells(&self) -> u32 {
        ccsim_model::aal5::cells(self.mss() + ccsim_model::tcp::HEADER_BYTES, self.llc_snap())
    }

    /// The sender and receiver of one connection; `phase` is the host's tick phase draw in
    /// [0, 1) for BSD clocks without a fixed phase, `jitter` the connection's stream for `overhead`.
    pub fn build(&self, phase: f64, jitter: RngStream) -> (TcpSender, TcpReceiver) {
        let mss = self.mss();
        let window = self.window();
        let d = RttConfig::default();
        let mode = match &self.clock {
            None | Some(ClockSpec::Continuous) => ClockMode::Continuous,
            Some(ClockSpec::BsdTicks { tick, phase: p }) => ClockMode::BsdTicks {
                tick: tick.0,
                phase: p.map_or(SimDuration::from_ps((tick.0.as_ps() as f64 * phase) as u64), |p| p.0),
            },
            Some(ClockSpec::Quantized { tick }) => ClockMode::Quantized { tick: tick.0 },
        };
        let mut cfg = TcpConfig::new(mss, window);
        cfg.initial_window = self.initial_window.unwrap_or(1);
        cfg.max_retries = self.max_retries.unwrap_or(12);
        cfg.reno_bugfix = self.reno_bugfix.unwrap_or(true);
        cfg.partial_ack_timer = match self.partial_ack_timer.unwrap_or(PartialAckTimerSpec::First) {
            PartialAckTimerSpec::First => PartialAckTimer::First,
            PartialAckTimerSpec::Every => PartialAckTimer::Every,
        };
        cfg.fast_retransmit_restarts_timer = self.fast_retransmit_restarts_timer.unwrap_or(true);
        cfg.overhead = self.overhead.map_or(SimDuration::ZERO, |d| d.0);
        cfg.app_bytes = self.app_bytes.map(|b| b.0);
        cfg.rtt = RttConfig {
            rto_initial: self.rto_initial.map_or(d.rto_initial, |t| t.0),
            rto_min: self.rto_min.map_or(d.rto_min, |t| t.0),
            rto_max: self.rto_max.map_or(d.rto_max, |t| t.0),
            mode,
            ..d
        };
        let name = self.variant_name();
        let sender = TcpSender::new(cfg, tcp::variant(name).expect("validated variant")).with_send_jitter(jitter);
        let delayed = self.delayed_ack.map_or(DelayedAck::Off, |t| DelayedAck::After(t.0));
        let receiver = TcpReceiver::new(window, name.starts_with("sack"), delayed, mss);
        (sender, receiver)
    }
}

crate::types::overlay!(TcpSpec {
    variant, mss, window, window_scaling, initial_window, delayed_ack, rto_initial, rto_min, rto_max, clock, max_retries,
    reno_bugfix, partial_ack_timer, fast_retransmit_restarts_timer, overhead, llc_snap, app_bytes,
});

/// `tcp.partial_ack_timer` (RFC 6582 §4's two variants).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimerSpec {
    First,
    Every,
}

pub const TCP_VARIANTS: [&str; 6] = ["jacobson88", "tahoe", "reno", "newreno", "sack", "sack1"];

/// A greedy TCP bulk transfer over UBR (or a group of `count` identical ones).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectionSpec {
    /// Name; with `count > 1` the members are `<name>1 … <name>N`.
    pub name: String,
    #[serde(default = "one")]
    pub count: u32,
    /// Switches crossed, in order.
    pub route: Vec<String>,
    /// Destination host name (default as for sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(default)]
    pub start: Duration,
    /// Each further member starts this much later.
    #[serde(default)]
    pub start_step: Duration,
    /// Each member's start is delayed by a uniform random amount in [0, start_jitter).
    #[serde(default)]
    pub start_jitter: Duration,
    /// Overrides of `defaults.tcp`.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// `ubr` (cells at line rate from the adapter), `abr` (a TM 4.0 source paces them at ACR)
    /// or `ip` (packets over IP links); default `ip` on a route of routers, `ubr` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// With `transport = "abr"`: overrides of `defaults.abr` for the adapter's source.
    #[serde(default)]
    pub abr: crate::types::AbrSpec,
    /// A GFR contract (UBR over ATM only): the MCR weighs the VC in WBA and SCFQ, and the
    /// ingress switch's policer checks its frames (`ccsim docs models/ubr/gfr`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfr: Option<crate::gfr::GfrSpec>,
    #[serde(default)]
    pub access: crate::types::AccessSpec,
    #[serde(default)]
    pub egress: crate::types::AccessSpec,
    /// The application: seed 004's bulk-data sessions instead of a greedy transfer
    /// (`ccsim docs models/sessions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions: Option<crate::sessions::SessionsSpec>,
    /// Under `[credit]` with `scope = "vp"`: the name of the VP this connection belongs to (its
    /// connections share each hop's credit; they must have the same route). Default: one VP per
    /// route, the connections between the same switches (`ccsim docs models/credit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vp: Option<String>,
}

impl ConnectionSpec {
    /// The transport: as written, or by the route's first node (`ip` on a router, `ubr` on a
    /// switch).
    pub fn effective_transport(&self, starts_at_router: bool) -> Transport {
        self.transport.unwrap_or(if starts_at_router { Transport::Ip } else { Transport::Ubr })
    }

    /// The name of its VP under credit control per VP: as written, or its route.
    pub fn vp_name(&self) -> String {
        self.vp.clone().unwrap_or_else(|| self.route.join("->"))
    }
}

fn one() -> u32 {
    1
}

#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    #[default]
    Ubr,
    Abr,
    Ip,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Ubr => "ubr",
            Transport::Abr => "abr",
            Transport::Ip => "ip",
        }
    }
}

/// Background CBR/VBR traffic: an exponential ON-OFF source at `peak` while ON, served with
/// strict priority over ABR and UBR at every port it crosses (`ccsim docs models/vbr`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSpec {
    pub name: String,
    pub route: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// Cell rate while ON.
    pub peak: crate::units::Rate,
    /// Mean ON period (exponential); at least one cell time at `peak`.
    pub mean_on: Duration,
    /// Mean OFF period (exponential); at least one cell time at `peak`.
    pub mean_off: Duration,
    #[serde(default)]
    pub start: Duration,
    #[serde(default)]
    pub access: crate::types::AccessSpec,
    #[serde(default)]
    pub egress: crate::types::AccessSpec,
    /// The application: seed 004's bulk-data sessions instead of a greedy transfer
    /// (`ccsim docs models/sessions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions: Option<crate::sessions::SessionsSpec>,
    /// Under `[credit]` with `scope = "vp"`: the name of the VP this connection belongs to (its
    /// connections share each hop's credit; they must have the same route). Default: one VP per
    /// route, the connections between the same switches (`ccsim docs models/credit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vp: Option<String>,
}

/// When member `k` of a group starts, given a uniform draw `u` in [0, 1).
pub fn member_start(c: &ConnectionSpec, k: u32, u: f64) -> SimTime {
    let base = c.start.0.as_ps() + c.start_step.0.as_ps().saturating_mul(k as u64);
    SimTime::from_ps(base + (c.start_jitter.0.as_ps() as f64 * u) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names the scenario accepts are the names the model knows, and each names itself.
    #[test]
    fn every_tcp_variant_name_resolves() {
        for name in TCP_VARIANTS {
            let v = tcp::variant(name).unwrap_or_else(|| panic!("{name} is not a variant"));
            assert_eq!(v.name(), name);
        }
    }
}
