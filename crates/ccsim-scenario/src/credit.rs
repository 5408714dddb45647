//! Scenario types for Controlled Transfer (seed 004's CT; docs/models/credit.md): a `[credit]`
//! table that puts every forward hop of every TCP connection under credit control, from the
//! source's adapter to the destination's, with its checks and the per-hop Policy_Limit (a number
//! of cells, or the seed's bandwidth-delay sizing).

use crate::units::{Cells, Duration};
use ccsim_model::port::CreditParams;
use ccsim_engine::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Hop-by-hop credit flow control on every connection (CT).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreditSpec {
    /// What a hop's credit is kept for: `vp` (seed 004: one Policy_Limit, Tx_Counter,
    /// Fwd_Counter and N2_Counter per VP, shared by its connections; `connection.vp` names the
    /// VPs) or `connection` (the Extended Control option: per connection).
    #[serde(default)]
    pub scope: Scope,
    /// Cells a receiver forwards between two buffer state updates (N2; seed 004: 32).
    #[serde(default = "CreditSpec::n2")]
    pub n2: u32,
    /// Interval between a connection's buffer state checks on each hop (T_BSC; seed 004: 1 s).
    #[serde(default = "CreditSpec::t_bsc")]
    pub t_bsc: Duration,
    /// How each receiver's per-connection allocation (Policy_Limit) is chosen: `fixed` (the
    /// `policy_limit` given) or `bdp` (seed 004's bandwidth-delay rule, per hop).
    #[serde(default)]
    pub sizing: Sizing,
    /// Policy_Limit in cells, at least 1 (required with `sizing = "fixed"`); below N2 only the
    /// BSCs return credit, Policy_Limit cells per T_BSC (a notice says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_limit: Option<Cells>,
    /// Send while `Tx − BSU_Fwd ≤ Policy_Limit` before sending (the seed's wording, one cell beyond
    /// the allocation) instead of `<` (loss-free).
    #[serde(default)]
    pub allow_equal: bool,
}

#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Per VP: the connections of one VP share each hop's credit, counters and buffer (seed 004).
    #[default]
    Vp,
    /// Per connection (VC), on every hop.
    Connection,
}

#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sizing {
    /// The `policy_limit` given, on every hop.
    #[default]
    Fixed,
    /// Seed 004's rule: the access link's cell rate times the time from sending a cell to
    /// receiving the first BSU, per hop: 2 × the hop's delay + N2 cell times of the next link + one
    /// cell time each way on this one [RECON: the seed gives the words only].
    Bdp,
}

impl CreditSpec {
    fn n2() -> u32 {
        32
    }
    fn t_bsc() -> Duration {
        Duration(SimDuration::from_secs(1))
    }

    /// The parameters of one hop: `hop_delay` its propagation delay, `hop_cell`/`next_cell` the
    /// cell times of its link and of the next one (the destination's adapter forwards at the
    /// hop's own rate), `access_cells_per_s` the connection's access link.
    pub fn params(&self, hop_delay: SimDuration, hop_cell: SimDuration, next_cell: SimDuration, access_cells_per_s: f64) -> CreditParams {
        let policy_limit = match self.sizing {
            Sizing::Fixed => self.policy_limit.map_or(self.n2, |c| c.0),
            Sizing::Bdp => {
                let first_bsu = 2.0 * hop_delay.as_secs_f64() + self.n2 as f64 * next_cell.as_secs_f64() + 2.0 * hop_cell.as_secs_f64();
                ((access_cells_per_s * first_bsu).ceil() as u32).max(self.n2)
            }
        };
        CreditParams { n2: self.n2, policy_limit, allow_equal: self.allow_equal, t_bsc: self.t_bsc.0 }
    }
}

