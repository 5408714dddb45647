//! Scenario types for GFR (docs/models/ubr/gfr.md): a connection's contract (`gfr = { mcr, ... }`),
//! the ingress policer of a switch (`policer = { type = "frame_gcra", ... }`) and the per-VC
//! scheduling of a switch's ports (`scheduling = { type = "scfq" }`); with conversion into the model.
//! The buffer policy that reads the contract (WBA) is a `buffer_policy` like the others.

use crate::units::{Cells, Duration, Rate};
use ccsim_model::policer::{AnyPolicer, FrameGcra, FrameGcraParams, PolicerAction, Tolerance};
use ccsim_model::port::{AnyHeldOrder, Scfq};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A connection's GFR contract.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GfrSpec {
    /// Minimum cell rate (an ATM cell rate: `"3.18Mbps"` of cells, or `"7500cells/s"`).
    pub mcr: Rate,
    /// Maximum frame size, cells (default: the cells of the connection's full-size segment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfs: Option<Cells>,
    /// Maximum burst size, cells (default 2 × MFS, seed 001 §3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbs: Option<Cells>,
    /// Cell delay variation tolerance of the MCR (default 0: "minimal", seed 001 §4.1).
    #[serde(default)]
    pub cdvt: Duration,
}

impl GfrSpec {
    /// MFS in cells, given the connection's full-size frame.
    pub fn mfs(&self, frame_cells: u32) -> u32 {
        self.mfs.map_or(frame_cells, |c| c.0)
    }

    pub fn mbs(&self, frame_cells: u32) -> u32 {
        self.mbs.map_or(2 * self.mfs(frame_cells), |c| c.0)
    }
}

/// What a switch does at the ingress of the GFR VCs that enter the network there.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PolicerSpec {
    /// No policing.
    #[default]
    None,
    /// Frame-based GCRA (seed 001 §4.1): non-conforming frames are tagged (CLP = 1) or dropped,
    /// never their end-of-frame cell.
    FrameGcra {
        #[serde(default)]
        action: PolicerActionSpec,
        #[serde(default)]
        tolerance: ToleranceSpec,
    },
}

#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PolicerActionSpec {
    #[default]
    Tag,
    Drop,
}

/// The bucket's tolerance: `seed` (CDVT + BT/2, seed 001) or `tm41` (CDVT + BT, ATM Forum TM 4.1).
#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ToleranceSpec {
    #[default]
    Seed,
    Tm41,
}

impl PolicerSpec {
    /// The policer of one GFR VC entering at a switch with this spec; `pcr` is its access
    /// link's cell rate, `frame_cells` its full-size frame.
    pub fn build(&self, gfr: &GfrSpec, pcr: f64, frame_cells: u32) -> Option<AnyPolicer> {
        let PolicerSpec::FrameGcra { action, tolerance } = self else { return None };
        Some(AnyPolicer::FrameGcra(FrameGcra::new(FrameGcraParams {
            mcr: gfr.mcr.cells_per_s(),
            pcr,
            mbs: gfr.mbs(frame_cells),
            cdvt: gfr.cdvt.0,
            tolerance: match tolerance {
                ToleranceSpec::Seed => Tolerance::Seed,
                ToleranceSpec::Tm41 => Tolerance::Tm41,
            },
            action: match action {
                PolicerActionSpec::Tag => PolicerAction::Tag,
                PolicerActionSpec::Drop => PolicerAction::Drop,
            },
        })))
    }
}

/// How a switch's output ports order their cells.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SchedulingSpec {
    /// One FIFO queue (the fast path).
    #[default]
    Fifo,
    /// Self-clocked fair queuing over per-VC queues, each VC weighted by its MCR.
    Scfq {
        /// Weight of VCs without an MCR (GFR MCR 0, plain UBR), as a rate [RECON].
        #[serde(default = "SchedulingSpec::mcr_floor")]
        mcr_floor: Rate,
    },
}

impl SchedulingSpec {
    fn mcr_floor() -> Rate {
        Rate(100e3)
    }

    /// The held discipline of one port (`None`: FIFO).
    pub fn build(&self) -> Option<AnyHeldOrder> {
        match self {
            SchedulingSpec::Fifo => None,
            SchedulingSpec::Scfq { mcr_floor } => Some(AnyHeldOrder::Scfq(Scfq::new(mcr_floor.cells_per_s()))),
        }
    }
}

/// GFR's checks, each naming its field: contracts only on UBR connections over switches, an
/// MCR within the access link, MBS ≥ MFS ≥ the connection's frame, the MCRs reserved at every
/// switch port within its cell rate (the seed assumes admission control; refused rather than
/// warned, since no guarantee can then hold), SCFQ's floor, and no background traffic through a
/// port with per-VC fair queuing (which has no priority class for it).
pub(crate) fn validate(s: &crate::types::Scenario) -> Result<(), crate::ScenarioError> {
    use crate::build::effective_rate;
    use crate::transport::Transport;
    use std::collections::BTreeMap;
    let e = |path: String, msg: String| Err(crate::ScenarioError::new(path, msg));
    let sonet = s.defaults.sonet_payload;
    let scheduling = |name: &str| {
        s.switch.iter().find(|w| w.name == name).and_then(|w| w.scheduling.as_ref()).unwrap_or(&s.defaults.scheduling)
    };
    for (i, w) in s.switch.iter().enumerate() {
        if let Some(SchedulingSpec::Scfq { mcr_floor }) = &w.scheduling {
            if mcr_floor.bps() <= 0.0 {
                return e(format!("switch[{i}].scheduling.mcr_floor"), "must be > 0".into());
            }
        }
    }
    if let SchedulingSpec::Scfq { mcr_floor } = &s.defaults.scheduling {
        if mcr_floor.bps() <= 0.0 {
            return e("defaults.scheduling.mcr_floor".into(), "must be > 0".into());
        }
    }
    for (i, bg) in s.background.iter().enumerate() {
        if let Some(k) = bg.route.iter().position(|sw| scheduling(sw) != &SchedulingSpec::Fifo) {
            return e(
                format!("background[{i}].route[{k}]"),
                format!("'{}' schedules by per-VC fair queuing, which has no priority class for background traffic", bg.route[k]),
            );
        }
    }
    // Cells/s reserved per directed link (from, to), and the first connection that reserves there.
    let mut reserved: BTreeMap<(&str, &str), (f64, usize)> = BTreeMap::new();
    for (i, c) in s.connection.iter().enumerate() {
        let Some(g) = &c.gfr else { continue };
        let p = format!("connection[{i}].gfr");
        if c.transport.unwrap_or(Transport::Ubr) != Transport::Ubr || s.router.iter().any(|r| r.name == c.route[0]) {
            return e(p, "a GFR contract needs a UBR connection over ATM switches (transport = \"ubr\")".into());
        }
        let access = effective_rate(c.access.rate.unwrap_or(s.defaults.link_rate), sonet) as f64;
        let mcr = g.mcr.bps();
        if !(mcr > 0.0) {
            return e(format!("{p}.mcr"), "must be > 0 (a VC without a minimum rate needs no contract)".into());
        }
        if mcr > access {
            return e(format!("{p}.mcr"), format!("{} Mb/s is above the access link's cell rate ({} Mb/s)", mcr / 1e6, access / 1e6));
        }
        let frame = c.tcp.over(&s.defaults.tcp).frame_cells();
        if g.mfs(frame) < frame {
            return e(format!("{p}.mfs"), format!("must be at least the connection's full-size frame ({frame} cells)"));
        }
        if g.mbs(frame) < g.mfs(frame) {
            return e(format!("{p}.mbs"), format!("must be at least the MFS ({} cells)", g.mfs(frame)));
        }
        for hop in c.route.windows(2) {
            let r = reserved.entry((hop[0].as_str(), hop[1].as_str())).or_insert((0.0, i));
            r.0 += mcr * c.count as f64;
        }
    }
    for ((from, to), (sum, i)) in reserved {
        let link = s.link.iter().find(|l| (l.between[0] == from && l.between[1] == to) || (l.between[0] == to && l.between[1] == from));
        let rate = effective_rate(link.and_then(|l| l.rate).unwrap_or(s.defaults.link_rate), sonet) as f64;
        if sum > rate * (1.0 + 1e-9) {
            return e(
                format!("connection[{i}].gfr.mcr"),
                format!("the GFR VCs crossing {from}->{to} reserve {:.2} Mb/s of cells, above its {:.2} Mb/s", sum / 1e6, rate / 1e6),
            );
        }
    }
    Ok(())
}