/// What a valid `[credit]` table does that its author may not expect, one line each (the
/// scenario's `notices`): a fixed Policy_Limit below N2.
pub(crate) fn notices(s: &crate::types::Scenario) -> Vec<String> {
    let Some(c) = &s.credit else { return Vec::new() };
    let p = c.params(SimDuration::ZERO, SimDuration::ZERO, SimDuration::ZERO, 0.0);
    if c.sizing != Sizing::Fixed || !p.below_n2() {
        return Vec::new();
    }
    vec![format!(
        "credit.policy_limit = {} cells is below N2 = {}: a transmitter sends {} cells, its receiver forwards them and empties its buffer \
         without having forwarded N2, so it never sends a BSU on its own; credit comes back only through the BSU that answers each BSC, \
         once every T_BSC ({}): each hop carries at most {} cells of a {} per T_BSC (`ccsim docs models/credit`)",
        p.policy_limit,
        p.n2,
        p.policy_limit,
        c.t_bsc.0,
        p.policy_limit,
        match c.scope {
            Scope::Vp => "VP",
            Scope::Connection => "connection",
        }
    )]
}

/// A source adapter with a buffer of its own (CT's, TCP over ABR's) must hold one whole PDU of
/// each connection, or the connection could never send.
pub(crate) fn validate_adapters(s: &crate::types::Scenario) -> Result<(), crate::ScenarioError> {
    use crate::transport::Transport;
    for (i, c) in s.connection.iter().enumerate() {
        let adapter = s.credit.is_some() || c.transport == Some(Transport::Abr);
        let cells = c.tcp.over(&s.defaults.tcp).frame_cells();
        if adapter && s.defaults.host_buffer.0 < cells {
            return Err(crate::ScenarioError::new(
                "defaults.host_buffer",
                format!("{} cells cannot hold one PDU of connection[{i}] ({cells} cells): its adapter could never send", s.defaults.host_buffer.0),
            ));
        }
    }
    Ok(())
}

/// `[credit]` needs TCP connections over ATM (UBR) alone: no ABR sources, background traffic,
/// IP routers or gateways share its ports (their cells would wait for credits nobody returns).
pub(crate) fn validate(s: &crate::types::Scenario) -> Result<(), crate::ScenarioError> {
    use crate::transport::Transport;
    let e = |path: &str, msg: String| Err(crate::ScenarioError::new(path, msg));
    for (i, conn) in s.connection.iter().enumerate() {
        if conn.vp.is_some() && !s.credit.as_ref().is_some_and(|c| c.scope == Scope::Vp) {
            return e(&format!("connection[{i}].vp"), "names a VP of credit control: only with [credit] scope = \"vp\"".into());
        }
    }
    let Some(c) = &s.credit else { return Ok(()) };
    if c.scope == Scope::Vp {
        let mut routes: std::collections::HashMap<String, &Vec<String>> = std::collections::HashMap::new();
        for (i, conn) in s.connection.iter().enumerate() {
            let route = routes.entry(conn.vp_name()).or_insert(&conn.route);
            if *route != &conn.route {
                return e(
                    &format!("connection[{i}].vp"),
                    format!("VP '{}' runs over route {:?}; this connection's route is {:?} (a VP's connections share one path)", conn.vp_name(), route, conn.route),
                );
            }
        }
    }
    match (c.sizing, c.policy_limit) {
        (Sizing::Fixed, None) => return e("credit.policy_limit", "required with sizing = \"fixed\" (cells, at least 1)".into()),
        (Sizing::Bdp, Some(_)) => return e("credit.policy_limit", "comes from the sizing rule with sizing = \"bdp\"; remove it".into()),
        _ => {}
    }
    let probe = c.params(SimDuration::ZERO, SimDuration::ZERO, SimDuration::ZERO, 0.0);
    if let Err((field, msg)) = probe.check() {
        return e(&format!("credit.{field}"), msg);
    }
    if !s.source.is_empty() {
        return e("source", "ABR sources cannot share credit-controlled ports ([credit] controls TCP connections only)".into());
    }
    if !s.background.is_empty() {
        return e("background", "background traffic has no place in a credit-controlled port's round robin".into());
    }
    if !s.gateway.is_empty() {
        return e("gateway", "gateways and [credit] do not combine".into());
    }
    for (i, conn) in s.connection.iter().enumerate() {
        if let Some(k) = conn.route.iter().position(|n| s.router.iter().any(|r| &r.name == n)) {
            return e(&format!("connection[{i}].route[{k}]"), format!("'{}' is an IP router: a credit-controlled hop must end at an ATM switch", conn.route[k]));
        }
        if conn.effective_transport(false) != Transport::Ubr {
            return e(&format!("connection[{i}].transport"), "credit control carries TCP over ATM (UBR), not over ABR".into());
        }
    }
    Ok(())
}
